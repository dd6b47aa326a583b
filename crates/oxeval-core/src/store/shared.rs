//! What every backend's reads compute after their queries, in one place so SQLite and
//! PostgreSQL answer the same JSON: a run row and its JSON, partial statistics of a run
//! without a summary, verdicts and flaky items, baselines by name, prune's choice, the
//! export's lines, a summary's per-scorer statistics.

use super::status::effective_status;
use super::time::iso;
use super::{Prune, StoreError, StoreResult};
use crate::evals::stats;
use serde_json::{json, Map, Value};
use std::collections::HashMap;

/// A run row as read.
pub struct RunRow {
    pub id: String,
    pub started_at: i64,
    pub ended_at: Option<i64>,
    pub status: &'static str,
    pub outcome: Value,
    pub commit: Option<String>,
    pub branch: Option<String>,
    pub dirty: Option<bool>,
    pub name: Option<String>,
    pub dataset: Option<String>,
    /// The `--out` header as stored (parsed only where a read needs it: scales, thresholds).
    pub header: Option<String>,
    /// A sharded run's `{ total, finished }` (see [`super::shards`]); `None`: unsharded.
    pub shards: Option<Value>,
}

/// A run row's owner columns: `(status, owner_host, owner_pid, heartbeat_at)`.
pub type Owner = (String, Option<String>, Option<i64>, Option<i64>);

/// The status a run row shows (see [`effective_status`]).
pub fn shown_status(o: &Owner, now: i64, host: &str) -> &'static str {
    effective_status(&o.0, o.1.as_deref(), o.2, o.3, now, host)
}

/// A JSON text column as a value (`null` when absent or not JSON).
pub fn json_col(text: Option<String>) -> Value {
    text.and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null)
}

fn num(x: Option<f64>) -> Value {
    x.and_then(serde_json::Number::from_f64)
        .map(Value::Number)
        .unwrap_or(Value::Null)
}

/// A finished run's scorer statistics row as `{ id, mean, ci95, n }`.
pub fn scorer_json(
    id: String,
    mean: Option<f64>,
    lo: Option<f64>,
    hi: Option<f64>,
    n: i64,
) -> Value {
    let mut o = Map::with_capacity(4);
    o.insert("id".into(), Value::String(id));
    o.insert("mean".into(), num(mean));
    o.insert(
        "ci95".into(),
        lo.zip(hi)
            .map(|(a, b)| Value::Array(vec![num(Some(a)), num(Some(b))]))
            .unwrap_or(Value::Null),
    );
    o.insert("n".into(), Value::from(n));
    Value::Object(o)
}

pub fn scale_of(header: &Value, scorer: &str) -> f64 {
    header["scorerInfo"][scorer]["scale"]
        .as_f64()
        .unwrap_or(1.0)
}

/// The statistics of a run without a summary, from its scores `(scorer, score)` in item
/// order: scorers in the order first seen.
pub fn partial_scorers(header: Option<&str>, scores: Vec<(String, f64)>) -> Vec<Value> {
    let header = json_col(header.map(str::to_string));
    let mut by: Vec<(String, Vec<f64>)> = Vec::new();
    for (id, x) in scores {
        match by.iter_mut().find(|(k, _)| *k == id) {
            Some((_, xs)) => xs.push(x),
            None => by.push((id, vec![x])),
        }
    }
    by.into_iter()
        .map(|(id, xs)| {
            let st = stats(&xs, scale_of(&header, &id));
            json!({ "id": id, "mean": st.mean, "ci95": st.ci95, "n": st.n })
        })
        .collect()
}

/// A run as the history shows it.
pub fn run_json(run: &RunRow, tags: Vec<String>, scorers: Vec<Value>) -> Value {
    // built by moving the values in: `json!` would serialize the scorers (a deep copy) again
    let text = |x: &Option<String>| x.clone().map(Value::String).unwrap_or(Value::Null);
    let mut o = Map::with_capacity(12);
    o.insert("id".into(), Value::String(run.id.clone()));
    o.insert("name".into(), text(&run.name));
    o.insert("startedAt".into(), Value::String(iso(run.started_at)));
    o.insert(
        "endedAt".into(),
        run.ended_at
            .map(|t| Value::String(iso(t)))
            .unwrap_or(Value::Null),
    );
    o.insert("status".into(), Value::String(run.status.into()));
    o.insert(
        "outcome".into(),
        run.outcome.get("status").cloned().unwrap_or(Value::Null),
    );
    o.insert("branch".into(), text(&run.branch));
    o.insert("commit".into(), text(&run.commit));
    o.insert(
        "dirty".into(),
        run.dirty.map(Value::Bool).unwrap_or(Value::Null),
    );
    o.insert(
        "tags".into(),
        Value::Array(tags.into_iter().map(Value::String).collect()),
    );
    o.insert("datasetFingerprint".into(), text(&run.dataset));
    o.insert("scorers".into(), Value::Array(scorers));
    if let Some(sh) = &run.shards {
        o.insert("shards".into(), sh.clone());
    }
    Value::Object(o)
}

