//! Ragas's `BleuScore`: both texts split on `". "`; sacrebleu's `corpus_bleu` (13a
//! tokenizer, exp smoothing, n-grams 1..4, no effective order) of the response's parts
//! against one reference stream per reference part, divided by 100. sacrebleu pairs the
//! i-th hypothesis with the i-th line of every stream, and each stream has one line: only
//! the response's FIRST part is scored, against all the reference's parts as alternative
//! references (Ragas's behaviour, kept for its numbers; see docs/scorers-ragas.md).

mod tokenize;

use std::collections::HashMap;

pub use tokenize::tokenize_13a;

super::optionless_metric!(
    text Bleu,
    "createBleuScorer",
    "ragas-bleu-score",
    "BLEU Score (Ragas)",
    "Ragas's BleuScore: sacrebleu's BLEU of the output against the ground truth, in [0, 1]",
    "RagasBleu",
    "BLEU (sacrebleu, 13a tokens, exp smoothing) of the response's first sentence against the reference's sentences",
    bleu
);

/// sacrebleu's default n-gram order (Ragas passes no `kwargs`).
const MAX_ORDER: usize = 4;

/// Ragas's BleuScore of `response` against `reference`, in `[0, 1]`.
pub fn bleu(reference: &str, response: &str) -> f64 {
    let hyp = response.split(". ").next().unwrap_or_default();
    let hyp_tokens = tokens(hyp);
    let mut ref_ngrams: HashMap<&[String], usize> = HashMap::new();
    let ref_tokens: Vec<Vec<String>> = reference.split(". ").map(tokens).collect();
    for toks in &ref_tokens {
        for (ng, c) in ngram_counts(toks) {
            let e = ref_ngrams.entry(ng).or_insert(0);
            *e = (*e).max(c);
        }
    }
    let hyp_len = hyp_tokens.len();
    let ref_len = closest_ref_len(hyp_len, ref_tokens.iter().map(Vec::len));
    let mut correct = [0usize; MAX_ORDER];
    let mut total = [0usize; MAX_ORDER];
    for (ng, c) in ngram_counts(&hyp_tokens) {
        total[ng.len() - 1] += c;
        if let Some(r) = ref_ngrams.get(ng) {
            correct[ng.len() - 1] += c.min(*r);
        }
    }
    compute_bleu(&correct, &total, hyp_len, ref_len) / 100.0
}

/// sacrebleu's `_preprocess_segment` (rstrip, 13a) and `split()`.
fn tokens(segment: &str) -> Vec<String> {
    let s = segment.trim_end_matches(super::py_space);
    super::py_split(&tokenize_13a(s))
        .map(str::to_owned)
        .collect()
}

/// Every n-gram of order 1..4 with its count.
fn ngram_counts(toks: &[String]) -> HashMap<&[String], usize> {
    let mut m = HashMap::new();
    for n in 1..=MAX_ORDER {
        if toks.len() >= n {
            for w in toks.windows(n) {
                *m.entry(w).or_insert(0) += 1;
            }
        }
    }
    m
}

/// The reference length closest to the hypothesis's (the shorter on a tie).
fn closest_ref_len(hyp_len: usize, lens: impl Iterator<Item = usize>) -> usize {
    let mut best: Option<(usize, usize)> = None;
    for len in lens {
        let diff = hyp_len.abs_diff(len);
        best = match best {
            Some((d, l)) if d < diff || (d == diff && l <= len) => Some((d, l)),
            _ => Some((diff, len)),
        };
    }
    best.map_or(0, |(_, l)| l)
}

/// sacrebleu's `BLEU.compute_bleu` with `smooth_method='exp'`, on the 0..100 scale.
fn compute_bleu(correct: &[usize; 4], total: &[usize; 4], sys_len: usize, ref_len: usize) -> f64 {
    let mut bp = 1.0;
    if sys_len < ref_len {
        bp = if sys_len > 0 {
            (1.0 - ref_len as f64 / sys_len as f64).exp()
        } else {
            0.0
        };
    }
    if correct.iter().all(|c| *c == 0) {
        return 0.0;
    }
    let mut precisions = [0.0f64; MAX_ORDER];
    let mut smooth = 1.0f64;
    for n in 0..MAX_ORDER {
        if total[n] == 0 {
            break;
        }
        if correct[n] == 0 {
            smooth *= 2.0;
            precisions[n] = 100.0 / (smooth * total[n] as f64);
        } else {
            precisions[n] = 100.0 * correct[n] as f64 / total[n] as f64;
        }
    }
    let mut sum = 0.0f64;
    for p in precisions {
        sum += if p == 0.0 { -9999999999.0 } else { p.ln() };
    }
    bp * (sum / MAX_ORDER as f64).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges() {
        assert_eq!(bleu("", ""), 0.0);
        assert_eq!(bleu("the cat sat", "the cat sat"), 0.0);
        // sacrebleu: exp(ln 100) = 100.00000000000004
        assert_eq!(
            bleu("the cat sat on the mat", "the cat sat on the mat"),
            1.0000000000000004
        );
        assert_eq!(closest_ref_len(5, [3, 7, 4, 6].into_iter()), 4);
    }
}
