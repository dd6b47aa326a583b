//! The store's reads over SQLite: history, one item's history, flaky items, baselines by
//! name, one run, export, prune. The JSON shapes are the documented ones (docs/store.md).

use super::{sql_error, SqliteStore};
use crate::evals::stats;
use crate::store::packed::{export_form, Unpacker};
use crate::store::rows::{item_json, restore_prompts};
use crate::store::status::effective_status;
use crate::store::time::{iso, now_ms};
use crate::store::{Prune, RunQuery, StoreError, StoreResult};
use rusqlite::{params, params_from_iter, OptionalExtension, Row};
use serde_json::{json, Map, Value};
use std::collections::HashMap;

/// A run row as read.
struct RunRow {
    id: String,
    started_at: i64,
    ended_at: Option<i64>,
    status: &'static str,
    outcome: Value,
    commit: Option<String>,
    branch: Option<String>,
    dirty: Option<bool>,
    name: Option<String>,
    dataset: Option<String>,
    /// The `--out` header as stored (parsed only where a read needs it: scales, thresholds).
    header: Option<String>,
}

const RUN_COLUMNS: &str = "id, started_at, ended_at, status, outcome, git_commit, git_branch, git_dirty, name, dataset_fp, header, owner_host, owner_pid, heartbeat_at";

fn json_col(text: Option<String>) -> Value {
    text.and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null)
}

fn run_row(r: &Row, host: &str, now: i64) -> rusqlite::Result<RunRow> {
    let status: String = r.get(3)?;
    let owner_host: Option<String> = r.get(11)?;
    Ok(RunRow {
        id: r.get(0)?,
        started_at: r.get(1)?,
        ended_at: r.get(2)?,
        status: effective_status(
            &status,
            owner_host.as_deref(),
            r.get(12)?,
            r.get(13)?,
            now,
            host,
        ),
        outcome: json_col(r.get(4)?),
        commit: r.get(5)?,
        branch: r.get(6)?,
        dirty: r.get(7)?,
        name: r.get(8)?,
        dataset: r.get(9)?,
        header: r.get(10)?,
    })
}

fn rerr(s: &SqliteStore) -> impl Fn(rusqlite::Error) -> StoreError + '_ {
    move |e| sql_error(&s.name, "cannot read", e, StoreError::read)
}

/// The runs matching `q`, newest first.
fn runs(s: &SqliteStore, q: &RunQuery, extra: &str, arg: Option<&str>) -> StoreResult<Vec<RunRow>> {
    let sql = format!(
        "SELECT {RUN_COLUMNS} FROM runs WHERE (?1 IS NULL OR git_branch = ?1) \
         AND (?2 IS NULL OR id IN (SELECT run_id FROM run_tags WHERE tag = ?2)) \
         AND (?3 IS NULL OR dataset_fp = ?3) {extra} ORDER BY started_at DESC, rowid DESC LIMIT ?4"
    );
    let limit = q.last.map(i64::from).unwrap_or(-1);
    let (host, now) = (s.host.clone(), now_ms());
    let mut st = s.conn.prepare_cached(&sql).map_err(rerr(s))?;
    let rows = st
        .query_map(params![q.branch, q.tag, q.dataset, limit, arg], |r| {
            run_row(r, &host, now)
        })
        .map_err(rerr(s))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(rerr(s))?;
    Ok(rows)
}

/// Rows of `select … WHERE run_id IN (…)` for many runs (in chunks), grouped by run id (the
/// first column).
fn by_run<T>(
    s: &SqliteStore,
    select: &str,
    order: &str,
    ids: &[&str],
    f: impl Fn(&Row) -> rusqlite::Result<T>,
) -> StoreResult<HashMap<String, Vec<T>>> {
    let mut out: HashMap<String, Vec<T>> = HashMap::new();
    for chunk in ids.chunks(500) {
        let marks = vec!["?"; chunk.len()].join(",");
        let sql = format!("{select} WHERE run_id IN ({marks}) {order}");
        let mut st = s.conn.prepare_cached(&sql).map_err(rerr(s))?;
        let rows = st
            .query_map(params_from_iter(chunk), |r| {
                Ok((r.get::<_, String>(0)?, f(r)?))
            })
            .map_err(rerr(s))?;
        for r in rows {
            let (id, v) = r.map_err(rerr(s))?;
            out.entry(id).or_default().push(v);
        }
    }
    Ok(out)
}

