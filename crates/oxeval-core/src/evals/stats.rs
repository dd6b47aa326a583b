//! The statistics of a run's scores: mean, spread, range and the bounded 95 % interval
//! (Wilson's score interval with an effective sample size; see [`bounded_ci`]). Pure.

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// Mean, spread and interval of some scores.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stats {
    pub n: u64,
    pub mean: Option<f64>,
    pub std: Option<f64>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub ci95: Option<[f64; 2]>,
}

/// The two-sided 95 % Student-t critical value for `df` degrees of freedom.
pub fn t_critical(df: u64) -> f64 {
    match StudentsT::new(0.0, 1.0, df as f64) {
        Ok(t) => t.inverse_cdf(0.975),
        Err(_) => f64::NAN,
    }
}

/// The two-sided 95 % normal quantile.
const Z95: f64 = 1.959_963_984_540_054;

/// The Wilson score interval of a proportion `p` over `n` (effective) observations: always
/// inside `[0, 1]`, and sensible at 0 and 1 where the normal interval collapses.
pub fn wilson(p: f64, n: f64) -> [f64; 2] {
    if n.is_nan() || n <= 0.0 || !p.is_finite() {
        return [0.0, 1.0];
    }
    if n.is_infinite() {
        return [p, p];
    }
    let z2 = Z95 * Z95;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = Z95 / denom * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).max(0.0).sqrt();
    [(centre - half).max(0.0), (centre + half).min(1.0)]
}

/// The 95 % interval of the mean of scores that lie in `[0, scale]`: the Wilson score
/// interval with the effective sample size `n* = n · p(1 − p) / v` (`p` the mean and `v` the
/// population variance of the scores divided by `scale`). For 0/1 scores `v = p(1 − p)`, so
/// `n* = n` and this is exactly Wilson's interval; for scores in between, `n* ≥ n` (a bounded
/// score can vary no more than a 0/1 one with the same mean) and the interval narrows with
/// the spread. Every score at 0 (or at `scale`) uses `n* = n`. The interval never leaves
/// `[0, scale]`; `None` below two scores.
pub fn bounded_ci(xs: &[f64], scale: f64) -> Option<[f64; 2]> {
    if xs.len() < 2 {
        return None;
    }
    let scale = if scale.is_finite() && scale > 0.0 {
        scale
    } else {
        1.0
    };
    let n = xs.len() as f64;
    // a score outside [0, scale] (a scorer that does not keep to its range) widens the range
    let hi = xs.iter().copied().fold(scale, f64::max);
    let lo = xs.iter().copied().fold(0.0, f64::min);
    let width = hi - lo;
    let us: Vec<f64> = xs.iter().map(|x| (x - lo) / width).collect();
    let p = us.iter().sum::<f64>() / n;
    let v = us.iter().map(|u| (u - p).powi(2)).sum::<f64>() / n;
    let pq = p * (1.0 - p);
    let n_eff = if pq <= 1e-15 {
        n
    } else if v <= 1e-15 {
        f64::INFINITY
    } else {
        (pq * n / v).max(n)
    };
    let [a, b] = wilson(p.clamp(0.0, 1.0), n_eff);
    Some([lo + a * width, lo + b * width])
}

