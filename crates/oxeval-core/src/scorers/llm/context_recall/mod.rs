//! `createContextRecallScorer`: how many of the ground truth's claims the retrieved context
//! supports.
//!
//! preprocess (LLM: claims of `run.groundTruth`) → analyze (LLM: yes/no per claim, attributable
//! to the context or not) → generateScore (pure) → generateReason (LLM): a member of the
//! claim/verdict family ([`super::claims`]).
//!
//! Contexts: `run.context`, else the `contextExtractor(input, output)` result, else the
//! `context` option, else the tool results in `run.output`; none is a TypeError before any
//! judge call, and so is a missing `groundTruth` (Mastra scores 0 after three judge calls).

pub(super) mod prompts;

use super::claims::{self, ClaimMetric, ClaimScorer, Texts};
use super::common::reference_text;
use super::context::retrieved_contexts;
use crate::error::InvalidArgument;
use crate::run::RunInput;
use crate::scorers::spec::{boxed, schema_of, Inputs, Kind, Need, ScorerSpec};
use crate::text::round2_half_up;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use prompts::INSTRUCTIONS;

pub const ID: &str = "context-recall-scorer";

/// The registry entry.
pub const SPEC: ScorerSpec = ScorerSpec {
    factory: "createContextRecallScorer",
    id: ID,
    name: "Context Recall Scorer",
    description: "Evaluates how many of the ground truth's claims the retrieved context supports, with an LLM judge",
    family: "mastra",
    type_name: "ContextRecall",
    kind: Kind::Llm,
    inputs: Inputs {
        input: Need::Unused,
        output: Need::Unused,
        ground_truth: Need::Required,
        context: Need::Required,
    },
    run_fields: None,
    extractors: &[&crate::scorers::extract::CONTEXT],
    nested_options: Some("Mastra's form; merged with the defaults (top-level keys win)."),
    options: schema_of::<JsOptions>,
    preprocess: Some(schema_of::<Claims>),
    analyze: Some(schema_of::<AnalyzeStep>),
    steps: &claims::steps::<Claims, Verdicts>(
        "Extract the claims of the ground truth",
        "Check whether each claim is attributable to the context",
        "Share of ground-truth claims the context supports",
    ),
    build: |v, cx| boxed(ContextRecall::build(v, cx)),
};

/// The scorer's own factory options, top-level or under `options` (Mastra's form).
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct JsOptions {
    /// Multiplies the score, greater than 0 and at most 1e6. Default 1.
    scale: Option<f64>,
    /// The retrieved context pieces (not empty), when the run has no `context` of its own
    /// and there is no `contextExtractor`.
    context: Option<Vec<String>>,
}

crate::claim_steps!(
    /// preprocess output (Mastra's `{ claims }`): the ground truth's claims.
    "context_recall_claims",
    "context_recall_verdicts",
    Verdict
);

/// One verdict as the judge sends it (the label is free text on the wire, as in Mastra).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Verdict {
    pub verdict: String,
    pub reason: String,
}

/// Whether a ground-truth claim can be attributed to the context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Label {
    Yes,
    No,
}

/// One claim's verdict in `analyzeStepResult`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct StepVerdict {
    pub verdict: Label,
    pub reason: String,
}

/// `analyzeStepResult`: the judge's verdicts, labels normalized (a label the fallback did not
/// fix is recorded as `no`, with a warning; Mastra's math does not count it either).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct AnalyzeStep {
    pub verdicts: Vec<StepVerdict>,
}

/// Scorer options after defaults.
pub type Options = claims::ScaleOptions<true>;

/// Mastra's formula: min(1, #yes / #claims) × scale, rounded half up to 2 decimals; 0
/// without claims. The denominator is the number of CLAIMS (not of verdicts). Labels are
/// compared trimmed and lowercased (as Mastra does).
pub fn score(claims: usize, verdicts: &[Verdict], scale: f64) -> f64 {
    if claims == 0 {
        return 0.0;
    }
    let yes = verdicts
        .iter()
        .filter(|v| v.verdict.trim().to_lowercase() == "yes")
        .count();
    round2_half_up((yes as f64 / claims as f64).min(1.0) * scale)
}

/// `createContextRecallScorer({ model, scale?, context?, contextExtractor? })`.
pub type ContextRecall = ClaimScorer<ContextRecallMetric>;

/// The context recall member of the claim/verdict family.
pub struct ContextRecallMetric;

