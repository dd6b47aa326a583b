//! `createContextPrecisionScorer`: are the retrieved context pieces relevant to producing the
//! output, and are the relevant ones ranked first (mean average precision)?
//!
//! analyze (LLM: yes/no per context piece, by its 0-based `context_index`) → generateScore
//! (pure) → generateReason (LLM). No preprocess step.
//!
//! Contexts: `run.context`, else the `contextExtractor(input, output)` result, else the
//! `context` option, else the tool results in `run.output` (see
//! [`crate::scorers::llm::context`]); none is a TypeError before any judge call.

mod prompts;

use super::claims::{ClaimOptions, ScaleOptions};
use super::common::judge_from_options;
use super::context::retrieved_contexts;
use super::verdicts::{label_problem, normalize_labels};
use crate::engine::schema::StepOutput;
use crate::engine::{Judge, RunContext};
use crate::error::InvalidArgument;
use crate::pipeline::{count_mismatch, Pipeline, RunError, ScoreResult};
use crate::run::RunInput;
use crate::scorers::spec::BuildContext;
use crate::scorers::spec::{boxed, schema_of, Inputs, Kind, Need, ScorerSpec, StepMeta};
use crate::scorers::ScorerMeta;
use crate::text::{assistant_text, round2_half_up, user_text};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use prompts::INSTRUCTIONS;

pub const ID: &str = "context-precision-scorer";

/// The registry entry.
pub const SPEC: ScorerSpec = ScorerSpec {
    factory: "createContextPrecisionScorer",
    id: ID,
    name: "Context Precision Scorer",
    description: "Evaluates whether the retrieved context pieces are relevant to producing the output and ranked first (mean average precision), with an LLM judge",
    family: "mastra",
    type_name: "ContextPrecision",
    kind: Kind::Llm,
    inputs: Inputs {
        input: Need::Optional,
        output: Need::Required,
        ground_truth: Need::Unused,
        context: Need::Required,
    },
    run_fields: None,
    extractors: &[&crate::scorers::extract::CONTEXT],
    nested_options: Some("Mastra's form; merged with the defaults (top-level keys win)."),
    options: schema_of::<JsOptions>,
    preprocess: None,
    analyze: Some(schema_of::<AnalyzeStep>),
    steps: &[
        StepMeta::judge(
            "analyze",
            "Judge each context piece's relevance to producing the output",
            <Verdicts as StepOutput>::schema,
        ),
        StepMeta::function("generateScore", "Mean average precision of the relevant pieces"),
        StepMeta::text("generateReason", "Explain the score"),
    ],
    build: |v, cx| boxed(ContextPrecision::build(v, cx)),
};

/// The scorer's own factory options, top-level or under `options` (Mastra's form).
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct JsOptions {
    /// Multiplies the score, greater than 0 and at most 1e6. Default 1.
    scale: Option<f64>,
    /// The retrieved context pieces, in retrieval order (not empty), when the run has no
    /// `context` of its own and there is no `contextExtractor`.
    context: Option<Vec<String>>,
}

/// One verdict as the judge sends it (Mastra's shape: the index is a JSON number, the label
/// free text).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Verdict {
    pub context_index: f64,
    pub verdict: String,
    pub reason: String,
}

/// analyze output as the judge sends it (Mastra's `{ verdicts: [{ context_index, verdict, reason }] }`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Verdicts {
    pub verdicts: Vec<Verdict>,
}

crate::step_output!(Verdicts, "context_precision_verdicts", normalize(json) {
        normalize_labels(json, "verdicts", "verdict");
});

/// Whether a context piece is relevant to producing the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Label {
    Yes,
    No,
}

/// One context piece's verdict in `analyzeStepResult`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct StepVerdict {
    pub context_index: f64,
    pub verdict: Label,
    pub reason: String,
}

/// `analyzeStepResult`: the judge's verdicts sorted by `context_index` (as Mastra's score
/// step leaves them), labels normalized (a label the fallback did not fix is recorded as
/// `no`, with a warning; Mastra's math does not count it either).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct AnalyzeStep {
    pub verdicts: Vec<StepVerdict>,
}

/// One verdict per context piece, indices 0..n-1 each once, each yes/no.
fn verdict_problem(v: &Verdicts, pieces: usize) -> Option<String> {
    if let Some(m) = count_mismatch(v.verdicts.len(), "verdict", pieces, "context piece") {
        return Some(m);
    }
    let mut seen = vec![false; pieces];
    for x in &v.verdicts {
        let i = x.context_index;
        let ok = i.fract() == 0.0 && i >= 0.0 && (i as usize) < pieces && !seen[i as usize];
        if !ok {
            return Some(format!(
                "context_index {} is not one of 0..{} given once each",
                crate::options::fmt_number(i),
                pieces.saturating_sub(1)
            ));
        }
        seen[i as usize] = true;
    }
    label_problem(
        v.verdicts.iter().map(|x| x.verdict.as_str()),
        &["yes", "no"],
        "no",
    )
}

/// Scorer options after defaults: `{ scale = 1, context? }` (not empty when given).
pub type Options = ScaleOptions<true>;

