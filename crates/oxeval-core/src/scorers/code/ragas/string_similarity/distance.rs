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

/// Unit-cost edit distance: the common prefix and suffix dropped (they cost nothing), then
/// Myers / Hyyrö's bit-parallel algorithm over 64-row blocks of the shorter text.
fn levenshtein(a: &[char], b: &[char]) -> usize {
    let pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[pre..], &b[pre..]);
    let suf = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a, b) = (&a[..a.len() - suf], &b[..b.len() - suf]);
    let (p, t) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if p.is_empty() {
        return t.len();
    }
    myers(p, t)
}

/// Hyyrö (2003) / edlib's block form of Myers's algorithm: `p` the pattern (rows), `t` the
/// text (columns); the score is tracked at the last real row of the last block.
fn myers(p: &[char], t: &[char]) -> usize {
    let m = p.len();
    let blocks = m.div_ceil(64);
    // the pattern's alphabet, each character's match bits per block
    let mut alphabet: std::collections::HashMap<char, usize> = Default::default();
    let mut peq: Vec<u64> = Vec::new();
    for (i, c) in p.iter().enumerate() {
        let next = alphabet.len();
        let k = *alphabet.entry(*c).or_insert(next);
        if k == next {
            peq.resize(peq.len() + blocks, 0);
        }
        peq[k * blocks + i / 64] |= 1 << (i % 64);
    }
    let mut pv = vec![u64::MAX; blocks];
    let mut mv = vec![0u64; blocks];
    let last = (m - 1) % 64;
    let mut score = m as isize;
    for c in t {
        let eqs = alphabet.get(c).map(|k| &peq[k * blocks..(k + 1) * blocks]);
        let mut hin: i32 = 1; // row 0 of the table grows by one per column
        for w in 0..blocks {
            let mut eq = eqs.map_or(0, |e| e[w]);
            let neg = u64::from(hin < 0);
            let xv = eq | mv[w];
            eq |= neg;
            let xh = ((eq & pv[w]).wrapping_add(pv[w]) ^ pv[w]) | eq;
            let mut ph = mv[w] | !(xh | pv[w]);
            let mut mh = pv[w] & xh;
            let bit = if w + 1 == blocks { last } else { 63 };
            let hout = ((ph >> bit) & 1) as i32 - ((mh >> bit) & 1) as i32;
            ph = (ph << 1) | u64::from(hin > 0);
            mh = (mh << 1) | neg;
            pv[w] = mh | !(xv | ph);
            mv[w] = ph & xv;
            hin = hout;
        }
        score += hin as isize;
    }
    score as usize
}

/// The textbook dynamic programme (one row), the reference of the bit-parallel form's test.
#[cfg(test)]
fn levenshtein_dp(a: &[char], b: &[char]) -> usize {
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
    // each s1[i] takes the first free equal character of s2 in [i - bound, i + bound]: per
    // character, its positions in s2 are taken in increasing order and a position left behind
    // the window's low end never comes back, so one cursor per character finds it (linear)
    let mut positions: std::collections::HashMap<char, (Vec<usize>, usize)> = Default::default();
    for (j, c) in s2.iter().enumerate() {
        positions.entry(*c).or_default().0.push(j);
    }
    for (i, c) in s1.iter().enumerate() {
        let low = i.saturating_sub(bound);
        let hi = (i + bound).min(t - 1);
        let Some((list, cursor)) = positions.get_mut(c) else {
            continue;
        };
        while *cursor < list.len() && list[*cursor] < low {
            *cursor += 1;
        }
        if let Some(&j) = list.get(*cursor).filter(|&&j| j <= hi && low <= hi) {
            *cursor += 1;
            f1[i] = true;
            f2[j] = true;
            common += 1;
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

    #[test]
    fn bit_parallel_levenshtein_equals_the_dp() {
        // seeded pseudo-random texts over a small alphabet, 0..300 characters (1 to 5 blocks)
        let mut x: u64 = 38;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let alphabet: Vec<char> = "ab cé😀".chars().collect();
        for _ in 0..400 {
            let (la, lb) = ((next() % 300) as usize, (next() % 300) as usize);
            let a: Vec<char> = (0..la).map(|_| alphabet[(next() % 6) as usize]).collect();
            let mut b: Vec<char> = (0..lb).map(|_| alphabet[(next() % 6) as usize]).collect();
            if next() % 3 == 0 {
                b = a.clone();
                let at = (next() as usize) % (b.len() + 1);
                b.insert(at, 'z');
            }
            assert_eq!(
                super::levenshtein(&a, &b),
                super::levenshtein_dp(&a, &b),
                "{la} {lb}"
            );
        }
    }
}
