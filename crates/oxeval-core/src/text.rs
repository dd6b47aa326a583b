//! Text extraction from Mastra's run shapes, and the two rounding rules the scorers use.
//!
//! Mastra hands scorers `run.input` / `run.output` in several shapes (plain strings, agent
//! message lists with `content.parts`, `{messages}`, `{prompt}`…). These functions mirror
//! `getUserMessageFromRunInput` / `getAssistantMessageFromRunOutput` exactly.

use serde_json::Value;

/// Text of one message: string content → itself; `content.content` non-empty → it;
/// `content.text`; else the LAST `{type: 'text'}` part of `content.parts`.
/// Also accepts `{text}` and AI SDK style `content: [{type:'text', text}]`.
pub fn message_text(message: &Value) -> Option<String> {
    match message {
        Value::String(s) => Some(s.clone()),
        Value::Object(map) => match map.get("content") {
            Some(Value::String(s)) => Some(s.clone()),
            Some(content @ Value::Object(_)) => content_text(content),
            Some(Value::Array(parts)) => last_text_part(parts),
            _ => match map.get("parts") {
                // AI SDK v5 UI message: `{ role, parts: [{ type: 'text', text }, …] }`
                Some(Value::Array(parts)) => ui_text(parts),
                _ => map.get("text").and_then(Value::as_str).map(str::to_owned),
            },
        },
        _ => None,
    }
}

/// Text of a `MastraMessageContentV2` object (`{format: 2, parts, content?, text?}`).
fn content_text(content: &Value) -> Option<String> {
    if let Some(s) = content.get("content").and_then(Value::as_str) {
        if !s.is_empty() {
            return Some(s.to_owned());
        }
    }
    if let Some(s) = content.get("text").and_then(Value::as_str) {
        return Some(s.to_owned());
    }
    content
        .get("parts")
        .and_then(Value::as_array)
        .and_then(|parts| last_text_part(parts))
}

/// The text of a UI message's parts: its text parts joined (tool parts are not text).
fn ui_text(parts: &[Value]) -> Option<String> {
    let texts: Vec<&str> = parts
        .iter()
        .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect();
    (!texts.is_empty()).then(|| texts.join(""))
}

