//! Messages: Mastra's text readers (`scorers/utils`), exact, and the widening of a run's
//! output to a message list.

use super::js::{template, trim, truthy};
use serde_json::{json, Map, Value};
use std::borrow::Cow;

fn is_record(v: &Value) -> bool {
    matches!(v, Value::Object(_) | Value::Array(_))
}

fn text_of_part(p: &Value) -> String {
    match p.get("text") {
        Some(Value::String(s)) => s.clone(),
        v if truthy(v) => template(v),
        _ => String::new(),
    }
}

fn last_text_part(parts: &[Value]) -> String {
    parts
        .iter()
        .rev()
        .find(|p| p.get("type").and_then(Value::as_str) == Some("text"))
        .map(text_of_part)
        .unwrap_or_default()
}

fn non_empty_str(v: Option<&Value>) -> Option<&str> {
    v.and_then(Value::as_str).filter(|s| !s.is_empty())
}

/// `getTextContentFromMastraDBMessage(message)`: string content; the LAST text part of an
/// array content; `content.content`; `content.text`; the last text part of
/// `content.parts`; else `""`.
pub fn db_message_text(message: &Value) -> String {
    let content = message.get("content");
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => last_text_part(parts),
        Some(c) => {
            if let Some(s) = non_empty_str(c.get("content")) {
                return s.to_owned();
            }
            if let Some(s) = non_empty_str(c.get("text")) {
                return s.to_owned();
            }
            match c.get("parts") {
                Some(Value::Array(parts)) => last_text_part(parts),
                _ => String::new(),
            }
        }
        None => String::new(),
    }
}

/// Mastra's internal `getTextFromValue`.
pub fn text_from_value(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => (!s.is_empty()).then(|| s.clone()),
        Value::Array(parts) => parts
            .iter()
            .rev()
            .find(|p| {
                p.get("type").and_then(Value::as_str) == Some("text")
                    && p.get("text").is_some_and(Value::is_string)
            })
            .and_then(|p| p.get("text").and_then(Value::as_str))
            .map(str::to_owned),
        Value::Object(m) => {
            let from_parts = match m.get("parts") {
                Some(p @ Value::Array(_)) => text_from_value(p),
                _ => None,
            };
            m.get("content")
                .and_then(text_from_value)
                .or_else(|| non_empty_str(m.get("text")).map(str::to_owned))
                .or_else(|| non_empty_str(m.get("body")).map(str::to_owned))
                .or(from_parts)
        }
        _ => None,
    }
}

/// `getEffectiveMessageRole`: `role`, or a signal message's underlying role.
pub fn effective_role(message: &Value) -> Option<&str> {
    let role = message.get("role");
    if role.and_then(Value::as_str) != Some("signal") {
        return role.and_then(Value::as_str);
    }
    let signal = message
        .get("content")
        .and_then(|c| c.get("metadata"))
        .and_then(|m| m.get("signal"))
        .filter(|s| is_record(s));
    let s = |k: &str| signal.and_then(|s| s.get(k)).and_then(Value::as_str);
    s("tagName")
        .or_else(|| s("type"))
        .or_else(|| message.get("type").and_then(Value::as_str))
}

fn text_from_messages(messages: Option<&Value>, role: &str) -> Option<String> {
    let Some(Value::Array(list)) = messages else {
        return None;
    };
    list.iter()
        .find(|m| is_record(m) && effective_role(m) == Some(role))
        .and_then(text_from_value)
}

/// `getUserMessageFromRunInput(input)`.
pub fn user_message(input: &Value) -> Option<String> {
    match input {
        Value::String(s) => Some(s.clone()),
        v if is_record(v) => text_from_messages(v.get("inputMessages"), "user")
            .or_else(|| text_from_messages(v.get("messages"), "user"))
            .or_else(|| v.get("prompt").and_then(Value::as_str).map(str::to_owned))
            .or_else(|| v.get("text").and_then(Value::as_str).map(str::to_owned))
            .or_else(|| v.get("content").and_then(text_from_value))
            .or_else(|| v.get("input").and_then(text_from_value))
            .or_else(|| v.get("user").and_then(text_from_value)),
        _ => None,
    }
}