/// A finished run's scorer statistics row (columns 1..=5 of `run_scorers`).
fn scorer_row(r: &Row) -> rusqlite::Result<Value> {
    let num = |x: Option<f64>| {
        x.and_then(serde_json::Number::from_f64)
            .map(Value::Number)
            .unwrap_or(Value::Null)
    };
    let (lo, hi): (Option<f64>, Option<f64>) = (r.get(3)?, r.get(4)?);
    let mut o = Map::with_capacity(4);
    o.insert("id".into(), Value::String(r.get(1)?));
    o.insert("mean".into(), num(r.get(2)?));
    o.insert(
        "ci95".into(),
        lo.zip(hi)
            .map(|(a, b)| Value::Array(vec![num(Some(a)), num(Some(b))]))
            .unwrap_or(Value::Null),
    );
    o.insert("n".into(), Value::from(r.get::<_, i64>(5)?));
    Ok(Value::Object(o))
}

fn tags_of(s: &SqliteStore, id: &str) -> StoreResult<Vec<String>> {
    let mut st = s
        .conn
        .prepare_cached("SELECT tag FROM run_tags WHERE run_id = ?1 ORDER BY tag")
        .map_err(rerr(s))?;
    let tags = st
        .query_map([id], |r| r.get(0))
        .map_err(rerr(s))?
        .collect::<Result<_, _>>()
        .map_err(rerr(s))?;
    Ok(tags)
}

fn scale_of(header: &Value, scorer: &str) -> f64 {
    header["scorerInfo"][scorer]["scale"]
        .as_f64()
        .unwrap_or(1.0)
}

/// Per-scorer `{ id, mean, ci95, n }`: a finished run's from its summary, any other's
/// computed from the items it has.
fn scorers_of(s: &SqliteStore, run: &RunRow) -> StoreResult<Vec<Value>> {
    let mut out = Vec::new();
    if run.status == "finished" {
        let mut found = by_run(
            s,
            "SELECT run_id, scorer, mean, ci_lo, ci_hi, n FROM run_scorers",
            "ORDER BY rowid",
            &[run.id.as_str()],
            scorer_row,
        )?;
        return Ok(found.remove(&run.id).unwrap_or_default());
    }
    let mut st = s
        .conn
        .prepare_cached("SELECT scorer, score FROM results WHERE run_id = ?1 AND score IS NOT NULL ORDER BY idx")
        .map_err(rerr(s))?;
    let header = json_col(run.header.clone());
    let mut by: Vec<(String, Vec<f64>)> = Vec::new();
    let rows = st
        .query_map([&run.id], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, f64>(1)?))
        })
        .map_err(rerr(s))?;
    for r in rows {
        let (id, x) = r.map_err(rerr(s))?;
        match by.iter_mut().find(|(k, _)| *k == id) {
            Some((_, xs)) => xs.push(x),
            None => by.push((id, vec![x])),
        }
    }
    for (id, xs) in by {
        let st = stats(&xs, scale_of(&header, &id));
        out.push(json!({ "id": id, "mean": st.mean, "ci95": st.ci95, "n": st.n }));
    }
    Ok(out)
}

fn run_json(run: &RunRow, tags: Vec<String>, scorers: Vec<Value>) -> Value {
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
    Value::Object(o)
}

pub(super) fn history(s: &mut SqliteStore, q: &RunQuery) -> StoreResult<Value> {
    let (extra, arg) = match &q.scorer {
        Some(sc) => (
            "AND (EXISTS (SELECT 1 FROM run_scorers WHERE run_id = runs.id AND scorer = ?5) OR (status != 'finished' AND EXISTS (SELECT 1 FROM results WHERE run_id = runs.id AND scorer = ?5)))",
            Some(sc.as_str()),
        ),
        None => ("AND (?5 IS NULL)", None),
    };
    let found = runs(s, q, extra, arg)?;
    // tags and finished runs' statistics in a few queries, not two per run
    let ids: Vec<&str> = found.iter().map(|r| r.id.as_str()).collect();
    let mut tags = by_run(
        s,
        "SELECT run_id, tag FROM run_tags",
        "ORDER BY tag",
        &ids,
        |r| r.get::<_, String>(1),
    )?;
    let mut stats = by_run(
        s,
        "SELECT run_id, scorer, mean, ci_lo, ci_hi, n FROM run_scorers",
        "ORDER BY rowid",
        &ids,
        scorer_row,
    )?;
    let mut out = Vec::with_capacity(found.len());
    for run in &found {
        let mut scorers = match run.status {
            "finished" => stats.remove(&run.id).unwrap_or_default(),
            _ => scorers_of(s, run)?,
        };
        if let Some(sc) = &q.scorer {
            scorers.retain(|x| x["id"] == sc.as_str());
        }
        out.push(run_json(
            run,
            tags.remove(&run.id).unwrap_or_default(),
            scorers,
        ));
    }
    Ok(json!({ "runs": out }))
}

