//! An item's JSON (runEvals' item result, or an `--out` item line) as the store's rows, and
//! back.
//!
//! - **Prompts once per distinct text**: every prompt (a scorer result's `*Prompt` step key,
//!   a judge execution's `prompt`, an `--out` file's `promptRef`) is replaced by
//!   `{ "$prompt": digest }` and its text kept once in the `prompts` table. With
//!   `storePrompts: false` no prompt is kept at all.
//! - **No secrets**: every string is scrubbed with the [`Redactor`] of the environment's
//!   secrets ([`env_redactor`]): the cache's redaction rules over the values of variables
//!   named like credentials (`*_API_KEY`, `*TOKEN*`, `*SECRET*`, `*PASSWORD*`, …).

use super::{StoreError, StoreResult};
use crate::redact::Redactor;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// One scorer's result on one item.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultRow {
    pub scorer: String,
    pub score: Option<f64>,
    pub reason: Option<String>,
    pub error: Option<String>,
    pub usage: Option<String>,
    pub latency_ms: Option<f64>,
    /// The whole result (step results, judge records), prompts as digests.
    pub result: Option<String>,
}

/// One item as rows.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemRows {
    pub index: i64,
    pub item_id: String,
    /// The item without its `results` (input, output, errors, usage, turns, …).
    pub record: String,
    pub results: Vec<ResultRow>,
    /// `(digest, text)` of every prompt met.
    pub prompts: Vec<(String, String)>,
}

/// The key that marks a prompt replaced by its digest.
pub const PROMPT_KEY: &str = "$prompt";

/// The digest a prompt is kept under (SHA-256, 32 hex characters).
pub fn prompt_digest(text: &str) -> String {
    let d = Sha256::digest(text.as_bytes());
    d.iter().take(16).map(|b| format!("{b:02x}")).collect()
}

/// A redactor for the secrets in the environment: the values of variables whose names say
/// they hold a credential.
pub fn env_redactor() -> Redactor {
    const MARKS: [&str; 7] = [
        "KEY",
        "TOKEN",
        "SECRET",
        "PASSWORD",
        "PASSWD",
        "CREDENTIAL",
        "AUTH",
    ];
    let secrets = std::env::vars_os().filter_map(|(k, v)| {
        let k = k.to_str()?.to_ascii_uppercase();
        let v = v.into_string().ok()?;
        (MARKS.iter().any(|m| k.contains(m)) && v.len() >= 8).then_some(v)
    });
    Redactor::new(secrets)
}

/// The id an item is known by across runs: its `id` (text or number), else `#<index>`.
pub fn item_id_of(item: &Value, index: i64) -> String {
    match item.get("id") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => format!("#{index}"),
    }
}

fn is_prompt_key(k: &str, v: &Value) -> bool {
    k.ends_with("Prompt") && v.is_string()
}

/// The prompts met in one item: `(digest, text)`, each text once (moved, never copied).
type Prompts = Vec<(String, String)>;

/// Keep `text` once → its digest. A text equal to one already kept (a judge execution's
/// prompt is usually its step's) is found by comparison, without hashing it again.
fn keep_prompt(text: String, prompts: &mut Prompts) -> String {
    if let Some((d, _)) = prompts.iter().find(|(_, t)| *t == text) {
        return d.clone();
    }
    let d = prompt_digest(&text);
    prompts.push((d.clone(), text));
    d
}

fn digest_value(d: &str) -> Value {
    let mut m = Map::new();
    m.insert(PROMPT_KEY.into(), Value::String(d.to_string()));
    Value::Object(m)
}

/// Replace the prompts of one scorer result by digests (or drop them), collecting the texts.
fn encode_result(r: &mut Value, keep: bool, prompts: &mut Prompts) {
    let Some(obj) = r.as_object_mut() else { return };
    // the step keys first: an `--out` file's promptRef names one of them (key → digest)
    let keys: Vec<String> = obj
        .iter()
        .filter(|(k, v)| is_prompt_key(k, v))
        .map(|(k, _)| k.clone())
        .collect();
    let mut steps: Vec<(String, String)> = Vec::with_capacity(keys.len());
    for k in keys {
        if !keep {
            obj.remove(&k);
            continue;
        }
        if let Some(Value::String(text)) = obj.get_mut(&k).map(Value::take) {
            let d = keep_prompt(text, prompts);
            obj.insert(k.clone(), digest_value(&d));
            steps.push((k, d));
        }
    }
    if let Some(judge) = obj.get_mut("judge") {
        encode_judge(judge, &steps, keep, prompts);
    }
}

