//! Comparing two runs of the same scorers (`oxeval compare base.jsonl head.jsonl`): items
//! paired by the caller (by id, else by input), and per scorer the mean of head − base over
//! the pairs with a paired test.
//!
//! The test is Wilcoxon's signed-rank test, two-sided: zero differences are dropped
//! (Wilcoxon's convention), ties among |differences| get average ranks; the p-value is exact
//! (the distribution of W⁺ by counting) for at most [`EXACT_MAX_N`] non-zero pairs without
//! ties, else the normal approximation with the tie correction and a continuity correction.
//! The 95 % interval of the mean difference is a paired percentile bootstrap
//! ([`BOOTSTRAP_RESAMPLES`] resamples, fixed seed: the same files give the same interval).
//! A scorer regressed when it got worse in its direction (a lower-is-better scorer regresses
//! when it rises), the p-value is below `alpha`, and |mean difference| ≥ `min_effect`.
//!
//! Every comparison also says what it could have detected: the fewest pairs with which the
//! signed-rank test can reach `alpha` at all ([`min_pairs`]: all differences in one direction
//! give the smallest p-value, 2 / 2ⁿ; 6 pairs at α = 0.05), whether this comparison has them
//! (`canDetect`: 3 starter items never can, and "no significant change" would then say
//! nothing), and the smallest mean change it would detect with 80 % power at its size and
//! the observed spread of the differences ([`detectable`]).
//!
//! With several base runs (`--base-runs K`, [`pooled`]) the base of an item is the mean of its
//! scores across the runs that scored it, and the judge's noise is measured ([`Noise`]): the
//! per-item standard deviation across the base runs, their pooled value σ, and the items whose
//! verdict flips among the base runs. From σ the noise floor: the change of the mean that judge
//! noise alone reaches at `alpha` (two-sided) when nothing else changed, z₁₋α/₂ · σ ·
//! √(mean over pairs of (1 + 1/Kᵢ) / n) (head's one score and base's mean of Kᵢ each carry
//! the noise). A change below the floor is *within noise*: never called a regression or an
//! improvement, and the smallest detectable change is never below the floor.

use crate::scorers::Direction;
use serde::Serialize;
use statrs::distribution::{ContinuousCDF, Normal};

/// Largest number of non-zero pairs whose p-value is computed exactly (no ties).
pub const EXACT_MAX_N: usize = 30;
/// Resamples of the paired bootstrap interval.
pub const BOOTSTRAP_RESAMPLES: usize = 4000;
/// The bootstrap's seed.
pub const BOOTSTRAP_SEED: u64 = 0x5EED_0E7A;

/// What `compare` says the method is.
pub const METHOD: &str = "Wilcoxon signed-rank test, two-sided (zero differences dropped; exact for up to 30 pairs without ties, else normal approximation with tie and continuity corrections); 95% interval: paired percentile bootstrap of the mean difference (4000 resamples, fixed seed)";

/// One scorer's comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Paired {
    /// Pairs where both runs have a score.
    pub n: usize,
    pub base_mean: Option<f64>,
    pub head_mean: Option<f64>,
    /// Mean of head − base.
    pub delta: Option<f64>,
    pub ci95: Option<[f64; 2]>,
    pub p_value: Option<f64>,
    pub regressed: bool,
    pub improved: bool,
    /// The fewest pairs with which the test can reach `alpha` ([`min_pairs`]).
    pub min_pairs: usize,
    /// Whether this comparison has that many pairs (else no change can be significant).
    pub can_detect: bool,
    /// The smallest |mean change| detectable with 80 % power at this size ([`detectable`]),
    /// and never below the noise floor when the noise was measured.
    pub detectable: Option<f64>,
    /// The judge noise measured across several base runs (`None` with one base run).
    pub noise: Option<Noise>,
    /// |delta| is below the noise floor (so neither regressed nor improved).
    pub within_noise: bool,
}

