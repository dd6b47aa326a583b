//! Text as JavaScript sees it, for the code scorers that must give Mastra's exact values:
//! JS `\s` (and `trim()`), UTF-16 lengths, and the texts Mastra's code scorers read from a run
//! (`inputMessages` / output messages, each through `getTextContentFromMastraDBMessage`,
//! joined with `", "`), widened to the shapes oxeval's LLM scorers accept.

use crate::error::InvalidArgument;
use serde_json::Value;

/// JS `\s` (ECMAScript WhiteSpace and LineTerminator): one definition, the agent module's.
pub use crate::agent::js::is_js_space;

/// `s.trim()`.
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_space)
}

/// `s.replace(/\s+/g, with)`.
pub fn replace_spaces(s: &str, with: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_run = false;
    for c in s.chars() {
        if is_js_space(c) {
            if !in_run {
                out.push_str(with);
                in_run = true;
            }
        } else {
            out.push(c);
            in_run = false;
        }
    }
    out
}

/// `s.replace(/\s+/g, ' ').trim()`.
pub fn collapse_spaces(s: &str) -> String {
    js_trim(&replace_spaces(s, " ")).to_string()
}

/// `s.split(/\s+/).filter(w => w.length > 0)`.
pub fn js_words(s: &str) -> Vec<&str> {
    s.split(is_js_space).filter(|w| !w.is_empty()).collect()
}

/// `s.length`: UTF-16 code units.
pub fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// `s.toLowerCase()` (Unicode full lowercase mapping with the final-sigma rule, as V8).
pub fn js_lower(s: &str) -> String {
    if s.is_ascii() {
        s.to_ascii_lowercase()
    } else {
        s.to_lowercase()
    }
}

/// Which run field a text comes from.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Input,
    Output,
}

/// The text Mastra's code scorers read from one side of a run: the texts of the input's
/// `inputMessages` (or of the output's messages), whatever their role, joined with `", "`.
///
/// Mastra throws on a plain-string output and (completeness, content similarity) on an input
/// without `inputMessages`; oxeval reads those shapes as the equivalent message array:
/// a string is one message with that text; an array is the messages; `{ inputMessages }`
/// (input) or `{ messages }` is its messages; one message object (`role`/`content`/`parts`)
/// is a list of one; an output `{ text }` is one message with that text; any other input
/// object has no messages (`""`, as Mastra's `inputMessages?.`). An absent input is `""`.
pub fn run_text(value: Option<&Value>, side: Side) -> Result<String, InvalidArgument> {
    let field = match side {
        Side::Input => "run.input",
        Side::Output => "run.output",
    };
    let Some(value) = value.filter(|v| !v.is_null()) else {
        return Ok(String::new());
    };
    let messages: &[Value] = match value {
        Value::String(s) => return Ok(s.clone()),
        Value::Array(items) => items,
        Value::Object(map) => {
            let list = |key: &str| map.get(key).and_then(Value::as_array);
            let own = match side {
                Side::Input => list("inputMessages").or_else(|| list("messages")),
                Side::Output => list("messages"),
            };
            if let Some(items) = own {
                items
            } else if ["role", "content", "parts"]
                .iter()
                .any(|k| map.contains_key(*k))
            {
                return message_text(value, field, 0);
            } else if let (Side::Output, Some(Value::String(s))) = (side, map.get("text")) {
                return Ok(s.clone());
            } else if side == Side::Input {
                return Ok(String::new());
            } else {
                return Err(InvalidArgument::input(format!(
                    "{field} must be a string, a message, an array of messages or {{ messages }}; got an object without any of them"
                )));
            }
        }
        other => {
            return Err(InvalidArgument::input(format!(
                "{field} must be a string, a message or an array of messages; got {}",
                crate::error::type_name(other)
            )))
        }
    };
    let mut out = String::new();
    for (i, m) in messages.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&message_text(m, field, i)?);
    }
    Ok(out)
}

