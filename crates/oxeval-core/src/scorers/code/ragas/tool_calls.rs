//! The tool calls of Ragas's tool metrics (ToolCallAccuracy, ToolCallF1): the predicted calls
//! of `run.output` and the reference calls of `run.referenceToolCalls`.
//!
//! `run.output` is Ragas's multi-turn `user_input` as JSON — messages `{ type: 'human' |
//! 'ai' | 'tool', content, tool_calls? }`, the calls being the AI messages'
//! `tool_calls: [{ name, args }]` — or Mastra's agent messages (read by `crate::agent`: each
//! message's merged tool invocations that Mastra counts as calls, `{ toolName, args }`), or a
//! mix. `run.referenceToolCalls` is Ragas's `reference_tool_calls`: `[{ name, args }]`.

use crate::agent::messages::output_messages;
use crate::agent::tools::{is_call, merge_tool_invocations};
use crate::error::{type_name, InvalidArgument};
use crate::run::RunInput;
use crate::scorers::spec::{Inputs, Need, StepMeta};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

/// The run field name of the reference calls.
pub const REFERENCE_FIELD: &str = "referenceToolCalls";

/// Output required; the reference calls come from the run field, not `groundTruth`.
pub(crate) const INPUTS: Inputs = Inputs {
    input: Need::Unused,
    output: Need::Required,
    ground_truth: Need::Unused,
    context: Need::Unused,
};

/// The two steps of both tool metrics.
pub(crate) const fn steps(score: &'static str) -> [StepMeta; 2] {
    [
        StepMeta::function(
            "preprocess",
            "Read the predicted tool calls (run.output) and the reference ones (run.referenceToolCalls)",
        ),
        StepMeta::function("generateScore", score),
    ]
}

/// One tool call: Ragas's `ToolCall(name, args)`.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ToolCall {
    pub name: String,
    /// The arguments as given (their order kept: Ragas compares nested dicts by their text).
    pub args: Map<String, Value>,
}

/// The run field the tool metrics read.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct RunFields {
    /// Ragas's `reference_tool_calls`: the expected calls `[{ name, args }]`, in order.
    reference_tool_calls: Vec<ToolCall>,
}

/// `preprocessStepResult`: the calls compared.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Calls {
    /// The calls found in `run.output`, in order.
    pub predicted: Vec<ToolCall>,
    /// `run.referenceToolCalls`.
    pub reference: Vec<ToolCall>,
}

/// `{ name, args }` at `path`; args absent only where `optional_args` (Mastra's invocations).
fn call(v: &Value, path: &str, name_key: &str, optional_args: bool) -> Result<ToolCall, String> {
    let name = match v.get(name_key) {
        Some(Value::String(s)) => s.clone(),
        other => {
            return Err(format!(
                "{path}.{name_key} must be a string; got {}",
                other.map_or("undefined", type_name)
            ))
        }
    };
    let args = match v.get("args") {
        Some(Value::Object(m)) => m.clone(),
        None | Some(Value::Null) if optional_args => Map::new(),
        other => {
            return Err(format!(
                "{path}.args must be an object; got {}",
                other.map_or("undefined", type_name)
            ))
        }
    };
    Ok(ToolCall { name, args })
}

/// The calls of one message: Ragas's AI message (`type: 'ai'`), none for its human and tool
/// messages, else Mastra's invocations.
fn message_calls(m: &Value, path: &str, out: &mut Vec<ToolCall>) -> Result<(), String> {
    match m.get("type").and_then(Value::as_str) {
        Some("ai") => match m.get("tool_calls") {
            None | Some(Value::Null) => Ok(()),
            Some(Value::Array(calls)) => {
                for (i, c) in calls.iter().enumerate() {
                    out.push(call(c, &format!("{path}.tool_calls[{i}]"), "name", false)?);
                }
                Ok(())
            }
            Some(other) => Err(format!(
                "{path}.tool_calls must be an array; got {}",
                type_name(other)
            )),
        },
        Some("human" | "tool") => Ok(()),
        _ => {
            for inv in merge_tool_invocations(m) {
                if is_call(inv.value) {
                    out.push(call(
                        inv.value,
                        &format!("{path} tool invocation"),
                        "toolName",
                        true,
                    )?);
                }
            }
            Ok(())
        }
    }
}

/// The predicted calls of `run.output`, in message order.
pub fn predicted(output: &Value) -> Result<Vec<ToolCall>, String> {
    let messages = output_messages(output)?;
    let mut out = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        message_calls(m, &format!("run.output[{i}]"), &mut out)?;
    }
    Ok(out)
}

/// `run.referenceToolCalls`; a TypeError when absent or malformed.
pub fn reference(run: &RunInput) -> Result<Vec<ToolCall>, String> {
    match run.raw.get(REFERENCE_FIELD) {
        Some(Value::Array(list)) => list
            .iter()
            .enumerate()
            .map(|(i, c)| call(c, &format!("run.{REFERENCE_FIELD}[{i}]"), "name", false))
            .collect(),
        None | Some(Value::Null) => Err(format!(
            "the reference tool calls are missing: pass run.{REFERENCE_FIELD} ([{{ name, args }}], possibly empty)"
        )),
        Some(other) => Err(format!(
            "run.{REFERENCE_FIELD} must be an array of {{ name, args }}; got {}",
            type_name(other)
        )),
    }
}

/// Both lists of a run, errors named after the scorer `id`.
pub(crate) fn calls(id: &str, run: &RunInput) -> Result<Calls, InvalidArgument> {
    let bad = |m: String| InvalidArgument::input(format!("{id}: {m}"));
    Ok(Calls {
        predicted: predicted(&run.output).map_err(bad)?,
        reference: reference(run).map_err(bad)?,
    })
}

/// A call from a JSON object of arguments (the unit tests' shorthand).
#[cfg(test)]
pub(crate) fn tc(name: &str, args: Value) -> ToolCall {
    let Value::Object(args) = args else {
        panic!("args must be an object")
    };
    ToolCall {
        name: name.into(),
        args,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ragas_and_mastra_messages() {
        let out = json!([
            { "type": "human", "content": "weather?" },
            { "type": "ai", "content": "", "tool_calls": [{ "name": "w", "args": { "city": "Paris" } }] },
            { "type": "tool", "content": "sunny" },
            { "role": "assistant", "content": { "format": 2, "parts": [
                { "type": "tool-invocation", "toolInvocation": { "state": "result", "toolCallId": "1", "toolName": "uv", "args": { "x": 1 }, "result": 3 } }
            ] } }
        ]);
        let got = predicted(&out).unwrap();
        assert_eq!(
            got.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
            ["w", "uv"]
        );
        assert_eq!(got[1].args["x"], 1);
        assert!(
            predicted(&json!([{ "type": "ai", "tool_calls": [{ "name": "w" }] }]))
                .unwrap_err()
                .contains("args must be an object")
        );
        assert!(predicted(&json!("just text")).unwrap().is_empty());
    }
}