/// Judge noise of one scorer measured across several base runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Noise {
    /// The most base runs any paired item was scored in.
    pub runs: usize,
    /// Paired items scored in at least two base runs (the ones the noise is measured on).
    pub items: usize,
    /// Mean over those items of the sample standard deviation of their base scores.
    pub mean_sd: Option<f64>,
    /// The pooled within-item standard deviation σ (√(Σ (Kᵢ−1) sᵢ² / Σ (Kᵢ−1))).
    pub pooled_sd: Option<f64>,
    /// Items whose verdict (pass / fail) differs among the base runs.
    pub flips: usize,
    /// z₁₋α/₂ · σ · √(mean (1 + 1/Kᵢ) / n): the change judge noise alone reaches.
    pub floor: Option<f64>,
}

/// The fewest pairs `n` with which a two-sided signed-rank test can reach p < `alpha`: its
/// smallest p-value, every difference in one direction, is 2 / 2ⁿ.
pub fn min_pairs(alpha: f64) -> usize {
    (1..=64)
        .find(|&n| 2.0 / 2f64.powi(n as i32) < alpha)
        .unwrap_or(64)
}

/// The smallest |mean difference| detectable two-sided at `alpha` with 80 % power by a paired
/// test on `d` (normal approximation: (z₁₋α/₂ + z₀.₈) · s / √n, `s` the differences' sample
/// standard deviation); `None` below two pairs, or when the differences do not vary.
pub fn detectable(d: &[f64], alpha: f64) -> Option<f64> {
    if d.len() < 2 {
        return None;
    }
    let n = d.len() as f64;
    let m = d.iter().sum::<f64>() / n;
    let sd = (d.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    if sd.is_nan() || sd <= 0.0 {
        return None;
    }
    let normal = Normal::new(0.0, 1.0).ok()?;
    let z = normal.inverse_cdf(1.0 - alpha / 2.0) + normal.inverse_cdf(0.8);
    Some(z * sd / n.sqrt())
}

/// The judge noise in `samples` (per paired item, its scores across the base runs; at least
/// one each), at `alpha`; `pass` is the verdict of one score.
pub fn noise(samples: &[Vec<f64>], alpha: f64, pass: &dyn Fn(f64) -> bool) -> Noise {
    let (mut sds, mut ss, mut df, mut flips) = (Vec::new(), 0.0, 0usize, 0);
    for xs in samples.iter().filter(|xs| xs.len() >= 2) {
        let m = xs.iter().sum::<f64>() / xs.len() as f64;
        let sq: f64 = xs.iter().map(|x| (x - m).powi(2)).sum();
        sds.push((sq / (xs.len() - 1) as f64).sqrt());
        ss += sq;
        df += xs.len() - 1;
        let first = pass(xs[0]);
        flips += usize::from(xs.iter().any(|&x| pass(x) != first));
    }
    let pooled_sd = (df > 0).then(|| (ss / df as f64).sqrt());
    let n = samples.len() as f64;
    let spread = samples
        .iter()
        .map(|xs| 1.0 + 1.0 / xs.len().max(1) as f64)
        .sum::<f64>()
        / n;
    let z = Normal::new(0.0, 1.0)
        .map(|d| d.inverse_cdf(1.0 - alpha / 2.0))
        .unwrap_or(f64::NAN);
    Noise {
        runs: samples.iter().map(Vec::len).max().unwrap_or(0),
        items: sds.len(),
        mean_sd: mean(&sds),
        pooled_sd,
        flips,
        floor: pooled_sd
            .filter(|_| n > 0.0)
            .map(|sd| z * sd * (spread / n).sqrt()),
    }
}

/// [`paired`] against several base runs: `samples[i]` are item i's base scores (its base is
/// their mean), and the measured noise decides what is within it.
pub fn pooled(
    samples: &[Vec<f64>],
    head: &[f64],
    direction: Direction,
    alpha: f64,
    min_effect: f64,
    pass: &dyn Fn(f64) -> bool,
) -> Paired {
    let n = samples.len().min(head.len());
    let base: Vec<f64> = samples[..n]
        .iter()
        .map(|xs| mean(xs).unwrap_or(f64::NAN))
        .collect();
    let mut p = paired(&base, &head[..n], direction, alpha, min_effect);
    let nz = noise(&samples[..n], alpha, pass);
    if let Some(floor) = nz.floor {
        p.within_noise = p.delta.is_some_and(|d| d.abs() < floor);
        p.regressed &= !p.within_noise;
        p.improved &= !p.within_noise;
        p.detectable = Some(p.detectable.map_or(floor, |d| d.max(floor)));
    }
    p.noise = Some(nz);
    p
}

fn mean(xs: &[f64]) -> Option<f64> {
    (!xs.is_empty()).then(|| xs.iter().sum::<f64>() / xs.len() as f64)
}

/// Compare paired scores (`base[i]`, `head[i]` of the same item).
pub fn paired(
    base: &[f64],
    head: &[f64],
    direction: Direction,
    alpha: f64,
    min_effect: f64,
) -> Paired {
    let n = base.len().min(head.len());
    let d: Vec<f64> = (0..n).map(|i| head[i] - base[i]).collect();
    let delta = mean(&d);
    let p_value = wilcoxon(&d);
    let ci95 = bootstrap_ci(&d, BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED);
    let significant = p_value.is_some_and(|p| p < alpha);
    let worse = |x: f64| match direction {
        Direction::Higher => x < 0.0,
        Direction::Lower => x > 0.0,
    };
    let big = delta.is_some_and(|x| x.abs() >= min_effect && x != 0.0);
    Paired {
        n,
        base_mean: mean(&base[..n]),
        head_mean: mean(&head[..n]),
        delta,
        ci95,
        p_value,
        regressed: significant && big && delta.is_some_and(worse),
        improved: significant && big && delta.is_some_and(|x| !worse(x)),
        min_pairs: min_pairs(alpha),
        can_detect: n >= min_pairs(alpha),
        detectable: detectable(&d, alpha),
        noise: None,
        within_noise: false,
    }
}

/// Average ranks (1-based) of `xs`, ties sharing the mean of their ranks; and the tie groups'
/// sizes.
fn ranks(xs: &[f64]) -> (Vec<f64>, Vec<usize>) {
    let mut order: Vec<usize> = (0..xs.len()).collect();
    order.sort_by(|&a, &b| xs[a].total_cmp(&xs[b]));
    let mut r = vec![0.0; xs.len()];
    let mut ties = Vec::new();
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && xs[order[j + 1]] == xs[order[i]] {
            j += 1;
        }
        let avg = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            r[k] = avg;
        }
        if j > i {
            ties.push(j - i + 1);
        }
        i = j + 1;
    }
    (r, ties)
}