pub(super) fn item_history(s: &mut SqliteStore, item: &str, q: &RunQuery) -> StoreResult<Value> {
    let runs = runs(
        s,
        &RunQuery {
            last: None,
            ..q.clone()
        },
        "AND id IN (SELECT run_id FROM results WHERE item_id = ?5)",
        Some(item),
    )?;
    // every score of the item in one query (the results_item index), then by run
    let mut scores_by: HashMap<String, Vec<(String, Option<f64>)>> = HashMap::new();
    let mut st = s
        .conn
        .prepare_cached("SELECT run_id, scorer, score FROM results WHERE item_id = ?1")
        .map_err(rerr(s))?;
    let rows = st
        .query_map([item], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<f64>>(2)?,
            ))
        })
        .map_err(rerr(s))?;
    for r in rows {
        let (run, sc, x) = r.map_err(rerr(s))?;
        if q.scorer.as_ref().is_none_or(|f| *f == sc) {
            scores_by.entry(run).or_default().push((sc, x));
        }
    }
    let mut out = Vec::new();
    for run in runs
        .iter()
        .take(q.last.map(|n| n as usize).unwrap_or(usize::MAX))
    {
        let mut mine = scores_by.remove(&run.id).unwrap_or_default();
        mine.sort_by(|a, b| a.0.cmp(&b.0));
        let scores: Map<String, Value> = mine.into_iter().map(|(k, x)| (k, json!(x))).collect();
        out.push(json!({ "id": run.id, "startedAt": iso(run.started_at), "status": run.status, "branch": run.branch, "scores": scores }));
    }
    Ok(json!({ "item": item, "runs": out }))
}

/// Whether `score` passes `scorer`'s threshold in a run's header (no threshold: at least
/// half its scale).
fn passes(header: &Value, scorer: &str, score: f64) -> bool {
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
type Cell = (Option<f64>, &'static str);

pub(super) fn flaky(s: &mut SqliteStore, q: &RunQuery) -> StoreResult<Value> {
    let dataset = match &q.dataset {
        Some(d) => Some(d.clone()),
        None => s
            .conn
            .query_row("SELECT dataset_fp FROM runs WHERE dataset_fp IS NOT NULL ORDER BY started_at DESC, rowid DESC LIMIT 1", [], |r| r.get(0))
            .optional()
            .map_err(rerr(s))?,
    };
    let Some(dataset) = dataset else {
        return Ok(json!({ "dataset": null, "runs": [], "items": [] }));
    };
    let q2 = RunQuery {
        dataset: Some(dataset.clone()),
        last: Some(q.last.unwrap_or(10)),
        scorer: None,
        ..q.clone()
    };
    let mut runs = runs(s, &q2, "AND (?5 IS NULL)", None)?;
    runs.reverse();
    let mut cells: HashMap<(String, String), Vec<Option<Cell>>> = HashMap::new();
    let mut st = s
        .conn
        .prepare_cached(
            "SELECT item_id, scorer, score, error IS NOT NULL FROM results WHERE run_id = ?1",
        )
        .map_err(rerr(s))?;
    for (k, run) in runs.iter().enumerate() {
        let header = json_col(run.header.clone());
        let rows = st
            .query_map([&run.id], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, Option<f64>>(2)?,
                    r.get::<_, bool>(3)?,
                ))
            })
            .map_err(rerr(s))?;
        for r in rows {
            let (item, scorer, score, errored) = r.map_err(rerr(s))?;
            if q.scorer.as_ref().is_some_and(|f| *f != scorer) {
                continue;
            }
            let verdict = match score {
                Some(x) if passes(&header, &scorer, x) => "pass",
                Some(_) => "fail",
                None if errored => "error",
                None => continue,
            };
            cells
                .entry((item, scorer))
                .or_insert_with(|| vec![None; runs.len()])[k] = Some((score, verdict));
        }
    }
    let mut items: Vec<Value> = cells
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
    let ids: Vec<&str> = runs.iter().map(|r| r.id.as_str()).collect();
    Ok(json!({ "dataset": dataset, "runs": ids, "items": items }))
}

