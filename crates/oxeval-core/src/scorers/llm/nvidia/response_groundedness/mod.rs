//! `createResponseGroundednessScorer`: NVIDIA's ResponseGroundedness as Ragas defines it.
//! Two judges rate how far the response is supported by the retrieved contexts (joined
//! with "\n"), 0 / 1 / 2. Score = mean of the valid ratings / 2.
//!
//! Without any judge call the score is 0 when the response or the joined context is blank.
//! Contexts are resolved by [`crate::scorers::llm::context::joined_contexts`].

mod prompts;

use super::{NvidiaMetric, NvidiaScorer, Rating012};
use crate::engine::schema::StepOutput;
use crate::error::InvalidArgument;
use crate::run::RunInput;
use crate::scorers::llm::context::joined_contexts;
use crate::scorers::spec::{boxed, schema_of, Inputs, Kind, Need, ScorerSpec};
use crate::text::assistant_text;

pub use prompts::INSTRUCTIONS;

pub const ID: &str = "response-groundedness-scorer";

/// The registry entry.
pub const SPEC: ScorerSpec = ScorerSpec {
    factory: "createResponseGroundednessScorer",
    id: ID,
    name: "Response Groundedness Scorer",
    description: "Rates how far the output is supported by the retrieved context, with two independent LLM judges (NVIDIA response groundedness)",
    family: "ragas",
    type_name: "ResponseGroundedness",
    kind: Kind::Llm,
    inputs: Inputs {
        input: Need::Unused,
        output: Need::Required,
        ground_truth: Need::Unused,
        context: Need::Required,
    },
    run_fields: None,
    extractors: &[&crate::scorers::extract::CONTEXT],
    nested_options: Some("The same options, nested (top-level wins)."),
    options: schema_of::<super::JsContextOptions>,
    preprocess: None,
    analyze: Some(schema_of::<super::dual::Analysis>),
    steps: &super::steps(
        "Two judges rate how far the context supports the output (0, 1 or 2)",
        "Mean of the valid ratings divided by 2",
        <Rating012 as StepOutput>::schema,
    ),
    build: |v, cx| boxed(ResponseGroundedness::build(v, cx)),
};

/// `createResponseGroundednessScorer({ model, modelSettings?, cache?, maxRetries = 5,
/// context? })`.
pub type ResponseGroundedness = NvidiaScorer<ResponseGroundednessMetric>;

/// The ResponseGroundedness spec.
pub struct ResponseGroundednessMetric;

/// Why the score is 0 without a judge call, if it is.
pub fn trivial_zero(response: &str, context: &str) -> Option<&'static str> {
    if response.trim().is_empty() {
        Some("the response is blank: it makes no claim the context could support")
    } else if context.trim().is_empty() {
        Some("the retrieved context is blank: it cannot support the response")
    } else {
        None
    }
}

impl NvidiaMetric for ResponseGroundednessMetric {
    const SPEC: &'static ScorerSpec = &SPEC;
    const INSTRUCTIONS: &'static str = INSTRUCTIONS;
    type Rating = Rating012;
    /// (response, joined contexts).
    type Inputs = (String, String);

    fn inputs(run: &RunInput, context: Option<&[String]>) -> Result<Self::Inputs, InvalidArgument> {
        // "" is missing; "  " is blank (→ 0 without a call)
        let response = assistant_text(&run.output)
            .filter(|r| !r.is_empty())
            .ok_or_else(|| {
                InvalidArgument::input(
                    "response-groundedness-scorer: the response is missing: run.output has no assistant text to check",
                )
            })?;
        let context = joined_contexts(run, context, ID)?;
        Ok((response, context))
    }

    fn trivial_zero((response, context): &Self::Inputs) -> Option<&'static str> {
        trivial_zero(response, context)
    }

    fn prompts((response, context): &Self::Inputs) -> [String; 2] {
        [
            prompts::judge_1(response, context),
            prompts::judge_2(response, context),
        ]
    }
}

crate::impl_scorer!(ResponseGroundedness);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::RunContext;
    use crate::pipeline::RunError;
    use crate::scorers::Scorer;
    use serde_json::{json, Value};

    #[test]
    fn trivial_zero_rules() {
        assert!(trivial_zero(" ", "ctx").is_some());
        assert!(trivial_zero("a", "\n").is_some());
        assert_eq!(trivial_zero("a", "ctx"), None);
    }

    #[tokio::test]
    async fn inputs_and_shortcuts() {
        let s = ResponseGroundedness::from_options(
            &json!({"model": {"id": "openai/x", "url": "http://127.0.0.1:9/v1"}, "context": ["from option"]}),
        )
        .unwrap();
        let run = |v: Value| RunInput::from_value(v).unwrap();
        for (r, want) in [
            (json!({"output": ""}), "response is missing"),
            (
                json!({"output": [{"role": "user", "content": "q"}]}),
                "response is missing",
            ),
            (
                json!({"output": "a", "context": []}),
                "retrieved contexts are missing (run.context gave none)",
            ),
            (
                json!({"output": "a", "extractedContext": [3]}),
                "run.extractedContext[0] must be a string",
            ),
        ] {
            match s.run(run(r.clone()), RunContext::default()).await {
                Err(RunError::Invalid(e)) => {
                    assert!(e.message.contains(want), "{r}: {}", e.message)
                }
                _ => panic!("{r}: expected an input error"),
            }
        }
        for r in [
            json!({"output": "  "}),
            json!({"output": "a", "context": [" ", ""]}),
        ] {
            let res = s
                .run(run(r.clone()), RunContext::default())
                .await
                .ok()
                .unwrap();
            assert_eq!(res.score, Some(0.0), "{r}");
            assert!(res.judge.is_empty());
        }
    }
}
