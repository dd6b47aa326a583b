//! `createToolCallAccuracyScorerLLM`: whether the agent picked the right tools for the
//! request (Mastra's, `type: 'agent'`). preprocess (pure: `extractToolCalls` over the output
//! messages, Mastra's merge order) → analyze (LLM: each called tool appropriate or not, and
//! missing tools) → generateScore (pure) → generateReason (LLM). 2 judge calls.

mod prompts;

use super::common::{judge_from_options, judge_json};
use crate::agent::messages::{assistant_message, input_messages, user_message};
use crate::agent::tools::extract_tool_calls;
use crate::engine::schema::StepOutput;
use crate::engine::{Judge, RunContext};
use crate::error::{type_name, InvalidArgument};
use crate::options::scorer_value;
use crate::pipeline::{Pipeline, RunError, ScoreResult};
use crate::run::RunInput;
use crate::scorers::code::{messages, step_error};
use crate::scorers::spec::{
    boxed, schema_of, BuildContext, Inputs, Kind, Need, ScorerSpec, StepMeta,
};
use crate::scorers::ScorerMeta;
use crate::text::round2_half_up;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

pub use prompts::INSTRUCTIONS;

pub const ID: &str = "llm-tool-call-accuracy-scorer";

/// Most tools `availableTools` may list.
pub const MAX_TOOLS: usize = 1000;

/// The registry entry.
pub const SPEC: ScorerSpec = ScorerSpec {
    factory: "createToolCallAccuracyScorerLLM",
    id: ID,
    name: "Tool Call Accuracy (LLM)",
    description:
        "Evaluates whether an agent selected appropriate tools for the given task using LLM analysis",
    family: "mastra",
    type_name: "ToolCallAccuracyLLM",
    kind: Kind::Llm,
    inputs: Inputs {
        input: Need::Required,
        output: Need::Required,
        ground_truth: Need::Unused,
        context: Need::Unused,
    },
    run_fields: None,
    extractors: &[],
    nested_options: None,
    options: schema_of::<JsOptions>,
    preprocess: Some(schema_of::<Preprocess>),
    analyze: Some(schema_of::<Analysis>),
    steps: &[
        StepMeta::function("preprocess", "Extract the tool calls of the output"),
        StepMeta::judge(
            "analyze",
            "Analyze the appropriateness of tool selections",
            <Analysis as StepOutput>::schema,
        ),
        StepMeta::function(
            "generateScore",
            "Share of the evaluated tool calls judged appropriate",
        ),
        StepMeta::text(
            "generateReason",
            "Generate human-readable explanation of tool selection evaluation",
        ),
    ],
    build: |v, cx| boxed(ToolCallAccuracyLlm::build(v, cx)),
};

/// A tool the agent could call (a Mastra `createTool` object: only `id` and `description`
/// are read).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AvailableTool {
    pub id: String,
    #[serde(default)]
    pub description: String,
}

/// The scorer's own factory options.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct JsOptions {
    /// The tools the agent had (Mastra tool objects; `id` and `description` are read).
    /// Required.
    available_tools: Option<Vec<AvailableTool>>,
}

/// `preprocessStepResult`: `extractToolCalls(run.output)`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Preprocess {
    pub actual_tools: Vec<String>,
    pub has_tool_calls: bool,
    pub tool_call_infos: Vec<ToolCallInfo>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallInfo {
    pub tool_name: String,
    pub tool_call_id: String,
    pub message_index: usize,
    pub invocation_index: usize,
}

/// One evaluated tool call.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Evaluation {
    pub tool_called: String,
    pub was_appropriate: bool,
    pub reasoning: String,
}

/// analyze output (`analyzeStepResult`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Analysis {
    pub evaluations: Vec<Evaluation>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing_tools: Option<Vec<String>>,
}
crate::step_output!(Analysis, "tool_call_accuracy_analysis");

/// Mastra's formula: no evaluations → 0 with missing tools, else 1; else the share judged
/// appropriate, rounded half up to 2 decimals (no scale).
pub fn score(a: &Analysis) -> f64 {
    if a.evaluations.is_empty() {
        return if a.missing_tools.as_ref().is_some_and(|m| !m.is_empty()) {
            0.0
        } else {
            1.0
        };
    }
    let ok = a.evaluations.iter().filter(|e| e.was_appropriate).count();
    round2_half_up(ok as f64 / a.evaluations.len() as f64)
}

/// `availableTools`, each `{ id, description }`.
pub fn tools_option(v: &Value) -> Result<Vec<AvailableTool>, InvalidArgument> {
    let Some((list, path)) = scorer_value(v, "availableTools")? else {
        return Err(InvalidArgument::options(
            "createToolCallAccuracyScorerLLM() needs options.availableTools: the tools the agent had (Mastra tool objects with id and description)",
        ));
    };
    let Value::Array(items) = list else {
        return Err(InvalidArgument::options(format!(
            "{path} must be an array of tools; got {}",
            type_name(list)
        )));
    };
    if items.len() > MAX_TOOLS {
        return Err(InvalidArgument::options(format!(
            "{path} lists {} tools; at most {MAX_TOOLS}",
            items.len()
        )));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let id = t.get("id").and_then(Value::as_str).ok_or_else(|| {
                InvalidArgument::options(format!(
                    "{path}[{i}] must be a tool with a string id; got {}",
                    type_name(t)
                ))
            })?;
            let description = match t.get("description") {
                None | Some(Value::Null) => String::new(),
                Some(Value::String(s)) => s.clone(),
                Some(other) => {
                    return Err(InvalidArgument::options(format!(
                        "{path}[{i}].description must be a string; got {}",
                        type_name(other)
                    )))
                }
            };
            Ok(AvailableTool {
                id: id.to_string(),
                description,
            })
        })
        .collect()
}

