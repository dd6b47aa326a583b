//! Ragas 0.4.3's metrics that need no judge (`ragas.metrics.collections`), one folder each,
//! computed as Ragas computes them (the libraries it calls reproduced: sacrebleu, rapidfuzz, rouge_score).
//! Inputs as oxeval's other Ragas metrics: `output` = response, `groundTruth` = reference;
//! QuotedSpansAlignment reads the retrieved contexts, the tool metrics the calls of
//! `output` and `run.referenceToolCalls` (`tool_calls.rs`; `pyrepr/`: Python's `str()`).

pub mod bleu;
pub mod chrf;
pub mod exact_match;
pub mod pyrepr;
pub mod quoted_spans;
pub mod rouge;
pub mod string_presence;
pub mod string_similarity;
pub mod tool_call_accuracy;
pub mod tool_call_f1;
pub mod tool_calls;

use crate::error::InvalidArgument;
use crate::pipeline::{RunError, ScoreResult};
use crate::run::RunInput;
use crate::scorers::llm::common::reference_text;
use crate::scorers::spec::{Inputs, Need, StepMeta};
use crate::text::assistant_text;
use schemars::JsonSchema;
use serde::Serialize;

/// Response (`output`) and reference (`groundTruth`), both required.
pub(crate) const INPUTS: Inputs = Inputs {
    input: Need::Unused,
    output: Need::Required,
    ground_truth: Need::Required,
    context: Need::Unused,
};

/// The two steps every one of these metrics has.
pub(crate) const fn steps(score: &'static str) -> [StepMeta; 2] {
    [
        StepMeta::function(
            "preprocess",
            "Read the response (output) and the reference (groundTruth)",
        ),
        StepMeta::function("generateScore", score),
    ]
}

/// `preprocessStepResult`: the two texts the metric compared.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Texts {
    /// Ragas's `response`: the assistant's text of `run.output`.
    pub response: String,
    /// Ragas's `reference`: the text of `run.groundTruth`.
    pub reference: String,
}

/// The response and the reference of a run; a TypeError when either is not text.
pub(crate) fn texts(id: &str, run: &RunInput) -> Result<Texts, RunError> {
    let response = assistant_text(&run.output).ok_or_else(|| {
        InvalidArgument::input(format!(
            "{id}: run.output must be the response text (a string or assistant messages); got {}",
            crate::error::type_name(&run.output)
        ))
    })?;
    let reference = match &run.ground_truth {
        None | Some(serde_json::Value::Null) => {
            return Err(InvalidArgument::input(format!(
                "{id}: the reference (run.groundTruth) is missing: pass the expected text as run.groundTruth"
            ))
            .into())
        }
        Some(v) => reference_text(v)
            .map_err(|t| {
                InvalidArgument::input(format!(
                    "{id}: run.groundTruth must be the reference text (a string or messages); got {t}"
                ))
            })?
            .unwrap_or_default(),
    };
    Ok(Texts {
        response,
        reference,
    })
}

/// The result: the score and the texts.
pub(crate) fn result(run: RunInput, score: f64, texts: &Texts) -> ScoreResult {
    super::text_result::<_, ()>(run.run_id, score, texts, None)
}

/// An option-less metric of this folder: its `SPEC`, its (empty) `JsOptions` and its scorer
/// type, from what is its own — names, steps, and the body that scores a run. The `text` form
/// reads the response and the reference ([`texts`]) and scores them with `score_fn`.
macro_rules! optionless_metric {
    (text $ty:ident, $factory:literal, $id:literal, $name:literal, $description:literal,
     $type_name:literal, $step:literal, $score_fn:path) => {
        $crate::scorers::code::ragas::optionless_metric!(
            $ty,
            $factory,
            $id,
            $name,
            $description,
            $type_name,
            $crate::scorers::code::ragas::INPUTS,
            None,
            $crate::scorers::code::ragas::Texts,
            $crate::scorers::code::ragas::steps($step),
            |run| {
                let t = $crate::scorers::code::ragas::texts(SPEC.id, &run)?;
                let score = $score_fn(&t.reference, &t.response);
                Ok($crate::scorers::code::ragas::result(run, score, &t))
            }
        );
    };
    ($ty:ident, $factory:literal, $id:literal, $name:literal, $description:literal,
     $type_name:literal, $inputs:expr, $run_fields:expr, $pre:ty, $steps:expr,
     |$run:ident| $body:block) => {
        const STEPS: [$crate::scorers::spec::StepMeta; 2] = $steps;

        pub const SPEC: $crate::scorers::spec::ScorerSpec = $crate::scorers::spec::ScorerSpec {
            factory: $factory,
            id: $id,
            name: $name,
            description: $description,
            family: "ragas",
            type_name: $type_name,
            kind: $crate::scorers::spec::Kind::Code,
            inputs: $inputs,
            run_fields: $run_fields,
            extractors: &[],
            options: $crate::scorers::spec::schema_of::<JsOptions>,
            nested_options: None,
            preprocess: Some($crate::scorers::spec::schema_of::<$pre>),
            analyze: None,
            steps: &STEPS,
            build: |_, _| {
                $crate::scorers::spec::boxed(Ok($ty {
                    meta: $crate::scorers::ScorerMeta::code(&SPEC, "agent"),
                }))
            },
        };

        /// No options of its own (`id` and `name` only).
        #[derive(schemars::JsonSchema)]
        pub struct JsOptions {}

        pub struct $ty {
            meta: $crate::scorers::ScorerMeta,
        }

        impl $ty {
            pub(crate) fn run_sync(
                &self,
                $run: $crate::run::RunInput,
            ) -> Result<$crate::pipeline::ScoreResult, $crate::pipeline::RunError> {
                $body
            }
        }

        $crate::impl_scorer!($ty, sync);
    };
}
pub(crate) use optionless_metric;

/// Python's `str.isspace()` for one character (what `str.split()` and `strip()` use): Rust's
/// `White_Space` plus U+001C..U+001F.
pub fn py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `s.split()` (no argument).
pub fn py_split(s: &str) -> impl Iterator<Item = &str> {
    s.split(py_space).filter(|w| !w.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_whitespace() {
        assert!(py_space('\u{1f}') && py_space('\u{85}') && py_space('\u{3000}'));
        assert!(!py_space('\u{FEFF}') && !py_space('\u{200b}'));
        assert_eq!(
            py_split(" a\u{1c}b  c\u{a0}").collect::<Vec<_>>(),
            ["a", "b", "c"]
        );
    }
}

#[cfg(test)]
mod parity_tests;