/// The two-sided p-value of Wilcoxon's signed-rank test on differences `d`; `None` when every
/// difference is zero (nothing to test) or there are none.
pub fn wilcoxon(d: &[f64]) -> Option<f64> {
    let nz: Vec<f64> = d
        .iter()
        .copied()
        .filter(|x| *x != 0.0 && x.is_finite())
        .collect();
    let n = nz.len();
    if n == 0 {
        return None;
    }
    let abs: Vec<f64> = nz.iter().map(|x| x.abs()).collect();
    let (r, ties) = ranks(&abs);
    let w_plus: f64 = nz
        .iter()
        .zip(&r)
        .filter(|(x, _)| **x > 0.0)
        .map(|(_, r)| r)
        .sum();
    let total = (n * (n + 1)) as f64 / 2.0;
    if ties.is_empty() && n <= EXACT_MAX_N {
        // counts[w] = number of sign assignments with W⁺ = w (ranks 1..n)
        let max = n * (n + 1) / 2;
        let mut counts = vec![0f64; max + 1];
        counts[0] = 1.0;
        for k in 1..=n {
            for w in (k..=max).rev() {
                counts[w] += counts[w - k];
            }
        }
        let all = 2f64.powi(n as i32);
        let w = w_plus.round() as usize;
        let lo: f64 = counts[..=w.min(max)].iter().sum::<f64>() / all;
        let hi: f64 = counts[w.min(max)..].iter().sum::<f64>() / all;
        return Some((2.0 * lo.min(hi)).min(1.0));
    }
    let mean = total / 2.0;
    let tie_term: f64 = ties.iter().map(|&t| (t * t * t - t) as f64).sum::<f64>() / 48.0;
    let var = (n * (n + 1) * (2 * n + 1)) as f64 / 24.0 - tie_term;
    if var <= 0.0 {
        return Some(1.0);
    }
    let z = ((w_plus - mean).abs() - 0.5).max(0.0) / var.sqrt();
    let normal = Normal::new(0.0, 1.0).ok()?;
    Some((2.0 * (1.0 - normal.cdf(z))).min(1.0))
}

