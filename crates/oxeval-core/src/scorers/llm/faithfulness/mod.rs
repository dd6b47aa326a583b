//! `createFaithfulnessScorer`: the share of the output's claims that the context supports.
//!
//! preprocess (LLM: claims of the output) → analyze (LLM: yes/no/unsure per claim, judged
//! against the context only) → generateScore (pure) → generateReason (LLM): a member of the
//! claim/verdict family ([`super::claims`]).
//!
//! The context is the first source present: `run.context`, the factory's `context` option,
//! the tool results in `run.output` (see [`crate::scorers::llm::context`]); none is a
//! TypeError before any judge call (Mastra judges against an empty context and scores 0).

pub(super) mod prompts;

use super::claims::{self, ClaimMetric, ClaimScorer, Texts};
use super::context::retrieved_contexts;
use crate::error::InvalidArgument;
use crate::run::RunInput;
use crate::scorers::spec::{boxed, schema_of, Inputs, Kind, Need, ScorerSpec};
use crate::text::round2_half_up;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use prompts::INSTRUCTIONS;

pub const ID: &str = "faithfulness-scorer";

/// The registry entry.
pub const SPEC: ScorerSpec = ScorerSpec {
    factory: "createFaithfulnessScorer",
    id: ID,
    name: "Faithfulness Scorer",
    description:
        "Evaluates how faithful the output's claims are to the provided context, with an LLM judge",
    family: "mastra",
    type_name: "Faithfulness",
    kind: Kind::Llm,
    inputs: Inputs {
        input: Need::Optional,
        output: Need::Required,
        ground_truth: Need::Unused,
        context: Need::Required,
    },
    run_fields: None,
    extractors: &[],
    nested_options: Some("Mastra's form; merged with the defaults (top-level keys win)."),
    options: schema_of::<JsOptions>,
    preprocess: Some(schema_of::<Claims>),
    analyze: Some(schema_of::<AnalyzeStep>),
    steps: &claims::steps::<Claims, Verdicts>(
        "Extract the claims of the output",
        "Check each claim against the context",
        "Share of claims the context supports",
    ),
    build: |v, cx| boxed(Faithfulness::build(v, cx)),
};

/// The scorer's own factory options, top-level or under `options` (Mastra's form).
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct JsOptions {
    /// Multiplies the score, greater than 0 and at most 1e6. Default 1.
    scale: Option<f64>,
    /// The context to check the output against, when the run has no `context` of its own.
    context: Option<Vec<String>>,
}

crate::claim_steps!(
    /// preprocess output (Mastra's `{ claims }`).
    "faithfulness_claims",
    "faithfulness_verdicts",
    Verdict,
    claim: claim
);

/// One verdict as the judge sends it (the label is free text on the wire, as in Mastra).
/// `claim` is the claim the verdict is about, repeated by the judge (Mastra's prompt asks for
/// it too); when every verdict has one, the verdicts are aligned to the claims by it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Verdict {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim: Option<String>,
    pub verdict: String,
    pub reason: String,
}

/// Whether the context supports a claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Label {
    /// The context states it.
    Yes,
    /// The context contradicts it.
    No,
    /// The context does not mention it, or it is speculative.
    Unsure,
}

/// One claim's verdict in `analyzeStepResult` (a verdict the judge sent with its `claim`
/// keeps it there too, as in Mastra's raw verdicts; the result type documents the two fields
/// every verdict has).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct StepVerdict {
    pub verdict: Label,
    pub reason: String,
}

/// `analyzeStepResult`: the judge's verdicts, labels normalized (a label the fallback did not
/// fix is recorded as `unsure`, with a warning; Mastra's math counts it as unsupported too).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct AnalyzeStep {
    pub verdicts: Vec<StepVerdict>,
}

/// Scorer options after defaults.
pub type Options = claims::ScaleOptions<false>;

