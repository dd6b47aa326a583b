//! `createToolCallAccuracyScorerCode`: Mastra's code tool-call accuracy. Did the agent call
//! the expected tool (only it, in strict mode), or the expected tools in order?
//!
//! preprocess (the tool calls, `extractToolCalls`) → generateScore (1/0).

use crate::agent::js::{strict_eq, truthy};
use crate::agent::messages::input_messages;
use crate::agent::tools::extract_tool_calls;
use crate::error::{type_name, InvalidArgument};
use crate::pipeline::{RunError, ScoreResult};
use crate::run::RunInput;
use crate::scorers::code::{messages, result, step_error};
use crate::scorers::spec::{boxed, schema_of, Inputs, Kind, Need, ScorerSpec, StepMeta};
use crate::scorers::ScorerMeta;
use schemars::JsonSchema;
use serde_json::{json, Value};

pub const SPEC: ScorerSpec = ScorerSpec {
    factory: "createToolCallAccuracyScorerCode",
    id: "code-tool-call-accuracy-scorer",
    name: "Tool Call Accuracy Scorer",
    description: "Evaluates whether the LLM selected the correct tool, or called the expected tools in order, from its tool calls",
    family: "mastra",
    type_name: "ToolCallAccuracyCode",
    kind: Kind::Code,
    inputs: Inputs {
        input: Need::Optional,
        output: Need::Required,
        ground_truth: Need::Unused,
        context: Need::Unused,
    },
    run_fields: None,
    extractors: &[],
    nested_options: None,
    options: schema_of::<JsOptions>,
    preprocess: Some(schema_of::<Preprocess>),
    analyze: None,
    steps: &[
        StepMeta::function("preprocess", "Extract the tool calls and check them against the expectation"),
        StepMeta::function("generateScore", "1 when the expected tool (or order) was called, else 0"),
    ],
    build: |v, _| boxed(ToolCallAccuracyCode::build(v)),
};

/// Options of `createToolCallAccuracyScorerCode` (one of `expectedTool`,
/// `expectedToolOrder` is required, as in Mastra).
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct JsOptions {
    /// The tool the agent should call.
    expected_tool: Option<String>,
    /// Strict: exactly one call, to `expectedTool`; with `expectedToolOrder`, exactly that
    /// sequence of calls. Default false.
    strict_mode: Option<bool>,
    /// The tools in the order they should be called (first calls, strictly increasing).
    expected_tool_order: Option<Vec<String>>,
}

/// `preprocessStepResult`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct Preprocess {
    expected_tool: Option<String>,
    actual_tools: Vec<String>,
    strict_mode: bool,
    expected_tool_order: Option<Vec<String>>,
    has_tool_calls: bool,
    correct_tool_called: bool,
    tool_call_infos: Vec<ToolCallInfo>,
    correct_order_called: Option<bool>,
}

#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct ToolCallInfo {
    tool_name: String,
    tool_call_id: String,
    message_index: u32,
    invocation_index: u32,
}

pub struct ToolCallAccuracyCode {
    meta: ScorerMeta,
    expected_tool: Option<String>,
    strict: bool,
    order: Option<Vec<Value>>,
}

/// `checkToolOrder(actual, expected, strict)`: strict → the same sequence (JSON text);
/// else the FIRST occurrence of each expected tool exists and they strictly increase.
pub fn check_tool_order(actual: &[Value], expected: &[Value], strict: bool) -> bool {
    if strict {
        // JSON.stringify of two arrays of names: equal texts iff equal lengths and elements
        return serde_json::to_string(actual).ok() == serde_json::to_string(expected).ok();
    }
    let mut prev: Option<usize> = None;
    for e in expected {
        let Some(i) = actual.iter().position(|a| strict_eq(Some(a), Some(e))) else {
            return false;
        };
        if prev.is_some_and(|p| i <= p) {
            return false;
        }
        prev = Some(i);
    }
    true
}

