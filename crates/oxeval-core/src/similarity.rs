//! `string-similarity`'s `compareTwoStrings` (Dice's coefficient over bigrams), exact: the
//! strings lose ALL JavaScript whitespace (`/\s+/g`), bigrams are pairs of UTF-16 code
//! units (JS `substring`), counted as a multiset.

use crate::agent::js::is_js_space;

/// `compareTwoStrings(first, second)`.
pub fn compare_two_strings(first: &str, second: &str) -> f64 {
    let a = units_without_space(first);
    let b = units_without_space(second);
    if a == b {
        return 1.0;
    }
    if a.len() < 2 || b.len() < 2 {
        return 0.0;
    }
    // the multiset intersection of the two bigram lists (string-similarity's decrementing
    // map gives each shared bigram min(count in a, count in b)): both lists sorted, then
    // merged, with no hashing
    let mut x = bigrams(&a);
    let mut y = bigrams(&b);
    x.sort_unstable();
    y.sort_unstable();
    let (mut i, mut j, mut intersection) = (0, 0, 0usize);
    while i < x.len() && j < y.len() {
        match x[i].cmp(&y[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                intersection += 1;
                i += 1;
                j += 1;
            }
        }
    }
    (2.0 * intersection as f64) / (a.len() + b.len() - 2) as f64
}

/// A text's UTF-16 code units, JavaScript whitespace removed.
fn units_without_space(text: &str) -> Vec<u16> {
    let mut units = Vec::with_capacity(text.len());
    let mut buf = [0u16; 2];
    for c in text.chars().filter(|c| !is_js_space(*c)) {
        units.extend_from_slice(c.encode_utf16(&mut buf));
    }
    units
}

/// A text's bigrams (pairs of UTF-16 code units) as one number each.
fn bigrams(units: &[u16]) -> Vec<u32> {
    units
        .windows(2)
        .map(|w| (u32::from(w[0]) << 16) | u32::from(w[1]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dice_table() {
        let cases = [
            ("", "", 1.0),
            ("a", "a", 1.0),
            ("a", "b", 0.0),
            ("ab", "a", 0.0),
            ("healed", "sealed", 0.8),
            ("a b", "ab", 1.0),
            ("aaaa", "aa", 0.5),
            // one emoji is two UTF-16 code units: one bigram
            ("😀", "😀x", 2.0 / 3.0),
            ("\u{feff}ab", "ab", 1.0),
        ];
        for (a, b, want) in cases {
            let got = compare_two_strings(a, b);
            assert!((got - want).abs() < 1e-15, "{a:?} {b:?}: {got}");
        }
    }
}