/// `getAssistantMessageFromRunOutput(output)`: the last assistant message with text.
pub fn assistant_message(output: &Value) -> Option<String> {
    match output {
        Value::String(s) => Some(s.clone()),
        Value::Array(list) => list
            .iter()
            .filter(|m| is_record(m) && effective_role(m) == Some("assistant"))
            .rev()
            .find_map(|m| text_from_value(m).filter(|t| !t.is_empty())),
        Value::Object(m) => {
            let role = m.get("role");
            let assistant = role.is_none() || role.and_then(Value::as_str) == Some("assistant");
            if assistant {
                if let Some(Value::String(s)) = m.get("text") {
                    return Some(s.clone());
                }
                match m.get("content") {
                    Some(Value::String(s)) => return Some(s.clone()),
                    Some(c) if is_record(c) => {
                        let t = db_message_text(output);
                        let t = if t.is_empty() { db_message_text(c) } else { t };
                        return (!t.is_empty()).then_some(t);
                    }
                    _ => {}
                }
            }
            if role.and_then(Value::as_str) == Some("assistant") {
                let t = db_message_text(output);
                return (!t.is_empty()).then_some(t);
            }
            None
        }
        _ => None,
    }
}

/// `getSystemMessagesFromRunInput(input)`.
pub fn system_messages(input: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if !is_record(input) {
        return out;
    }
    if let Some(Value::Array(list)) = input.get("systemMessages") {
        for m in list {
            let t = match m.get("content") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Array(parts)) => parts
                    .iter()
                    .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
                    .map(text_of_part)
                    .collect::<Vec<_>>()
                    .join(" "),
                _ => String::new(),
            };
            if !t.is_empty() {
                out.push(t);
            }
        }
    }
    for key in ["inputMessages", "messages"] {
        if let Some(Value::Array(list)) = input.get(key) {
            out.extend(
                list.iter()
                    .filter(|m| {
                        is_record(m) && m.get("role").and_then(Value::as_str) == Some("system")
                    })
                    .filter_map(text_from_value)
                    .filter(|t| !t.is_empty()),
            );
        }
    }
    if let Some(tagged) = input.get("taggedSystemMessages").filter(|t| is_record(t)) {
        let values: Vec<&Value> = match tagged {
            Value::Object(m) => m.values().collect(),
            Value::Array(a) => a.iter().collect(),
            _ => Vec::new(),
        };
        for v in values {
            if let Value::Array(list) = v {
                out.extend(
                    list.iter()
                        .filter_map(text_from_value)
                        .filter(|t| !t.is_empty()),
                );
            }
        }
    }
    out
}

/// `getCombinedSystemPrompt(input)`.
pub fn combined_system_prompt(input: &Value) -> String {
    system_messages(input).join("\n\n")
}

/// `isScorerRunInputForAgent(input)`.
pub fn is_agent_input(input: &Value) -> bool {
    is_record(input)
        && input.get("inputMessages").is_some_and(Value::is_array)
        && input.get("rememberedMessages").is_some_and(Value::is_array)
        && input.get("systemMessages").is_some_and(Value::is_array)
        && input.get("taggedSystemMessages").is_some_and(is_record)
}

/// `isScorerRunOutputForAgent(output)`.
pub fn is_agent_output(output: &Value) -> bool {
    let Value::Array(list) = output else {
        return false;
    };
    list.iter().all(|m| {
        m.get("id").is_some_and(Value::is_string)
            && m.get("role").is_some_and(Value::is_string)
            && m.get("content").is_some()
            && m.get("createdAt").is_some()
    })
}

