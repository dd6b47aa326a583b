//! `--out` files (a `{ type: 'run' }` header, `{ type: 'item' }` lines, a `{ type: 'summary' }`
//! line) into a store and out of it.
//!
//! Import is idempotent: a file is known by the digest of its header line (its start time,
//! dataset and scorers), so importing it again finds the run already there. A file without
//! its summary line (a run that died) is imported as `interrupted` with the items it has.
//!
//! A file written by JavaScript can hold a lone surrogate escape (`"\ud800"`: `JSON.stringify`
//! of a string cut in the middle of an emoji); JSON text cannot carry it into a Rust string,
//! so each such escape is imported as U+FFFD (�) and the count is reported (`replaced`).

use super::rows::prompt_digest;
use super::time::{now_ms, parse_iso};
use super::{new_run_id, NewRun, Store, StoreError, StoreResult};
use serde_json::{json, Map, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;

/// What importing one file did.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    pub run_id: String,
    pub items: u64,
    /// The file was imported before: nothing was written.
    pub already: bool,
    /// Lone surrogate escapes imported as U+FFFD.
    pub replaced: u64,
}

/// One JSON line; a line with lone surrogate escapes is parsed with each replaced by U+FFFD
/// (counted in `replaced`).
fn parse_line(line: &str, replaced: &mut u64) -> serde_json::Result<Value> {
    match serde_json::from_str(line) {
        Err(e) if e.is_syntax() && line.contains("\\u") => {
            let (fixed, n) = replace_lone_surrogates(line);
            if n == 0 {
                return Err(e);
            }
            *replaced += n;
            serde_json::from_str(&fixed)
        }
        r => r,
    }
}

/// `text` with every `\uXXXX` escape of a lone surrogate (a high one not followed by a low
/// one's escape, or a low one not after a high one) as `\ufffd`; and how many there were.
pub fn replace_lone_surrogates(text: &str) -> (String, u64) {
    let b = text.as_bytes();
    let unit = |at: usize| -> Option<u16> {
        let hex = b.get(at..at + 6)?;
        if hex[0] != b'\\' || hex[1] != b'u' {
            return None;
        }
        u16::from_str_radix(std::str::from_utf8(&hex[2..]).ok()?, 16).ok()
    };
    let (mut out, mut from, mut i, mut n) = (String::with_capacity(text.len()), 0, 0, 0);
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        match unit(i) {
            Some(0xD800..=0xDBFF) if matches!(unit(i + 6), Some(0xDC00..=0xDFFF)) => i += 12,
            Some(0xD800..=0xDFFF) => {
                out.push_str(&text[from..i]);
                out.push_str("\\ufffd");
                n += 1;
                i += 6;
                from = i;
            }
            _ => i += 2,
        }
    }
    out.push_str(&text[from..]);
    (out, n)
}

fn bad(path: &Path, line: usize, what: impl std::fmt::Display) -> StoreError {
    StoreError::invalid(format!("{}:{line}: {what}", path.display()))
}

/// The run a header describes.
fn new_run(header: &Value, key: String, tags: &[String]) -> NewRun {
    let model = match &header["model"] {
        Value::String(s) => Some(s.clone()),
        Value::Object(o) => o.get("id").and_then(Value::as_str).map(str::to_string),
        _ => None,
    };
    let mut models = Map::new();
    for s in header["scorers"].as_array().into_iter().flatten() {
        if let Some(id) = s["id"].as_str() {
            models.insert(id.into(), json!(model));
        }
    }
    NewRun {
        id: new_run_id(),
        started_at_ms: header["startedAt"]
            .as_str()
            .and_then(parse_iso)
            .unwrap_or_else(now_ms),
        tags: tags.to_vec(),
        dataset_fingerprint: header["dataset"]["sha256"].as_str().map(str::to_string),
        version: header["version"].as_str().map(str::to_string),
        judge_models: Value::Object(models),
        header: header.clone(),
        import_key: Some(key),
        store_prompts: header["prompts"] != "none",
        ..NewRun::default()
    }
}

