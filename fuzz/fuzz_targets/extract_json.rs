//! Fuzz the lenient JSON extraction every judge reply goes through: reasoning split,
//! candidate scan/parse, the `extract_json` wrapper and the typed decode of one step
//! output. It must never panic, overflow the stack, hang, or return a value that is not a
//! faithful, structured, depth-bounded JSON value.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxeval_core::engine::decode;
use oxeval_core::engine::json::{candidates, extract_json, split_reasoning, MAX_DEPTH};
use oxeval_core::scorers::llm::answer_relevancy::Verdicts;
use serde_json::Value;

/// Nesting depth of a value, without recursion.
fn depth(v: &Value) -> usize {
    let mut max = 0;
    let mut todo = vec![(v, 0usize)];
    while let Some((v, d)) = todo.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match v {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(map) => Box::new(map.values()),
            _ => continue,
        };
        max = max.max(d + 1);
        todo.extend(children.map(|c| (c, d + 1)));
    }
    max
}

fn check(v: &Value) {
    assert!(v.is_object() || v.is_array(), "not structured: {v}");
    let d = depth(v);
    assert!(d <= MAX_DEPTH, "depth {d}");
    // What we extract serializes to JSON that reads back to the same value, through our
    // own parser and (within its recursion limit) through serde_json.
    let text = v.to_string();
    assert_eq!(candidates(&text), Ok(vec![v.clone()]));
    if d <= 100 {
        let again: Value = serde_json::from_str(&text).expect("round trip");
        assert_eq!(&again, v);
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (answer, reasoning) = split_reasoning(text);
    assert!(answer.len() <= text.len());
    assert!(reasoning.as_ref().map_or(0, String::len) <= text.len());
    let found = candidates(&answer);
    match &found {
        Ok(values) => {
            assert!(!values.is_empty());
            values.iter().for_each(check);
        }
        Err(problem) => assert!(!problem.is_empty()),
    }
    let last = found.ok().and_then(|mut v| v.pop());
    assert_eq!(extract_json(text), last);
    // the raw text, reasoning included, must be just as safe
    if let Ok(values) = candidates(text) {
        values.iter().for_each(check);
    }
    let _ = decode::<Verdicts>(text);
});
