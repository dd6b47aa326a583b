//! The store's requests as the host sends them (JSON): the run a recorder starts
//! ([`new_run`]) and the reads and maintenance of `oxeval history|runs|store` ([`request`]).
//! The binding only parses the text, calls these, and hands back `{ ok, value }`.

use super::jsonl::{export_to, import_file};
use super::time::{now_ms, parse_duration};
use super::{new_run_id, open, NewRun, Prune, RunQuery, StoreError, StoreResult};
use serde_json::{json, Value};

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

/// The run a recorder starts from the facade's description.
pub fn new_run(v: &Value) -> NewRun {
    NewRun {
        id: text(v, "id").unwrap_or_else(new_run_id),
        started_at_ms: v["startedAtMs"]
            .as_f64()
            .map(|x| x as i64)
            .unwrap_or_else(now_ms),
        name: text(v, "name"),
        tags: v["tags"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t.as_str().map(str::to_string))
            .collect(),
        git_commit: text(&v["git"], "commit"),
        git_branch: text(&v["git"], "branch"),
        git_dirty: v["git"]["dirty"].as_bool(),
        config_fingerprint: text(v, "configFingerprint"),
        dataset_fingerprint: text(v, "datasetFingerprint"),
        version: text(v, "version"),
        judge_models: v.get("judgeModels").cloned().unwrap_or(Value::Null),
        header: v.get("header").cloned().unwrap_or(Value::Null),
        import_key: None,
        store_prompts: v["storePrompts"].as_bool().unwrap_or(true),
        shard: v["shard"]["index"]
            .as_i64()
            .zip(v["shard"]["count"].as_i64()),
    }
}

fn query(q: &Value) -> StoreResult<RunQuery> {
    let last = match q.get("last") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_u64()
                .filter(|n| *n >= 1 && *n <= 1_000_000)
                .ok_or_else(|| {
                    StoreError::invalid(format!("--last must be a whole number ≥ 1; got {v}"))
                })? as u32,
        ),
    };
    Ok(RunQuery {
        scorer: text(q, "scorer"),
        branch: text(q, "branch"),
        tag: text(q, "tag"),
        last,
        dataset: text(q, "dataset"),
    })
}

/// The store's reads and maintenance: `r` is `{ kind, … }` with kind `history` (scorer?,
/// branch?, tag?, last?), `item` (item, …), `flaky` (…), `resolve` (spec, dataset?), `show`
/// (run), `export` (run, out: a file path), `import` (files, tags?), `prune` (keep?,
/// olderThan?: '30d').
pub fn request(spec: &str, r: &Value) -> StoreResult<Value> {
    if let Some(v) = missing_store(spec, r)? {
        return Ok(v);
    }
    let mut store = open(spec)?;
    match r["kind"].as_str().unwrap_or_default() {
        "history" => store.history(&query(r)?),
        "item" => store.item_history(&text(r, "item").unwrap_or_default(), &query(r)?),
        "flaky" => store.flaky(&query(r)?),
        "resolve" => store
            .resolve_run(&text(r, "spec").unwrap_or_default(), r["dataset"].as_str())
            .map(Value::String),
        "show" => store.run_info(&text(r, "run").unwrap_or_default()),
        "export" => {
            let out =
                text(r, "out").ok_or_else(|| StoreError::invalid("export needs an output file"))?;
            let file = std::fs::File::create(&out)
                .map_err(|e| StoreError::invalid(format!("{out}: cannot write: {e}")))?;
            let mut w = std::io::BufWriter::new(file);
            export_to(store.as_mut(), &text(r, "run").unwrap_or_default(), &mut w)?;
            Ok(json!({ "out": out }))
        }
        "import" => {
            let tags: Vec<String> = r["tags"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|t| t.as_str().map(str::to_string))
                .collect();
            let mut done = Vec::new();
            for f in r["files"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                let i = import_file(store.as_mut(), std::path::Path::new(f), &tags)?;
                done.push(
                    json!({ "file": f, "runId": i.run_id, "items": i.items, "already": i.already, "replaced": i.replaced }),
                );
            }
            Ok(json!({ "imported": done }))
        }
        "prune" => {
            let keep = r["keep"].as_u64().map(|n| n.min(u32::MAX as u64) as u32);
            let before_ms = match text(r, "olderThan") {
                Some(d) => Some(
                    now_ms()
                        - parse_duration(&d).ok_or_else(|| {
                            StoreError::invalid(format!(
                            "--older-than must be a duration such as 30d, 12h or 2w; got \"{d}\""
                        ))
                        })?,
                ),
                None => None,
            };
            store
                .prune(&Prune { keep, before_ms })
                .map(|n| json!({ "removed": n }))
        }
        other => Err(StoreError::invalid(format!(
            "unknown store request {other:?}"
        ))),
    }
}

/// A read of a store file that does not exist yet: nothing recorded (an empty answer, or
/// not found), without creating the file. `None`: open it.
fn missing_store(spec: &str, r: &Value) -> StoreResult<Option<Value>> {
    if spec.contains("://") || std::path::Path::new(spec).exists() {
        return Ok(None);
    }
    Ok(Some(match r["kind"].as_str().unwrap_or_default() {
        "import" => return Ok(None),
        "history" => json!({ "runs": [] }),
        "item" => json!({ "item": r["item"], "runs": [] }),
        "flaky" => json!({ "dataset": null, "runs": [], "items": [] }),
        "prune" => json!({ "removed": 0 }),
        _ => {
            return Err(StoreError::not_found(format!(
                "store {spec} does not exist (no run was recorded there yet)"
            )))
        }
    }))
}
