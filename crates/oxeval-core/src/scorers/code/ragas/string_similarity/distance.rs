//! rapidfuzz 3.14's normalized distances (`rapidfuzz.distance.*.normalized_distance` with
//! default arguments) over code points, written from its reference (pure Python) code:
//! Levenshtein and Hamming (`pad=True`) divide by the longer length (0 for two empty
//! texts); Jaro and Jaro-Winkler (prefix weight 0.1, prefix at most 4, boost above 0.7)
//! are `1 − similarity`.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    Levenshtein,
    Hamming,
    Jaro,
    JaroWinkler,
}

/// The normalized distance in `[0, 1]`.
pub fn normalized_distance(measure: Measure, a: &[char], b: &[char]) -> f64 {
    let longer = a.len().max(b.len());
    match measure {
        Measure::Levenshtein | Measure::Hamming => {
            if longer == 0 {
                return 0.0;
            }
            let d = if measure == Measure::Levenshtein {
                levenshtein(a, b)
            } else {
                hamming(a, b)
            };
            d as f64 / longer as f64
        }
        Measure::Jaro => 1.0 - jaro(a, b),
        Measure::JaroWinkler => 1.0 - jaro_winkler(a, b),
    }
}

/// Unit-cost edit distance (one row of the DP table).
fn levenshtein(a: &[char], b: &[char]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = diag + usize::from(ca != cb);
            diag = row[j + 1];
            row[j + 1] = sub.min(diag + 1).min(row[j] + 1);
        }
    }
    row[b.len()]
}

/// Positions that differ, plus the length difference (`pad=True`).
fn hamming(a: &[char], b: &[char]) -> usize {
    let differ = a.iter().zip(b).filter(|(x, y)| x != y).count();
    differ + a.len().abs_diff(b.len())
}

/// Jaro similarity (rapidfuzz's `Jaro.similarity`).
fn jaro(s1: &[char], s2: &[char]) -> f64 {
    if s1.is_empty() && s2.is_empty() {
        return 1.0;
    }
    let (p, t) = (s1.len(), s2.len());
    if p == 0 || t == 0 {
        return 0.0;
    }
    if p == 1 && t == 1 {
        return f64::from(u8::from(s1[0] == s2[0]));
    }
    let bound = (p.max(t) / 2).saturating_sub(1);
    let mut f1 = vec![false; p];
    let mut f2 = vec![false; t];
    let mut common = 0usize;
    for (i, c) in s1.iter().enumerate() {
        let low = i.saturating_sub(bound);
        let hi = (i + bound).min(t - 1);
        if low > hi {
            continue;
        }
        for j in low..=hi {
            if !f2[j] && s2[j] == *c {
                f1[i] = true;
                f2[j] = true;
                common += 1;
                break;
            }
        }
    }
    if common == 0 {
        return 0.0;
    }
    let (mut k, mut trans) = (0usize, 0usize);
    for (i, _) in f1.iter().enumerate().filter(|(_, f)| **f) {
        let mut j = k;
        while j < t {
            if f2[j] {
                k = j + 1;
                break;
            }
            j += 1;
        }
        if s1[i] != s2[j] {
            trans += 1;
        }
    }
    let trans = trans / 2;
    let c = common as f64;
    let mut sim = 0.0;
    sim += c / p as f64;
    sim += c / t as f64;
    sim += (common - trans) as f64 / c;
    sim / 3.0
}

/// Jaro-Winkler similarity (prefix weight 0.1).
fn jaro_winkler(s1: &[char], s2: &[char]) -> f64 {
    let max_prefix = s1.len().min(s2.len()).min(4);
    let prefix = s1
        .iter()
        .zip(s2)
        .take(max_prefix)
        .take_while(|(x, y)| x == y)
        .count();
    let mut sim = jaro(s1, s2);
    if sim > 0.7 {
        sim += prefix as f64 * 0.1 * (1.0 - sim);
        sim = sim.min(1.0);
    }
    sim
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(m: Measure, a: &str, b: &str) -> f64 {
        let a: Vec<char> = a.chars().collect();
        let b: Vec<char> = b.chars().collect();
        normalized_distance(m, &a, &b)
    }

    #[test]
    fn rapidfuzz_values() {
        // rapidfuzz 3.14.6's answers
        assert_eq!(d(Measure::Jaro, "abc", "abd"), 0.22222222222222232);
        assert_eq!(d(Measure::JaroWinkler, "abc", "abd"), 0.1777777777777778);
        assert_eq!(d(Measure::JaroWinkler, "ab", "a"), 0.1499999999999999);
        assert_eq!(d(Measure::Jaro, "ab", "ba"), 1.0);
        assert_eq!(d(Measure::Hamming, "ab", "a"), 0.5);
        assert_eq!(d(Measure::Levenshtein, "", ""), 0.0);
        assert_eq!(d(Measure::Jaro, "", ""), 0.0);
        assert_eq!(d(Measure::Jaro, "a", ""), 1.0);
    }
}