/// JSON text with object keys sorted: the same value always reads the same (a non-message
/// object used as a question or reference).
pub fn stable_json(v: &Value) -> String {
    fn sorted(v: &Value) -> Value {
        match v {
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                Value::Object(
                    keys.into_iter()
                        .map(|k| (k.clone(), sorted(&m[k])))
                        .collect(),
                )
            }
            Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    sorted(v).to_string()
}

fn last_text_part(parts: &[Value]) -> Option<String> {
    parts
        .iter()
        .rev()
        .find(|p| p.get("type").and_then(Value::as_str) == Some("text"))
        .and_then(|p| p.get("text").and_then(Value::as_str))
        .map(str::to_owned)
}

fn role(message: &Value) -> Option<&str> {
    message.get("role").and_then(Value::as_str)
}

/// The user's text from `run.input` (Mastra's `getUserMessageFromRunInput`).
pub fn user_text(input: &Value) -> Option<String> {
    match input {
        Value::String(s) => Some(s.clone()),
        Value::Array(messages) => first_user_message(messages),
        Value::Object(map) => {
            for key in ["inputMessages", "messages"] {
                if let Some(Value::Array(messages)) = map.get(key) {
                    if let Some(t) = first_user_message(messages) {
                        return Some(t);
                    }
                }
            }
            for key in ["prompt", "text"] {
                if let Some(Value::String(s)) = map.get(key) {
                    return Some(s.clone());
                }
            }
            if let Some(content) = map.get("content") {
                if let Some(t) = message_text(&serde_json::json!({ "content": content })) {
                    return Some(t);
                }
            }
            for key in ["input", "user"] {
                if let Some(v) = map.get(key) {
                    if let Some(t) = user_text(v) {
                        return Some(t);
                    }
                }
            }
            // not a message shape at all (e.g. a workflow's `{ q: '…' }`): its stable JSON
            // text is the question; a message shape without a user message stays missing
            let message_shaped = ["inputMessages", "messages", "role", "content", "parts"]
                .iter()
                .any(|k| map.contains_key(*k));
            (!message_shaped && !map.is_empty()).then(|| stable_json(input))
        }
        _ => None,
    }
}

fn first_user_message(messages: &[Value]) -> Option<String> {
    messages
        .iter()
        .find(|m| role(m) == Some("user"))
        .and_then(message_text)
}

/// The assistant's text from `run.output` (Mastra's `getAssistantMessageFromRunOutput`):
/// a string is itself; an array of messages is walked from LAST to first and the first
/// assistant message with non-empty text wins; an object whose role is absent or
/// 'assistant' gives its `text`, string `content`, or text of its content.
pub fn assistant_text(output: &Value) -> Option<String> {
    match output {
        Value::String(s) => Some(s.clone()),
        Value::Array(messages) => {
            let mut answers = messages
                .iter()
                .rev()
                .filter(|m| matches!(role(m), None | Some("assistant")))
                .peekable();
            // no assistant message at all → None; assistant messages without text → ""
            answers.peek()?;
            Some(
                answers
                    .filter_map(message_text)
                    .find(|t| !t.is_empty())
                    .unwrap_or_default(),
            )
        }
        Value::Object(map) => {
            if !matches!(role(output), None | Some("assistant")) {
                return None;
            }
            if let Some(Value::String(s)) = map.get("text") {
                return Some(s.clone());
            }
            message_text(output)
        }
        _ => None,
    }
}

/// Tool results carried by the output messages (context fallback for RAG scorers): each
/// message's invocations in Mastra's merge order (`agent::tools::merge_tool_invocations`:
/// parts win on a shared `toolCallId`, legacy-only calls stay before their next shared
/// anchor), those with `state === 'result'`; a call id seen in an earlier message is replaced
/// in place.
pub fn tool_results(output: &Value) -> Vec<Value> {
    let messages: Vec<&Value> = match output {
        Value::Array(items) => items.iter().collect(),
        Value::Object(_) => vec![output],
        _ => return Vec::new(),
    };
    let mut merged: Vec<(Option<String>, Value)> = Vec::new();
    for m in messages {
        for inv in crate::agent::tools::merge_tool_invocations(m) {
            let inv = inv.value;
            if inv.get("state").and_then(Value::as_str) != Some("result") {
                continue;
            }
            let id = inv
                .get("toolCallId")
                .and_then(Value::as_str)
                .map(str::to_owned);
            let result = inv.get("result").cloned().unwrap_or(Value::Null);
            match merged.iter_mut().find(|(k, _)| k.is_some() && *k == id) {
                Some(slot) => slot.1 = result,
                None => merged.push((id, result)),
            }
        }
    }
    merged.into_iter().map(|(_, v)| v).collect()
}

/// Mastra's `roundToTwoDecimals`: `Math.round((n + Number.EPSILON) * 100) / 100` (half up).
pub fn round2_half_up(n: f64) -> f64 {
    // JS Math.round rounds .5 towards +infinity: floor(x + 0.5).
    ((n + f64::EPSILON) * 100.0 + 0.5).floor() / 100.0
}

/// numpy's `round(x, 2)`: scale by 100, round half to EVEN, scale back
/// (so 0.625 → 0.62 and 0.675 → 0.68 on the binary values numpy sees).
pub fn round2_half_even(n: f64) -> f64 {
    (n * 100.0).round_ties_even() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mastra_input_parity() {
        use serde_json::json;
        // AI SDK v5 UI messages: text parts joined, tool parts are not text
        let ui = json!([{ "role": "assistant", "parts": [
            { "type": "text", "text": "Paris " },
            { "type": "tool-weather", "toolCallId": "t", "state": "output-available" },
            { "type": "text", "text": "is the capital." }
        ]}]);
        assert_eq!(
            assistant_text(&ui).as_deref(),
            Some("Paris is the capital.")
        );
        // only user messages: no assistant text at all (an error, never a silent 0)
        assert_eq!(
            assistant_text(&json!([{ "role": "user", "content": "hi" }])),
            None
        );
        // an assistant message without text: empty
        assert_eq!(
            assistant_text(&json!([{ "role": "assistant", "content": "" }])).as_deref(),
            Some("")
        );
        // a workflow's object input: its stable JSON text
        assert_eq!(
            user_text(&json!({ "q": "What is 2+2?", "a": 1 })).as_deref(),
            Some(r#"{"a":1,"q":"What is 2+2?"}"#)
        );
        // an agent input without a user message stays missing
        assert_eq!(user_text(&json!({ "inputMessages": [] })), None);
    }
    use serde_json::json;

    fn agent_msg(role: &str, parts: Value) -> Value {
        json!({"id": "m1", "role": role, "createdAt": "2025-01-01", "content": {"format": 2, "parts": parts}})
    }

    #[test]
    fn user_text_shapes() {
        let cases: Vec<(Value, Option<&str>)> = vec![
            (json!("hello"), Some("hello")),
            (
                json!({"inputMessages": [agent_msg("system", json!([{"type":"text","text":"sys"}])), agent_msg("user", json!([{"type":"text","text":"first"},{"type":"text","text":"last"}]))], "rememberedMessages": [], "systemMessages": [], "taggedSystemMessages": {}}),
                Some("last"),
            ),
            (
                json!({"messages": [{"role": "user", "content": "q"}]}),
                Some("q"),
            ),
            (json!({"prompt": "p"}), Some("p")),
            (json!({"text": "t"}), Some("t")),
            (json!({"content": "c"}), Some("c")),
            (json!({"input": "i"}), Some("i")),
            (json!({"user": "u"}), Some("u")),
            (
                json!([{"role": "assistant", "content": "a"}, {"role": "user", "content": "u1"}]),
                Some("u1"),
            ),
            (
                json!({"content": {"format": 2, "parts": [], "content": "legacy"}}),
                Some("legacy"),
            ),
            (json!(42), None),
            (json!({}), None),
        ];
        for (input, want) in cases {
            assert_eq!(user_text(&input).as_deref(), want, "input {input}");
        }
    }

    #[test]
    fn assistant_text_shapes() {
        let cases: Vec<(Value, Option<&str>)> = vec![
            (json!("Paris."), Some("Paris.")),
            (
                json!([
                    agent_msg("assistant", json!([{"type":"text","text":"old"}])),
                    agent_msg("assistant", json!([{"type":"text","text":"new"}]))
                ]),
                Some("new"),
            ),
            // last assistant message is empty → the previous non-empty one wins
            (
                json!([
                    agent_msg("assistant", json!([{"type":"text","text":"answer"}])),
                    agent_msg("assistant", json!([{"type":"tool-invocation"}]))
                ]),
                Some("answer"),
            ),
            (json!([{"role": "user", "content": "q"}]), None),
            (json!({"text": "obj text"}), Some("obj text")),
            (json!({"role": "assistant", "content": "s"}), Some("s")),
            (json!({"role": "user", "content": "s"}), None),
            (
                json!({"content": [{"type": "text", "text": "sdk"}]}),
                Some("sdk"),
            ),
            (
                json!({"content": {"format": 2, "parts": [{"type":"text","text":"a"},{"type":"text","text":"b"}]}}),
                Some("b"),
            ),
            (
                json!({"content": {"format": 2, "parts": [], "content": ""}, "text": "x"}),
                Some("x"),
            ),
            (json!(null), None),
        ];
        for (output, want) in cases {
            assert_eq!(assistant_text(&output).as_deref(), want, "output {output}");
        }
    }

    #[test]
    fn tool_results_merge_parts_win() {
        let out = json!([{"role": "assistant", "content": {"format": 2,
        "toolInvocations": [
            {"state": "result", "toolCallId": "a", "result": "legacy-a"},
            {"state": "call", "toolCallId": "b", "result": "ignored"},
            {"state": "result", "toolCallId": "c", "result": {"doc": "legacy-c"}}
        ],
        "parts": [
            {"type": "tool-invocation", "toolInvocation": {"state": "result", "toolCallId": "a", "result": "part-a"}},
            {"type": "tool-invocation", "toolInvocation": {"state": "result", "toolCallId": "d", "result": "part-d"}},
            {"type": "text", "text": "done"}
        ]}}]);
        // Mastra's merge order (issue 21: one implementation): the legacy-only call c
        // follows the parts, as no later part shares an id with the legacy array
        assert_eq!(
            tool_results(&out),
            vec![json!("part-a"), json!("part-d"), json!({"doc": "legacy-c"})]
        );
        assert!(tool_results(&json!("plain")).is_empty());
    }

    #[test]
    fn rounding_rules() {
        let up = [
            (0.4333, 0.43),
            (0.375, 0.38),
            (1.005, 1.01),
            (0.125, 0.13),
            (3.75, 3.75),
            (0.0, 0.0),
            (2.0 / 3.0, 0.67),
        ];
        for (n, want) in up {
            assert_eq!(round2_half_up(n), want, "half up {n}");
        }
        let even = [
            (0.625, 0.62),
            (0.675, 0.68),
            (0.125, 0.12),
            (0.375, 0.38),
            (2.0 / 3.0, 0.67),
            (0.5, 0.5),
            (1.0, 1.0),
        ];
        for (n, want) in even {
            assert_eq!(round2_half_even(n), want, "half even {n}");
        }
    }
}
