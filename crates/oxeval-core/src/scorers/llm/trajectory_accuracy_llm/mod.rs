//! `createTrajectoryAccuracyScorerLLM`: the quality of an agent's sequence of actions, judged
//! against an expected trajectory or the task (Mastra's, `type: 'trajectory'`).
//!
//! preprocess (pure: the trajectory formatted as Mastra formats it) → analyze (LLM: each step
//! necessary / in order, missing and extra steps) → generateScore (pure) → generateReason
//! (LLM). 2 judge calls.

mod prompts;

use super::common::{judge_from_options, judge_json};
use crate::agent::js::{stringify, template, truthy};
use crate::agent::messages::{assistant_message, user_message};
use crate::engine::schema::StepOutput;
use crate::engine::{Judge, RunContext};
use crate::error::{type_name, InvalidArgument};
use crate::options::options_object;
use crate::pipeline::{Pipeline, RunError, ScoreResult};
use crate::run::RunInput;
use crate::scorers::code::trajectory;
use crate::scorers::spec::{
    boxed, schema_of, BuildContext, Inputs, Kind, Need, ScorerSpec, StepMeta,
};
use crate::scorers::ScorerMeta;
use crate::text::round2_half_up;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

pub use prompts::INSTRUCTIONS;

pub const ID: &str = "llm-trajectory-accuracy-scorer";

/// The registry entry.
pub const SPEC: ScorerSpec = ScorerSpec {
    factory: "createTrajectoryAccuracyScorerLLM",
    id: ID,
    name: "Trajectory Accuracy (LLM)",
    description: "Evaluates the quality and appropriateness of the trajectory using LLM analysis",
    family: "mastra",
    type_name: "TrajectoryAccuracyLLM",
    kind: Kind::Llm,
    inputs: Inputs {
        input: Need::Optional,
        output: Need::Required,
        ground_truth: Need::Unused,
        context: Need::Unused,
    },
    run_fields: Some(schema_of::<JsRunFields>),
    extractors: &[],
    nested_options: None,
    options: schema_of::<JsOptions>,
    preprocess: Some(schema_of::<Preprocess>),
    analyze: Some(schema_of::<Analysis>),
    steps: &[
        StepMeta::function("preprocess", "Format the actual and expected trajectories"),
        StepMeta::judge(
            "analyze",
            "Analyze the quality and appropriateness of the agent trajectory",
            <Analysis as StepOutput>::schema,
        ),
        StepMeta::function(
            "generateScore",
            "0.6 necessary + 0.3 in order − 0.1 missing-step penalty, clamped",
        ),
        StepMeta::text(
            "generateReason",
            "Generate human-readable explanation of trajectory evaluation",
        ),
    ],
    build: |v, cx| boxed(TrajectoryAccuracyLlm::build(v, cx)),
};

/// The description when a static expected trajectory is given (Mastra's).
pub const DESCRIPTION_EXPECTED: &str =
    "Evaluates the trajectory against an expected trajectory using LLM analysis";

/// The scorer's own factory options.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct JsOptions {
    /// The expected steps (an array of expected steps, or a trajectory `{ steps }` whose steps
    /// lose `durationMs` / `metadata`); else each run's `expectedTrajectory`.
    expected_trajectory: Option<Value>,
}

/// The run field the scorer reads.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct JsRunFields {
    /// The dataset item's expected trajectory (`{ steps }`), when the factory has none.
    expected_trajectory: Option<Value>,
}

/// `preprocessStepResult`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct Preprocess {
    actual_trajectory: Value,
    actual_trajectory_formatted: String,
    expected_trajectory_formatted: Option<String>,
    has_steps: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StepEvaluation {
    /// Name of the step (tool name or action).
    pub step_name: String,
    /// Whether this step was necessary for the task.
    pub was_necessary: bool,
    /// Whether this step was in a logical position in the sequence.
    pub was_in_order: bool,
    /// Brief explanation of the evaluation.
    pub reasoning: String,
}