/// A run id given in full or by a unique prefix.
fn run_by_prefix(s: &SqliteStore, id: &str) -> StoreResult<String> {
    let like = format!("{}%", id.replace(['%', '_'], ""));
    let mut st = s
        .conn
        .prepare_cached("SELECT id FROM runs WHERE id = ?1 OR id LIKE ?2 LIMIT 2")
        .map_err(rerr(s))?;
    let found: Vec<String> = st
        .query_map([id, &like], |r| r.get(0))
        .map_err(rerr(s))?
        .collect::<Result<_, _>>()
        .map_err(rerr(s))?;
    match found.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(StoreError::not_found(format!(
            "store {}: no run {id}",
            s.name
        ))),
        _ if found.iter().any(|f| f == id) => Ok(id.to_string()),
        _ => Err(StoreError::invalid(format!(
            "store {}: more than one run starts with {id}; give more of the id",
            s.name
        ))),
    }
}

pub(super) fn resolve_run(
    s: &mut SqliteStore,
    spec: &str,
    dataset: Option<&str>,
) -> StoreResult<String> {
    if let Some(id) = spec.strip_prefix("run:") {
        return run_by_prefix(s, id);
    }
    let (branch, tag) = match spec.split_once(':') {
        Some(("tag", t)) => (None, Some(t.to_string())),
        Some(("branch", b)) => (Some(b.to_string()), None),
        Some(_) => {
            return Err(StoreError::invalid(format!(
                "a baseline is a branch name (main), branch:B, run:ID or tag:T; got \"{spec}\""
            )))
        }
        None => (Some(spec.to_string()), None),
    };
    let q = RunQuery {
        branch,
        tag,
        dataset: dataset.map(str::to_string),
        ..RunQuery::default()
    };
    let found = runs(s, &q, "AND status = 'finished' AND (?5 IS NULL)", None)?;
    found.into_iter().next().map(|r| r.id).ok_or_else(|| {
        let same = if dataset.is_some() {
            " with this run's dataset"
        } else {
            ""
        };
        StoreError::not_found(format!(
            "store {}: no finished run for baseline {spec}{same}",
            s.name
        ))
    })
}