pub struct ToolCallAccuracyLlm {
    judge: Judge,
    tools: Vec<AvailableTool>,
    meta: ScorerMeta,
}

impl ToolCallAccuracyLlm {
    /// Build from the factory options alone (nothing from the host).
    pub fn from_options(v: &Value) -> Result<Self, InvalidArgument> {
        Self::build(v, &BuildContext::default())
    }

    pub fn build(v: &Value, cx: &BuildContext) -> Result<Self, InvalidArgument> {
        let judge = judge_from_options(v, SPEC.factory, cx)?;
        let tools = tools_option(v)?;
        let meta = ScorerMeta::agent(&SPEC, &judge, INSTRUCTIONS);
        Ok(ToolCallAccuracyLlm { judge, tools, meta })
    }

    async fn run_inner(&self, run: RunInput, ctx: RunContext) -> Result<ScoreResult, RunError> {
        // Mastra's preprocess check: input messages and output messages, non-empty
        let input_ok = input_messages(run.input.as_ref()).is_some_and(|m| !m.is_empty());
        let output_ok = match &run.output {
            Value::String(s) => !s.is_empty(),
            Value::Array(a) => !a.is_empty(),
            Value::Null => false,
            _ => true,
        };
        if !input_ok || !output_ok {
            return Err(step_error(
                &run,
                "preprocess",
                "Input and output messages cannot be null or empty",
            ));
        }
        let msgs = messages(&run)?;
        let calls = extract_tool_calls(&msgs);
        let actual: Vec<String> = calls
            .tools
            .iter()
            .map(|t| crate::agent::js::template(Some(t)))
            .collect();
        let user = run
            .input
            .as_ref()
            .and_then(user_message)
            .unwrap_or_default();
        let response = assistant_message(&run.output).unwrap_or_default();

        let mut p = Pipeline::new(&self.judge, &ctx, run.run_id);
        p.result.preprocess_step_result = Some(json!({
            "actualTools": calls.tools,
            "hasToolCalls": !calls.tools.is_empty(),
            "toolCallInfos": calls.tool_call_infos,
        }));
        p.complete("preprocess");

        let prompt = prompts::analyze_prompt(&user, &response, &actual, &self.tools);
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

        let evaluations = p.analyzed("evaluations").clone();
        let missing = p
            .result
            .analyze_step_result
            .as_ref()
            .and_then(|a| a.get("missingTools"))
            .cloned()
            .unwrap_or_else(|| json!([]));
        let prompt = prompts::reason_prompt(&user, s, &evaluations, &missing);
        p.generate_reason(INSTRUCTIONS, prompt).await?;
        p.finish()
    }
}

crate::impl_scorer!(ToolCallAccuracyLlm);

#[cfg(test)]
mod tests {
    use super::*;

    fn a(flags: &[bool], missing: Option<&[&str]>) -> Analysis {
        Analysis {
            evaluations: flags
                .iter()
                .map(|f| Evaluation {
                    tool_called: "t".into(),
                    was_appropriate: *f,
                    reasoning: "r".into(),
                })
                .collect(),
            missing_tools: missing.map(|m| m.iter().map(|s| s.to_string()).collect()),
        }
    }

    #[test]
    fn score_table() {
        let cases: Vec<(Analysis, f64)> = vec![
            (a(&[], None), 1.0),
            (a(&[], Some(&[])), 1.0),
            (a(&[], Some(&["weather"])), 0.0),
            (a(&[true], None), 1.0),
            (a(&[true, false], Some(&["x"])), 0.5),
            (a(&[true, false, false], None), 0.33),
            (a(&[true, true, false], None), 0.67),
            (a(&[false], None), 0.0),
        ];
        for (x, want) in cases {
            assert_eq!(score(&x), want, "{x:?}");
        }
    }

    #[test]
    fn tools_option_reads_id_and_description() {
        let t = tools_option(&json!({"availableTools": [
            {"id": "weather", "description": "Get the weather", "inputSchema": {"x": 1}},
            {"id": "noop"}
        ]}))
        .unwrap();
        assert_eq!(
            t,
            vec![
                AvailableTool {
                    id: "weather".into(),
                    description: "Get the weather".into()
                },
                AvailableTool {
                    id: "noop".into(),
                    description: String::new()
                }
            ]
        );
        assert!(tools_option(&json!({}))
            .unwrap_err()
            .message
            .contains("needs options.availableTools"));
        assert!(tools_option(&json!({"availableTools": "x"})).is_err());
        assert!(tools_option(&json!({"availableTools": [{"name": "x"}]}))
            .unwrap_err()
            .message
            .contains("availableTools[0] must be a tool with a string id"));
    }
}