/// Mastra's formula: verdicts sorted by `context_index` (stable); for each relevant one at
/// position i (0-based), precision@i = relevant so far / (i + 1); score = mean of those
/// precisions × scale, rounded half up to 2 decimals; 0 without verdicts or without any
/// relevant one. Labels are compared trimmed and lowercased (as Mastra does).
pub fn score(verdicts: &[Verdict], scale: f64) -> f64 {
    let mut sorted: Vec<&Verdict> = verdicts.iter().collect();
    sorted.sort_by(|a, b| a.context_index.total_cmp(&b.context_index));
    let mut relevant = 0usize;
    let mut sum = 0.0;
    for (i, v) in sorted.iter().enumerate() {
        if v.verdict.trim().to_lowercase() == "yes" {
            relevant += 1;
            sum += relevant as f64 / (i + 1) as f64;
        }
    }
    if relevant == 0 {
        return 0.0;
    }
    round2_half_up(sum / relevant as f64 * scale)
}

pub struct ContextPrecision {
    judge: Judge,
    opts: Options,
    meta: ScorerMeta,
}

impl ContextPrecision {
    /// Build from the factory options alone (nothing from the host).
    pub fn from_options(v: &Value) -> Result<Self, InvalidArgument> {
        Self::build(v, &BuildContext::default())
    }

    pub fn build(v: &Value, cx: &BuildContext) -> Result<Self, InvalidArgument> {
        let judge = judge_from_options(v, "createContextPrecisionScorer", cx)?;
        let opts = Options::from_value(v, cx)?;
        Ok(Self::new(judge, opts))
    }

    pub fn new(judge: Judge, opts: Options) -> Self {
        let meta = ScorerMeta::agent(&SPEC, &judge, INSTRUCTIONS).scaled(opts.scale);
        ContextPrecision { judge, opts, meta }
    }