fn encode_judge(v: &mut Value, steps: &[(String, String)], keep: bool, prompts: &mut Prompts) {
    match v {
        Value::Array(a) => a
            .iter_mut()
            .for_each(|x| encode_judge(x, steps, keep, prompts)),
        Value::Object(o) => {
            if let Some(Value::String(key)) = o.remove("promptRef") {
                if let Some((_, d)) = steps.iter().find(|(k, _)| *k == key) {
                    o.insert("prompt".into(), digest_value(d));
                }
            }
            if !keep {
                o.remove("prompt");
            } else if let Some(Value::String(text)) = o.get_mut("prompt") {
                let text = std::mem::take(text);
                o.insert("prompt".into(), digest_value(&keep_prompt(text, prompts)));
            }
            for (k, x) in o.iter_mut() {
                if k != "prompt" {
                    encode_judge(x, steps, keep, prompts);
                }
            }
        }
        _ => {}
    }
}

fn text_of(v: Option<&Value>) -> Option<String> {
    v.filter(|x| !x.is_null()).map(|x| x.to_string())
}

/// An item's JSON as rows (secrets scrubbed, prompts by digest or dropped).
pub fn item_rows(
    mut item: Value,
    redactor: &Redactor,
    keep_prompts: bool,
) -> StoreResult<ItemRows> {
    let index = item
        .get("index")
        .and_then(Value::as_i64)
        .ok_or_else(|| StoreError::invalid("an item to record has no integer `index`"))?;
    if !item.is_object() {
        return Err(StoreError::invalid("an item to record is not an object"));
    }
    redactor.scrub_value(&mut item);
    let item_id = item_id_of(&item, index);
    let mut prompts = Vec::new();
    let obj = item.as_object_mut().expect("checked above");
    let mut results = obj.remove("results").unwrap_or(Value::Null);
    if let Some(turns) = obj.get_mut("turns").and_then(Value::as_array_mut) {
        for t in turns {
            if let Some(rs) = t.get_mut("results").and_then(Value::as_object_mut) {
                rs.values_mut()
                    .for_each(|r| encode_result(r, keep_prompts, &mut prompts));
            }
        }
    }
    let errors = obj
        .get("errors")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let usage = obj
        .get("usage")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let latency = obj.get("durationMs").and_then(Value::as_f64);
    let mut rows: Vec<ResultRow> = Vec::new();
    if let Some(rs) = results.as_object_mut() {
        for (scorer, r) in rs.iter_mut() {
            encode_result(r, keep_prompts, &mut prompts);
            rows.push(ResultRow {
                scorer: scorer.clone(),
                score: r.get("score").and_then(Value::as_f64),
                reason: r.get("reason").and_then(Value::as_str).map(str::to_string),
                error: text_of(errors.get(scorer)),
                usage: text_of(usage.get(scorer)),
                latency_ms: latency,
                result: Some(r.to_string()),
            });
        }
    }
    for (scorer, e) in &errors {
        if !rows.iter().any(|r| &r.scorer == scorer) {
            rows.push(ResultRow {
                scorer: scorer.clone(),
                score: None,
                reason: None,
                error: Some(e.to_string()),
                usage: text_of(usage.get(scorer)),
                latency_ms: latency,
                result: None,
            });
        }
    }
    Ok(ItemRows {
        index,
        item_id,
        record: item.to_string(),
        results: rows,
        prompts,
    })
}

/// Put the prompts back (`{ "$prompt": digest }` → the text `lookup` gives; a digest it
/// does not know stays as it is).
pub fn restore_prompts(v: &mut Value, lookup: &mut dyn FnMut(&str) -> Option<String>) {
    match v {
        Value::Array(a) => a.iter_mut().for_each(|x| restore_prompts(x, lookup)),
        Value::Object(o) => {
            if o.len() == 1 {
                if let Some(Value::String(d)) = o.get(PROMPT_KEY) {
                    if let Some(text) = lookup(d) {
                        *v = Value::String(text);
                    }
                    return;
                }
            }
            o.values_mut().for_each(|x| restore_prompts(x, lookup));
        }
        _ => {}
    }
}

