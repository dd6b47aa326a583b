//! Ragas's `ExactMatch`: 1 when the response equals the reference (code point for code
//! point), else 0. Two empty texts match.

use super::{result, steps, texts, Texts, INPUTS};
use crate::error::InvalidArgument;
use crate::pipeline::{RunError, ScoreResult};
use crate::run::RunInput;
use crate::scorers::spec::{boxed, schema_of, Kind, ScorerSpec, StepMeta};
use crate::scorers::ScorerMeta;
use schemars::JsonSchema;

const STEPS: [StepMeta; 2] = steps("1 when the response equals the reference, else 0");

pub const SPEC: ScorerSpec = ScorerSpec {
    factory: "createExactMatchScorer",
    id: "ragas-exact-match",
    name: "Exact Match (Ragas)",
    description: "Ragas's ExactMatch: 1 when the output equals the ground truth exactly, else 0",
    family: "ragas",
    type_name: "RagasExactMatch",
    kind: Kind::Code,
    inputs: INPUTS,
    run_fields: None,
    extractors: &[],
    options: schema_of::<JsOptions>,
    nested_options: None,
    preprocess: Some(schema_of::<Texts>),
    analyze: None,
    steps: &STEPS,
    build: |v, _| boxed(ExactMatch::build(v)),
};

/// No options of its own (`id` and `name` only).
#[derive(JsonSchema)]
pub struct JsOptions {}

pub struct ExactMatch {
    meta: ScorerMeta,
}

impl ExactMatch {
    fn build(_: &serde_json::Value) -> Result<Self, InvalidArgument> {
        Ok(ExactMatch {
            meta: ScorerMeta::code(&SPEC, "agent"),
        })
    }

    pub(crate) fn run_sync(&self, run: RunInput) -> Result<ScoreResult, RunError> {
        let t = texts(SPEC.id, &run)?;
        let score = exact_match(&t.reference, &t.response);
        Ok(result(run, score, &t))
    }
}

crate::impl_scorer!(ExactMatch, sync);

/// `float(reference == response)`.
pub fn exact_match(reference: &str, response: &str) -> f64 {
    f64::from(u8::from(reference == response))
}

#[cfg(test)]
mod tests {
    #[test]
    fn equality() {
        assert_eq!(super::exact_match("", ""), 1.0);
        assert_eq!(super::exact_match("a", "a "), 0.0);
        assert_eq!(super::exact_match("é", "e\u{301}"), 0.0);
    }
}