/// Mastra's formula: #yes / #verdicts × scale, rounded half up to 2 decimals; 0 without
/// verdicts. Labels are compared trimmed and lowercased.
pub fn score(verdicts: &[Verdict], scale: f64) -> f64 {
    if verdicts.is_empty() {
        return 0.0;
    }
    let yes = verdicts
        .iter()
        .filter(|v| v.verdict.trim().eq_ignore_ascii_case("yes"))
        .count();
    round2_half_up(yes as f64 / verdicts.len() as f64 * scale)
}

/// `createFaithfulnessScorer({ model, scale?, context? })`.
pub type Faithfulness = ClaimScorer<FaithfulnessMetric>;

/// The faithfulness member of the claim/verdict family.
pub struct FaithfulnessMetric;

impl ClaimMetric for FaithfulnessMetric {
    const SPEC: &'static ScorerSpec = &SPEC;
    const INSTRUCTIONS: &'static str = INSTRUCTIONS;
    const LABELS: &'static [&'static str] = &["yes", "no", "unsure"];
    const COUNTED_AS: &'static str = "unsure";
    const EMPTY_REASON: Option<&'static str> = Some(
        "The score is 0 because the output is empty: it makes no claim the context could support.",
    );
    const EXTRACT_PROMPT: fn(&str) -> String = prompts::extract_prompt;
    const JUDGE_PROMPT: fn(&[String], &[String]) -> String = prompts::judge_prompt;
    type Claims = Claims;
    type Verdicts = Verdicts;
    type Options = Options;
    type Context = Vec<String>;

    fn inputs(run: &RunInput, opts: &Options) -> Result<Texts<Vec<String>>, InvalidArgument> {
        let contexts = retrieved_contexts(run, opts.context.as_deref())?;
        if contexts.items.is_empty() {
            return Err(InvalidArgument::input(format!(
                "{ID}: there is no context to check the output against ({} gave none); looked at run.context, the scorer's context option and the tool results in run.output",
                contexts.source.describe()
            )));
        }
        let (input, text) = claims::output_texts(run, ID)?;
        Ok(Texts {
            input,
            text,
            context: contexts.items,
        })
    }

    fn score(_claims: usize, verdicts: &[Verdict], scale: f64) -> f64 {
        score(verdicts, scale)
    }

    fn reason_prompt(t: &Texts<Vec<String>>, c: &[String], o: &claims::prompts::Outcome) -> String {
        claims::prompts::output_reason_prompt(&prompts::REASON, t, c, o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::RunContext;
    use crate::pipeline::RunError;
    use crate::scorers::llm::claims::ClaimOptions;
    use serde_json::json;
    use serde_json::Value;

    fn verdict_problem(v: &Verdicts, claims: usize) -> Option<String> {
        super::super::claims::verdict_problem::<FaithfulnessMetric>(v, claims)
    }

    fn v(labels: &[&str]) -> Vec<Verdict> {
        labels
            .iter()
            .map(|l| Verdict {
                claim: None,
                verdict: l.to_string(),
                reason: String::new(),
            })
            .collect()
    }

    #[test]
    fn score_table() {
        let cases: Vec<(Vec<Verdict>, f64, f64)> = vec![
            // no claims / no verdicts → 0
            (v(&[]), 1.0, 0.0),
            (v(&[]), 10.0, 0.0),
            // all one way
            (v(&["yes", "yes"]), 1.0, 1.0),
            (v(&["no", "no"]), 1.0, 0.0),
            (v(&["unsure"]), 1.0, 0.0),
            // unsure and no both count as unsupported
            (v(&["yes", "no", "unsure"]), 1.0, 0.33),
            (v(&["yes", "yes", "unsure"]), 1.0, 0.67),
            (v(&["yes", "no"]), 1.0, 0.5),
            // scale
            (v(&["yes", "no", "unsure"]), 10.0, 3.33),
            (v(&["yes", "yes", "no"]), 5.0, 3.33),
            (v(&["yes"]), 0.5, 0.5),
            // half up: 1/8 × 1 = 0.125 → 0.13
            (
                v(&["yes", "no", "no", "no", "no", "no", "no", "no"]),
                1.0,
                0.13,
            ),
            // labels trimmed and lowercased (Mastra compares exactly: a deliberate difference)
            (v(&[" Yes ", "YES", "no"]), 1.0, 0.67),
            // anything else is not support
            (v(&["yes.", "supported"]), 1.0, 0.0),
        ];
        for (verdicts, scale, want) in cases {
            let got = score(&verdicts, scale);
            assert_eq!(
                got,
                want,
                "{:?} × {scale}",
                verdicts.iter().map(|r| &r.verdict).collect::<Vec<_>>()
            );
            assert!(got.is_finite());
        }
    }

    #[test]
    fn options_forms_merge_with_defaults() {
        let o = |v: Value| Options::from_value(&v, &crate::scorers::spec::BuildContext::default());
        assert_eq!(o(json!({})).unwrap(), Options::default());
        assert_eq!(
            o(json!({"options": {"context": ["c"]}})).unwrap(),
            Options {
                scale: 1.0,
                context: Some(vec!["c".into()])
            }
        );
        assert_eq!(
            o(json!({"scale": 2, "options": {"scale": 3}}))
                .unwrap()
                .scale,
            2.0
        );
        assert_eq!(o(json!({"options": {"scale": 5}})).unwrap().scale, 5.0);
        for (bad, want) in [
            (
                json!({"scale": 0}),
                "options.scale must be a number greater than 0 and at most 1000000; got 0",
            ),
            (
                json!({"options": {"scale": -1}}),
                "options.options.scale must be a number greater than 0",
            ),
            (json!({"scale": "2"}), "options.scale must be a number"),
            (
                json!({"context": "c"}),
                "options.context must be an array of strings; got string",
            ),
            (
                json!({"options": {"context": [1]}}),
                "options.options.context[0] must be a string; got number",
            ),
        ] {
            let e = o(bad.clone()).unwrap_err();
            assert!(e.message.contains(want), "{bad}: {}", e.message);
        }
    }

    #[test]
    fn verdict_expectations() {
        let vs = |labels: &[&str]| Verdicts {
            verdicts: v(labels),
        };
        assert_eq!(verdict_problem(&vs(&["yes", "no", "unsure"]), 3), None);
        assert_eq!(
            verdict_problem(&vs(&["yes"]), 3).unwrap(),
            "1 verdict for 3 claims"
        );
        assert_eq!(
            verdict_problem(&vs(&["yes", "maybe"]), 2).unwrap(),
            "verdict 2 (\"maybe\") is not yes, no, or unsure (counted as unsure)"
        );
    }

    #[tokio::test]
    async fn missing_context_and_output_are_type_errors() {
        let s = Faithfulness::from_options(
            &json!({"model": {"id": "openai/x", "url": "http://127.0.0.1:9/v1"}}),
        )
        .unwrap();
        let run = |v: Value| RunInput::from_value(v).unwrap();
        for (r, want) in [
            (
                json!({"output": "Paris."}),
                "faithfulness-scorer: there is no context to check the output against (the tool results in run.output gave none)",
            ),
            (
                json!({"output": "Paris.", "context": []}),
                "(run.context gave none)",
            ),
            (
                json!({"output": [{"role": "user", "content": "hi"}], "context": ["c"]}),
                "run.output has no assistant message",
            ),
        ] {
            match crate::scorers::Scorer::run(&s, run(r.clone()), RunContext::default()).await {
                Err(RunError::Invalid(e)) => assert!(e.message.contains(want), "{r}: {}", e.message),
                other => panic!("{r}: {:?}", other.map(|x| x.score)),
            }
        }
        // empty output: 0 without a judge call (the judge URL is unreachable)
        let r = crate::scorers::Scorer::run(
            &s,
            run(json!({"output": " ", "context": ["c"]})),
            RunContext::default(),
        )
        .await
        .unwrap();
        assert_eq!(r.score, Some(0.0));
        assert!(r.judge.is_empty());
        assert_eq!(r.preprocess_step_result, Some(json!({"claims": []})));
        assert_eq!(r.analyze_step_result, Some(json!({"verdicts": []})));
    }
}