impl ToolCallAccuracyCode {
    fn build(v: &Value) -> Result<Self, InvalidArgument> {
        crate::options::options_object(v, SPEC.factory)?;
        let bad = |k: &str, what: &str, got: &Value| {
            InvalidArgument::options(format!(
                "{}(): options.{k} must be {what}; got {}",
                SPEC.factory,
                type_name(got)
            ))
        };
        let expected_tool = match v.get("expectedTool") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(o) => return Err(bad("expectedTool", "a string", o)),
        };
        let strict = match v.get("strictMode") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(o) => return Err(bad("strictMode", "a boolean", o)),
        };
        let order = match v.get("expectedToolOrder") {
            None | Some(Value::Null) => None,
            Some(Value::Array(a)) if a.iter().all(Value::is_string) => Some(a.clone()),
            Some(o) => return Err(bad("expectedToolOrder", "an array of tool names", o)),
        };
        if expected_tool.as_deref().is_none_or(str::is_empty) && order.is_none() {
            return Err(InvalidArgument::options(format!(
                "{}(): Either expectedTool or expectedToolOrder must be provided",
                SPEC.factory
            )));
        }
        let description = match &order {
            Some(o) => format!(
                "Evaluates whether the LLM called tools in the correct order: [{}]",
                o.iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            None => format!(
                "Evaluates whether the LLM selected the correct tool ({}) from the available tools",
                expected_tool.as_deref().unwrap_or("")
            ),
        };
        let mut meta = ScorerMeta::code(&SPEC, "agent");
        meta.description = description.into();
        Ok(ToolCallAccuracyCode {
            meta,
            expected_tool,
            strict,
            order,
        })
    }

    pub(crate) fn run_sync(&self, run: RunInput) -> Result<ScoreResult, RunError> {
        let (score, pre) = self.evaluate(&run)?;
        Ok(result(run, score, pre, None))
    }

    pub fn evaluate(&self, run: &RunInput) -> Result<(f64, Value), RunError> {
        let input_ok = input_messages(run.input.as_ref()).is_some_and(|m| !m.is_empty());
        let output_ok = match &run.output {
            Value::String(s) => !s.is_empty(),
            Value::Array(a) => !a.is_empty(),
            _ => true,
        };
        if !input_ok || !output_ok {
            return Err(step_error(
                run,
                "preprocess",
                "Input and output messages cannot be null or empty",
            ));
        }
        let msgs = messages(run)?;
        let calls = extract_tool_calls(&msgs);
        let tools = &calls.tools;
        let tool = self.expected_tool.as_ref().map(|t| json!(t));
        let correct = match &tool {
            Some(t) if truthy(Some(t)) => {
                if self.strict {
                    tools.len() == 1 && strict_eq(Some(&tools[0]), Some(t))
                } else {
                    tools.iter().any(|x| strict_eq(Some(x), Some(t)))
                }
            }
            _ => false,
        };
        let order_called = self
            .order
            .as_ref()
            .map(|o| check_tool_order(tools, o, self.strict));
        let score = if tools.is_empty() {
            0.0
        } else if let Some(o) = self.order.as_ref().filter(|o| !o.is_empty()) {
            if check_tool_order(tools, o, self.strict) {
                1.0
            } else {
                0.0
            }
        } else if correct {
            1.0
        } else {
            0.0
        };
        let mut pre = serde_json::Map::new();
        if let Some(t) = &tool {
            pre.insert("expectedTool".into(), t.clone());
        }
        pre.insert("actualTools".into(), Value::Array(calls.tools.clone()));
        pre.insert("strictMode".into(), json!(self.strict));
        if let Some(o) = &self.order {
            pre.insert("expectedToolOrder".into(), Value::Array(o.clone()));
        }
        pre.insert("hasToolCalls".into(), json!(!tools.is_empty()));
        pre.insert("correctToolCalled".into(), json!(correct));
        pre.insert("toolCallInfos".into(), Value::Array(calls.tool_call_infos));
        pre.insert(
            "correctOrderCalled".into(),
            order_called.map_or(Value::Null, Value::Bool),
        );
        Ok((score, Value::Object(pre)))
    }
}

crate::impl_scorer!(ToolCallAccuracyCode, sync);

#[cfg(test)]
mod tests {
    use super::*;

    fn run(input: Value, tools: &[&str]) -> RunInput {
        let parts: Vec<Value> = tools
            .iter()
            .map(|n| json!({"type": "tool-invocation", "toolInvocation": {"toolName": n, "state": "result", "result": 1}}))
            .collect();
        RunInput::from_value(json!({"input": input, "output": [{"role": "assistant", "content": {"format": 2, "parts": parts}}]})).unwrap()
    }

    fn score(o: Value, tools: &[&str]) -> f64 {
        ToolCallAccuracyCode::build(&o)
            .unwrap()
            .evaluate(&run(json!("q"), tools))
            .ok()
            .unwrap()
            .0
    }

    #[test]
    fn score_table() {
        let cases = [
            (json!({"expectedTool": "a"}), vec!["b", "a"], 1.0),
            (
                json!({"expectedTool": "a", "strictMode": true}),
                vec!["b", "a"],
                0.0,
            ),
            (
                json!({"expectedTool": "a", "strictMode": true}),
                vec!["a"],
                1.0,
            ),
            (json!({"expectedTool": "a"}), vec![], 0.0),
            // first occurrences: [a, b, a] vs [b, a] → 0 (checks.toolOrder gives 1)
            (
                json!({"expectedToolOrder": ["b", "a"]}),
                vec!["a", "b", "a"],
                0.0,
            ),
            (
                json!({"expectedToolOrder": ["a", "b"]}),
                vec!["a", "x", "b"],
                1.0,
            ),
            (
                json!({"expectedToolOrder": ["a", "b"], "strictMode": true}),
                vec!["a", "x", "b"],
                0.0,
            ),
            (
                json!({"expectedToolOrder": ["a", "b"], "strictMode": true}),
                vec!["a", "b"],
                1.0,
            ),
            // an empty order falls back to expectedTool
            (
                json!({"expectedToolOrder": [], "expectedTool": "b"}),
                vec!["b"],
                1.0,
            ),
            (json!({"expectedToolOrder": []}), vec!["b"], 0.0),
        ];
        for (o, tools, want) in cases {
            assert_eq!(score(o.clone(), &tools), want, "{o} {tools:?}");
        }
    }

    #[test]
    fn throws_as_mastra() {
        let e = ToolCallAccuracyCode::build(&json!({})).err().unwrap();
        assert!(e
            .message
            .contains("Either expectedTool or expectedToolOrder must be provided"));
        let s = ToolCallAccuracyCode::build(&json!({"expectedTool": "a"})).unwrap();
        for input in [json!({"inputMessages": []}), json!(""), json!({})] {
            let Err(RunError::Failed(f)) = s.evaluate(&run(input, &["a"])) else {
                panic!()
            };
            assert!(f
                .message
                .contains("Input and output messages cannot be null or empty"));
        }
        assert_eq!(
            s.meta.description,
            "Evaluates whether the LLM selected the correct tool (a) from the available tools"
        );
    }
}
