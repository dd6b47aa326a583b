//! Lenient extraction of the JSON value a judge meant to send: code fences, prose around
//! the JSON, trailing commas, single quotes and truncated JSON are handled. Exact JSON
//! takes the fast path; everything else goes through `llm_json`'s repair parser.

use serde_json::Value;

/// Extract a JSON object/array from judge text. `None` if nothing JSON-like can be recovered.
pub fn extract_json(text: &str) -> Option<Value> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return None;
    }
    // 1. exact JSON
    if let Ok(v) = serde_json::from_str::<Value>(trimmed) {
        return structured(v);
    }
    // 2. inside a ``` fence (```json … ```), possibly unterminated
    let body = fenced_body(trimmed).unwrap_or(trimmed);
    // 3. from the first '{' or '[' on (skips leading prose)
    let start = body.find(['{', '['])?;
    let candidate = &body[start..];
    // exact JSON followed by trailing prose
    let mut stream = serde_json::Deserializer::from_str(candidate).into_iter::<Value>();
    if let Some(Ok(v)) = stream.next() {
        return structured(v);
    }
    // 4. repair (truncated, single quotes, trailing commas, comments...)
    repair(candidate).and_then(structured)
}

fn structured(v: Value) -> Option<Value> {
    matches!(v, Value::Object(_) | Value::Array(_)).then_some(v)
}

fn fenced_body(text: &str) -> Option<&str> {
    let open = text.find("```")?;
    let after = &text[open + 3..];
    // skip the info string (e.g. "json") up to the end of the line
    let after = match after.find('\n') {
        Some(nl)
            if after[..nl]
                .trim()
                .chars()
                .all(|c| c.is_ascii_alphanumeric()) =>
        {
            &after[nl + 1..]
        }
        _ => after,
    };
    Some(match after.find("```") {
        Some(close) => &after[..close],
        None => after,
    })
}

fn repair(candidate: &str) -> Option<Value> {
    let opts = llm_json::RepairOptions::default();
    // The repair crate is third-party code run on untrusted text: a panic there must
    // become "unparseable", never an abort of the host process.
    std::panic::catch_unwind(|| llm_json::loads(candidate, &opts).ok())
        .ok()
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lenient_cases() {
        let cases: Vec<(&str, Option<Value>)> = vec![
            (
                r#"{"statements":["a","b"]}"#,
                Some(json!({"statements": ["a", "b"]})),
            ),
            ("```json\n{\"a\": 1}\n```", Some(json!({"a": 1}))),
            ("```\n{\"a\": 1}\n```", Some(json!({"a": 1}))),
            (
                "Here is the JSON:\n{\"a\": 1}\nHope this helps!",
                Some(json!({"a": 1})),
            ),
            ("Sure! ```json\n{\"a\": [1, 2]}", Some(json!({"a": [1, 2]}))),
            (r#"{"a": [1, 2,], }"#, Some(json!({"a": [1, 2]}))),
            (r#"{'a': 'x'}"#, Some(json!({"a": "x"}))),
            (
                r#"{"results": [{"result": "yes", "reason": "ok"}, {"result": "no", "rea"#,
                None,
            ),
            (
                r#"{"claims": ["The sky is blue", "Grass is gre"#,
                Some(json!({"claims": ["The sky is blue", "Grass is gre"]})),
            ),
            ("[1, 2, 3]", Some(json!([1, 2, 3]))),
            ("", None),
            ("   ", None),
            ("no json here at all", None),
            ("42", None),
            ("\"just a string\"", None),
        ];
        for (text, want) in cases {
            let got = extract_json(text);
            match (&want, &got) {
                (None, _) if text.contains("\"rea") => {
                    // truncated mid-key: whatever is recovered must still be an object
                    assert!(matches!(got, Some(Value::Object(_))), "{text:?} → {got:?}");
                }
                _ => assert_eq!(got, want, "{text:?}"),
            }
        }
    }

    #[test]
    fn never_panics_on_garbage() {
        for s in [
            "{",
            "[",
            "{{{{",
            "```",
            "```json",
            "{\"a\":",
            "\u{0}{\u{ffff}",
            "{\"\\ud800\": 1}",
            "[\"\\u12",
        ] {
            let _ = extract_json(s);
        }
    }
}

// TEMP shim until the hardened parser lands.
pub fn split_reasoning(text: &str) -> (String, Option<String>) {
    (text.to_string(), None)
}
pub fn candidates(text: &str) -> Result<Vec<Value>, String> {
    extract_json(text)
        .map(|v| vec![v])
        .ok_or_else(|| "no JSON object found in the output".to_string())
}
