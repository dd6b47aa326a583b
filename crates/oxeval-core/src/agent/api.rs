//! `oxeval/utils`: the agent-data helpers as one dispatch over JSON arguments (the binding
//! forwards `agentUtil(name, argsJson)` here; the facade only marshals). `Ok(None)` is
//! `undefined`.

use super::js::{nullish, round_to_two_decimals, truthy};
use super::messages::{
    assistant_message, assistant_texts, combined_system_prompt, conversation_history,
    db_message_text, input_message_texts, is_agent_input, is_agent_output, output_messages,
    reasoning, system_messages, user_message,
};
use super::tools::{
    extract_tool_calls, extract_tool_results, merge_tool_invocations, trajectory_steps, Origin,
};
use super::trajectory::{
    analyze_tool_failures, check_trajectory_blacklist, check_trajectory_efficiency,
    compare_trajectories, retries_of, Budgets,
};
use crate::error::type_name;
use serde_json::{json, Value};

/// Every helper name [`call`] answers.
pub const NAMES: &[&str] = &[
    "getTextContentFromMastraDBMessage",
    "getUserMessageFromRunInput",
    "getAssistantMessageFromRunOutput",
    "getSystemMessagesFromRunInput",
    "getCombinedSystemPrompt",
    "getConversationHistoryFromRunInput",
    "getReasoningFromRunOutput",
    "extractInputMessages",
    "extractAgentResponseMessages",
    "extractToolCalls",
    "mergeToolInvocations",
    "extractToolResults",
    "extractTrajectory",
    "compareTrajectories",
    "checkTrajectoryEfficiency",
    "checkTrajectoryBlacklist",
    "analyzeToolFailures",
    "isScorerRunInputForAgent",
    "isScorerRunOutputForAgent",
    "roundToTwoDecimals",
    "isCloserTo",
];

fn arg(args: &[Value], i: usize) -> &Value {
    args.get(i).unwrap_or(&Value::Null)
}

fn messages_arg<'a>(name: &str, v: &'a Value) -> Result<std::borrow::Cow<'a, [Value]>, String> {
    output_messages(v)
        .map_err(|m| format!("{name}(): {}", m.replacen("run.output", "the output", 1)))
}

fn trajectory_arg<'a>(name: &str, v: &'a Value, what: &str) -> Result<&'a [Value], String> {
    match v.get("steps") {
        Some(Value::Array(a)) => Ok(a),
        _ => Err(format!(
            "{name}(): {what} must be a trajectory {{ steps: [...] }}; got {}",
            type_name(v)
        )),
    }
}

fn number_arg(name: &str, v: &Value, what: &str) -> Result<f64, String> {
    v.as_f64()
        .ok_or_else(|| format!("{name}(): {what} must be a number; got {}", type_name(v)))
}

/// A helper's failure: a bad argument (a `TypeError` in JS) or one of Mastra's own throws
/// (an `Error`: an invalid trajectory budget, missing measurements).
#[derive(Debug, PartialEq)]
pub enum Failure {
    Type(String),
    Mastra(String),
}

impl Failure {
    /// The JS error class and the message.
    pub fn parts(&self) -> (&'static str, &str) {
        match self {
            Failure::Type(m) => ("TypeError", m),
            Failure::Mastra(m) => ("Error", m),
        }
    }
}

/// Call helper `name` with `args` (JSON values; a missing argument is `null`).
pub fn call(name: &str, args: &[Value]) -> Result<Option<Value>, Failure> {
    if name == "checkTrajectoryEfficiency" {
        trajectory_arg(name, arg(args, 0), "trajectory").map_err(Failure::Type)?;
        let o = arg(args, 1);
        let b = Budgets {
            max_steps: o.get("maxSteps"),
            max_total_tokens: o.get("maxTotalTokens"),
            max_total_duration_ms: o.get("maxTotalDurationMs"),
            no_redundant_calls: o.get("noRedundantCalls").is_none_or(|v| truthy(Some(v))),
        };
        return check_trajectory_efficiency(arg(args, 0), b)
            .map(Some)
            .map_err(Failure::Mastra);
    }
    call_inner(name, args).map_err(Failure::Type)
}