/// One entry of an item's history.
pub fn item_run_json(run: &RunRow, mut mine: Vec<(String, Option<f64>)>) -> Value {
    mine.sort_by(|a, b| a.0.cmp(&b.0));
    let scores: Map<String, Value> = mine.into_iter().map(|(k, x)| (k, json!(x))).collect();
    json!({ "id": run.id, "startedAt": iso(run.started_at), "status": run.status, "branch": run.branch, "scores": scores })
}

/// Whether `score` passes `scorer`'s threshold in a run's header (no threshold: at least
/// half its scale).
pub fn passes(header: &Value, scorer: &str, score: f64) -> bool {
    let t = header["scorers"]
        .as_array()
        .and_then(|a| a.iter().find(|x| x["id"] == scorer))
        .map(|x| &x["threshold"]);
    match t {
        Some(Value::Number(n)) => score >= n.as_f64().unwrap_or(0.0),
        Some(Value::Object(o)) => {
            o.get("min")
                .and_then(Value::as_f64)
                .is_none_or(|m| score >= m)
                && o.get("max")
                    .and_then(Value::as_f64)
                    .is_none_or(|m| score <= m)
        }
        _ => score >= 0.5 * scale_of(header, scorer),
    }
}

/// One item × scorer in one run: its score and verdict (`pass`, `fail`, `error`).
pub type Cell = (Option<f64>, &'static str);

/// The flaky-item table being filled: per (item, scorer) a cell per run (oldest first).
pub struct FlakyCells {
    runs: usize,
    cells: HashMap<(String, String), Vec<Option<Cell>>>,
}

impl FlakyCells {
    pub fn new(runs: usize) -> Self {
        FlakyCells {
            runs,
            cells: HashMap::new(),
        }
    }

    /// One result of run `k` (its header parsed): skipped when it has neither score nor error.
    pub fn add(
        &mut self,
        k: usize,
        header: &Value,
        item: String,
        scorer: String,
        score: Option<f64>,
        errored: bool,
    ) {
        let verdict = match score {
            Some(x) if passes(header, &scorer, x) => "pass",
            Some(_) => "fail",
            None if errored => "error",
            None => return,
        };
        let runs = self.runs;
        self.cells
            .entry((item, scorer))
            .or_insert_with(|| vec![None; runs])[k] = Some((score, verdict));
    }

    /// The items whose verdict flips, most flips first (at most 100).
    pub fn items(self) -> Vec<Value> {
        let mut items: Vec<Value> = self
            .cells
            .into_iter()
            .filter_map(|((item, scorer), seq)| {
                let seen: Vec<&str> = seq.iter().flatten().map(|c| c.1).collect();
                let flips = seen.windows(2).filter(|w| w[0] != w[1]).count();
                (flips > 0).then(|| {
                    json!({
                        "item": item, "scorer": scorer, "flips": flips,
                        "verdicts": seq.iter().map(|c| c.map(|c| c.1)).collect::<Vec<_>>(),
                        "scores": seq.iter().map(|c| c.and_then(|c| c.0)).collect::<Vec<_>>(),
                    })
                })
            })
            .collect();
        items.sort_by(|a, b| {
            b["flips"]
                .as_u64()
                .cmp(&a["flips"].as_u64())
                .then_with(|| a["item"].as_str().cmp(&b["item"].as_str()))
                .then_with(|| a["scorer"].as_str().cmp(&b["scorer"].as_str()))
        });
        items.truncate(100);
        items
    }
}

/// A baseline by name, parsed: a run id (prefix) or `(branch, tag)` of the newest finished run.
pub enum Baseline {
    Run(String),
    Newest(Option<String>, Option<String>),
}

pub fn parse_baseline(spec: &str) -> StoreResult<Baseline> {
    if let Some(id) = spec.strip_prefix("run:") {
        return Ok(Baseline::Run(id.to_string()));
    }
    Ok(match spec.split_once(':') {
        Some(("tag", t)) => Baseline::Newest(None, Some(t.to_string())),
        Some(("branch", b)) => Baseline::Newest(Some(b.to_string()), None),
        Some(_) => {
            return Err(StoreError::invalid(format!(
                "a baseline is a branch name (main), branch:B, run:ID or tag:T; got \"{spec}\""
            )))
        }
        None => Baseline::Newest(Some(spec.to_string()), None),
    })
}

pub fn no_baseline(store: &str, spec: &str, dataset: Option<&str>) -> StoreError {
    let same = if dataset.is_some() {
        " with this run's dataset"
    } else {
        ""
    };
    StoreError::not_found(format!(
        "store {store}: no finished run for baseline {spec}{same}"
    ))
}

/// The run a full id or a prefix names, from at most two matches of `id = ? OR id LIKE ?%`.
pub fn pick_prefix(store: &str, id: &str, found: Vec<String>) -> StoreResult<String> {
    match found.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(StoreError::not_found(format!("store {store}: no run {id}"))),
        _ if found.iter().any(|f| f == id) => Ok(id.to_string()),
        _ => Err(StoreError::invalid(format!(
            "store {store}: more than one run starts with {id}; give more of the id"
        ))),
    }
}

