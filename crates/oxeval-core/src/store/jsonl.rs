//! `--out` files (a `{ type: 'run' }` header, `{ type: 'item' }` lines, a `{ type: 'summary' }`
//! line) into a store and out of it.
//!
//! Import is idempotent: a file is known by the digest of its header line (its start time,
//! dataset and scorers), so importing it again finds the run already there. A file without
//! its summary line (a run that died) is imported as `interrupted` with the items it has.

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
    let (header_text, header) = loop {
        let Some((k, line)) = lines.next() else {
            return Err(bad(path, 1, "empty file: not an oxeval --out file"));
        };
        let line = line.map_err(|e| bad(path, k + 1, e))?;
        if line.trim().is_empty() {
            continue;
        }
        let v: Value =
            serde_json::from_str(&line).map_err(|e| bad(path, k + 1, format!("not JSON: {e}")))?;
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
        let mut v: Value =
            serde_json::from_str(&line).map_err(|e| bad(path, k + 1, format!("not JSON: {e}")))?;
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
