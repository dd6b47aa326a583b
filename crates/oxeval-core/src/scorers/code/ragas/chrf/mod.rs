//! Ragas's `CHRFScore`: sacrebleu's corpus chrF of the response against the reference
//! (character n-grams of order 1..6 with whitespace removed, no word n-grams, β = 2, no
//! epsilon smoothing), divided by 100. Either text blank (whitespace only) → 0, as Ragas.

use super::py_space;
use std::collections::HashMap;

super::optionless_metric!(
    text Chrf,
    "createChrfScorer",
    "ragas-chrf-score",
    "chrF Score (Ragas)",
    "Ragas's CHRFScore: sacrebleu's character n-gram F-score of the output against the ground truth, in [0, 1]",
    "RagasChrf",
    "chrF: F-beta (β = 2) of the averaged character 1..6-gram precision and recall",
    chrf
);

/// sacrebleu's defaults (Ragas passes no `kwargs`).
const CHAR_ORDER: usize = 6;
const BETA: f64 = 2.0;

/// Ragas's CHRFScore of `response` against `reference`, in `[0, 1]`.
pub fn chrf(reference: &str, response: &str) -> f64 {
    let blank = |s: &str| s.chars().all(py_space);
    if blank(reference) || blank(response) {
        return 0.0;
    }
    let hyp: Vec<char> = response.chars().filter(|c| !py_space(*c)).collect();
    let refr: Vec<char> = reference.chars().filter(|c| !py_space(*c)).collect();
    let stats: Vec<[usize; 3]> = (1..=CHAR_ORDER)
        .map(|n| match_stats(&ngrams(&hyp, n), &ngrams(&refr, n)))
        .collect();
    f_score(&stats) / 100.0
}

fn ngrams(s: &[char], n: usize) -> HashMap<&[char], usize> {
    let mut m = HashMap::new();
    if s.len() >= n {
        for w in s.windows(n) {
            *m.entry(w).or_insert(0) += 1;
        }
    }
    m
}

/// `[hyp count (0 when the reference has none), ref count, matches]`.
fn match_stats(hyp: &HashMap<&[char], usize>, refr: &HashMap<&[char], usize>) -> [usize; 3] {
    let mut matched = 0;
    let mut hyp_count = 0;
    for (ng, c) in hyp {
        hyp_count += c;
        if let Some(r) = refr.get(ng) {
            matched += (*c).min(*r);
        }
    }
    let hyp_count = if refr.is_empty() { 0 } else { hyp_count };
    [hyp_count, refr.values().sum(), matched]
}

/// sacrebleu's `CHRF._compute_f_score` without epsilon smoothing, on the 0..100 scale.
fn f_score(stats: &[[usize; 3]]) -> f64 {
    let factor = BETA * BETA;
    let (mut avg_prec, mut avg_rec, mut order) = (0.0f64, 0.0f64, 0usize);
    for &[n_hyp, n_ref, n_match] in stats {
        if n_hyp > 0 && n_ref > 0 {
            avg_prec += n_match as f64 / n_hyp as f64;
            avg_rec += n_match as f64 / n_ref as f64;
            order += 1;
        }
    }
    if order == 0 {
        return 0.0;
    }
    avg_prec /= order as f64;
    avg_rec /= order as f64;
    if avg_prec + avg_rec == 0.0 {
        return 0.0;
    }
    let mut score = (1.0 + factor) * avg_prec * avg_rec;
    score /= factor * avg_prec + avg_rec;
    100.0 * score
}

#[cfg(test)]
mod tests {
    #[test]
    fn edges() {
        assert_eq!(super::chrf("", "abc"), 0.0);
        assert_eq!(super::chrf(" \u{1f}", "abc"), 0.0);
        assert_eq!(super::chrf("abc", "abc"), 1.0);
        assert_eq!(super::chrf("a b c", "abc"), 1.0);
    }
}