/// `getConversationHistoryFromRunInput(input, { maxMessages })` (`max_messages` default 10).
pub fn conversation_history(input: &Value, max_messages: Option<f64>) -> Option<String> {
    if !is_agent_input(input) {
        return None;
    }
    let max = max_messages.unwrap_or(10.0);
    if max.is_nan() || max <= 0.0 {
        return None;
    }
    let list = input["rememberedMessages"].as_array()?;
    let keep = if max.is_infinite() {
        list.len()
    } else {
        (max.trunc() as usize).min(list.len())
    };
    let lines: Vec<String> = list[list.len() - keep..]
        .iter()
        .filter(|m| is_record(m))
        .filter_map(|m| {
            let role = effective_role(m)?;
            let text = db_message_text(m);
            let text = trim(&text);
            (!role.is_empty() && !text.is_empty()).then(|| format!("{role}: {text}"))
        })
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
}

/// `getReasoningFromRunOutput(output)` over a message list.
pub fn reasoning(messages: &[Value]) -> Option<String> {
    let message = messages
        .iter()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))?;
    let content = message.get("content")?;
    let r = content.get("reasoning");
    if truthy(r) {
        return Some(template(r));
    }
    let Some(Value::Array(parts)) = content.get("parts") else {
        return None;
    };
    let parts: Vec<&Value> = parts
        .iter()
        .filter(|p| p.get("type").and_then(Value::as_str) == Some("reasoning"))
        .collect();
    if parts.is_empty() {
        return None;
    }
    let texts: Vec<String> = parts
        .iter()
        .map(|p| match p.get("details") {
            Some(Value::Array(details)) => details
                .iter()
                .filter(|d| d.get("type").and_then(Value::as_str) == Some("text"))
                .map(|d| template(d.get("text")))
                .collect::<Vec<_>>()
                .join(""),
            _ => match p.get("reasoning") {
                r if truthy(r) => template(r),
                _ => String::new(),
            },
        })
        .filter(|t| !t.is_empty())
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

/// `extractInputMessages(runInput)`: the text of every `inputMessages` entry.
pub fn input_message_texts(input: &Value) -> Vec<String> {
    match input.get("inputMessages") {
        Some(Value::Array(list)) => list.iter().map(db_message_text).collect(),
        _ => Vec::new(),
    }
}

