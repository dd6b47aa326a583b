//! An item as the store keeps it (schema version 2): one JSON text per item, results
//! included, compressed with zstd against its run's dictionary (the run's first items: the
//! judge prompts' instructions, the field names and step keys every item repeats are in it,
//! so an item costs little more than what is its own).
//!
//! The text kept is the item as it came ([`super::facts`] reads the columns from it) when
//! it holds no secret and its prompts are kept; otherwise it is rewritten first
//! ([`rewrite`]: secrets scrubbed, prompts dropped for `storePrompts: false`). Either way
//! [`export_form`] gives back exactly what the version-1 rows gave (`item_rows`, then
//! `item_json` and the prompts put back): the `--out` line of `oxeval runs export`.

use super::facts::{FactRow, ItemFacts};
use super::rows::{item_json, item_rows, restore_prompts, ItemRows};
use super::{StoreError, StoreResult};
use crate::redact::Redactor;
use serde_json::Value;
use std::collections::HashMap;

/// zstd's level: 3 (its default) packs the bench's items to about a third of what level 1
/// leaves, for a few microseconds more per item.
pub const LEVEL: i32 = 3;
/// A run's dictionary holds at most this many bytes of its first items.
pub const DICT_MAX: usize = 64 * 1024;
/// An unpacked item larger than this is refused (a damaged store, never a real item).
pub const ITEM_MAX: u64 = 512 << 20;

/// A run's dictionary: its first items' texts, up to [`DICT_MAX`] bytes.
pub fn dictionary<'a>(texts: impl IntoIterator<Item = &'a str>) -> Vec<u8> {
    let mut d = Vec::new();
    for t in texts {
        let take = (DICT_MAX - d.len()).min(t.len());
        d.extend_from_slice(&t.as_bytes()[..take]);
        if d.len() >= DICT_MAX {
            break;
        }
    }
    d
}

