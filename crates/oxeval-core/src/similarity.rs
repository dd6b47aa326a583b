//! `string-similarity`'s `compareTwoStrings` (Dice's coefficient over bigrams), exact: the
//! strings lose ALL JavaScript whitespace (`/\s+/g`), bigrams are pairs of UTF-16 code
//! units (JS `substring`), counted as a multiset.

use crate::agent::js::is_js_space;
use std::collections::HashMap;

/// `compareTwoStrings(first, second)`.
pub fn compare_two_strings(first: &str, second: &str) -> f64 {
    let a: Vec<u16> = first
        .chars()
        .filter(|c| !is_js_space(*c))
        .collect::<String>()
        .encode_utf16()
        .collect();
    let b: Vec<u16> = second
        .chars()
        .filter(|c| !is_js_space(*c))
        .collect::<String>()
        .encode_utf16()
        .collect();
    if a == b {
        return 1.0;
    }
    if a.len() < 2 || b.len() < 2 {
        return 0.0;
    }
    let mut bigrams: HashMap<(u16, u16), usize> = HashMap::with_capacity(a.len());
    for w in a.windows(2) {
        *bigrams.entry((w[0], w[1])).or_insert(0) += 1;
    }
    let mut intersection = 0usize;
    for w in b.windows(2) {
        if let Some(c) = bigrams.get_mut(&(w[0], w[1])) {
            if *c > 0 {
                *c -= 1;
                intersection += 1;
            }
        }
    }
    (2.0 * intersection as f64) / (a.len() + b.len() - 2) as f64
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
