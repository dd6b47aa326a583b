//! The store's reads over SQLite: history, one item's history, flaky items, baselines by
//! name, one run, export, prune. The JSON shapes are the documented ones (docs/store.md).

use super::{sql_error, SqliteStore};
use crate::store::packed::{export_form, Unpacker};
use crate::store::rows::{item_json, restore_prompts};
use crate::store::shards::run_owner;
use crate::store::shared::{
    export_header, item_run_json, json_col, no_baseline, parse_baseline, partial_scorers,
    pick_prefix, prefix_pattern, prune_doomed, run_json, scorer_json, shown_status, typed_line,
    Baseline, FlakyCells, RunRow,
};
use crate::store::time::now_ms;
use crate::store::{Prune, RunQuery, StoreError, StoreResult};
use rusqlite::{params, params_from_iter, OptionalExtension, Row};
use serde_json::{json, Value};
use std::collections::HashMap;

const RUN_COLUMNS: &str = "id, started_at, ended_at, status, outcome, git_commit, git_branch, git_dirty, name, dataset_fp, header, owner_host, owner_pid, heartbeat_at, shards";

fn run_row(r: &Row, host: &str, now: i64) -> rusqlite::Result<RunRow> {
    let total: Option<i64> = r.get(14)?;
    let owner = run_owner(
        (r.get(3)?, r.get(11)?, r.get(12)?, r.get(13)?),
        total.is_some(),
    );
    Ok(RunRow {
        id: r.get(0)?,
        started_at: r.get(1)?,
        ended_at: r.get(2)?,
        status: shown_status(&owner, now, host),
        outcome: json_col(r.get(4)?),
        commit: r.get(5)?,
        branch: r.get(6)?,
        dirty: r.get(7)?,
        name: r.get(8)?,
        dataset: r.get(9)?,
        header: r.get(10)?,
        shards: total.map(|t| json!({ "total": t })),
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
    drop(st);
    let mut rows = rows;
    super::shards::judge(s, &mut rows)?;
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
    Ok(scorer_json(
        r.get(1)?,
        r.get(2)?,
        r.get(3)?,
        r.get(4)?,
        r.get(5)?,
    ))
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

/// Per-scorer `{ id, mean, ci95, n }`: a finished run's from its summary, any other's
/// computed from the items it has.
fn scorers_of(s: &SqliteStore, run: &RunRow) -> StoreResult<Vec<Value>> {
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
    let scores = st
        .query_map([&run.id], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, f64>(1)?))
        })
        .map_err(rerr(s))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(rerr(s))?;
    Ok(partial_scorers(run.header.as_deref(), scores))
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
        out.push(item_run_json(
            run,
            scores_by.remove(&run.id).unwrap_or_default(),
        ));
    }
    Ok(json!({ "item": item, "runs": out }))
}

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
    let mut cells = FlakyCells::new(runs.len());
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
            cells.add(k, &header, item, scorer, score, errored);
        }
    }
    let items = cells.items();
    let ids: Vec<&str> = runs.iter().map(|r| r.id.as_str()).collect();
    Ok(json!({ "dataset": dataset, "runs": ids, "items": items }))
}

/// A run id given in full or by a unique prefix.
fn run_by_prefix(s: &SqliteStore, id: &str) -> StoreResult<String> {
    let like = prefix_pattern(id);
    let mut st = s
        .conn
        .prepare_cached("SELECT id FROM runs WHERE id = ?1 OR id LIKE ?2 LIMIT 2")
        .map_err(rerr(s))?;
    let found: Vec<String> = st
        .query_map([id, &like], |r| r.get(0))
        .map_err(rerr(s))?
        .collect::<Result<_, _>>()
        .map_err(rerr(s))?;
    pick_prefix(&s.name, id, found)
}

pub(super) fn resolve_run(
    s: &mut SqliteStore,
    spec: &str,
    dataset: Option<&str>,
) -> StoreResult<String> {
    let (branch, tag) = match parse_baseline(spec)? {
        Baseline::Run(id) => return run_by_prefix(s, &id),
        Baseline::Newest(b, t) => (b, t),
    };
    let q = RunQuery {
        branch,
        tag,
        dataset: dataset.map(str::to_string),
        ..RunQuery::default()
    };
    let found = runs(s, &q, "AND status = 'finished' AND (?5 IS NULL)", None)?;
    found
        .into_iter()
        .next()
        .map(|r| r.id)
        .ok_or_else(|| no_baseline(&s.name, spec, dataset))
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
    let mut run = run;
    super::shards::judge(s, std::slice::from_mut(&mut run))?;
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
    emit(export_header(header, started, &id))?;
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
        emit(typed_line("item", item))?;
    }
    if let summary @ Value::Object(_) = json_col(summary) {
        emit(typed_line("summary", summary))?;
    }
    Ok(())
}

pub(super) fn prune(s: &mut SqliteStore, p: &Prune) -> StoreResult<u64> {
    let all = runs(s, &RunQuery::default(), "AND (?5 IS NULL)", None)?;
    let doomed = prune_doomed(&all, p)?;
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