/// Compresses a run's items with its dictionary (loaded once).
pub struct Packer(zstd::bulk::Compressor<'static>);

impl Packer {
    pub fn new(dict: &[u8]) -> StoreResult<Packer> {
        zstd::bulk::Compressor::with_dictionary(LEVEL, dict)
            .map(Packer)
            .map_err(|e| StoreError::write(format!("cannot start compressing: {e}")))
    }

    pub fn pack(&mut self, text: &str) -> StoreResult<Vec<u8>> {
        self.0
            .compress(text.as_bytes())
            .map_err(|e| StoreError::write(format!("cannot compress an item: {e}")))
    }
}

/// Decompresses a run's items with its dictionary.
pub struct Unpacker(zstd::bulk::Decompressor<'static>);

impl Unpacker {
    pub fn new(dict: &[u8]) -> StoreResult<Unpacker> {
        zstd::bulk::Decompressor::with_dictionary(dict)
            .map(Unpacker)
            .map_err(|e| StoreError::read(format!("cannot start decompressing: {e}")))
    }

    pub fn unpack(&mut self, data: &[u8]) -> StoreResult<String> {
        let damaged = |what: String| StoreError::read(format!("a stored item is damaged: {what}"));
        let size = match zstd::zstd_safe::get_frame_content_size(data) {
            Ok(Some(n)) if n <= ITEM_MAX => n as usize,
            Ok(Some(n)) => return Err(damaged(format!("it says it holds {n} bytes"))),
            _ => return Err(damaged("no size".into())),
        };
        let bytes = self
            .0
            .decompress(data, size)
            .map_err(|e| damaged(e.to_string()))?;
        String::from_utf8(bytes).map_err(|e| damaged(e.to_string()))
    }
}

fn prompts_back(rows: ItemRows) -> StoreResult<Value> {
    let texts: HashMap<String, String> = rows.prompts.into_iter().collect();
    let results: Vec<(String, Option<String>)> = rows
        .results
        .into_iter()
        .map(|r| (r.scorer, r.result))
        .collect();
    let mut item = item_json(&rows.record, &results)?;
    restore_prompts(&mut item, &mut |d| texts.get(d).cloned());
    Ok(item)
}

/// A kept text as the `--out` item it exports as (the version-1 rows' round trip).
pub fn export_form(text: &str) -> StoreResult<Value> {
    let item: Value = serde_json::from_str(text)
        .map_err(|e| StoreError::read(format!("a stored item is not JSON: {e}")))?;
    prompts_back(item_rows(item, &Redactor::default(), true)?)
}

/// The slow road: the item parsed, scrubbed and its prompts dropped or kept (`item_rows`)
/// → its columns and the text to keep (its export form). Errors as `item_rows` gives them.
pub fn rewrite(text: &str, redactor: &Redactor, keep: bool) -> StoreResult<(ItemFacts, String)> {
    let item: Value = serde_json::from_str(text)
        .map_err(|e| StoreError::invalid(format!("an item is not JSON: {e}")))?;
    let rows = item_rows(item, redactor, keep)?;
    let usage_of = |u: &Option<String>, key: &str| {
        u.as_deref()
            .and_then(|t| serde_json::from_str::<Value>(t).ok())
            .and_then(|v| v.get(key).and_then(Value::as_i64))
    };
    let facts = ItemFacts {
        index: rows.index,
        item_id: rows.item_id.clone(),
        rows: rows
            .results
            .iter()
            .map(|r| FactRow {
                scorer: r.scorer.clone(),
                score: r.score,
                reason: r.reason.clone(),
                error: r.error.clone(),
                input_tokens: usage_of(&r.usage, "inputTokens"),
                output_tokens: usage_of(&r.usage, "outputTokens"),
                latency_ms: r.latency_ms,
            })
            .collect(),
    };
    Ok((facts, prompts_back(rows)?.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn item() -> Value {
        json!({
            "index": 3, "id": "q-7", "input": "hi sk-secret-value-123",
            "results": {
                "faith": { "score": 0.5, "reason": "half", "analyzePrompt": "P1",
                    "judge": { "analyze": { "executions": [{ "promptRef": "analyzePrompt", "status": "success" }, { "prompt": "P2" }] } } }
            },
            "errors": {}, "durationMs": 1
        })
    }

    #[test]
    fn packed_and_back() {
        let texts: Vec<String> = (0..3)
            .map(|k| {
                json!({ "index": k, "p": "the same long instructions ".repeat(40) }).to_string()
            })
            .collect();
        let dict = dictionary(texts.iter().map(String::as_str));
        let mut p = Packer::new(&dict).unwrap();
        let packed = p.pack(&texts[2]).unwrap();
        assert!(packed.len() < texts[2].len() / 4, "{}", packed.len());
        assert_eq!(
            Unpacker::new(&dict).unwrap().unpack(&packed).unwrap(),
            texts[2]
        );
        // another dictionary cannot read it; garbage is an error, never a panic
        assert!(Unpacker::new(b"other").unwrap().unpack(&packed).is_err());
        assert!(Unpacker::new(&dict).unwrap().unpack(b"garbage").is_err());
    }

    #[test]
    fn the_export_form_is_the_version_1_round_trip() {
        let e = export_form(&item().to_string()).unwrap();
        let ex = &e["results"]["faith"]["judge"]["analyze"]["executions"];
        assert_eq!(
            ex,
            &json!([{ "status": "success", "prompt": "P1" }, { "prompt": "P2" }])
        );
        // rewritten once or many times: the same
        let (_, once) = rewrite(&item().to_string(), &Redactor::default(), true).unwrap();
        assert_eq!(export_form(&once).unwrap(), e);
    }

    #[test]
    fn rewrite_scrubs_and_drops_prompts() {
        let r = Redactor::new(["sk-secret-value-123"]);
        let (facts, text) = rewrite(&item().to_string(), &r, false).unwrap();
        assert_eq!((facts.index, facts.rows[0].score), (3, Some(0.5)));
        assert!(!text.contains("sk-secret") && text.contains("[redacted]"));
        assert!(!text.contains("P1") && !text.contains("P2") && !text.contains("promptRef"));
        assert_eq!(export_form(&text).unwrap().to_string(), text);
    }
}