pub(super) fn run_info(s: &mut SqliteStore, run_id: &str) -> StoreResult<Value> {
    let id = run_by_prefix(s, run_id)?;
    let (host, now) = (s.host.clone(), now_ms());
    let run = s
        .conn
        .query_row(
            &format!("SELECT {RUN_COLUMNS} FROM runs WHERE id = ?1"),
            [&id],
            |r| run_row(r, &host, now),
        )
        .map_err(rerr(s))?;
    let extra: (Option<String>, Option<String>, Option<String>, Option<String>, i64) = s
        .conn
        .query_row(
            "SELECT config_fp, version, judge_models, outcome, (SELECT COUNT(*) FROM items WHERE run_id = ?1) FROM runs WHERE id = ?1",
            [&id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .map_err(rerr(s))?;
    let scorers = scorers_of(s, &run)?;
    let mut v = run_json(&run, tags_of(s, &run.id)?, scorers);
    v["outcomeDetail"] = json_col(extra.3);
    v["configFingerprint"] = json!(extra.0);
    v["version"] = json!(extra.1);
    v["judgeModels"] = json_col(extra.2);
    v["items"] = json!(extra.4);
    Ok(v)
}

pub(super) fn export_run(
    s: &mut SqliteStore,
    run_id: &str,
    emit: &mut dyn FnMut(Value) -> StoreResult<()>,
) -> StoreResult<()> {
    let id = run_by_prefix(s, run_id)?;
    let (header, summary, started): (Option<String>, Option<String>, i64) = s
        .conn
        .query_row(
            "SELECT header, summary, started_at FROM runs WHERE id = ?1",
            [&id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .map_err(rerr(s))?;
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
    let header = Value::Object(header);
    emit(header)?;
    let mut texts: HashMap<String, Option<String>> = HashMap::new();
    let mut prompt = s
        .conn
        .prepare("SELECT text FROM prompts WHERE digest = ?1")
        .map_err(rerr(s))?;
    let mut items = s
        .conn
        .prepare("SELECT idx, record, packed FROM items WHERE run_id = ?1 ORDER BY idx")
        .map_err(rerr(s))?;
    // a packed item (schema version 2) needs its run's dictionary
    let dict: Option<Vec<u8>> = s
        .conn
        .query_row("SELECT dict FROM run_dicts WHERE run_id = ?1", [&id], |r| {
            r.get(0)
        })
        .optional()
        .map_err(rerr(s))?;
    let mut unpacker = dict.as_deref().map(Unpacker::new).transpose()?;
    let mut results = s
        .conn
        .prepare("SELECT idx, scorer, result FROM results WHERE run_id = ?1 ORDER BY idx, rowid")
        .map_err(rerr(s))?;
    let mut rs = results
        .query_map([&id], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<String>>(2)?,
            ))
        })
        .map_err(rerr(s))?
        .peekable();
    let it = items
        .query_map([&id], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<Vec<u8>>>(2)?,
            ))
        })
        .map_err(rerr(s))?;
    for row in it {
        let (idx, record, packed) = row.map_err(rerr(s))?;
        let mut mine = Vec::new();
        while let Some(Ok((i, _, _))) = rs.peek() {
            if *i > idx {
                break;
            }
            let (i, scorer, result) = rs.next().expect("peeked").map_err(rerr(s))?;
            if i == idx {
                mine.push((scorer, result));
            }
        }
        let mut item = match (packed, unpacker.as_mut()) {
            (Some(p), Some(u)) => export_form(&u.unpack(&p)?)?,
            (Some(_), None) => {
                return Err(StoreError::read(format!(
                    "store {}: run {id} has packed items but no dictionary",
                    s.name
                )))
            }
            (None, _) => item_json(&record, &mine)?,
        };
        restore_prompts(&mut item, &mut |d| {
            texts
                .entry(d.to_string())
                .or_insert_with(|| {
                    prompt
                        .query_row([d], |r| r.get(0))
                        .optional()
                        .ok()
                        .flatten()
                })
                .clone()
        });
        let mut line = Map::new();
        line.insert("type".into(), json!("item"));
        line.extend(item.as_object().cloned().unwrap_or_default());
        emit(Value::Object(line))?;
    }
    if let Value::Object(o) = json_col(summary) {
        let mut line = Map::new();
        line.insert("type".into(), json!("summary"));
        line.extend(o);
        emit(Value::Object(line))?;
    }
    Ok(())
}

pub(super) fn prune(s: &mut SqliteStore, p: &Prune) -> StoreResult<u64> {
    if p.keep.is_none() && p.before_ms.is_none() {
        return Err(StoreError::invalid(
            "prune needs --keep N or --older-than DURATION",
        ));
    }
    let all = runs(s, &RunQuery::default(), "AND (?5 IS NULL)", None)?;
    let doomed: Vec<String> = all
        .iter()
        .enumerate()
        .filter(|(k, r)| {
            r.status != "running"
                && (p.keep.is_some_and(|n| *k >= n as usize)
                    || p.before_ms.is_some_and(|b| r.started_at < b))
        })
        .map(|(_, r)| r.id.clone())
        .collect();
    let name = s.name.clone();
    let fail = |e| sql_error(&name, "cannot prune", e, StoreError::write);
    let tx = s
        .conn
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .map_err(fail)?;
    for chunk in doomed.chunks(200) {
        let marks = vec!["?"; chunk.len()].join(",");
        tx.execute(
            &format!("DELETE FROM runs WHERE id IN ({marks})"),
            params_from_iter(chunk),
        )
        .map_err(fail)?;
    }
    tx.execute("DELETE FROM prompts WHERE NOT EXISTS (SELECT 1 FROM run_prompts WHERE run_prompts.digest = prompts.digest)", [])
        .map_err(fail)?;
    tx.commit().map_err(fail)?;
    Ok(doomed.len() as u64)
}