/// An item's record and its result rows as the item JSON again.
pub fn item_json(record: &str, results: &[(String, Option<String>)]) -> StoreResult<Value> {
    let mut item: Value = serde_json::from_str(record)
        .map_err(|e| StoreError::read(format!("a stored item is not JSON: {e}")))?;
    let mut rs = Map::new();
    for (scorer, r) in results {
        if let Some(text) = r {
            let v = serde_json::from_str(text)
                .map_err(|e| StoreError::read(format!("a stored result is not JSON: {e}")))?;
            rs.insert(scorer.clone(), v);
        }
    }
    if let Some(o) = item.as_object_mut() {
        o.insert("results".into(), Value::Object(rs));
    }
    Ok(item)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn item() -> Value {
        json!({
            "index": 3, "id": "q-7", "input": "hi sk-secret-value-123", "output": "o",
            "results": {
                "faith": { "score": 0.5, "reason": "half", "analyzePrompt": "P1",
                    "judge": { "analyze": { "executions": [{ "promptRef": "analyzePrompt" }, { "prompt": "P2" }] } } },
                "tox": { "score": 0.0, "reason": "clean", "analyzePrompt": "P1" }
            },
            "errors": { "rel": { "code": "OXEVAL_JUDGE_HTTP", "message": "boom" } },
            "usage": { "faith": { "totalTokens": 10 } },
            "durationMs": 12.5
        })
    }

    #[test]
    fn prompts_once_by_digest_and_back() {
        let rows = item_rows(item(), &Redactor::default(), true).unwrap();
        assert_eq!(rows.index, 3);
        assert_eq!(rows.item_id, "q-7");
        // P1 (twice: two scorers, and a promptRef) and P2: two distinct texts
        assert_eq!(rows.prompts.len(), 2);
        let faith = rows.results.iter().find(|r| r.scorer == "faith").unwrap();
        assert_eq!(
            (faith.score, faith.reason.as_deref()),
            (Some(0.5), Some("half"))
        );
        assert_eq!(faith.usage.as_deref(), Some(r#"{"totalTokens":10}"#));
        assert!(!faith.result.as_ref().unwrap().contains("P1"));
        let rel = rows.results.iter().find(|r| r.scorer == "rel").unwrap();
        assert!(rel.score.is_none() && rel.error.as_ref().unwrap().contains("boom"));
        let texts: std::collections::HashMap<_, _> = rows.prompts.iter().cloned().collect();
        let results: Vec<_> = rows
            .results
            .iter()
            .map(|r| (r.scorer.clone(), r.result.clone()))
            .collect();
        let mut back = item_json(&rows.record, &results).unwrap();
        restore_prompts(&mut back, &mut |d| texts.get(d).cloned());
        let ex = &back["results"]["faith"]["judge"]["analyze"]["executions"];
        assert_eq!(ex, &json!([{ "prompt": "P1" }, { "prompt": "P2" }]));
        assert_eq!(back["results"]["faith"]["analyzePrompt"], "P1");
        assert_eq!(back["results"]["tox"]["score"], 0.0);
    }

    #[test]
    fn no_prompts_when_told() {
        let rows = item_rows(item(), &Redactor::default(), false).unwrap();
        assert!(rows.prompts.is_empty());
        assert!(rows.results.iter().all(|r| r
            .result
            .as_deref()
            .is_none_or(|t| !t.contains("Prompt") && !t.contains("\"prompt\""))));
    }

    #[test]
    fn secrets_are_scrubbed() {
        let rows = item_rows(item(), &Redactor::new(["sk-secret-value-123"]), true).unwrap();
        assert!(!rows.record.contains("sk-secret") && rows.record.contains("[redacted]"));
    }

    #[test]
    fn an_item_without_index_is_refused() {
        let e = item_rows(json!({ "id": 1 }), &Redactor::default(), true).unwrap_err();
        assert_eq!(e.code, "OXEVAL_STORE_INVALID");
        assert_eq!(item_id_of(&json!({}), 4), "#4");
        assert_eq!(item_id_of(&json!({ "id": 9 }), 4), "9");
    }
}
