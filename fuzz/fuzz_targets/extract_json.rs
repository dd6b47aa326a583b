//! Fuzz the lenient JSON extraction/repair that every judge reply goes through, plus the
//! typed decode of one step output. It must never panic, hang or return a non-structured value.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxeval_core::engine::{decode, json::extract_json};
use oxeval_core::scorers::llm::answer_relevancy::Verdicts;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Some(v) = extract_json(text) {
        assert!(v.is_object() || v.is_array(), "extract_json returned {v}");
        // what we extract must serialize back to valid JSON
        let again: serde_json::Value = serde_json::from_str(&v.to_string()).expect("round trip");
        assert_eq!(again, v);
    }
    let _ = decode::<Verdicts>(text);
});
