//! Tool invocations of agent messages: Mastra's merge of message parts and the legacy
//! `content.toolInvocations` array, and what is read from it.

use super::js::{strict_eq, truthy};
use serde_json::{json, Map, Value};

/// Where a merged invocation comes from: the index of its part in `content.parts`, or its
/// index in the legacy `content.toolInvocations`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Part(usize),
    Legacy(usize),
}

/// One invocation of [`merge_tool_invocations`].
#[derive(Debug, Clone, Copy)]
pub struct Invocation<'a> {
    pub origin: Origin,
    pub value: &'a Value,
}

/// `mergeToolInvocations(message)`: the parts' invocations in order; a part whose
/// `toolCallId` also sits in the legacy array at index `k` (its last position) at or after
/// the legacy cursor first emits the legacy entries before `k` that no part shares; the
/// legacy entries left after the loop follow. Parts win on a shared id.
pub fn merge_tool_invocations(message: &Value) -> Vec<Invocation<'_>> {
    let content = message.get("content").filter(|c| c.is_object());
    let parts: &[Value] = content
        .and_then(|c| c.get("parts"))
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    let legacy: &[Value] = content
        .and_then(|c| c.get("toolInvocations"))
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    let from_parts: Vec<(usize, &Value)> = parts
        .iter()
        .enumerate()
        .filter(|(_, p)| p.get("type").and_then(Value::as_str) == Some("tool-invocation"))
        .filter_map(|(i, p)| {
            p.get("toolInvocation")
                .filter(|v| truthy(Some(v)))
                .map(|v| (i, v))
        })
        .collect();
    let part_ids: Vec<&Value> = from_parts
        .iter()
        .filter_map(|(_, v)| v.get("toolCallId"))
        .filter(|id| truthy(Some(id)))
        .collect();
    let shared = |inv: &Value| {
        let id = inv.get("toolCallId");
        part_ids.iter().any(|p| strict_eq(Some(p), id))
    };
    let mut out = Vec::with_capacity(from_parts.len() + legacy.len());
    let mut cursor = 0usize;
    for (pi, inv) in &from_parts {
        let id = inv.get("toolCallId").filter(|id| truthy(Some(id)));
        // a JS Map of id → index: the LAST legacy entry with that id
        let shared_index = id.and_then(|id| {
            legacy
                .iter()
                .rposition(|l| strict_eq(l.get("toolCallId"), Some(id)))
        });
        if let Some(k) = shared_index.filter(|k| *k >= cursor) {
            while cursor < k {
                let prev = &legacy[cursor];
                if truthy(Some(prev)) && !shared(prev) {
                    out.push(Invocation {
                        origin: Origin::Legacy(cursor),
                        value: prev,
                    });
                }
                cursor += 1;
            }
            cursor += 1;
        }
        out.push(Invocation {
            origin: Origin::Part(*pi),
            value: inv,
        });
    }
    while cursor < legacy.len() {
        let inv = &legacy[cursor];
        if truthy(Some(inv)) && !shared(inv) {
            out.push(Invocation {
                origin: Origin::Legacy(cursor),
                value: inv,
            });
        }
        cursor += 1;
    }
    out
}

/// A tool call as Mastra counts it: a truthy `toolName` and state `result`, `call` or
/// `output-error` (not `partial-call`, `approval-*`, `output-denied`).
pub fn is_call(inv: &Value) -> bool {
    truthy(inv.get("toolName"))
        && matches!(
            inv.get("state").and_then(Value::as_str),
            Some("result" | "call" | "output-error")
        )
}

/// `extractToolCalls(output)`.
#[derive(Debug, Default)]
pub struct ToolCalls {
    /// The called tools' names, in order.
    pub tools: Vec<Value>,
    /// `{ toolName, toolCallId, messageIndex, invocationIndex }` per call.
    pub tool_call_infos: Vec<Value>,
}

/// `extractToolCalls(output)`: every message (no role filter), merged invocations.
pub fn extract_tool_calls(messages: &[Value]) -> ToolCalls {
    let mut out = ToolCalls::default();
    for (mi, m) in messages.iter().enumerate() {
        for (ii, inv) in merge_tool_invocations(m).iter().enumerate() {
            let inv = inv.value;
            if !is_call(inv) {
                continue;
            }
            let name = inv["toolName"].clone();
            let id = match inv.get("toolCallId") {
                id if truthy(id) => id.cloned().unwrap_or_default(),
                _ => json!(format!("{mi}-{ii}")),
            };
            out.tool_call_infos.push(json!({
                "toolName": name, "toolCallId": id, "messageIndex": mi, "invocationIndex": ii,
            }));
            out.tools.push(name);
        }
    }
    out
}

/// Just the called tools' names (no per-call records).
pub fn tool_names(messages: &[Value]) -> Vec<&Value> {
    messages
        .iter()
        .flat_map(|m| merge_tool_invocations(m).into_iter().map(|i| i.value))
        .filter(|inv| is_call(inv))
        .map(|inv| &inv["toolName"])
        .collect()
}

