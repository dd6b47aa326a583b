//! `createContextRelevanceScorer`: NVIDIA's ContextRelevance as Ragas defines it. Two judges
//! rate how relevant the retrieved contexts (joined with "\n") are to the user's question,
//! 0 / 1 / 2. Score = mean of the valid ratings / 2.
//!
//! Without any judge call the score is 0 when the question or the joined context is blank,
//! when both are equal (trimmed), or when the trimmed context is a substring of the trimmed
//! question (Ragas 0.4.3 strips both before that test: `["Paris", ""]` joins to "Paris\n").
//! Contexts are resolved by [`crate::scorers::llm::context::joined_contexts`].

mod prompts;

use super::{NvidiaMetric, NvidiaScorer, Rating012};
use crate::engine::schema::StepOutput;
use crate::error::InvalidArgument;
use crate::run::RunInput;
use crate::scorers::llm::context::joined_contexts;
use crate::scorers::spec::{boxed, schema_of, Inputs, Kind, Need, ScorerSpec};
use crate::text::user_text;

pub use prompts::INSTRUCTIONS;

pub const ID: &str = "nv-context-relevance-scorer";

/// The registry entry.
pub const SPEC: ScorerSpec = ScorerSpec {
    factory: "createContextRelevanceScorer",
    id: ID,
    name: "Context Relevance Scorer",
    description: "Rates how relevant the retrieved context is to the user's question, with two independent LLM judges (NVIDIA context relevance)",
    family: "ragas",
    type_name: "ContextRelevance",
    kind: Kind::Llm,
    inputs: Inputs {
        input: Need::Required,
        output: Need::Unused,
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
        "Two judges rate the context's relevance to the question (0, 1 or 2)",
        "Mean of the valid ratings divided by 2",
        <Rating012 as StepOutput>::schema,
    ),
    build: |v, cx| boxed(ContextRelevance::build(v, cx)),
};

/// `createContextRelevanceScorer({ model, modelSettings?, cache?, maxRetries = 5, context? })`.
pub type ContextRelevance = NvidiaScorer<ContextRelevanceMetric>;

/// The ContextRelevance spec.
pub struct ContextRelevanceMetric;

/// Why the score is 0 without a judge call, if it is.
pub fn trivial_zero(question: &str, context: &str) -> Option<&'static str> {
    if question.trim().is_empty() {
        Some("the question is blank: there is nothing the context could be relevant to")
    } else if context.trim().is_empty() {
        Some("the retrieved context is blank")
    } else if question.trim() == context.trim() {
        Some("the retrieved context only repeats the question")
    } else if question.trim().contains(context.trim()) {
        Some("the retrieved context is part of the question itself: it adds no information")
    } else {
        None
    }
}

impl NvidiaMetric for ContextRelevanceMetric {
    const SPEC: &'static ScorerSpec = &SPEC;
    const INSTRUCTIONS: &'static str = INSTRUCTIONS;
    type Rating = Rating012;
    /// (question, joined contexts).
    type Inputs = (String, String);

    fn inputs(run: &RunInput, context: Option<&[String]>) -> Result<Self::Inputs, InvalidArgument> {
        let question = run
            .input
            .as_ref()
            .and_then(user_text)
            .filter(|q| !q.is_empty())
            .ok_or_else(|| {
                InvalidArgument::input(
                    "nv-context-relevance-scorer: the user input is missing: pass run.input with the user's question (a string or messages with a 'user' message)",
                )
            })?;
        let context = joined_contexts(run, context, ID)?;
        Ok((question, context))
    }

    fn trivial_zero((question, context): &Self::Inputs) -> Option<&'static str> {
        trivial_zero(question, context)
    }

    fn prompts((question, context): &Self::Inputs) -> [String; 2] {
        [
            prompts::judge_1(question, context),
            prompts::judge_2(question, context),
        ]
    }
}

crate::impl_scorer!(ContextRelevance);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::RunContext;
    use crate::pipeline::RunError;
    use crate::scorers::Scorer;
    use serde_json::{json, Value};

    #[test]
    fn trivial_zero_rules() {
        assert!(trivial_zero("  ", "ctx").is_some());
        assert!(trivial_zero("q?", " \n ").is_some());
        assert!(trivial_zero(" What is X? ", "What is X?").is_some());
        assert!(trivial_zero("Tell me about Paris and Rome", "Paris").is_some());
        assert_eq!(trivial_zero("What is X?", "X is a letter."), None);
    }

    #[test]
    fn options() {
        let m = json!("ollama/llama3.2");
        let s =
            ContextRelevance::from_options(&json!({"model": m, "context": ["a"], "maxRetries": 2}))
                .unwrap();
        assert_eq!(
            (s.max_attempts, s.context),
            (2, Some(vec!["a".to_string()]))
        );
        assert_eq!(s.meta.id, ID);
        let e = ContextRelevance::from_options(&json!({"model": m, "context": [1]}))
            .err()
            .unwrap();
        assert_eq!(e.message, "options.context[0] must be a string; got number");
        let e = ContextRelevance::from_options(&json!({"model": m, "maxRetries": 0}))
            .err()
            .unwrap();
        assert!(e.message.contains("maxRetries"), "{}", e.message);
    }

    #[tokio::test]
    async fn inputs_and_shortcuts() {
        let s = ContextRelevance::from_options(
            &json!({"model": {"id": "openai/x", "url": "http://127.0.0.1:9/v1"}}),
        )
        .unwrap();
        let run = |v: Value| RunInput::from_value(v).unwrap();
        for (r, want) in [
            (
                json!({"output": "a", "context": ["c"]}),
                "user input is missing",
            ),
            (
                json!({"input": "", "output": "a", "context": ["c"]}),
                "user input is missing",
            ),
            (
                json!({"input": "q", "output": "a"}),
                "retrieved contexts are missing (the tool results in run.output gave none)",
            ),
            (
                json!({"input": "q", "output": "a", "context": []}),
                "retrieved contexts are missing (run.context gave none)",
            ),
            (
                json!({"input": "q", "output": "a", "context": 5}),
                "run.context must be an array of strings",
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
            json!({"input": "   ", "output": "a", "context": ["c"]}),
            json!({"input": "q", "output": "a", "context": ["", " "]}),
            json!({"input": "What is X?", "output": "a", "context": [" What is X? "]}),
            json!({"input": "What is X?", "output": "a", "context": ["X?"]}),
        ] {
            let res = s
                .run(run(r.clone()), RunContext::default())
                .await
                .ok()
                .unwrap();
            assert_eq!(res.score, Some(0.0), "{r}");
            assert!(res.reason.unwrap().starts_with("The score is 0 because"));
            assert!(res.judge.is_empty() && res.analyze_step_result.is_none());
        }
    }
}
