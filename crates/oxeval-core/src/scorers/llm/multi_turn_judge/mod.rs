//! `createMultiTurnJudgeScorer`: Mastra's multi-turn judge (`type` undefined). analyze (LLM:
//! the whole conversation's assistant turns against one plain-English criterion) →
//! generateScore (pure: satisfied × scale) → generateReason (pure). 1 judge call.
//!
//! The turns are read as Mastra reads them: an agent-shaped output (every message with
//! `id`, `role`, `content`, `createdAt`) gives every assistant message's text, trimmed,
//! empty ones dropped; a non-empty string is one turn; anything else gives no turns.

mod prompts;

use super::common::{judge_from_options, judge_json};
use crate::agent::js::trim;
use crate::agent::messages::{assistant_texts, is_agent_output};
use crate::engine::schema::StepOutput;
use crate::engine::{Judge, RunContext};
use crate::error::{type_name, InvalidArgument};
use crate::options::{scorer_number_in, scorer_value};
use crate::pipeline::{Pipeline, RunError, ScoreResult};
use crate::run::RunInput;
use crate::scorers::spec::{
    boxed, schema_of, BuildContext, Inputs, Kind, Need, ScorerSpec, StepMeta,
};
use crate::scorers::ScorerMeta;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use prompts::INSTRUCTIONS;

pub const ID: &str = "multi-turn-judge-scorer";

/// Largest accepted `scale`.
pub const MAX_SCALE: f64 = 1e6;

/// The registry entry.
pub const SPEC: ScorerSpec = ScorerSpec {
    factory: "createMultiTurnJudgeScorer",
    id: ID,
    name: "Multi-turn Judge (LLM)",
    description: "Grades every assistant turn of a conversation against a plain-English criterion",
    family: "mastra",
    type_name: "MultiTurnJudge",
    kind: Kind::Llm,
    inputs: Inputs {
        input: Need::Unused,
        output: Need::Required,
        ground_truth: Need::Unused,
        context: Need::Unused,
    },
    run_fields: None,
    extractors: &[],
    nested_options: Some(
        "Mastra's form (`options.scale`); merged with the defaults (top-level keys win).",
    ),
    options: schema_of::<JsOptions>,
    preprocess: None,
    analyze: Some(schema_of::<Analysis>),
    steps: &[
        StepMeta::judge(
            "analyze",
            "Judge the whole conversation against the criterion",
            <Analysis as StepOutput>::schema,
        ),
        StepMeta::function(
            "generateScore",
            "1 when the criterion is satisfied, else 0, times the scale",
        ),
        StepMeta::function(
            "generateReason",
            "The verdict, the criterion and the judge's reasoning",
        ),
    ],
    build: |v, cx| boxed(MultiTurnJudge::build(v, cx)),
};

/// The scorer's own factory options.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct JsOptions {
    /// The plain-English criterion the whole conversation must satisfy (required).
    criterion: Option<String>,
    /// Multiplies the score, at least 0 and at most 1e6. Default 1.
    scale: Option<f64>,
}

/// analyze output (`analyzeStepResult`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Analysis {
    pub satisfied: bool,
    pub reasoning: String,
}
crate::step_output!(Analysis, "multi_turn_judgement");

/// Mastra's `getAssistantTurns(output)`.
pub fn turns(output: &Value) -> Vec<String> {
    if is_agent_output(output) {
        let list = output.as_array().map_or(&[][..], Vec::as_slice);
        return assistant_texts(list)
            .iter()
            .map(|t| trim(t).to_string())
            .filter(|t| !t.is_empty())
            .collect();
    }
    match output {
        Value::String(s) if !trim(s).is_empty() => vec![trim(s).to_string()],
        _ => Vec::new(),
    }
}

/// A message list Mastra reads no turns from although it has assistant text (messages
/// without `id` / `createdAt`): the warning's subject.
fn unread_assistant_text(output: &Value) -> bool {
    !is_agent_output(output)
        && output
            .as_array()
            .is_some_and(|l| assistant_texts(l).iter().any(|t| !trim(t).is_empty()))
}

/// Mastra's formula: `(satisfied ? 1 : 0) × scale`, unrounded.
pub fn score(satisfied: bool, scale: f64) -> f64 {
    if satisfied {
        scale
    } else {
        0.0
    }
}

/// Mastra's reason: the verdict, the criterion and the judge's reasoning.
pub fn reason(a: &Analysis, criterion: &str) -> String {
    let verdict = if a.satisfied {
        "✅ Criterion satisfied."
    } else {
        "❌ Criterion not satisfied."
    };
    let why = if a.reasoning.is_empty() {
        "(no reasoning returned by the judge)"
    } else {
        &a.reasoning
    };
    format!("{verdict}\n\n{criterion}\n\n{why}")
}

