//! Ragas's `NonLLMStringSimilarity`: `1 − normalized_distance(reference, response)` with
//! rapidfuzz's Levenshtein, Hamming, Jaro or Jaro-Winkler distance over code points
//! (`distance.rs`: the four distances as rapidfuzz 3.14 defines them).

mod distance;

use super::{result, steps, texts, Texts, INPUTS};
use crate::error::InvalidArgument;
use crate::options::scorer_choice;
use crate::pipeline::{RunError, ScoreResult};
use crate::run::RunInput;
use crate::scorers::spec::{boxed, schema_of, Kind, ScorerSpec, StepMeta};
use crate::scorers::ScorerMeta;
use schemars::JsonSchema;

pub use distance::{normalized_distance, Measure};

const STEPS: [StepMeta; 2] = steps("1 − the normalized distance (rapidfuzz) of the two texts");

pub const SPEC: ScorerSpec = ScorerSpec {
    factory: "createStringSimilarityScorer",
    id: "ragas-non-llm-string-similarity",
    name: "Non-LLM String Similarity (Ragas)",
    description: "Ragas's NonLLMStringSimilarity: 1 − the normalized Levenshtein, Hamming, Jaro or Jaro-Winkler distance of the output and the ground truth",
    family: "ragas",
    type_name: "RagasStringSimilarity",
    kind: Kind::Code,
    inputs: INPUTS,
    run_fields: None,
    extractors: &[],
    options: schema_of::<JsOptions>,
    nested_options: None,
    preprocess: Some(schema_of::<Texts>),
    analyze: None,
    steps: &STEPS,
    build: |v, _| boxed(StringSimilarity::build(v)),
};

/// The factory's options.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct JsOptions {
    /// Ragas's `distance_measure`. Default `'levenshtein'`.
    distance_measure: Option<MeasureName>,
}

#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum MeasureName {
    Levenshtein,
    Hamming,
    Jaro,
    JaroWinkler,
}

pub struct StringSimilarity {
    meta: ScorerMeta,
    measure: Measure,
}

impl StringSimilarity {
    fn build(v: &serde_json::Value) -> Result<Self, InvalidArgument> {
        let name = scorer_choice(
            v,
            "distanceMeasure",
            &["levenshtein", "hamming", "jaro", "jaro_winkler"],
            "levenshtein",
        )?;
        let measure = match name {
            "hamming" => Measure::Hamming,
            "jaro" => Measure::Jaro,
            "jaro_winkler" => Measure::JaroWinkler,
            _ => Measure::Levenshtein,
        };
        Ok(StringSimilarity {
            meta: ScorerMeta::code(&SPEC, "agent"),
            measure,
        })
    }

    pub(crate) fn run_sync(&self, run: RunInput) -> Result<ScoreResult, RunError> {
        let t = texts(SPEC.id, &run)?;
        let score = similarity(self.measure, &t.reference, &t.response);
        Ok(result(run, score, &t))
    }
}

crate::impl_scorer!(StringSimilarity, sync);

/// `1 - normalized_distance(reference, response)`, as Ragas computes it (the subtraction
/// kept: `1 − (1 − jaro)` is not always `jaro` in floating point).
pub fn similarity(measure: Measure, reference: &str, response: &str) -> f64 {
    let a: Vec<char> = reference.chars().collect();
    let b: Vec<char> = response.chars().collect();
    1.0 - normalized_distance(measure, &a, &b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options() {
        let s = StringSimilarity::build(&serde_json::json!({ "distanceMeasure": "jaro" })).unwrap();
        assert_eq!(s.measure, Measure::Jaro);
        assert!(
            StringSimilarity::build(&serde_json::json!({ "distanceMeasure": "cosine" })).is_err()
        );
        assert!(StringSimilarity::build(&serde_json::json!({ "distanceMeasure": 1 })).is_err());
    }
}