/// analyze output (`analyzeStepResult`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Analysis {
    pub step_evaluations: Vec<StepEvaluation>,
    /// Steps that should have been taken but were not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing_steps: Option<Vec<String>>,
    /// Steps that were unnecessary or redundant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra_steps: Option<Vec<String>>,
    /// Brief overall assessment of the trajectory quality.
    pub overall_assessment: String,
}
crate::step_output!(Analysis, "trajectory_accuracy_analysis");

fn len(v: &Option<Vec<String>>) -> usize {
    v.as_ref().map_or(0, Vec::len)
}

/// Mastra's formula. No step evaluations: 0 with missing steps, 0.5 with extra steps, else 1.
/// Else with n evaluations and m missing steps: `0.6·necessary/n + 0.3·inOrder/n −
/// 0.1·m/(n+m)`, clamped to 0..1 and rounded half up to 2 decimals — so at most 0.9 (kept).
pub fn score(a: &Analysis) -> f64 {
    let n = a.step_evaluations.len();
    let m = len(&a.missing_steps);
    if n == 0 {
        return if m > 0 {
            0.0
        } else if len(&a.extra_steps) > 0 {
            0.5
        } else {
            1.0
        };
    }
    let nf = n as f64;
    let necessary = a
        .step_evaluations
        .iter()
        .filter(|e| e.was_necessary)
        .count() as f64;
    let ordered = a.step_evaluations.iter().filter(|e| e.was_in_order).count() as f64;
    let penalty = if m > 0 {
        m as f64 / (nf + m as f64)
    } else {
        0.0
    };
    let s = (necessary / nf) * 0.6 + (ordered / nf) * 0.3 - penalty * 0.1;
    round2_half_up(s.clamp(0.0, 1.0))
}

/// Mastra's `formatStepDetails(step)`.
fn step_details(step: &Value) -> String {
    let kind = step.get("stepType").and_then(Value::as_str);
    match kind {
        Some("tool_call" | "mcp_tool_call") => {
            let mut parts = Vec::new();
            if let Some(a) = stringify(step.get("toolArgs")) {
                parts.push(format!("args: {a}"));
            }
            if let Some(r) = stringify(step.get("toolResult")) {
                parts.push(format!("result: {r}"));
            }
            if parts.is_empty() {
                String::new()
            } else {
                format!(" ({})", parts.join(", "))
            }
        }
        Some("model_generation") if truthy(step.get("modelId")) => {
            format!(" (model: {})", template(step.get("modelId")))
        }
        Some("workflow_step") => match stringify(step.get("output")) {
            Some(o) => format!(" (output: {o})"),
            None => String::new(),
        },
        _ => String::new(),
    }
}

/// Mastra's `formatTrajectory(trajectory)`: `1. [type] name (details)`, children indented.
pub fn format_actual(steps: &[Value], depth: usize) -> String {
    let prefix = "  ".repeat(depth);
    steps
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let mut line = format!(
                "{prefix}{}. [{}] {}{}",
                i + 1,
                template(s.get("stepType")),
                template(s.get("name")),
                step_details(s)
            );
            if let Some(Value::Array(children)) = s.get("children") {
                if !children.is_empty() {
                    line.push('\n');
                    line.push_str(&format_actual(children, depth + 1));
                }
            }
            line
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Mastra's `formatExpectedSteps(steps)`: `1. [type] name ({other fields})`, nested
/// `children.steps` indented.
pub fn format_expected(steps: &[Value], depth: usize) -> String {
    let prefix = "  ".repeat(depth);
    steps
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let kind = if truthy(s.get("stepType")) {
                format!("[{}] ", template(s.get("stepType")))
            } else {
                String::new()
            };
            let fields: serde_json::Map<String, Value> = s
                .as_object()
                .map(|m| {
                    m.iter()
                        .filter(|(k, _)| !matches!(k.as_str(), "name" | "stepType" | "children"))
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect()
                })
                .unwrap_or_default();
            let data = if fields.is_empty() {
                String::new()
            } else {
                format!(" ({})", Value::Object(fields))
            };
            let mut line = format!("{prefix}{}. {kind}{}{data}", i + 1, template(s.get("name")));
            if let Some(Value::Array(children)) = s.get("children").and_then(|c| c.get("steps")) {
                if !children.is_empty() {
                    line.push('\n');
                    line.push_str(&format_expected(children, depth + 1));
                }
            }
            line
        })
        .collect::<Vec<_>>()
        .join("\n")
}

