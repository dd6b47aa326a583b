//! `createContextRecallScorer`: how many of the ground truth's claims the retrieved context
//! supports.
//!
//! preprocess (LLM: claims of `run.groundTruth`) → analyze (LLM: yes/no per claim, attributable
//! to the context or not) → generateScore (pure) → generateReason (LLM).
//!
//! Contexts: `run.context`, else the `contextExtractor(input, output)` result, else the
//! `context` option, else the tool results in `run.output`; none is a TypeError before any
//! judge call, and so is a missing `groundTruth` (Mastra scores 0 after three judge calls).

mod prompts;

use super::common::{judge_from_options, reference_text};
use super::context::retrieved_contexts;
use super::context_precision::nonempty_context_option;
use super::verdicts::{label_problem, normalize_labels};
use crate::engine::schema::StepOutput;
use crate::engine::{Judge, RunContext};
use crate::error::InvalidArgument;
use crate::options::scorer_number_in;
use crate::pipeline::{count_mismatch, Pipeline, RunError, ScoreResult};
use crate::run::RunInput;
use crate::scorers::spec::{boxed, schema_of, Inputs, Kind, Need, ScorerSpec, StepMeta};
use crate::scorers::ScorerMeta;
use crate::text::round2_half_up;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use prompts::INSTRUCTIONS;

pub const ID: &str = "context-recall-scorer";

/// Largest accepted `scale` (keeps every score finite).
pub const MAX_SCALE: f64 = 1e6;

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
    context_extractor: true,
    options: schema_of::<JsOptions>,
    preprocess: Some(schema_of::<Claims>),
    analyze: Some(schema_of::<AnalyzeStep>),
    steps: &[
        StepMeta::judge(
            "preprocess",
            "Extract the claims of the ground truth",
            <Claims as StepOutput>::schema,
        ),
        StepMeta::judge(
            "analyze",
            "Check whether each claim is attributable to the context",
            <Verdicts as StepOutput>::schema,
        ),
        StepMeta::function("generateScore", "Share of ground-truth claims the context supports"),
        StepMeta::text("generateReason", "Explain the score"),
    ],
    build: |v| boxed(ContextRecall::from_options(v)),
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
    /// Mastra's form; merged with the defaults (top-level keys win).
    options: Option<JsNestedOptions>,
}

/// `options.options`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct JsNestedOptions {
    /// Multiplies the score, greater than 0 and at most 1e6. Default 1.
    scale: Option<f64>,
    /// The retrieved context pieces (not empty), when the run has no `context` of its own
    /// and there is no `contextExtractor`.
    context: Option<Vec<String>>,
}

/// preprocess output (Mastra's `{ claims }`): the ground truth's claims.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Claims {
    pub claims: Vec<String>,
}
crate::step_output!(Claims, "context_recall_claims");

/// One verdict as the judge sends it (the label is free text on the wire, as in Mastra).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Verdict {
    pub verdict: String,
    pub reason: String,
}

/// analyze output as the judge sends it (Mastra's `{ verdicts: [{ verdict, reason }] }`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Verdicts {
    pub verdicts: Vec<Verdict>,
}

crate::step_output!(Verdicts, "context_recall_verdicts", normalize(json) {
        normalize_labels(json, "verdicts", "verdict");
});

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

/// One verdict per claim, each yes/no.
fn verdict_problem(v: &Verdicts, claims: usize) -> Option<String> {
    count_mismatch(v.verdicts.len(), "verdict", claims, "claim").or_else(|| {
        label_problem(
            v.verdicts.iter().map(|x| x.verdict.as_str()),
            &["yes", "no"],
            "no",
        )
    })
}

/// Scorer options after defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    pub scale: f64,
    pub context: Option<Vec<String>>,
}

impl Options {
    pub fn from_value(v: &Value) -> Result<Self, InvalidArgument> {
        Ok(Options {
            scale: scorer_number_in(v, "scale", (0.0, true), MAX_SCALE, 1.0)?,
            context: nonempty_context_option(v)?,
        })
    }
}

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

pub struct ContextRecall {
    judge: Judge,
    opts: Options,
    meta: ScorerMeta,
}

impl ContextRecall {
    pub fn from_options(v: &Value) -> Result<Self, InvalidArgument> {
        let judge = judge_from_options(v, "createContextRecallScorer")?;
        let opts = Options::from_value(v)?;
        Ok(Self::new(judge, opts))
    }

    pub fn new(judge: Judge, opts: Options) -> Self {
        let meta = ScorerMeta::agent(&SPEC, &judge, INSTRUCTIONS).scaled(opts.scale);
        ContextRecall { judge, opts, meta }
    }

    async fn run_inner(&self, run: RunInput, ctx: RunContext) -> Result<ScoreResult, RunError> {
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
            ))
            .into());
        }
        let contexts = retrieved_contexts(&run, self.opts.context.as_deref())?;
        if contexts.items.is_empty() {
            return Err(InvalidArgument::input(format!(
                "{ID}: there are no retrieved context pieces to check the ground truth against ({} gave none); looked at run.context, the contextExtractor, the scorer's context option and the tool results in run.output",
                contexts.source.describe()
            ))
            .into());
        }
        let context = contexts.items;
        let scale = self.opts.scale;
        let mut p = Pipeline::new(&self.judge, &ctx, run.run_id);

        let extracted = p
            .preprocess::<Claims>(INSTRUCTIONS, prompts::extract_prompt(&reference))
            .await?;

        let claims = extracted.claims;
        let verdicts = if claims.is_empty() {
            p.result.analyze_step_result =
                serde_json::to_value(AnalyzeStep { verdicts: vec![] }).ok();
            Vec::new()
        } else {
            let prompt = prompts::judge_prompt(&context, &claims);
            let want = claims.len();
            let judged = p
                .structured_expect::<Verdicts>("analyze", INSTRUCTIONS, &prompt, |v| {
                    verdict_problem(v, want)
                })
                .await?;
            p.result.analyze_prompt = Some(prompt);
            let step = AnalyzeStep {
                verdicts: judged
                    .value
                    .verdicts
                    .iter()
                    .map(|v| StepVerdict {
                        verdict: if v.verdict == "yes" {
                            Label::Yes
                        } else {
                            Label::No
                        },
                        reason: v.reason.clone(),
                    })
                    .collect(),
            };
            p.result.analyze_step_result = serde_json::to_value(&step).ok();
            judged.value.verdicts
        };
        p.complete("analyze");

        let s = score(claims.len(), &verdicts, scale);
        p.result.score = Some(s);
        p.complete("generateScore");

        let recorded = p.analyzed("verdicts");
        let prompt = prompts::reason_prompt(&reference, &context, s, scale, recorded);
        p.generate_reason(INSTRUCTIONS, prompt).await?;
        p.finish()
    }
}

crate::impl_scorer!(ContextRecall);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
        let o = |v: Value| Options::from_value(&v);
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