/// `extractAgentResponseMessages(output)`: the text of every assistant message.
pub fn assistant_texts(messages: &[Value]) -> Vec<String> {
    messages
        .iter()
        .filter(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
        .map(db_message_text)
        .collect()
}

/// The assistant messages' texts joined by `sep` (the checks' text).
pub fn assistant_text_joined(messages: &[Value], sep: &str) -> String {
    assistant_texts(messages).join(sep)
}

/// An AI SDK v5 UI message (`{ role, parts }`, no `content`)?
fn is_ui_message(m: &Value) -> bool {
    m.get("parts").is_some_and(Value::is_array) && m.get("content").is_none()
}

/// A UI message as the Mastra message Mastra stores for it: text parts kept, `tool-<name>`
/// and `dynamic-tool` parts as `tool-invocation` parts (`input-available` → `call`,
/// `output-available` → `result`, `input-streaming` → `partial-call`, other states kept).
fn from_ui(m: &Value) -> Value {
    let parts: Vec<Value> = m["parts"]
        .as_array()
        .map(|parts| parts.iter().map(ui_part).collect())
        .unwrap_or_default();
    let mut out = Map::new();
    if let Some(id) = m.get("id") {
        out.insert("id".into(), id.clone());
    }
    out.insert(
        "role".into(),
        m.get("role").cloned().unwrap_or_else(|| json!("assistant")),
    );
    out.insert("content".into(), json!({ "format": 2, "parts": parts }));
    Value::Object(out)
}

fn ui_part(p: &Value) -> Value {
    let kind = p.get("type").and_then(Value::as_str).unwrap_or("");
    let name = if kind == "dynamic-tool" {
        p.get("toolName").cloned()
    } else {
        kind.strip_prefix("tool-")
            .filter(|_| kind != "tool-invocation")
            .map(|n| json!(n))
    };
    let Some(name) = name else {
        return p.clone();
    };
    let state = match p.get("state").and_then(Value::as_str) {
        Some("input-streaming") => "partial-call",
        Some("input-available") => "call",
        Some("output-available") => "result",
        Some(other) => other,
        None => "call",
    };
    let mut inv = Map::new();
    if let Some(id) = p.get("toolCallId") {
        inv.insert("toolCallId".into(), id.clone());
    }
    inv.insert("toolName".into(), name);
    if let Some(a) = p.get("input") {
        inv.insert("args".into(), a.clone());
    }
    if let Some(r) = p.get("output") {
        inv.insert("result".into(), r.clone());
    }
    inv.insert("state".into(), json!(state));
    if let Some(e) = p.get("errorText") {
        inv.insert("errorText".into(), e.clone());
    }
    json!({ "type": "tool-invocation", "toolInvocation": inv })
}

/// The run's output as the message list Mastra's agent scorers read. Mastra requires the
/// array; oxeval also takes what its LLM scorers take, as the equivalent message list: a
/// string (one assistant message with that text), `{ messages }`, a single message object
/// (`role` absent → assistant; `{ text }` → its text) and AI SDK UI messages (see
/// `from_ui`). Anything else: the message of a TypeError.
pub fn output_messages(output: &Value) -> Result<Cow<'_, [Value]>, String> {
    match output {
        Value::Array(list) => {
            if list.iter().any(is_ui_message) {
                Ok(Cow::Owned(
                    list.iter()
                        .map(|m| if is_ui_message(m) { from_ui(m) } else { m.clone() })
                        .collect(),
                ))
            } else {
                Ok(Cow::Borrowed(list.as_slice()))
            }
        }
        Value::String(s) => Ok(Cow::Owned(vec![
            json!({ "role": "assistant", "content": s }),
        ])),
        Value::Object(m) => {
            if let Some(list @ Value::Array(_)) = m.get("messages") {
                return output_messages(list).map(|c| Cow::Owned(c.into_owned()));
            }
            if is_ui_message(output) {
                return Ok(Cow::Owned(vec![from_ui(output)]));
            }
            if m.contains_key("content") || m.contains_key("text") || m.contains_key("role") {
                let mut msg = m.clone();
                if !msg.contains_key("content") {
                    if let Some(Value::String(t)) = m.get("text") {
                        msg.insert("content".into(), json!(t));
                    }
                }
                if !msg.contains_key("role") {
                    msg.insert("role".into(), json!("assistant"));
                }
                return Ok(Cow::Owned(vec![Value::Object(msg)]));
            }
            Err(format!(
                "run.output must be a message array, a string, {{ messages }} or a message object; got an object with keys {}",
                m.keys().take(5).cloned().collect::<Vec<_>>().join(", ")
            ))
        }
        other => Err(format!(
            "run.output must be a message array, a string, {{ messages }} or a message object; got {}",
            crate::error::type_name(other)
        )),
    }
}