pub struct TrajectoryAccuracyLlm {
    judge: Judge,
    expected: Option<Vec<Value>>,
    meta: ScorerMeta,
}

impl TrajectoryAccuracyLlm {
    /// Build from the factory options alone (nothing from the host).
    pub fn from_options(v: &Value) -> Result<Self, InvalidArgument> {
        Self::build(v, &BuildContext::default())
    }

    pub fn build(v: &Value, cx: &BuildContext) -> Result<Self, InvalidArgument> {
        options_object(v, SPEC.factory)?;
        let judge = judge_from_options(v, SPEC.factory, cx)?;
        let expected = crate::scorers::code::trajectory_accuracy::expected_steps(v, SPEC.factory)?;
        let mut meta = ScorerMeta::agent(&SPEC, &judge, INSTRUCTIONS).typed("trajectory");
        if expected.is_some() {
            meta.description = DESCRIPTION_EXPECTED.into();
        }
        Ok(TrajectoryAccuracyLlm {
            judge,
            expected,
            meta,
        })
    }

    /// The expected steps of a run: the factory's, else `run.expectedTrajectory.steps` when
    /// non-empty.
    fn expected_for(&self, run: &RunInput) -> Result<Option<Vec<Value>>, InvalidArgument> {
        if let Some(s) = &self.expected {
            return Ok(Some(s.clone()));
        }
        let Some(e) = run
            .raw
            .get("expectedTrajectory")
            .filter(|e| truthy(Some(e)))
        else {
            return Ok(None);
        };
        match e.get("steps") {
            Some(Value::Array(a)) if !a.is_empty() => Ok(Some(a.clone())),
            None | Some(Value::Null) | Some(Value::Array(_)) => Ok(None),
            Some(o) => Err(InvalidArgument::input(format!(
                "run.expectedTrajectory.steps must be an array of expected steps; got {}",
                type_name(o)
            ))),
        }
    }

    async fn run_inner(&self, run: RunInput, ctx: RunContext) -> Result<ScoreResult, RunError> {
        let actual = trajectory(&run)?.into_owned();
        let expected = self.expected_for(&run)?;
        let steps = actual
            .get("steps")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        let actual_formatted = format_actual(steps, 0);
        let expected_formatted = expected.as_deref().map(|e| format_expected(e, 0));
        let has_steps = !steps.is_empty();
        let user = run
            .input
            .as_ref()
            .and_then(user_message)
            .unwrap_or_default();
        let response = actual
            .get("rawOutput")
            .and_then(assistant_message)
            .unwrap_or_default();

        let mut p = Pipeline::new(&self.judge, &ctx, run.run_id);
        let mut pre = serde_json::Map::new();
        pre.insert("actualTrajectory".into(), actual.clone());
        pre.insert("actualTrajectoryFormatted".into(), json!(actual_formatted));
        if let Some(e) = &expected_formatted {
            pre.insert("expectedTrajectoryFormatted".into(), json!(e));
        }
        pre.insert("hasSteps".into(), json!(has_steps));
        p.result.preprocess_step_result = Some(Value::Object(pre));
        p.complete("preprocess");

        let prompt = prompts::analyze_prompt(
            &user,
            &response,
            &actual_formatted,
            expected_formatted.as_deref(),
        );
        let analysis = p
            .structured::<Analysis>("analyze", INSTRUCTIONS, &prompt)
            .await?
            .value;
        p.result.analyze_prompt = Some(prompt);
        p.result.analyze_step_result = judge_json(&p, "analyze");
        p.complete("analyze");

        let s = score(&analysis);
        p.result.score = Some(s);
        p.complete("generateScore");

        let recorded = p.result.analyze_step_result.clone().unwrap_or_default();
        let list = |k: &str| recorded.get(k).cloned().unwrap_or_else(|| json!([]));
        let prompt = prompts::reason_prompt(
            &user,
            s,
            &list("stepEvaluations"),
            &list("missingSteps"),
            &list("extraSteps"),
        );
        p.generate_reason(INSTRUCTIONS, prompt).await?;
        p.finish()
    }
}