/// Import one `--out` file.
pub fn import_file(store: &mut dyn Store, path: &Path, tags: &[String]) -> StoreResult<Imported> {
    let file = std::fs::File::open(path)
        .map_err(|e| StoreError::invalid(format!("{}: cannot read: {e}", path.display())))?;
    let mut lines = BufReader::new(file).lines().enumerate();
    let mut replaced = 0;
    let (header_text, header) = loop {
        let Some((k, line)) = lines.next() else {
            return Err(bad(path, 1, "empty file: not an oxeval --out file"));
        };
        let line = line.map_err(|e| bad(path, k + 1, e))?;
        if line.trim().is_empty() {
            continue;
        }
        let v = parse_line(&line, &mut replaced)
            .map_err(|e| bad(path, k + 1, format!("not JSON: {e}")))?;
        if v["type"] != "run" {
            return Err(bad(
                path,
                k + 1,
                "the first line is not a run header ({\"type\":\"run\"}): not an oxeval --out file",
            ));
        }
        break (line, v);
    };
    let key = format!("file:{}", prompt_digest(&header_text));
    if let Some(id) = store.run_by_import_key(&key)? {
        return Ok(Imported {
            run_id: id,
            items: 0,
            already: true,
            replaced: 0,
        });
    }
    let run = new_run(&header, key, tags);
    let keep = run.store_prompts;
    store.begin_run(&run)?;
    let mut batch = Vec::new();
    let mut items = 0;
    let mut summary = None;
    for (k, line) in lines {
        let line = line.map_err(|e| bad(path, k + 1, e))?;
        if line.trim().is_empty() {
            continue;
        }
        let mut v = parse_line(&line, &mut replaced)
            .map_err(|e| bad(path, k + 1, format!("not JSON: {e}")))?;
        let kind = v["type"].as_str().unwrap_or_default().to_string();
        if let Some(o) = v.as_object_mut() {
            o.remove("type");
        }
        match kind.as_str() {
            "item" => {
                batch.push(v);
                items += 1;
                if batch.len() >= super::recorder::BATCH {
                    store.add_items(&run.id, std::mem::take(&mut batch), keep)?;
                }
            }
            "summary" => summary = Some(v),
            _ => {
                return Err(bad(
                    path,
                    k + 1,
                    format!("unknown line type {:?}", v["type"]),
                ))
            }
        }
    }
    store.add_items(&run.id, batch, keep)?;
    let ended = |s: &Value| run.started_at_ms + s["durationMs"].as_f64().unwrap_or(0.0) as i64;
    match summary {
        Some(s) => store.finish_run(&run.id, &s, ended(&s))?,
        None => store.finish_run(&run.id, &json!({ "aborted": true }), run.started_at_ms)?,
    }
    Ok(Imported {
        run_id: run.id,
        items,
        already: false,
        replaced,
    })
}

/// Write one run as an `--out` file (JSON lines) to `out`.
pub fn export_to(store: &mut dyn Store, run_id: &str, out: &mut dyn Write) -> StoreResult<()> {
    let name = store.describe();
    store.export_run(run_id, &mut |line| {
        serde_json::to_writer(&mut *out, &line)
            .and_then(|()| out.write_all(b"\n").map_err(serde_json::Error::io))
            .map_err(|e| StoreError::write(format!("store {name}: cannot write the export: {e}")))
    })?;
    out.flush()
        .map_err(|e| StoreError::write(format!("cannot write the export: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogate_escapes_become_the_replacement_character() {
        let (t, n) = replace_lone_surrogates(r#"{"a":"x\ud800y","b":"\udc00","c":"\ud83d\ude00"}"#);
        assert_eq!(n, 2);
        assert_eq!(t, r#"{"a":"x\ufffdy","b":"\ufffd","c":"\ud83d\ude00"}"#);
        let v: Value = serde_json::from_str(&t).unwrap();
        assert_eq!(v["a"], "x\u{fffd}y");
        assert_eq!(v["c"], "\u{1f600}");
        // an escaped backslash before "ud800" is text, not an escape; a high one at the end
        let (t, n) = replace_lone_surrogates(r#"["\\ud800","\ud800"]"#);
        assert_eq!((t.as_str(), n), (r#"["\\ud800","\ufffd"]"#, 1));
        let mut k = 0;
        assert!(parse_line(r#"{"a":"\\ud800"}"#, &mut k).is_ok());
        assert_eq!(k, 0);
        assert!(parse_line(r#"{"a":"\ud800" "#, &mut k).is_err());
    }
}