/// `extractToolResults(output)`: `{ toolName, toolCallId, args, result }` of every invocation
/// with state `result` and a result.
pub fn extract_tool_results(messages: &[Value]) -> Vec<Value> {
    let mut out = Vec::new();
    for m in messages {
        for inv in merge_tool_invocations(m) {
            let inv = inv.value;
            if inv.get("state").and_then(Value::as_str) != Some("result") {
                continue;
            }
            let Some(result) = inv.get("result") else {
                continue;
            };
            let mut r = Map::new();
            if let Some(n) = inv.get("toolName") {
                r.insert("toolName".into(), n.clone());
            }
            let id = inv.get("toolCallId");
            r.insert(
                "toolCallId".into(),
                if truthy(id) {
                    id.cloned().unwrap_or_default()
                } else {
                    json!("")
                },
            );
            let args = inv.get("args");
            r.insert(
                "args".into(),
                if truthy(args) {
                    args.cloned().unwrap_or_default()
                } else {
                    json!({})
                },
            );
            r.insert("result".into(), result.clone());
            out.push(Value::Object(r));
        }
    }
    out
}

/// `noToolErrors`' failure test: state `call` or `output-error`, `isError: true`, or a
/// truthy `result.error`.
pub fn is_error_invocation(inv: &Value) -> bool {
    matches!(
        inv.get("state").and_then(Value::as_str),
        Some("call" | "output-error")
    ) || inv.get("isError") == Some(&Value::Bool(true))
        || truthy(inv.get("result").and_then(|r| r.get("error")))
}

/// A value as a step's `toolArgs` / `toolResult`: a non-array object as it is, another
/// non-null value as `{ value }`, `null`/absent as absent.
fn wrap(v: Option<&Value>) -> Option<Value> {
    match v {
        None | Some(Value::Null) => None,
        Some(o @ Value::Object(_)) => Some(o.clone()),
        Some(other) => Some(json!({ "value": other })),
    }
}

/// `extractTrajectory(output)` (`@mastra/core/evals`): one `tool_call` step per counted
/// invocation, `success` iff state `result` and not `isError`. Returns the steps (the
/// caller adds `rawOutput`).
pub fn trajectory_steps(messages: &[Value]) -> Vec<Value> {
    let mut steps = Vec::new();
    for m in messages {
        for inv in merge_tool_invocations(m) {
            let inv = inv.value;
            if !is_call(inv) {
                continue;
            }
            let result = inv.get("state").and_then(Value::as_str) == Some("result");
            let mut s = Map::new();
            s.insert("stepType".into(), json!("tool_call"));
            s.insert("name".into(), inv["toolName"].clone());
            if let Some(a) = wrap(inv.get("args")) {
                s.insert("toolArgs".into(), a);
            }
            if let Some(r) = wrap(if result { inv.get("result") } else { None }) {
                s.insert("toolResult".into(), r);
            }
            s.insert(
                "success".into(),
                json!(result && inv.get("isError") != Some(&Value::Bool(true))),
            );
            steps.push(Value::Object(s));
        }
    }
    steps
}

/// `extractTrajectory(output)`: `{ steps, rawOutput }`.
pub fn extract_trajectory(messages: &[Value]) -> Value {
    json!({ "steps": trajectory_steps(messages), "rawOutput": messages })
}

