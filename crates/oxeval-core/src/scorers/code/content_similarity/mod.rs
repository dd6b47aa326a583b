//! Mastra's `createContentSimilarityScorer`: the Dice coefficient of the character bigrams
//! (UTF-16 code units, whitespace removed) of the input's and the output's texts, as npm
//! `string-similarity`'s `compareTwoStrings`.

use super::js_text::{collapse_spaces, js_lower, run_text, Side};
use crate::error::InvalidArgument;
use crate::options::scorer_bool;
use crate::pipeline::{RunError, ScoreResult};
use crate::run::RunInput;
use crate::scorers::spec::{boxed, schema_of, Kind, ScorerSpec, StepMeta};
use crate::scorers::ScorerMeta;
use crate::similarity::compare_two_strings;
use schemars::JsonSchema;
use serde::Serialize;

pub const SPEC: ScorerSpec = ScorerSpec {
    factory: "createContentSimilarityScorer",
    id: "content-similarity-scorer",
    name: "Content Similarity Scorer",
    description: "Calculates content similarity between input and output messages using string comparison algorithms.",
    family: "mastra",
    type_name: "ContentSimilarity",
    kind: Kind::Code,
    inputs: super::TEXT_INPUTS,
    run_fields: None,
    extractors: &[],
    options: schema_of::<JsOptions>,
    nested_options: None,
    preprocess: Some(schema_of::<Processed>),
    analyze: None,
    steps: &[
        StepMeta::function("preprocess", "Join the input's and the output's message texts; lowercase and collapse whitespace as the options say"),
        StepMeta::function("generateScore", "Dice coefficient of the two texts' character bigrams (whitespace removed)"),
    ],
    build: |v, _| boxed(ContentSimilarity::build(v)),
};

/// The factory's options (each merged with its default, unlike Mastra, where passing any
/// object drops both defaults).
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct JsOptions {
    /// Lowercase both texts before comparing. Default true.
    ignore_case: Option<bool>,
    /// Collapse whitespace runs to one space and trim (`preprocessStepResult` only: the
    /// comparison removes all whitespace anyway). Default true.
    ignore_whitespace: Option<bool>,
}

/// `preprocessStepResult`.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Processed {
    pub processed_input: String,
    pub processed_output: String,
}

pub struct ContentSimilarity {
    meta: ScorerMeta,
    ignore_case: bool,
    ignore_whitespace: bool,
}

impl ContentSimilarity {
    fn build(v: &serde_json::Value) -> Result<Self, InvalidArgument> {
        Ok(ContentSimilarity {
            meta: ScorerMeta::code(&SPEC, "agent"),
            ignore_case: scorer_bool(v, "ignoreCase", true)?,
            ignore_whitespace: scorer_bool(v, "ignoreWhitespace", true)?,
        })
    }

    pub fn preprocess(&self, input: &str, output: &str) -> Processed {
        let prep = |s: &str| {
            let s = if self.ignore_case {
                js_lower(s)
            } else {
                s.to_string()
            };
            if self.ignore_whitespace {
                collapse_spaces(&s)
            } else {
                s
            }
        };
        Processed {
            processed_input: prep(input),
            processed_output: prep(output),
        }
    }

    pub(crate) fn run_sync(&self, run: RunInput) -> Result<ScoreResult, RunError> {
        let input = run_text(run.input.as_ref(), Side::Input)?;
        let output = run_text(Some(&run.output), Side::Output)?;
        let pre = self.preprocess(&input, &output);
        let score = compare_two_strings(&pre.processed_input, &pre.processed_output);
        Ok(super::text_result::<_, ()>(run.run_id, score, &pre, None))
    }
}

crate::impl_scorer!(ContentSimilarity, sync);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formula_edges() {
        let cases: &[(&str, &str, f64)] = &[
            ("", "", 1.0),
            ("a", "", 0.0),
            ("", "ab", 0.0),
            ("a", "a", 1.0),
            ("a b", "ab", 1.0),
            ("ab", "ba", 0.0),
            ("aaaa", "aa", 2.0 / 4.0),
            ("night", "nacht", 0.25),
            // an astral character is two code units: its bigrams include surrogate halves
            ("😀x", "😀y", 2.0 / 4.0),
            (
                "the quick brown fox jumps over the lazy dog",
                "a quick brown dog leaps over the lazy fox",
                0.7575757575757576,
            ),
        ];
        for (a, b, want) in cases {
            let got = compare_two_strings(a, b);
            assert!(
                (got - want).abs() < 1e-12,
                "{a:?} vs {b:?}: {got} != {want}"
            );
        }
    }

    #[test]
    fn options_merge_with_defaults() {
        let s = ContentSimilarity::build(&serde_json::json!({ "ignoreCase": false })).unwrap();
        assert!(!s.ignore_case && s.ignore_whitespace);
        let p = s.preprocess(" A  b ", "x");
        assert_eq!(p.processed_input, "A b");
        let s = ContentSimilarity::build(&serde_json::Value::Null).unwrap();
        assert_eq!(s.preprocess(" A\t\tB ", "").processed_input, "a b");
        assert!(ContentSimilarity::build(&serde_json::json!({ "ignoreCase": 1 })).is_err());
    }
}