/// The run's input as a message list (the agent shape's `inputMessages`; oxeval also takes a
/// string, a message array and `{ messages }`); `None` when there is none.
pub fn input_messages(input: Option<&Value>) -> Option<Cow<'_, [Value]>> {
    match input? {
        Value::String(s) if s.is_empty() => None,
        Value::String(s) => Some(Cow::Owned(vec![json!({ "role": "user", "content": s })])),
        Value::Array(list) => Some(Cow::Borrowed(list.as_slice())),
        Value::Object(m) => match m.get("inputMessages").or_else(|| m.get("messages")) {
            Some(Value::Array(list)) => Some(Cow::Borrowed(list.as_slice())),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn db_message_text_table() {
        let cases = [
            (json!({"content": "flat"}), "flat"),
            (
                json!({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}),
                "b",
            ),
            (
                json!({"content": {"format": 2, "parts": [{"type": "text", "text": "p"}], "content": "legacy"}}),
                "legacy",
            ),
            (
                json!({"content": {"format": 2, "parts": [{"type": "text", "text": "p1"}, {"type": "tool-invocation"}, {"type": "text", "text": "p2"}], "content": ""}}),
                "p2",
            ),
            (json!({"content": {"text": "t", "parts": []}}), "t"),
            (json!({"content": {"parts": [{"type": "text"}]}}), ""),
            (json!({"parts": [{"type": "text", "text": "ui"}]}), ""),
            (json!({"content": 5}), ""),
            (json!(null), ""),
        ];
        for (m, want) in cases {
            assert_eq!(db_message_text(&m), want, "{m}");
        }
    }

    #[test]
    fn widening_gives_the_equivalent_message_list() {
        let paris = json!("Paris");
        let s = output_messages(&paris).unwrap();
        assert_eq!(assistant_text_joined(&s, " "), "Paris");
        let wrapped = json!({"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]});
        let m = output_messages(&wrapped).unwrap();
        assert_eq!(assistant_text_joined(&m, " "), "a");
        let ui_msgs = json!([{"role": "assistant", "parts": [
            {"type": "text", "text": "x"},
            {"type": "tool-get_weather", "toolCallId": "c1", "state": "output-available", "input": {"city": "P"}, "output": {"t": 1}}
        ]}]);
        let ui = output_messages(&ui_msgs).unwrap();
        assert_eq!(
            ui[0]["content"]["parts"][1]["toolInvocation"],
            json!({"toolCallId": "c1", "toolName": "get_weather", "args": {"city": "P"}, "result": {"t": 1}, "state": "result"})
        );
        let text = json!({"text": "t"});
        assert_eq!(output_messages(&text).unwrap()[0]["content"], "t");
        assert!(output_messages(&json!(3)).is_err());
        assert!(output_messages(&json!({"x": 1})).is_err());
    }

    #[test]
    fn readers() {
        let input = json!({
            "inputMessages": [{"role": "system", "content": "in-sys"}, {"role": "user", "content": {"format": 2, "parts": [{"type": "text", "text": "hi"}]}}],
            "rememberedMessages": [
                {"role": "user", "content": " one "},
                {"role": "assistant", "content": ""},
                {"role": "signal", "type": "user", "content": {"format": 2, "parts": [{"type": "text", "text": "two"}], "metadata": {}}}
            ],
            "systemMessages": [{"role": "system", "content": "s1"}, {"role": "system", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}],
            "taggedSystemMessages": {"memory": [{"role": "system", "content": "m"}]}
        });
        assert_eq!(combined_system_prompt(&input), "s1\n\na b\n\nin-sys\n\nm");
        assert_eq!(user_message(&input).as_deref(), Some("hi"));
        assert_eq!(
            conversation_history(&input, None).as_deref(),
            Some("user: one\nuser: two")
        );
        assert_eq!(
            conversation_history(&input, Some(1.0)).as_deref(),
            Some("user: two")
        );
        assert_eq!(conversation_history(&input, Some(0.0)), None);
        assert_eq!(conversation_history(&json!("s"), None), None);
        assert!(is_agent_input(&input));
        let out = json!([
            {"role": "assistant", "content": {"format": 2, "parts": [{"type": "reasoning", "details": [{"type": "text", "text": "r1"}, {"type": "redacted"}, {"type": "text", "text": "r2"}]}, {"type": "reasoning", "reasoning": "r3"}]}},
            {"role": "assistant", "content": {"format": 2, "parts": [{"type": "text", "text": "final"}]}}
        ]);
        assert_eq!(
            reasoning(out.as_array().unwrap()).as_deref(),
            Some("r1r2\nr3")
        );
        assert_eq!(assistant_message(&out).as_deref(), Some("final"));
        assert!(!is_agent_output(&out));
    }
}
