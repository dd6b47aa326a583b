//! `createResponseGroundednessScorer`: NVIDIA's ResponseGroundedness as Ragas defines it.
//! Two judges rate how far the response is supported by the retrieved contexts (joined
//! with "\n"), 0 / 1 / 2. Score = mean of the valid ratings / 2.
//!
//! Without any judge call the score is 0 when the response or the joined context is blank.
//! Contexts are resolved by [`crate::scorers::llm::context::joined_contexts`].

use super::prompts::{self, GROUNDEDNESS_INSTRUCTIONS};
use super::{
    score_dual, steps, DualJudge, Rating012, RatingScale, DEFAULT_MAX_ATTEMPTS, MAX_ATTEMPTS_LIMIT,
};
use crate::engine::{Judge, RunContext};
use crate::error::InvalidArgument;
use crate::options::scorer_int_in;
use crate::pipeline::{RunError, ScoreResult};
use crate::run::RunInput;
use crate::scorers::llm::common::judge_from_options;
use crate::scorers::llm::context::{context_option, joined_contexts};
use crate::scorers::ScorerMeta;
use crate::text::assistant_text;
use serde_json::Value;

pub const ID: &str = "response-groundedness-scorer";
pub const INSTRUCTIONS: &str = GROUNDEDNESS_INSTRUCTIONS;

pub struct ResponseGroundedness {
    judge: Judge,
    max_attempts: u32,
    context: Option<Vec<String>>,
    meta: ScorerMeta,
}

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

impl ResponseGroundedness {
    /// `{ model, modelSettings?, maxRetries = 5, context?: string[] }`.
    pub fn from_options(v: &Value) -> Result<Self, InvalidArgument> {
        let judge = judge_from_options(v, "createResponseGroundednessScorer")?;
        let max_attempts =
            scorer_int_in(v, "maxRetries", 1, MAX_ATTEMPTS_LIMIT, DEFAULT_MAX_ATTEMPTS)?;
        let context = context_option(v)?;
        Ok(Self::new(judge, max_attempts, context))
    }

    pub fn new(judge: Judge, max_attempts: u32, context: Option<Vec<String>>) -> Self {
        let meta = ScorerMeta::agent(
            ID,
            "Response Groundedness Scorer",
            "Rates how far the output is supported by the retrieved context, with two independent LLM judges (NVIDIA response groundedness)",
            &judge,
            INSTRUCTIONS,
            steps(
                "Two judges rate how far the context supports the output (0, 1 or 2)",
                "Mean of the valid ratings divided by 2",
            ),
        );
        ResponseGroundedness {
            judge,
            max_attempts,
            context,
            meta,
        }
    }

    async fn run_inner(&self, run: RunInput, ctx: RunContext) -> Result<ScoreResult, RunError> {
        // assistant_text skips empty messages, so "" is None here; "  " is blank (→ 0)
        let response = assistant_text(&run.output).ok_or_else(|| {
            InvalidArgument::input(
                "response-groundedness-scorer: the response is missing: run.output has no assistant text to check",
            )
        })?;
        if response.is_empty() {
            return Err(InvalidArgument::input(
                "response-groundedness-scorer: the response is missing: run.output has no assistant text to check",
            )
            .into());
        }
        let context = joined_contexts(&run, self.context.as_deref(), ID)?;
        score_dual::<Rating012>(
            &self.judge,
            &ctx,
            run.run_id,
            trivial_zero(&response, &context),
            DualJudge {
                system: INSTRUCTIONS,
                prompts: [
                    prompts::groundedness_1(&response, &context),
                    prompts::groundedness_2(&response, &context),
                ],
                scale: RatingScale::ZeroOneTwo,
                max_attempts: self.max_attempts,
            },
        )
        .await
    }
}

crate::impl_scorer!(ResponseGroundedness);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scorers::Scorer;
    use serde_json::json;

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