/// Mastra's `getTextContentFromMastraDBMessage`: string `content` → it; an array `content`
/// → its LAST `text` part's text (or `""`); `content.content` non-empty → it; `content.text`
/// non-empty → it; `content.parts` → its last text part's text; else `""`. A UI message
/// (`{ role, parts }`, no `content`) reads as `content: { parts }` (Mastra: `""`). A message
/// that is not an object reads `""` as in Mastra, except `null`, on which Mastra throws.
fn message_text(m: &Value, field: &str, i: usize) -> Result<String, InvalidArgument> {
    let Value::Object(map) = m else {
        if m.is_null() {
            return Err(InvalidArgument::input(format!(
                "{field}: message {i} is null; a message is an object like {{ role, content }}"
            )));
        }
        return Ok(String::new());
    };
    let non_empty = |v: Option<&Value>| {
        v.and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    Ok(match map.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => last_text(parts),
        Some(content @ Value::Object(_)) => non_empty(content.get("content"))
            .or_else(|| non_empty(content.get("text")))
            .or_else(|| {
                content
                    .get("parts")
                    .and_then(Value::as_array)
                    .map(|p| last_text(p))
            })
            .unwrap_or_default(),
        None | Some(Value::Null) => map
            .get("parts")
            .and_then(Value::as_array)
            .map(|p| last_text(p))
            .unwrap_or_default(),
        Some(_) => String::new(),
    })
}

/// The last `{ type: 'text' }` part's text (`""` when it has none or it is not a string).
fn last_text(parts: &[Value]) -> String {
    parts
        .iter()
        .rev()
        .find(|p| p.get("type").and_then(Value::as_str) == Some("text"))
        .and_then(|p| p.get("text").and_then(Value::as_str))
        .unwrap_or_default()
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn js_whitespace_is_not_rusts() {
        assert!(is_js_space('\u{FEFF}') && !'\u{FEFF}'.is_whitespace());
        assert!(!is_js_space('\u{85}') && '\u{85}'.is_whitespace());
        assert_eq!(collapse_spaces("\u{FEFF} a \t\n b\u{3000}"), "a b");
        assert_eq!(js_words("  a\u{2028}b  c "), vec!["a", "b", "c"]);
        assert_eq!(utf16_len("a😀é"), 4);
    }

    #[test]
    fn texts_of_each_shape() {
        let out = |v: Value| run_text(Some(&v), Side::Output).unwrap();
        let inp = |v: Value| run_text(Some(&v), Side::Input).unwrap();
        assert_eq!(out(json!("plain")), "plain");
        assert_eq!(
            out(
                json!([{"role": "assistant", "content": "a"}, {"role": "user", "content": ""}, {"role": "tool", "content": "c"}])
            ),
            "a, , c"
        );
        assert_eq!(out(json!({"messages": [{"content": "m"}]})), "m");
        assert_eq!(out(json!({"role": "assistant", "content": "one"})), "one");
        assert_eq!(out(json!({"text": "t"})), "t");
        // last text part; content.content before content.text before parts
        assert_eq!(
            out(
                json!([{"content": [{"type": "text", "text": "x"}, {"type": "text", "text": "y"}]}])
            ),
            "y"
        );
        assert_eq!(
            out(
                json!([{"content": {"format": 2, "content": "", "text": "t", "parts": [{"type": "text", "text": "p"}]}}])
            ),
            "t"
        );
        assert_eq!(
            out(
                json!([{"content": {"format": 2, "parts": [{"type": "text", "text": "p"}, {"type": "tool-invocation"}]}}])
            ),
            "p"
        );
        // a UI message reads its parts; a string inside an array reads "" (as Mastra)
        assert_eq!(
            out(json!([{"role": "assistant", "parts": [{"type": "text", "text": "ui"}]}, "s"])),
            "ui, "
        );
        assert_eq!(
            inp(json!({"inputMessages": [{"content": "q"}, {"content": "r"}]})),
            "q, r"
        );
        assert_eq!(inp(json!({"messages": [{"content": "q"}]})), "q");
        assert_eq!(inp(json!({"prompt": "ignored"})), "");
        assert_eq!(run_text(None, Side::Input).unwrap(), "");
        assert!(run_text(Some(&json!({"a": 1})), Side::Output).is_err());
        assert!(run_text(Some(&json!([null])), Side::Output).is_err());
        assert!(run_text(Some(&json!(3)), Side::Output).is_err());
    }
}