/// The paired percentile bootstrap 95 % interval of the mean of `d`; `None` for fewer than
/// two pairs.
pub fn bootstrap_ci(d: &[f64], resamples: usize, seed: u64) -> Option<[f64; 2]> {
    if d.len() < 2 {
        return None;
    }
    let mut rng = fastrand::Rng::with_seed(seed);
    let n = d.len();
    let mut means: Vec<f64> = (0..resamples)
        .map(|_| (0..n).map(|_| d[rng.usize(..n)]).sum::<f64>() / n as f64)
        .collect();
    means.sort_by(f64::total_cmp);
    let at = |q: f64| means[((q * (resamples - 1) as f64).round() as usize).min(resamples - 1)];
    Some([at(0.025), at(0.975)])
}

/// [`paired`] for each scorer of `{ scorers: [{ id, direction?, base: number[], head:
/// number[] }], alpha?, minEffect? }` (JSON, as the CLI sends it): `{ method, alpha,
/// minEffect, scorers: [{ id, direction, n, baseMean, headMean, delta, ci95, pValue,
/// regressed, improved, minPairs, canDetect, detectable, noise, withinNoise }] }`. With
/// several base runs a scorer sends `baseRuns: number[][]` (per pair, the item's scores in
/// the base runs) instead of `base`, and `threshold?` / `scale?` for the verdict flips
/// ([`pooled`]).
pub fn compare_json(
    input: &serde_json::Value,
) -> Result<serde_json::Value, crate::InvalidArgument> {
    use serde_json::{json, Value};
    let bad = |m: String| crate::InvalidArgument::options(m);
    let alpha = match input.get("alpha") {
        None | Some(Value::Null) => 0.05,
        Some(v) => v.as_f64().filter(|a| *a > 0.0 && *a < 1.0).ok_or_else(|| {
            bad(format!(
                "alpha must be a number between 0 and 1 (exclusive); got {v}"
            ))
        })?,
    };
    let min_effect = match input.get("minEffect") {
        None | Some(Value::Null) => 0.0,
        Some(v) => v
            .as_f64()
            .filter(|m| *m >= 0.0 && m.is_finite())
            .ok_or_else(|| bad(format!("minEffect must be a non-negative number; got {v}")))?,
    };
    let list = input
        .get("scorers")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("scorers must be an array".into()))?;
    let numbers = |v: Option<&Value>, what: &str| -> Result<Vec<f64>, crate::InvalidArgument> {
        v.and_then(Value::as_array)
            .ok_or_else(|| bad(format!("{what} must be an array of numbers")))?
            .iter()
            .map(|x| {
                x.as_f64()
                    .filter(|f| f.is_finite())
                    .ok_or_else(|| bad(format!("{what} holds {x}, not a finite number")))
            })
            .collect()
    };
    let mut out = Vec::new();
    for s in list {
        let id = s
            .get("id")
            .and_then(Value::as_str)
            .ok_or_else(|| bad("each scorer needs a string id".into()))?;
        let direction = match s.get("direction").and_then(Value::as_str) {
            Some("lower") => Direction::Lower,
            _ => Direction::Higher,
        };
        let head = numbers(s.get("head"), &format!("{id}.head"))?;
        let runs = match s.get("baseRuns") {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                v.as_array()
                    .ok_or_else(|| bad(format!("{id}.baseRuns must be an array of arrays")))?
                    .iter()
                    .map(|xs| numbers(Some(xs), &format!("{id}.baseRuns[]")))
                    .collect::<Result<Vec<_>, _>>()?,
            ),
        };
        let paired_len = runs.as_ref().map_or_else(
            || numbers(s.get("base"), &format!("{id}.base")).map(|b| b.len()),
            |r| Ok(r.len()),
        )?;
        if paired_len != head.len() {
            return Err(bad(format!(
                "{id}: base and head must pair up ({paired_len} vs {} scores)",
                head.len()
            )));
        }
        let p = match &runs {
            Some(r) => {
                if r.iter().any(Vec::is_empty) {
                    return Err(bad(format!("{id}.baseRuns: every pair needs a base score")));
                }
                let verdict = Verdict::of(s);
                pooled(r, &head, direction, alpha, min_effect, &|x| {
                    verdict.passes(x)
                })
            }
            None => {
                let base = numbers(s.get("base"), &format!("{id}.base"))?;
                paired(&base, &head, direction, alpha, min_effect)
            }
        };
        let mut v = serde_json::to_value(&p).unwrap_or_default();
        v["id"] = json!(id);
        v["direction"] = json!(direction);
        out.push(v);
    }
    Ok(json!({ "method": METHOD, "alpha": alpha, "minEffect": min_effect, "scorers": out }))
}