pub struct MultiTurnJudge {
    judge: Judge,
    criterion: String,
    scale: f64,
    meta: ScorerMeta,
}

impl MultiTurnJudge {
    /// Build from the factory options alone (nothing from the host).
    pub fn from_options(v: &Value) -> Result<Self, InvalidArgument> {
        Self::build(v, &BuildContext::default())
    }

    pub fn build(v: &Value, cx: &BuildContext) -> Result<Self, InvalidArgument> {
        let judge = judge_from_options(v, SPEC.factory, cx)?;
        let criterion = match scorer_value(v, "criterion")? {
            Some((Value::String(s), _)) if !trim(s).is_empty() => s.clone(),
            Some((other, path)) => {
                return Err(InvalidArgument::options(format!(
                    "{path} must be a non-empty string (the criterion the conversation is graded against); got {}",
                    match other {
                        Value::String(_) => "an empty string",
                        o => type_name(o),
                    }
                )))
            }
            None => {
                return Err(InvalidArgument::options(
                    "createMultiTurnJudgeScorer() needs options.criterion: the plain-English criterion the conversation is graded against",
                ))
            }
        };
        let scale = scorer_number_in(v, "scale", (0.0, false), MAX_SCALE, 1.0)?;
        let meta = ScorerMeta::agent(&SPEC, &judge, INSTRUCTIONS)
            .scaled(scale)
            .typed("");
        Ok(MultiTurnJudge {
            judge,
            criterion,
            scale,
            meta,
        })
    }

    async fn run_inner(&self, run: RunInput, ctx: RunContext) -> Result<ScoreResult, RunError> {
        let turns = turns(&run.output);
        let mut p = Pipeline::new(&self.judge, &ctx, run.run_id);
        if unread_assistant_text(&run.output) {
            p.result.warnings.push(
                "analyze: run.output is a message list without Mastra's agent shape (id, role, content, createdAt on every message), so no turn is read from it, as in Mastra; the judge grades an empty transcript".into(),
            );
        }
        let prompt = prompts::analyze_prompt(&self.criterion, &turns);
        let analysis = p
            .structured::<Analysis>("analyze", INSTRUCTIONS, &prompt)
            .await?
            .value;
        p.result.analyze_prompt = Some(prompt);
        p.result.analyze_step_result = judge_json(&p, "analyze");
        p.complete("analyze");

        let s = score(analysis.satisfied, self.scale);
        p.result.score = Some(s);
        p.complete("generateScore");
        p.result.reason = Some(reason(&analysis, &self.criterion));
        p.complete("generateReason");
        p.finish()
    }
}

crate::impl_scorer!(MultiTurnJudge);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn m(role: &str, content: Value) -> Value {
        json!({"id": "x", "role": role, "content": content, "createdAt": "2025-01-01T00:00:00Z"})
    }

    #[test]
    fn turns_as_mastra_reads_them() {
        let agent = json!([
            m("user", json!("hi")),
            m(
                "assistant",
                json!({"format": 2, "parts": [{"type": "text", "text": " first "}]})
            ),
            m(
                "assistant",
                json!({"format": 2, "parts": [{"type": "tool-invocation", "toolInvocation": {}}]})
            ),
            m("assistant", json!("second")),
        ]);
        assert_eq!(turns(&agent), ["first", "second"]);
        assert_eq!(turns(&json!("  one  ")), ["one"]);
        assert!(turns(&json!("   ")).is_empty());
        let plain = json!([{"role": "assistant", "content": "lost"}]);
        assert!(
            turns(&plain).is_empty(),
            "no id/createdAt: Mastra reads nothing"
        );
        assert!(unread_assistant_text(&plain));
        assert!(!unread_assistant_text(&agent));
        assert!(turns(&json!({"text": "x"})).is_empty());
    }

    #[test]
    fn score_and_reason_table() {
        for (satisfied, scale, want) in [
            (true, 1.0, 1.0),
            (false, 1.0, 0.0),
            (true, 0.0, 0.0),
            (true, 7.5, 7.5),
            (false, 9.0, 0.0),
        ] {
            assert_eq!(score(satisfied, scale), want);
        }
        let a = Analysis {
            satisfied: false,
            reasoning: String::new(),
        };
        assert_eq!(
            reason(&a, "Be polite."),
            "❌ Criterion not satisfied.\n\nBe polite.\n\n(no reasoning returned by the judge)"
        );
        let a = Analysis {
            satisfied: true,
            reasoning: "Turn 2.".into(),
        };
        assert_eq!(reason(&a, "C"), "✅ Criterion satisfied.\n\nC\n\nTurn 2.");
    }
}