crate::impl_scorer!(TrajectoryAccuracyLlm);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scorers::code::trajectory_accuracy::to_expected;

    fn a(evals: &[(bool, bool)], missing: usize, extra: usize) -> Analysis {
        Analysis {
            step_evaluations: evals
                .iter()
                .map(|(n, o)| StepEvaluation {
                    step_name: "s".into(),
                    was_necessary: *n,
                    was_in_order: *o,
                    reasoning: "r".into(),
                })
                .collect(),
            missing_steps: (missing > 0).then(|| vec!["m".into(); missing]),
            extra_steps: (extra > 0).then(|| vec!["x".into(); extra]),
            overall_assessment: "o".into(),
        }
    }

    #[test]
    fn score_table() {
        let cases = [
            (a(&[], 0, 0), 1.0),
            (a(&[], 1, 0), 0.0),
            (a(&[], 0, 2), 0.5),
            (a(&[], 1, 1), 0.0),
            // one perfect step: 0.9, never more (Mastra's weights; kept)
            (a(&[(true, true)], 0, 0), 0.9),
            (a(&[(true, true), (true, true), (true, true)], 0, 5), 0.9),
            (a(&[(true, false)], 0, 0), 0.6),
            (a(&[(false, true)], 0, 0), 0.3),
            (a(&[(false, false)], 0, 0), 0.0),
            // missing penalty 0.1 × m/(n+m): 0.9 − 0.1·1/2
            (a(&[(true, true)], 1, 0), 0.85),
            (a(&[(true, true), (false, true)], 2, 0), 0.55),
            (a(&[(false, false)], 3, 0), 0.0),
        ];
        for (x, want) in cases {
            assert_eq!(score(&x), want, "{x:?}");
        }
    }

    #[test]
    fn trajectories_format_as_mastra() {
        let steps = json!([
            {"stepType": "tool_call", "name": "search", "toolArgs": {"q": "x", "a": 1}, "toolResult": {"hits": [1]}, "success": true},
            {"stepType": "agent_run", "name": "helper", "children": [
                {"stepType": "model_generation", "name": "gen", "modelId": "gpt"},
                {"stepType": "workflow_step", "name": "w", "output": "done"}
            ]},
            {"stepType": "tool_call", "name": "bare"}
        ]);
        assert_eq!(
            format_actual(steps.as_array().unwrap(), 0),
            "1. [tool_call] search (args: {\"q\":\"x\",\"a\":1}, result: {\"hits\":[1]})\n2. [agent_run] helper\n  1. [model_generation] gen (model: gpt)\n  2. [workflow_step] w (output: \"done\")\n3. [tool_call] bare"
        );
        let expected = json!([
            {"name": "search", "stepType": "tool_call", "toolArgs": {"q": "x"}},
            {"name": "helper", "children": {"steps": [{"name": "gen"}]}},
            {"name": "plain"}
        ]);
        assert_eq!(
            format_expected(expected.as_array().unwrap(), 0),
            "1. [tool_call] search ({\"toolArgs\":{\"q\":\"x\"}})\n2. helper\n  1. gen\n3. plain"
        );
        // a static trajectory's steps lose durationMs / metadata; children nest as { steps }
        let t = to_expected(
            &json!({"stepType": "agent_run", "name": "a", "durationMs": 3, "metadata": {}, "children": [{"stepType": "tool_call", "name": "b", "durationMs": 1}]}),
        );
        assert_eq!(
            t,
            json!({"stepType": "agent_run", "name": "a", "children": {"steps": [{"stepType": "tool_call", "name": "b"}]}})
        );
    }
}