/// The LIKE pattern of a run id prefix (wildcards dropped).
pub fn prefix_pattern(id: &str) -> String {
    format!("{}%", id.replace(['%', '_'], ""))
}

/// Which runs (all, newest first) prune removes; a running run never.
pub fn prune_doomed(all: &[RunRow], p: &Prune) -> StoreResult<Vec<String>> {
    if p.keep.is_none() && p.before_ms.is_none() {
        return Err(StoreError::invalid(
            "prune needs --keep N or --older-than DURATION",
        ));
    }
    Ok(all
        .iter()
        .enumerate()
        .filter(|(k, r)| {
            r.status != "running"
                && (p.keep.is_some_and(|n| *k >= n as usize)
                    || p.before_ms.is_some_and(|b| r.started_at < b))
        })
        .map(|(_, r)| r.id.clone())
        .collect())
}

/// The export's first line: the stored header, typed, its start, prompts in full.
pub fn export_header(header: Option<String>, started: i64, id: &str) -> Value {
    let mut header = match json_col(header) {
        Value::Object(o) => o,
        _ => Map::new(),
    };
    header.insert("type".into(), json!("run"));
    header
        .entry("startedAt")
        .or_insert_with(|| json!(iso(started)));
    // prompts are put back in full: a file without `prompts` says so
    header.remove("prompts");
    header.insert("storeRun".into(), json!(id));
    Value::Object(header)
}

/// An export line of `kind` (`item`, `summary`) from an object.
pub fn typed_line(kind: &str, v: Value) -> Value {
    let mut line = Map::new();
    line.insert("type".into(), json!(kind));
    line.extend(match v {
        Value::Object(o) => o,
        _ => Map::new(),
    });
    Value::Object(line)
}

/// One scorer's statistics: `(scorer, mean, ci95, n)`.
pub type ScorerStats = (String, Option<f64>, Option<(f64, f64)>, i64);

/// The per-scorer statistics of a summary.
pub fn summary_stats(summary: &Value) -> Vec<ScorerStats> {
    let Some(stats) = summary.get("stats").and_then(Value::as_object) else {
        return Vec::new();
    };
    stats
        .iter()
        .map(|(id, s)| {
            let ci = s
                .get("ci95")
                .and_then(Value::as_array)
                .and_then(|a| Some((a.first()?.as_f64()?, a.get(1)?.as_f64()?)));
            (
                id.clone(),
                s.get("mean").and_then(Value::as_f64),
                ci,
                s.get("n").and_then(Value::as_i64).unwrap_or(0),
            )
        })
        .collect()
}

/// A summary as stored (its items dropped, secrets scrubbed), its status and outcome.
pub fn stored_summary(
    summary: &Value,
    redactor: &crate::redact::Redactor,
) -> (Value, &'static str, Option<String>) {
    let mut summary = summary.clone();
    if let Some(o) = summary.as_object_mut() {
        o.remove("items");
    }
    redactor.scrub_value(&mut summary);
    let status = if summary.get("aborted") == Some(&Value::Bool(true)) {
        "interrupted"
    } else {
        "finished"
    };
    let outcome = summary.get("outcome").map(Value::to_string);
    (summary, status, outcome)
}

/// The dataset fingerprint of a run without one: its sorted item ids' digest.
pub fn ids_fingerprint(ids: &[String]) -> String {
    format!("ids:{}", super::rows::prompt_digest(&ids.join("\n")))
}