    async fn run_inner(&self, run: RunInput, ctx: RunContext) -> Result<ScoreResult, RunError> {
        let contexts = retrieved_contexts(&run, self.opts.context.as_deref())?;
        if contexts.items.is_empty() {
            return Err(InvalidArgument::input(format!(
                "{ID}: there are no retrieved context pieces to evaluate ({} gave none); looked at run.context, the contextExtractor, the scorer's context option and the tool results in run.output",
                contexts.source.describe()
            ))
            .into());
        }
        let context = contexts.items;
        let answer = assistant_text(&run.output).ok_or_else(|| {
            InvalidArgument::input(format!(
                "{ID}: run.output has no assistant message (only other roles); pass the agent's answer as a string or as assistant messages"
            ))
        })?;
        let question = run.input.as_ref().and_then(user_text).unwrap_or_default();
        let scale = self.opts.scale;
        let mut p = Pipeline::new(&self.judge, &ctx, run.run_id);

        let prompt = prompts::judge_prompt(&question, &answer, &context);
        let want = context.len();
        let judged = p
            .structured_expect::<Verdicts>("analyze", INSTRUCTIONS, &prompt, |v| {
                verdict_problem(v, want)
            })
            .await?;
        p.result.analyze_prompt = Some(prompt);
        let mut verdicts = judged.value.verdicts;
        verdicts.sort_by(|a, b| a.context_index.total_cmp(&b.context_index));
        let step = AnalyzeStep {
            verdicts: verdicts
                .iter()
                .map(|v| StepVerdict {
                    context_index: v.context_index,
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
        p.complete("analyze");

        let s = score(&verdicts, scale);
        p.result.score = Some(s);
        p.complete("generateScore");

        let recorded = p.analyzed("verdicts");
        let prompt = prompts::reason_prompt(&question, &answer, &context, s, scale, recorded);
        p.generate_reason(INSTRUCTIONS, prompt).await?;
        p.finish()
    }
}

crate::impl_scorer!(ContextPrecision);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Verdicts in the given order; `(index, label)`.
    fn v(items: &[(f64, &str)]) -> Vec<Verdict> {
        items
            .iter()
            .map(|(i, l)| Verdict {
                context_index: *i,
                verdict: l.to_string(),
                reason: String::new(),
            })
            .collect()
    }
    /// Verdicts indexed 0.. in order.
    fn seq(labels: &[&str]) -> Vec<Verdict> {
        let items: Vec<(f64, &str)> = labels
            .iter()
            .enumerate()
            .map(|(i, l)| (i as f64, *l))
            .collect();
        v(&items)
    }

    #[test]
    fn score_table() {
        let cases: Vec<(Vec<Verdict>, f64, f64)> = vec![
            // no verdicts / none relevant → 0
            (seq(&[]), 1.0, 0.0),
            (seq(&["no", "no"]), 1.0, 0.0),
            (seq(&["no"]), 10.0, 0.0),
            // all relevant → 1 (whatever the count)
            (seq(&["yes"]), 1.0, 1.0),
            (seq(&["yes", "yes", "yes"]), 1.0, 1.0),
            // rank matters: (1/1 + 2/3) / 2 = 0.8333 → 0.83
            (seq(&["yes", "no", "yes"]), 1.0, 0.83),
            // (1/2 + 2/3) / 2 = 0.5833 → 0.58
            (seq(&["no", "yes", "yes"]), 1.0, 0.58),
            // (1/3) / 1 = 0.33
            (seq(&["no", "no", "yes"]), 1.0, 0.33),
            // (1/1) / 1 = 1 even with trailing irrelevant pieces
            (seq(&["yes", "no", "no", "no"]), 1.0, 1.0),
            // (1/2 + 2/4) / 2 = 0.5
            (seq(&["no", "yes", "no", "yes"]), 1.0, 0.5),
            // scale
            (seq(&["yes", "no", "yes"]), 10.0, 8.33),
            // order by context_index, not by arrival: the same as ["yes", "no", "yes"]
            (v(&[(2.0, "yes"), (0.0, "yes"), (1.0, "no")]), 1.0, 0.83),
            // 1-based or gapped indices: only their order counts (Mastra's math):
            // sorted yes, yes, no → 1
            (v(&[(3.0, "no"), (1.0, "yes"), (2.0, "yes")]), 1.0, 1.0),
            (v(&[(3.0, "yes"), (1.0, "no"), (5.0, "no")]), 1.0, 0.5),
            // labels trimmed and lowercased (as Mastra does)
            (seq(&[" YES ", "No", "Yes"]), 1.0, 0.83),
            // half up: (1/1 + 2/8) / 2 = 0.625 → 0.63
            (
                seq(&["yes", "no", "no", "no", "no", "no", "no", "yes"]),
                1.0,
                0.63,
            ),
        ];
        for (verdicts, scale, want) in cases {
            let got = score(&verdicts, scale);
            assert_eq!(
                got,
                want,
                "{:?} × {scale}",
                verdicts
                    .iter()
                    .map(|r| (r.context_index, &r.verdict))
                    .collect::<Vec<_>>()
            );
            assert!(got.is_finite());
        }
    }

    #[test]
    fn options() {
        let o = |v: Value| Options::from_value(&v, &BuildContext::default());
        assert_eq!(
            o(json!({})).unwrap(),
            Options {
                scale: 1.0,
                context: None
            }
        );
        assert_eq!(
            o(json!({"options": {"scale": 2, "context": ["a"]}})).unwrap(),
            Options {
                scale: 2.0,
                context: Some(vec!["a".into()])
            }
        );
        for (bad, want) in [
            (
                json!({"context": []}),
                "options.context must not be empty when given",
            ),
            (
                json!({"options": {"context": []}}),
                "options.context must not be empty",
            ),
            (
                json!({"scale": -2}),
                "options.scale must be a number greater than 0",
            ),
            (
                json!({"context": "a"}),
                "options.context must be an array of strings",
            ),
        ] {
            let e = o(bad.clone()).unwrap_err();
            assert!(e.message.contains(want), "{bad}: {}", e.message);
        }
    }

    #[test]
    fn verdict_expectations() {
        let vs = |items: &[(f64, &str)]| Verdicts { verdicts: v(items) };
        assert_eq!(verdict_problem(&vs(&[(1.0, "no"), (0.0, "yes")]), 2), None);
        assert_eq!(
            verdict_problem(&vs(&[(0.0, "yes")]), 2).unwrap(),
            "1 verdict for 2 context pieces"
        );
        assert_eq!(
            verdict_problem(&vs(&[(1.0, "yes"), (2.0, "no")]), 2).unwrap(),
            "context_index 2 is not one of 0..1 given once each"
        );
        assert_eq!(
            verdict_problem(&vs(&[(0.0, "yes"), (0.0, "no")]), 2).unwrap(),
            "context_index 0 is not one of 0..1 given once each"
        );
        assert_eq!(
            verdict_problem(&vs(&[(0.5, "yes"), (1.0, "no")]), 2).unwrap(),
            "context_index 0.5 is not one of 0..1 given once each"
        );
        assert_eq!(
            verdict_problem(&vs(&[(0.0, "maybe"), (1.0, "no")]), 2).unwrap(),
            "verdict 1 (\"maybe\") is not yes or no (counted as no)"
        );
    }

    #[tokio::test]
    async fn missing_context_is_a_type_error() {
        let s = ContextPrecision::from_options(
            &json!({"model": {"id": "openai/x", "url": "http://127.0.0.1:9/v1"}}),
        )
        .unwrap();
        let run = |v: Value| RunInput::from_value(v).unwrap();
        for (r, want) in [
            (
                json!({"output": "a"}),
                "(the tool results in run.output gave none)",
            ),
            (
                json!({"output": "a", "context": []}),
                "(run.context gave none)",
            ),
            (
                json!({"output": "a", "extractedContext": []}),
                "(the contextExtractor's result gave none)",
            ),
        ] {
            match crate::scorers::Scorer::run(&s, run(r.clone()), RunContext::default()).await {
                Err(RunError::Invalid(e)) => {
                    assert!(e.message.starts_with("context-precision-scorer: there are no retrieved context pieces to evaluate"), "{}", e.message);
                    assert!(e.message.contains(want), "{r}: {}", e.message);
                }
                other => panic!("{r}: {:?}", other.map(|x| x.score)),
            }
        }
    }
}
