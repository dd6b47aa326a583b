//! `createAnswerAccuracyScorer`: NVIDIA's AnswerAccuracy as Ragas defines it. Two judges
//! rate the agreement of the response with the reference (run.groundTruth) for the user's
//! question, 0 / 2 / 4; judge 2 swaps the roles (the reference is rated as the answer and
//! the response serves as the ground truth). Score = mean of the valid ratings / 4.

mod prompts;

use super::{NvidiaMetric, NvidiaScorer, Rating024};
use crate::engine::schema::StepOutput;
use crate::error::InvalidArgument;
use crate::run::RunInput;
use crate::scorers::llm::common::reference_text;
use crate::scorers::spec::{boxed, schema_of, Inputs, Kind, Need, ScorerSpec};
use crate::text::{assistant_text, user_text};

pub use prompts::INSTRUCTIONS;

pub const ID: &str = "answer-accuracy-scorer";

/// The registry entry.
pub const SPEC: ScorerSpec = ScorerSpec {
    factory: "createAnswerAccuracyScorer",
    id: ID,
    name: "Answer Accuracy Scorer",
    description: "Rates the agreement of the output with the ground truth for the user's question, with two independent LLM judges (NVIDIA answer accuracy)",
    family: "ragas",
    type_name: "AnswerAccuracy",
    kind: Kind::Llm,
    inputs: Inputs {
        input: Need::Required,
        output: Need::Required,
        ground_truth: Need::Required,
        context: Need::Unused,
    },
    run_fields: None,
    extractors: &[],
    nested_options: Some("The same option, nested (top-level wins)."),
    options: schema_of::<super::JsOptions>,
    preprocess: None,
    analyze: Some(schema_of::<super::dual::Analysis>),
    steps: &super::steps(
        "Two judges rate the output against the ground truth (0, 2 or 4)",
        "Mean of the valid ratings divided by 4",
        <Rating024 as StepOutput>::schema,
    ),
    build: |v, cx| boxed(AnswerAccuracy::build(v, cx)),
};

/// `createAnswerAccuracyScorer({ model, modelSettings?, cache?, maxRetries = 5 })`.
pub type AnswerAccuracy = NvidiaScorer<AnswerAccuracyMetric>;

/// The AnswerAccuracy spec.
pub struct AnswerAccuracyMetric;

impl NvidiaMetric for AnswerAccuracyMetric {
    const SPEC: &'static ScorerSpec = &SPEC;
    const INSTRUCTIONS: &'static str = INSTRUCTIONS;
    type Rating = Rating024;
    /// (question, response, reference).
    type Inputs = (String, String, String);

    fn inputs(
        run: &RunInput,
        _context: Option<&[String]>,
    ) -> Result<Self::Inputs, InvalidArgument> {
        let question = run
            .input
            .as_ref()
            .and_then(user_text)
            .filter(|q| !q.trim().is_empty())
            .ok_or_else(|| {
                InvalidArgument::input(
                    "answer-accuracy-scorer: the user input is missing: pass run.input with the user's question (a string or messages with a 'user' message)",
                )
            })?;
        let response = assistant_text(&run.output)
            .filter(|r| !r.trim().is_empty())
            .ok_or_else(|| {
                InvalidArgument::input(
                    "answer-accuracy-scorer: the response is missing: run.output has no assistant text to rate",
                )
            })?;
        let reference = match &run.ground_truth {
            None => None,
            Some(v) => reference_text(v).map_err(|t| {
                InvalidArgument::input(format!(
                    "answer-accuracy-scorer: run.groundTruth must be the reference answer (a string or messages); got {t}"
                ))
            })?,
        }
        .filter(|r| !r.trim().is_empty())
        .ok_or_else(|| {
            InvalidArgument::input(
                "answer-accuracy-scorer: the reference (run.groundTruth) is missing: pass the expected answer as run.groundTruth",
            )
        })?;
        Ok((question, response, reference))
    }

    fn prompts((question, response, reference): &Self::Inputs) -> [String; 2] {
        [
            prompts::judge_1(question, response, reference),
            prompts::judge_2(question, response, reference),
        ]
    }
}

crate::impl_scorer!(AnswerAccuracy);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::RunContext;
    use crate::pipeline::RunError;
    use crate::scorers::Scorer;
    use serde_json::{json, Value};

    #[test]
    fn options() {
        let model = json!("ollama/llama3.2");
        let s = AnswerAccuracy::from_options(&json!({"model": model})).unwrap();
        assert_eq!(s.max_attempts, 5);
        assert_eq!(s.meta.id, ID);
        let s = AnswerAccuracy::from_options(&json!({"model": model, "maxRetries": 2})).unwrap();
        assert_eq!(s.max_attempts, 2);
        let s =
            AnswerAccuracy::from_options(&json!({"model": model, "options": {"maxRetries": 3}}))
                .unwrap();
        assert_eq!(s.max_attempts, 3);
        for (bad, want) in [
            (
                json!({"model": model, "maxRetries": 0}),
                "options.maxRetries must be an integer from 1 to 20; got 0",
            ),
            (
                json!({"model": model, "maxRetries": 1.5}),
                "options.maxRetries must be an integer from 1 to 20; got 1.5",
            ),
            (
                json!({"model": model, "maxRetries": "5"}),
                "options.maxRetries must be an integer from 1 to 20; got string",
            ),
            (json!({"model": model, "maxRetries": -1}), "got -1"),
            (
                json!({"model": model, "maxRetries": 21}),
                "from 1 to 20; got 21",
            ),
        ] {
            let e = AnswerAccuracy::from_options(&bad).err().unwrap();
            assert_eq!(e.code, crate::error::ErrorCode::InvalidOptions);
            assert!(e.message.contains(want), "{bad}: {}", e.message);
        }
    }

    #[test]
    fn judge_2_swaps_roles() {
        let data = |p: String| -> Value {
            serde_json::from_str(p.lines().last().unwrap().trim_start_matches("DATA: ")).unwrap()
        };
        assert_eq!(
            data(prompts::judge_1("q", "resp", "ref")),
            json!({"question": "q", "candidate_answer": "resp", "reference_answer": "ref"})
        );
        assert_eq!(
            data(prompts::judge_2("q", "resp", "ref")),
            json!({"question": "q", "proposed_answer": "ref", "ground_truth": "resp"})
        );
    }

    #[tokio::test]
    async fn empty_inputs_fail_before_any_call() {
        // an unreachable URL: any call would fail with a network error, not InvalidInput
        let s = AnswerAccuracy::from_options(
            &json!({"model": {"id": "openai/x", "url": "http://127.0.0.1:9/v1"}}),
        )
        .unwrap();
        for (run, want) in [
            (
                json!({"output": "a", "groundTruth": "r"}),
                "user input is missing",
            ),
            (
                json!({"input": " ", "output": "a", "groundTruth": "r"}),
                "user input is missing",
            ),
            (
                json!({"input": "q", "output": "", "groundTruth": "r"}),
                "response is missing",
            ),
            (
                json!({"input": "q", "output": "a"}),
                "reference (run.groundTruth) is missing",
            ),
            (
                json!({"input": "q", "output": "a", "groundTruth": "  "}),
                "reference (run.groundTruth) is missing",
            ),
        ] {
            match s
                .run(
                    RunInput::from_value(run.clone()).unwrap(),
                    RunContext::default(),
                )
                .await
            {
                Err(RunError::Invalid(e)) => {
                    assert!(e.message.contains(want), "{run}: {}", e.message)
                }
                _ => panic!("{run}: expected an input error"),
            }
        }
    }
}
