//! Ragas's `StringPresence`: 1 when the reference occurs in the response, else 0. An empty
//! reference occurs in every response (Python's `"" in s`).

use super::{result, steps, texts, Texts, INPUTS};
use crate::error::InvalidArgument;
use crate::pipeline::{RunError, ScoreResult};
use crate::run::RunInput;
use crate::scorers::spec::{boxed, schema_of, Kind, ScorerSpec, StepMeta};
use crate::scorers::ScorerMeta;
use schemars::JsonSchema;

const STEPS: [StepMeta; 2] = steps("1 when the reference occurs in the response, else 0");

pub const SPEC: ScorerSpec = ScorerSpec {
    factory: "createStringPresenceScorer",
    id: "ragas-string-presence",
    name: "String Presence (Ragas)",
    description: "Ragas's StringPresence: 1 when the ground truth occurs in the output, else 0",
    family: "ragas",
    type_name: "RagasStringPresence",
    kind: Kind::Code,
    inputs: INPUTS,
    run_fields: None,
    extractors: &[],
    options: schema_of::<JsOptions>,
    nested_options: None,
    preprocess: Some(schema_of::<Texts>),
    analyze: None,
    steps: &STEPS,
    build: |v, _| boxed(StringPresence::build(v)),
};

/// No options of its own (`id` and `name` only).
#[derive(JsonSchema)]
pub struct JsOptions {}

pub struct StringPresence {
    meta: ScorerMeta,
}

impl StringPresence {
    fn build(_: &serde_json::Value) -> Result<Self, InvalidArgument> {
        Ok(StringPresence {
            meta: ScorerMeta::code(&SPEC, "agent"),
        })
    }

    pub(crate) fn run_sync(&self, run: RunInput) -> Result<ScoreResult, RunError> {
        let t = texts(SPEC.id, &run)?;
        let score = string_presence(&t.reference, &t.response);
        Ok(result(run, score, &t))
    }
}

crate::impl_scorer!(StringPresence, sync);

/// `float(reference in response)`.
pub fn string_presence(reference: &str, response: &str) -> f64 {
    f64::from(u8::from(response.contains(reference)))
}

#[cfg(test)]
mod tests {
    #[test]
    fn substring() {
        assert_eq!(super::string_presence("", ""), 1.0);
        assert_eq!(super::string_presence("", "x"), 1.0);
        assert_eq!(super::string_presence("x", ""), 0.0);
        assert_eq!(super::string_presence("Paris", "It is Paris."), 1.0);
        assert_eq!(super::string_presence("paris", "It is Paris."), 0.0);
    }
}
