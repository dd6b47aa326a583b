//! Mastra's `createTextualDifferenceScorer`: the LCS similarity ratio of the input's and the
//! output's texts (UTF-16 code units), with the changed-word count and length difference.

use super::js_text::{collapse_spaces, js_words, run_text, Side};
use crate::error::InvalidArgument;
use crate::pipeline::{RunError, ScoreResult};
use crate::run::RunInput;
use crate::scorers::spec::{boxed, schema_of, Kind, ScorerSpec, StepMeta};
use crate::scorers::ScorerMeta;
use schemars::JsonSchema;
use serde::Serialize;

pub const SPEC: ScorerSpec = ScorerSpec {
    factory: "createTextualDifferenceScorer",
    id: "textual-difference-scorer",
    name: "Textual Difference Scorer",
    description:
        "Calculate textual difference between input and output using sequence matching algorithms.",
    family: "mastra",
    type_name: "TextualDifference",
    kind: Kind::Code,
    inputs: super::TEXT_INPUTS,
    run_fields: None,
    extractors: &[],
    options: schema_of::<JsOptions>,
    nested_options: None,
    preprocess: Some(schema_of::<Difference>),
    analyze: None,
    steps: &[
        StepMeta::function(
            "preprocess",
            "LCS ratio, changed words and length difference of the input's and the output's texts",
        ),
        StepMeta::function("generateScore", "The ratio"),
    ],
    build: |v, _| boxed(TextualDifference::build(v)),
};

/// No options of its own (`id` and `name` only).
#[derive(JsonSchema)]
pub struct JsOptions {}

/// `preprocessStepResult`.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Difference {
    /// 2·LCS / (|input| + |output|) over UTF-16 code units; 1 for equal texts.
    pub ratio: f64,
    /// 1 − lengthDiff.
    pub confidence: f64,
    /// Words changed (greedy word matching), or the word-count change of a whitespace-only edit.
    pub changes: u64,
    /// |length difference| / the longer length (0 when both are empty).
    pub length_diff: f64,
}

pub struct TextualDifference {
    meta: ScorerMeta,
}

impl TextualDifference {
    fn build(_: &serde_json::Value) -> Result<Self, InvalidArgument> {
        Ok(TextualDifference {
            meta: ScorerMeta::code(&SPEC, "agent"),
        })
    }

    pub(crate) fn run_sync(&self, run: RunInput) -> Result<ScoreResult, RunError> {
        let input = run_text(run.input.as_ref(), Side::Input)?;
        let output = run_text(Some(&run.output), Side::Output)?;
        let d = difference(&input, &output);
        Ok(super::text_result::<_, ()>(run.run_id, d.ratio, &d, None))
    }
}

crate::impl_scorer!(TextualDifference, sync);

/// The whole preprocess step.
pub fn difference(a: &str, b: &str) -> Difference {
    let ua: Vec<u16> = a.encode_utf16().collect();
    let ub: Vec<u16> = b.encode_utf16().collect();
    let max = ua.len().max(ub.len());
    let length_diff = if max > 0 {
        ua.len().abs_diff(ub.len()) as f64 / max as f64
    } else {
        0.0
    };
    Difference {
        ratio: ratio(&ua, &ub),
        confidence: 1.0 - length_diff,
        changes: changes(a, b),
        length_diff,
    }
}

fn ratio(a: &[u16], b: &[u16]) -> f64 {
    if a == b {
        return 1.0;
    }
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    2.0 * lcs(a, b) as f64 / (a.len() + b.len()) as f64
}

/// Length of the longest common subsequence (the classic DP, two rows).
fn lcs(a: &[u16], b: &[u16]) -> usize {
    let mut prev = vec![0usize; b.len() + 1];
    let mut cur = vec![0usize; b.len() + 1];
    for &x in a {
        for (j, &y) in b.iter().enumerate() {
            cur[j + 1] = if x == y {
                prev[j] + 1
            } else {
                prev[j + 1].max(cur[j])
            };
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// Mastra's `countChanges`.
fn changes(a: &str, b: &str) -> u64 {
    let na = collapse_spaces(a);
    let nb = collapse_spaces(b);
    if na == nb {
        if a != b {
            let d = js_words(a).len().abs_diff(js_words(b).len());
            return if d == 0 { 1 } else { d as u64 };
        }
        return 0;
    }
    let wa = js_words(&na);
    let wb = js_words(&nb);
    match (wa.is_empty(), wb.is_empty()) {
        (true, true) => 0,
        (true, false) => wb.len() as u64,
        (false, true) => wa.len() as u64,
        (false, false) => {
            // greedy: each word of `a` takes the first unused equal word of `b`
            let mut used = vec![false; wb.len()];
            let mut matched = 0;
            for w in &wa {
                if let Some(j) = (0..wb.len()).find(|&j| !used[j] && wb[j] == *w) {
                    used[j] = true;
                    matched += 1;
                }
            }
            (wa.len().max(wb.len()) - matched) as u64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formula_edges() {
        let d = difference("", "");
        assert_eq!(
            (d.ratio, d.changes, d.length_diff, d.confidence),
            (1.0, 0, 0.0, 1.0)
        );
        let d = difference("abc", "");
        assert_eq!(
            (d.ratio, d.changes, d.length_diff, d.confidence),
            (0.0, 1, 1.0, 0.0)
        );
        let d = difference("", "a b");
        assert_eq!((d.ratio, d.changes), (0.0, 2));
        let d = difference("same text", "same text");
        assert_eq!((d.ratio, d.changes, d.length_diff), (1.0, 0, 0.0));
        // a whitespace-only edit: at least one change
        assert_eq!(difference("a b", "a  b").changes, 1);
        assert_eq!(difference("a b", " a b ").changes, 1);
        let d = difference("abc def", "abd ef");
        assert!((d.ratio - 0.7692307692307693).abs() < 1e-12);
        assert_eq!(d.changes, 2);
        assert!((d.length_diff - 0.14285714285714285).abs() < 1e-12);
        // UTF-16 lengths: an emoji is two units
        let d = difference("😀", "😁");
        assert!((d.ratio - 0.5).abs() < 1e-12, "{}", d.ratio);
        // repeated words match greedily once each
        assert_eq!(difference("a a b", "a b b").changes, 1);
    }
}