/// Statistics of `xs` (summed in the given order) for scores in `[0, scale]`: mean, sample
/// standard deviation, range and the bounded 95 % interval ([`bounded_ci`]).
pub fn stats(xs: &[f64], scale: f64) -> Stats {
    let n = xs.len() as u64;
    if xs.is_empty() {
        return Stats {
            n,
            mean: None,
            std: None,
            min: None,
            max: None,
            ci95: None,
        };
    }
    let mean = xs.iter().sum::<f64>() / xs.len() as f64;
    let min = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let max = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let std = (xs.len() >= 2).then(|| {
        (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (xs.len() - 1) as f64).sqrt()
    });
    Stats {
        n,
        mean: Some(mean),
        std,
        min: Some(min),
        max: Some(max),
        ci95: bounded_ci(xs, scale),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn t_critical_values_match_the_table() {
        // two-sided 95 % (Student's table)
        for (df, t) in [
            (1, 12.706),
            (2, 4.303),
            (4, 2.776),
            (9, 2.262),
            (29, 2.045),
            (1000, 1.962),
        ] {
            assert!(
                (t_critical(df) - t).abs() < 1e-3,
                "df {df}: {}",
                t_critical(df)
            );
        }
    }

    #[test]
    fn stats_table() {
        let s = stats(&[], 1.0);
        assert_eq!((s.n, s.mean, s.std, s.ci95), (0, None, None, None));
        let s = stats(&[0.5], 1.0);
        assert_eq!((s.n, s.mean, s.std, s.ci95), (1, Some(0.5), None, None));
        let s = stats(&[1.0, 0.0], 1.0);
        assert!(close(s.mean.unwrap(), 0.5));
        assert!(close(s.std.unwrap(), std::f64::consts::FRAC_1_SQRT_2));
        // 0/1 scores: exactly Wilson's interval for 1 of 2 (the t interval was ±6.35)
        let [lo, hi] = s.ci95.unwrap();
        assert!(
            (lo - 0.094_531).abs() < 1e-5 && (hi - 0.905_469).abs() < 1e-5,
            "{lo} {hi}"
        );
        let s = stats(&[0.2, 0.4, 0.6, 0.8, 1.0], 1.0);
        assert!(close(s.mean.unwrap(), 0.6));
        assert!(close(s.std.unwrap(), 0.1f64.sqrt())); // variance 0.1
        assert_eq!((s.min, s.max), (Some(0.2), Some(1.0)));
        // population variance 0.08 → n* = 5 · 0.24 / 0.08 = 15: Wilson(0.6, 15)
        assert_eq!(s.ci95, Some(wilson(0.6, 15.0)));
        let same = stats(&[0.7, 0.7, 0.7], 1.0);
        assert!(same.std.unwrap() < 1e-12);
        let [lo, hi] = same.ci95.unwrap();
        assert!(close(lo, 0.7) && close(hi, 0.7));
    }

    #[test]
    fn intervals_never_leave_the_range() {
        // the two intervals the issue saw leave [0, 1] with Student's t
        for xs in [
            vec![0.0, 0.0, 0.4, 1.0, 0.8, 0.0, 0.1],
            vec![1.0, 1.0, 0.9, 1.0, 0.94, 1.0],
            vec![1.0, 1.0, 1.0, 1.0, 1.0],
            vec![0.0, 0.0],
            vec![0.0, 1.0, 1.0, 1.0],
        ] {
            let [lo, hi] = bounded_ci(&xs, 1.0).unwrap();
            let mean = xs.iter().sum::<f64>() / xs.len() as f64;
            assert!(
                (0.0..=1.0).contains(&lo) && (0.0..=1.0).contains(&hi),
                "{xs:?}: [{lo}, {hi}]"
            );
            assert!(
                lo <= mean + 1e-12 && mean <= hi + 1e-12,
                "{xs:?}: [{lo}, {hi}]"
            );
        }
        // every score at 1 of 5 is Wilson's 5 of 5, not a zero-width interval
        let [lo, hi] = bounded_ci(&[1.0; 5], 1.0).unwrap();
        assert!((lo - 0.565_509).abs() < 1e-5 && close(hi, 1.0), "{lo}");
        // a scale of 10: the same interval, ten times wider
        let a = bounded_ci(&[0.2, 0.5, 0.9], 1.0).unwrap();
        let b = bounded_ci(&[2.0, 5.0, 9.0], 10.0).unwrap();
        assert!(close(a[0] * 10.0, b[0]) && close(a[1] * 10.0, b[1]));
        // a score outside its range widens the range instead of breaking the interval
        let [lo, hi] = bounded_ci(&[0.5, 1.5], 1.0).unwrap();
        assert!(lo >= 0.0 && hi <= 1.5);
        // many items close together: narrower than 0/1 data with the same mean
        let tight: Vec<f64> = (0..100).map(|i| 0.5 + (i % 3) as f64 * 0.01).collect();
        let [lo, hi] = bounded_ci(&tight, 1.0).unwrap();
        assert!(hi - lo < 0.01, "{lo} {hi}");
    }

    #[test]
    fn wilson_matches_published_values() {
        // Wilson (1927) / Newcombe (1998) table: 81 of 263 → [0.2553, 0.3662]
        let [lo, hi] = wilson(81.0 / 263.0, 263.0);
        assert!(
            (lo - 0.2553).abs() < 1e-4 && (hi - 0.3662).abs() < 1e-4,
            "{lo} {hi}"
        );
        // 0 of 10 → [0, 0.2775]
        let [lo, hi] = wilson(0.0, 10.0);
        assert!(close(lo, 0.0) && (hi - 0.2775).abs() < 1e-4, "{hi}");
    }
}