fn call_inner(name: &str, args: &[Value]) -> Result<Option<Value>, String> {
    let a0 = arg(args, 0);
    let some = |v: Value| Ok(Some(v));
    match name {
        "getTextContentFromMastraDBMessage" => some(json!(db_message_text(a0))),
        "getUserMessageFromRunInput" => Ok(user_message(a0).map(Value::from)),
        "getAssistantMessageFromRunOutput" => Ok(assistant_message(a0).map(Value::from)),
        "getSystemMessagesFromRunInput" => some(json!(system_messages(a0))),
        "getCombinedSystemPrompt" => some(json!(combined_system_prompt(a0))),
        "getConversationHistoryFromRunInput" => {
            let max = match nullish(arg(args, 1).get("maxMessages")) {
                None => None,
                Some(v) => Some(number_arg(name, v, "options.maxMessages")?),
            };
            Ok(conversation_history(a0, max).map(Value::from))
        }
        "getReasoningFromRunOutput" => {
            if !truthy(Some(a0)) {
                return Ok(None);
            }
            Ok(reasoning(&messages_arg(name, a0)?).map(Value::from))
        }
        "extractInputMessages" => some(json!(input_message_texts(a0))),
        "extractAgentResponseMessages" => some(json!(assistant_texts(&messages_arg(name, a0)?))),
        "extractToolCalls" => {
            let c = extract_tool_calls(&messages_arg(name, a0)?);
            some(json!({ "tools": c.tools, "toolCallInfos": c.tool_call_infos }))
        }
        // the facade picks the original objects: `[['part' | 'legacy', index], …]`
        "mergeToolInvocations" => some(Value::Array(
            merge_tool_invocations(a0)
                .iter()
                .map(|i| match i.origin {
                    Origin::Part(k) => json!(["part", k]),
                    Origin::Legacy(k) => json!(["legacy", k]),
                })
                .collect(),
        )),
        "extractToolResults" => some(json!(extract_tool_results(&messages_arg(name, a0)?))),
        // `rawOutput` is set to the original output by the facade
        "extractTrajectory" => some(json!({ "steps": trajectory_steps(&messages_arg(name, a0)?) })),
        "compareTrajectories" => {
            let actual = trajectory_arg(name, a0, "actual")?;
            let expected = trajectory_arg(name, arg(args, 1), "expected")?;
            let o = arg(args, 2);
            let ordering = match o.get("ordering") {
                None => "relaxed".to_string(),
                Some(v) => super::js::template(Some(v)),
            };
            let allow = o.get("allowRepeatedSteps").is_none_or(|v| truthy(Some(v)));
            some(compare_trajectories(actual, expected, &ordering, allow))
        }
        "checkTrajectoryBlacklist" => {
            trajectory_arg(name, a0, "trajectory")?;
            let o = arg(args, 1);
            some(check_trajectory_blacklist(
                a0,
                o.get("blacklistedTools"),
                o.get("blacklistedSequences"),
            ))
        }
        "analyzeToolFailures" => {
            trajectory_arg(name, a0, "trajectory")?;
            let max = retries_of(arg(args, 1), "options").map_err(|m| format!("{name}(): {m}"))?;
            some(analyze_tool_failures(a0, max))
        }
        "isScorerRunInputForAgent" => some(json!(is_agent_input(a0))),
        "isScorerRunOutputForAgent" => some(json!(is_agent_output(a0))),
        "roundToTwoDecimals" => {
            let n = number_arg(name, a0, "its argument")?;
            some(super::js::num(round_to_two_decimals(n)))
        }
        "isCloserTo" => {
            let v = number_arg(name, a0, "value")?;
            let a = number_arg(name, arg(args, 1), "target1")?;
            let b = number_arg(name, arg(args, 2), "target2")?;
            some(json!((v - a).abs() < (v - b).abs()))
        }
        _ => Err(format!("there is no agent helper named '{name}'")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dispatch() {
        for n in NAMES {
            // every name answers (some with an argument error, never "no helper")
            let r = call(n, &[json!({"steps": []}), json!({}), json!(0)]);
            if let Err(e) = r {
                assert!(!e.parts().1.contains("no agent helper"), "{n}: {e:?}");
            }
        }
        assert_eq!(
            call("roundToTwoDecimals", &[json!(1.005)]).unwrap(),
            Some(json!(1.01))
        );
        assert_eq!(
            call("getUserMessageFromRunInput", &[json!(3)]).unwrap(),
            None
        );
        assert!(call("nope", &[]).is_err());
        let t = json!({"steps": [{"stepType": "tool_call", "name": "a"}]});
        assert_eq!(
            call("compareTrajectories", &[t.clone(), t.clone()])
                .unwrap()
                .unwrap()["score"],
            1
        );
        assert_eq!(
            call("checkTrajectoryEfficiency", &[t, json!({"maxSteps": -1})]).unwrap_err(),
            Failure::Mastra("Invalid maxSteps budget: expected a finite nonnegative number".into())
        );
    }
}
