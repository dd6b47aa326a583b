//! The scorer run input (`ScorerRun`) as received from JavaScript.

use crate::error::{type_name, InvalidArgument};
use serde_json::Value;

#[derive(Debug, Clone)]
pub struct RunInput {
    pub run_id: String,
    pub input: Option<Value>,
    pub output: Value,
    pub ground_truth: Option<Value>,
    /// The whole run object (scorer-specific keys such as `context`).
    pub raw: Value,
}

/// Largest run accepted, as JSON text: far beyond any judge's context window.
pub const MAX_RUN_BYTES: usize = 4 * 1024 * 1024;

impl RunInput {
    /// Parse and validate a run sent as JSON text (what the JS facade sends).
    pub fn from_json(text: &str) -> Result<Self, InvalidArgument> {
        if text.len() > MAX_RUN_BYTES {
            return Err(InvalidArgument::input(format!(
                "the run is {:.1} MB as JSON; the limit is {} MB (no judge's context window can take more)",
                text.len() as f64 / 1_048_576.0,
                MAX_RUN_BYTES / 1_048_576
            )));
        }
        let value: Value = serde_json::from_str(text).map_err(|e| {
            if e.to_string().contains("recursion limit") {
                InvalidArgument::input(
                    "the run is nested too deeply (more than 128 levels of objects/arrays)",
                )
            } else {
                InvalidArgument::input(format!("the run is not valid JSON text: {e}"))
            }
        })?;
        Self::from_value(value)
    }

    /// Validate the shape of `run`. `runId` defaults to a fresh UUID v4.
    pub fn from_value(raw: Value) -> Result<Self, InvalidArgument> {
        let Value::Object(map) = &raw else {
            return Err(InvalidArgument::input(format!(
                "scorer.run() expects an object like {{ input, output, groundTruth? }}; got {}",
                type_name(&raw)
            )));
        };
        let run_id = match map.get("runId") {
            None | Some(Value::Null) => uuid::Uuid::new_v4().to_string(),
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            Some(other) => {
                return Err(InvalidArgument::input(format!(
                    "run.runId must be a non-empty string; got {}",
                    type_name(other)
                )))
            }
        };
        let output = match map.get("output") {
            None | Some(Value::Null) => {
                return Err(InvalidArgument::input(
                    "run.output is required: the agent output to score (a string, a message, or an array of messages)",
                ))
            }
            Some(v @ (Value::String(_) | Value::Array(_) | Value::Object(_))) => v.clone(),
            Some(other) => {
                return Err(InvalidArgument::input(format!(
                    "run.output must be a string, a message object or an array of messages; got {}",
                    type_name(other)
                )))
            }
        };
        let input = map.get("input").filter(|v| !v.is_null()).cloned();
        if let Some(v @ (Value::Number(_) | Value::Bool(_))) = &input {
            return Err(InvalidArgument::input(format!(
                "run.input must be a string, a message object or an array of messages; got {}",
                type_name(v)
            )));
        }
        let ground_truth = map.get("groundTruth").filter(|v| !v.is_null()).cloned();
        Ok(RunInput {
            run_id,
            input,
            output,
            ground_truth,
            raw,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_limits() {
        let big = format!(
            "{{\"input\":\"q\",\"output\":\"{}\"}}",
            "a".repeat(MAX_RUN_BYTES)
        );
        assert!(RunInput::from_json(&big)
            .unwrap_err()
            .message
            .contains("the limit is 4 MB"));
        let deep = format!(
            "{{\"output\":\"a\",\"x\":{}{}}}",
            "[".repeat(200),
            "]".repeat(200)
        );
        assert!(RunInput::from_json(&deep)
            .unwrap_err()
            .message
            .contains("nested too deeply"));
        assert!(RunInput::from_json("{")
            .unwrap_err()
            .message
            .contains("not valid JSON"));
        assert!(RunInput::from_json(r#"{"output":"a"}"#).is_ok());
    }

    #[test]
    fn shapes() {
        let r = RunInput::from_value(json!({"input": "q", "output": "a"})).unwrap();
        assert_eq!(r.run_id.len(), 36);
        assert_eq!(r.input, Some(json!("q")));
        let r = RunInput::from_value(json!({"runId": "r1", "output": [{"role": "assistant", "content": "x"}], "groundTruth": "g"})).unwrap();
        assert_eq!(r.run_id, "r1");
        assert_eq!(r.ground_truth, Some(json!("g")));
        for (bad, want) in [
            (json!("text"), "expects an object"),
            (json!({"input": "q"}), "run.output is required"),
            (json!({"output": null}), "run.output is required"),
            (json!({"output": 5}), "got number"),
            (json!({"output": "a", "runId": 7}), "runId must be"),
            (json!({"output": "a", "input": true}), "run.input must be"),
        ] {
            let e = RunInput::from_value(bad.clone()).unwrap_err();
            assert!(e.message.contains(want), "{bad}: {}", e.message);
        }
    }
}