/// A scorer's pass rule for counting verdict flips: `threshold` (a number: score ≥ it; `{ min?,
/// max? }`: within), else at least half its `scale` (default 1), as the store's flaky items.
struct Verdict {
    min: Option<f64>,
    max: Option<f64>,
}

impl Verdict {
    fn of(s: &serde_json::Value) -> Verdict {
        let t = &s["threshold"];
        match t.as_f64() {
            Some(m) => Verdict {
                min: Some(m),
                max: None,
            },
            None if t.is_object() => Verdict {
                min: t["min"].as_f64(),
                max: t["max"].as_f64(),
            },
            None => Verdict {
                min: Some(0.5 * s["scale"].as_f64().unwrap_or(1.0)),
                max: None,
            },
        }
    }
    fn passes(&self, x: f64) -> bool {
        self.min.is_none_or(|m| x >= m) && self.max.is_none_or(|m| x <= m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn exact_p_values_match_the_tables() {
        // all 8 differences positive: W+ = 36, P(W+ >= 36) = 1/256, two-sided 2/256
        let d: Vec<f64> = (1..=8).map(|i| i as f64 / 10.0).collect();
        assert!(close(wilcoxon(&d).unwrap(), 2.0 / 256.0, 1e-12));
        // n = 5, one negative of rank 1: W+ = 14; P(W+ >= 14) = 2/32 → two-sided 0.125
        let d = [-0.1, 0.2, 0.3, 0.4, 0.5];
        assert!(close(wilcoxon(&d).unwrap(), 0.125, 1e-12));
        // symmetric: p = 1 (capped)
        let d = [-0.1, 0.1 + 1e-9, -0.3, 0.3 + 1e-9];
        assert!(wilcoxon(&d).unwrap() > 0.6);
        // zeros dropped; none left: no test
        assert_eq!(wilcoxon(&[0.0, 0.0]), None);
        assert!(close(wilcoxon(&[0.0, 0.1, 0.2, 0.3]).unwrap(), 0.25, 1e-12));
    }

    #[test]
    fn the_normal_approximation_with_ties() {
        // 40 differences of +0.1 and 10 of −0.1: all |d| tied (rank 25.5 each)
        let mut d = vec![0.1; 40];
        d.extend(vec![-0.1; 10]);
        // W+ = 40 × 25.5 = 1020; mean 637.5; var = 50·51·101/24 − (50³ − 50)/48 = 10731.25 − 2603.125
        let z = (1020.0f64 - 637.5 - 0.5) / (10731.25f64 - 2603.125).sqrt();
        let want = 2.0 * (1.0 - Normal::new(0.0, 1.0).unwrap().cdf(z));
        assert!(close(wilcoxon(&d).unwrap(), want, 1e-12));
        assert!(want < 1e-4);
    }

    #[test]
    fn regression_follows_the_direction_alpha_and_the_effect() {
        let base = vec![0.9; 20];
        let head: Vec<f64> = (0..20).map(|i| 0.9 - 0.01 * (i as f64 + 1.0)).collect();
        let p = paired(&base, &head, Direction::Higher, 0.05, 0.0);
        assert!(p.regressed && !p.improved, "{p:?}");
        assert!(close(p.delta.unwrap(), -0.105, 1e-12));
        let [lo, hi] = p.ci95.unwrap();
        assert!(lo < -0.105 && -0.105 < hi && hi < 0.0, "{lo} {hi}");
        // a lower-is-better scorer improved by the same drop
        let q = paired(&base, &head, Direction::Lower, 0.05, 0.0);
        assert!(q.improved && !q.regressed);
        // too small an effect for min_effect
        assert!(!paired(&base, &head, Direction::Higher, 0.05, 0.2).regressed);
        // no change: no test, no regression
        let same = paired(&base, &base, Direction::Higher, 0.05, 0.0);
        assert_eq!(
            (same.p_value, same.regressed, same.delta),
            (None, false, Some(0.0))
        );
        // the interval is the same on every run (fixed seed)
        assert_eq!(
            p.ci95,
            paired(&base, &head, Direction::Higher, 0.05, 0.0).ci95
        );
        let one = paired(&[0.5], &[0.4], Direction::Higher, 0.05, 0.0);
        assert_eq!((one.n, one.ci95), (1, None));
    }

    #[test]
    fn what_a_comparison_can_detect() {
        // 2 / 2^n < alpha: 6 pairs at 0.05 (2/64 = 0.031), 8 at 0.01 (2/256 = 0.0078)
        assert_eq!(min_pairs(0.05), 6);
        assert_eq!(min_pairs(0.01), 8);
        assert!(wilcoxon(&[0.1, 0.2, 0.3, 0.4, 0.5]).unwrap() >= 0.05);
        assert!(wilcoxon(&[0.1, 0.2, 0.3, 0.4, 0.5, 0.6]).unwrap() < 0.05);
        // three starter items: every one worse, and still nothing can be significant
        let p = paired(
            &[1.0, 1.0, 1.0],
            &[0.0, 0.2, 0.5],
            Direction::Higher,
            0.05,
            0.0,
        );
        assert!(!p.can_detect && !p.regressed && p.min_pairs == 6);
        let q = paired(
            &[1.0; 6],
            &[0.0, 0.2, 0.5, 0.1, 0.3, 0.4],
            Direction::Higher,
            0.05,
            0.0,
        );
        assert!(q.can_detect && q.regressed);
        // (1.95996 + 0.84162) · s / √n for d = [0, 1]: s = 0.7071, n = 2 → 1.40079
        let m = detectable(&[0.0, 1.0], 0.05).unwrap();
        assert!((m - 1.400_79).abs() < 1e-4, "{m}");
        assert_eq!(detectable(&[0.5, 0.5, 0.5], 0.05), None);
        assert_eq!(detectable(&[0.5], 0.05), None);
    }

    #[test]
    fn judge_noise_across_base_runs() {
        // item sds: √0.02 = 0.141421, 0, √0.08 = 0.282843; pooled √(0.1 / 3) = 0.182574;
        // floor = 1.959964 · 0.182574 · √(1.5 / 3) = 0.253030; item 3 flips at 0.5
        let samples = vec![vec![0.8, 1.0], vec![0.5, 0.5], vec![0.2, 0.6]];
        let nz = noise(&samples, 0.05, &|x| x >= 0.5);
        assert_eq!((nz.runs, nz.items, nz.flips), (2, 3, 1));
        assert!(close(nz.mean_sd.unwrap(), 0.141_421, 1e-6), "{nz:?}");
        assert!(close(nz.pooled_sd.unwrap(), 0.182_574, 1e-6), "{nz:?}");
        assert!(close(nz.floor.unwrap(), 0.253_030, 1e-5), "{nz:?}");
        // unequal run counts: pooled over degrees of freedom, (1 + 1/Kᵢ) per pair;
        // [0.8, 1.0] (ss 0.02, df 1) and [0, 0.3, 0.6] (ss 0.18, df 2): σ = √(0.2 / 3)
        let nz = noise(
            &[vec![0.8, 1.0], vec![0.0, 0.3, 0.6], vec![0.7]],
            0.05,
            &|x| x >= 0.5,
        );
        let sigma = (0.2f64 / 3.0).sqrt();
        let spread = (1.5 + 4.0 / 3.0 + 2.0) / 3.0;
        assert_eq!((nz.runs, nz.items, nz.flips), (3, 2, 1));
        assert!(close(
            nz.floor.unwrap(),
            1.959_964 * sigma * (spread / 3.0f64).sqrt(),
            1e-5
        ));
        // one run each: nothing measured
        let one = noise(&[vec![0.5], vec![0.7]], 0.05, &|x| x >= 0.5);
        assert_eq!(
            (one.items, one.pooled_sd, one.floor, one.flips),
            (0, None, None, 0)
        );
    }

    #[test]
    fn a_change_within_the_judge_noise_is_not_a_regression() {
        // base runs score every item 0.4 and 0.6 (σ = 0.141421, floor over 20 pairs
        // 1.959964 · 0.141421 · √(1.5 / 20) = 0.075906)
        let samples = vec![vec![0.4, 0.6]; 20];
        let small = pooled(&samples, &[0.45; 20], Direction::Higher, 0.05, 0.0, &|x| {
            x >= 0.5
        });
        assert!(
            small.p_value.unwrap() < 0.05,
            "the test alone would call it: {small:?}"
        );
        assert!(
            small.within_noise && !small.regressed && !small.improved,
            "{small:?}"
        );
        assert!(close(small.base_mean.unwrap(), 0.5, 1e-12));
        assert!(
            close(small.detectable.unwrap(), 0.075_906, 1e-5),
            "{small:?}"
        );
        assert_eq!(small.noise.as_ref().unwrap().flips, 20);
        let big = pooled(&samples, &[0.3; 20], Direction::Higher, 0.05, 0.0, &|x| {
            x >= 0.5
        });
        assert!(big.regressed && !big.within_noise, "{big:?}");
        // one base run: the plain paired comparison, noise not measured
        let single = pooled(
            &vec![vec![0.5]; 20],
            &[0.45; 20],
            Direction::Higher,
            0.05,
            0.0,
            &|x| x >= 0.5,
        );
        assert!(single.regressed && !single.within_noise);
        assert_eq!(single.noise.unwrap().floor, None);
    }

    #[test]
    fn compare_json_takes_base_runs_and_the_threshold() {
        let v = compare_json(
            &serde_json::json!({ "scorers": [{ "id": "f", "threshold": 0.9,
            "baseRuns": [[0.8, 1.0], [0.5, 0.5], [0.2, 0.6]], "head": [0.9, 0.5, 0.4] }] }),
        )
        .unwrap();
        let s = &v["scorers"][0];
        assert_eq!(s["noise"]["flips"], 1, "{s}");
        assert_eq!(s["baseMean"], serde_json::json!((0.9 + 0.5 + 0.4) / 3.0));
        assert_eq!(s["withinNoise"], true);
        let e = compare_json(&serde_json::json!({ "scorers": [{ "id": "f",
            "baseRuns": [[0.8], []], "head": [0.9, 0.5] }] }));
        assert!(e
            .unwrap_err()
            .to_string()
            .contains("every pair needs a base score"));
        let plain = compare_json(&serde_json::json!({ "scorers": [{ "id": "f",
            "base": [0.8], "head": [0.9] }] }))
        .unwrap();
        assert_eq!(plain["scorers"][0]["noise"], serde_json::Value::Null);
    }
}