impl ClaimMetric for ContextRecallMetric {
    const SPEC: &'static ScorerSpec = &SPEC;
    const INSTRUCTIONS: &'static str = INSTRUCTIONS;
    const LABELS: &'static [&'static str] = &["yes", "no"];
    const COUNTED_AS: &'static str = "no";
    const EXTRACT_PROMPT: fn(&str) -> String = prompts::extract_prompt;
    const JUDGE_PROMPT: fn(&[String], &[String]) -> String = prompts::judge_prompt;
    type Claims = Claims;
    type Verdicts = Verdicts;
    type Options = Options;
    type Context = Vec<String>;

    fn inputs(run: &RunInput, opts: &Options) -> Result<Texts<Vec<String>>, InvalidArgument> {
        let reference = match &run.ground_truth {
            None => None,
            Some(v) => reference_text(v).map_err(|t| {
                InvalidArgument::input(format!(
                    "{ID}: run.groundTruth must be the reference answer (a string or messages); got {t}"
                ))
            })?,
        }
        .unwrap_or_default();
        if reference.trim().is_empty() {
            return Err(InvalidArgument::input(format!(
                "{ID}: the ground truth is missing: pass the reference answer as run.groundTruth (its claims are checked against the context)"
            )));
        }
        let contexts = retrieved_contexts(run, opts.context.as_deref())?;
        if contexts.items.is_empty() {
            return Err(InvalidArgument::input(format!(
                "{ID}: there are no retrieved context pieces to check the ground truth against ({} gave none); looked at run.context, the contextExtractor, the scorer's context option and the tool results in run.output",
                contexts.source.describe()
            )));
        }
        let (input, context) = (String::new(), contexts.items);
        Ok(Texts {
            input,
            text: reference,
            context,
        })
    }

    fn score(claims: usize, verdicts: &[Verdict], scale: f64) -> f64 {
        score(claims, verdicts, scale)
    }

    fn reason_prompt(t: &Texts<Vec<String>>, c: &[String], o: &claims::prompts::Outcome) -> String {
        prompts::reason_prompt(&t.text, c, o)
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
        super::super::claims::verdict_problem::<ContextRecallMetric>(v, claims)
    }

    fn v(labels: &[&str]) -> Vec<Verdict> {
        labels
            .iter()
            .map(|l| Verdict {
                verdict: l.to_string(),
                reason: String::new(),
            })
            .collect()
    }

    #[test]
    fn score_table() {
        let cases: Vec<(usize, Vec<Verdict>, f64, f64)> = vec![
            // no claims → 0
            (0, v(&[]), 1.0, 0.0),
            (0, v(&["yes"]), 1.0, 0.0),
            // all one way
            (2, v(&["yes", "yes"]), 1.0, 1.0),
            (3, v(&["no", "no", "no"]), 1.0, 0.0),
            // mixes
            (3, v(&["yes", "yes", "no"]), 1.0, 0.67),
            (3, v(&["yes", "no", "no"]), 1.0, 0.33),
            // the denominator is the number of claims, not of verdicts
            (4, v(&["yes", "yes"]), 1.0, 0.5),
            // more yes verdicts than claims: capped at 1 (before the scale)
            (2, v(&["yes", "yes", "yes"]), 1.0, 1.0),
            (2, v(&["yes", "yes", "yes"]), 10.0, 10.0),
            // scale
            (3, v(&["yes", "yes", "no"]), 10.0, 6.67),
            // half up: 5/8 = 0.625 → 0.63
            (8, v(&["yes", "yes", "yes", "yes", "yes"]), 1.0, 0.63),
            // labels trimmed and lowercased (as Mastra does)
            (2, v(&[" YES", "Yes "]), 1.0, 1.0),
            (1, v(&["attributable"]), 1.0, 0.0),
        ];
        for (claims, verdicts, scale, want) in cases {
            let got = score(claims, &verdicts, scale);
            assert_eq!(
                got,
                want,
                "{claims} claims, {:?} × {scale}",
                verdicts.iter().map(|r| &r.verdict).collect::<Vec<_>>()
            );
            assert!(got.is_finite());
        }
    }

    #[test]
    fn options() {
        let o = |v: Value| Options::from_value(&v, &crate::scorers::spec::BuildContext::default());
        assert_eq!(
            o(json!({"options": {"context": ["a"], "scale": 3}})).unwrap(),
            Options {
                scale: 3.0,
                context: Some(vec!["a".into()])
            }
        );
        assert_eq!(o(json!({})).unwrap().scale, 1.0);
        for (bad, want) in [
            (json!({"context": []}), "options.context must not be empty"),
            (
                json!({"scale": 0}),
                "options.scale must be a number greater than 0",
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
        assert_eq!(verdict_problem(&vs(&["yes", "no"]), 2), None);
        assert_eq!(
            verdict_problem(&vs(&["yes"]), 2).unwrap(),
            "1 verdict for 2 claims"
        );
        assert_eq!(
            verdict_problem(&vs(&["partial"]), 1).unwrap(),
            "verdict 1 (\"partial\") is not yes or no (counted as no)"
        );
    }

    #[tokio::test]
    async fn missing_ground_truth_or_context_is_a_type_error() {
        let s = ContextRecall::from_options(
            &json!({"model": {"id": "openai/x", "url": "http://127.0.0.1:9/v1"}}),
        )
        .unwrap();
        let run = |v: Value| RunInput::from_value(v).unwrap();
        for (r, want) in [
            (
                json!({"output": "a", "context": ["c"]}),
                "context-recall-scorer: the ground truth is missing",
            ),
            (
                json!({"output": "a", "context": ["c"], "groundTruth": "  "}),
                "the ground truth is missing",
            ),
            (
                json!({"output": "a", "groundTruth": "Paris."}),
                "context-recall-scorer: there are no retrieved context pieces to check the ground truth against (the tool results in run.output gave none)",
            ),
        ] {
            match crate::scorers::Scorer::run(&s, run(r.clone()), RunContext::default()).await {
                Err(RunError::Invalid(e)) => assert!(e.message.contains(want), "{r}: {}", e.message),
                other => panic!("{r}: {:?}", other.map(|x| x.score)),
            }
        }
    }
}