/// The trajectory runEvals hands a trajectory scorer or gate for an item's `output`
/// (`@mastra/core`'s runEvals without a trace store: `output ? extractTrajectory(output) :
/// { steps: [] }`): a falsy output → no steps; a trajectory (`{ steps: [...] }`, a recorded
/// one) → itself, `Ok(None)`; messages (any shape [`output_messages`] widens) → their
/// tool-call steps. Err: an output that is not messages.
pub fn routed_trajectory(output: &Value) -> Result<Option<Vec<Value>>, String> {
    if !truthy(Some(output)) {
        return Ok(Some(Vec::new()));
    }
    if output.get("steps").is_some_and(Value::is_array) {
        return Ok(None);
    }
    let messages = super::messages::output_messages(output)?;
    Ok(Some(trajectory_steps(&messages)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inv(id: &str, name: &str, state: &str) -> Value {
        json!({"toolCallId": id, "toolName": name, "state": state, "args": {}})
    }

    fn msg(legacy: Vec<Value>, parts: Vec<Value>) -> Value {
        let parts: Vec<Value> = parts
            .into_iter()
            .map(|p| json!({"type": "tool-invocation", "toolInvocation": p}))
            .collect();
        json!({"role": "assistant", "content": {"format": 2, "parts": parts, "toolInvocations": legacy}})
    }

    fn names(m: &Value) -> Vec<String> {
        merge_tool_invocations(m)
            .iter()
            .map(|i| i.value["toolName"].as_str().unwrap().to_owned())
            .collect()
    }

    #[test]
    fn routed_trajectory_table() {
        // no output: no steps (Mastra: `{ steps: [] }`)
        for v in [Value::Null, json!(""), json!(false), json!(0)] {
            assert_eq!(routed_trajectory(&v), Ok(Some(vec![])), "{v}");
        }
        // a recorded trajectory passes as it is
        assert_eq!(routed_trajectory(&json!({ "steps": [] })), Ok(None));
        // messages: their calls, in Mastra's merge order and state filter
        let out = json!([msg(
            vec![],
            vec![
                inv("a", "search", "result"),
                inv("b", "send", "partial-call")
            ]
        )]);
        let steps = routed_trajectory(&out).unwrap().unwrap();
        assert_eq!(steps.len(), 1);
        assert_eq!(steps[0]["name"], "search");
        assert_eq!(steps[0]["success"], true);
        // a text answer has no tool calls
        assert_eq!(routed_trajectory(&json!("Paris.")), Ok(Some(vec![])));
        // a value that is no message list
        assert!(routed_trajectory(&json!(42)).is_err());
    }

    #[test]
    fn merge_order_table() {
        let cases = [
            // the catalogue's observed case: legacy-only calls stay before their next anchor
            (
                vec![inv("a", "search", "result"), inv("b", "lookup", "result")],
                vec![
                    inv("c", "fetch", "output-error"),
                    inv("b", "lookup", "result"),
                ],
                vec!["fetch", "search", "lookup"],
            ),
            (vec![], vec![inv("a", "x", "call")], vec!["x"]),
            (vec![inv("a", "x", "call")], vec![], vec!["x"]),
            // parts win on a shared id
            (
                vec![inv("a", "legacy", "call")],
                vec![inv("a", "part", "result")],
                vec!["part"],
            ),
            // a shared id behind the cursor does not move it
            (
                vec![
                    inv("a", "la", "call"),
                    inv("b", "lb", "call"),
                    inv("c", "lc", "call"),
                ],
                vec![
                    inv("c", "pc", "result"),
                    inv("a", "pa", "result"),
                    inv("d", "pd", "call"),
                ],
                vec!["lb", "pc", "pa", "pd"],
            ),
            // duplicate legacy ids: the last position anchors
            (
                vec![
                    inv("a", "l1", "call"),
                    inv("x", "lx", "call"),
                    inv("a", "l2", "call"),
                ],
                vec![inv("a", "p", "result")],
                vec!["lx", "p"],
            ),
            // no ids: nothing is shared
            (
                vec![json!({"toolName": "l", "state": "call"})],
                vec![json!({"toolName": "p", "state": "call"})],
                vec!["p", "l"],
            ),
        ];
        for (legacy, parts, want) in cases {
            let m = msg(legacy, parts);
            assert_eq!(names(&m), want, "{m}");
        }
        assert!(merge_tool_invocations(&json!({"content": "text"})).is_empty());
        assert!(merge_tool_invocations(&json!(null)).is_empty());
    }

    #[test]
    fn calls_results_and_trajectory() {
        let m = msg(
            vec![inv("a", "search", "partial-call")],
            vec![
                inv("b", "fetch", "output-error"),
                json!({"toolCallId": "", "toolName": "calc", "state": "result", "args": 3, "result": [1], "isError": true}),
                inv("d", "", "call"),
                json!({"toolCallId": "e", "toolName": "ok", "state": "result", "args": {"q": 1}, "result": {"r": 2}}),
            ],
        );
        let out = vec![json!({"role": "user", "content": "q"}), m];
        let calls = extract_tool_calls(&out);
        assert_eq!(
            calls.tools,
            vec![json!("fetch"), json!("calc"), json!("ok")]
        );
        assert_eq!(
            calls.tool_call_infos[1],
            json!({"toolName": "calc", "toolCallId": "1-1", "messageIndex": 1, "invocationIndex": 1})
        );
        assert_eq!(
            extract_tool_results(&out),
            vec![
                json!({"toolName": "calc", "toolCallId": "", "args": 3, "result": [1]}),
                json!({"toolName": "ok", "toolCallId": "e", "args": {"q": 1}, "result": {"r": 2}})
            ]
        );
        let steps = trajectory_steps(&out);
        assert_eq!(
            steps[0],
            json!({"stepType": "tool_call", "name": "fetch", "toolArgs": {}, "success": false})
        );
        assert_eq!(
            steps[1],
            json!({"stepType": "tool_call", "name": "calc", "toolArgs": {"value": 3}, "toolResult": {"value": [1]}, "success": false})
        );
        assert_eq!(steps[2]["success"], true);
        assert!(is_error_invocation(
            &json!({"state": "result", "result": {"error": "x"}})
        ));
        assert!(!is_error_invocation(
            &json!({"state": "result", "result": "error"})
        ));
        assert!(is_error_invocation(&json!({"state": "call"})));
    }
}
