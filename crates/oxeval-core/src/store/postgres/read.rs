//! The store's reads over PostgreSQL: the same queries as the SQLite store's, the same JSON
//! (the computations after the queries are [`crate::store::shared`]'s).

use super::PgStore;
use crate::store::rows::{item_json, restore_prompts};
use crate::store::shards::run_owner;
use crate::store::shared::{
    export_header, item_run_json, json_col, no_baseline, parse_baseline, partial_scorers,
    pick_prefix, prefix_pattern, prune_doomed, run_json, scorer_json, shown_status, typed_line,
    Baseline, FlakyCells, RunRow,
};
use crate::store::time::now_ms;
use crate::store::{Prune, RunQuery, StoreError, StoreResult};
use postgres::types::ToSql;
use postgres::Row;
use serde_json::{json, Value};
use std::collections::HashMap;

const RUN_COLUMNS: &str = "id, started_at, ended_at, status, outcome, git_commit, git_branch, git_dirty, name, dataset_fp, header, owner_host, owner_pid, heartbeat_at, shards";

/// How many items an export reads at a time.
const EXPORT_PAGE: i64 = 500;

fn run_row(r: &Row, host: &str, now: i64) -> RunRow {
    let total: Option<i64> = r.get(14);
    let owner = run_owner((r.get(3), r.get(11), r.get(12), r.get(13)), total.is_some());
    RunRow {
        id: r.get(0),
        started_at: r.get(1),
        ended_at: r.get(2),
        status: shown_status(&owner, now, host),
        outcome: json_col(r.get(4)),
        commit: r.get(5),
        branch: r.get(6),
        dirty: r.get(7),
        name: r.get(8),
        dataset: r.get(9),
        header: r.get(10),
        shards: total.map(|t| json!({ "total": t })),
    }
}

impl PgStore {
    fn rows(&mut self, sql: &str, args: &[&(dyn ToSql + Sync)]) -> StoreResult<Vec<Row>> {
        match self.client.query(sql, args) {
            Ok(rows) => Ok(rows),
            Err(e) => Err(self.error("cannot read", e, StoreError::read)),
        }
    }
}

/// The runs matching `q`, newest first; `extra` may use `$5` (`arg`).
fn runs(s: &mut PgStore, q: &RunQuery, extra: &str, arg: Option<&str>) -> StoreResult<Vec<RunRow>> {
    let sql = format!(
        "SELECT {RUN_COLUMNS} FROM runs WHERE ($1::text IS NULL OR git_branch = $1) \
         AND ($2::text IS NULL OR id IN (SELECT run_id FROM run_tags WHERE tag = $2)) \
         AND ($3::text IS NULL OR dataset_fp = $3) AND ($5::text IS NULL OR TRUE) {extra} \
         ORDER BY started_at DESC, seq DESC LIMIT $4"
    );
    let limit = q.last.map(i64::from);
    let rows = s.rows(&sql, &[&q.branch, &q.tag, &q.dataset, &limit, &arg])?;
    let (host, now) = (s.host.clone(), now_ms());
    let mut found: Vec<RunRow> = rows.iter().map(|r| run_row(r, &host, now)).collect();
    super::shards::judge(s, &mut found)?;
    Ok(found)
}

/// Finished runs' scorer statistics, by run, in the summary's order.
fn stats_by_run(s: &mut PgStore, ids: &[&str]) -> StoreResult<HashMap<String, Vec<Value>>> {
    let rows = s.rows(
        "SELECT run_id, scorer, mean, ci_lo, ci_hi, n FROM run_scorers WHERE run_id = ANY($1) ORDER BY seq",
        &[&ids],
    )?;
    let mut out: HashMap<String, Vec<Value>> = HashMap::new();
    for r in rows {
        out.entry(r.get(0)).or_default().push(scorer_json(
            r.get(1),
            r.get(2),
            r.get(3),
            r.get(4),
            r.get(5),
        ));
    }
    Ok(out)
}

fn tags_by_run(s: &mut PgStore, ids: &[&str]) -> StoreResult<HashMap<String, Vec<String>>> {
    let rows = s.rows(
        "SELECT run_id, tag FROM run_tags WHERE run_id = ANY($1) ORDER BY tag COLLATE \"C\"",
        &[&ids],
    )?;
    let mut out: HashMap<String, Vec<String>> = HashMap::new();
    for r in rows {
        out.entry(r.get(0)).or_default().push(r.get(1));
    }
    Ok(out)
}

/// Per-scorer `{ id, mean, ci95, n }`: a finished run's from its summary, any other's
/// computed from the items it has.
fn scorers_of(s: &mut PgStore, run: &RunRow) -> StoreResult<Vec<Value>> {
    if run.status == "finished" {
        return Ok(stats_by_run(s, &[run.id.as_str()])?
            .remove(&run.id)
            .unwrap_or_default());
    }
    let rows = s.rows(
        "SELECT scorer, score FROM results WHERE run_id = $1 AND score IS NOT NULL ORDER BY idx, seq",
        &[&run.id],
    )?;
    let scores = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
    Ok(partial_scorers(run.header.as_deref(), scores))
}

pub(super) fn history(s: &mut PgStore, q: &RunQuery) -> StoreResult<Value> {
    let extra = "AND ($5::text IS NULL OR EXISTS (SELECT 1 FROM run_scorers WHERE run_id = runs.id AND scorer = $5) \
                 OR (status != 'finished' AND EXISTS (SELECT 1 FROM results WHERE run_id = runs.id AND scorer = $5)))";
    let found = runs(s, q, extra, q.scorer.as_deref())?;
    let ids: Vec<&str> = found.iter().map(|r| r.id.as_str()).collect();
    let mut tags = tags_by_run(s, &ids)?;
    let mut stats = stats_by_run(s, &ids)?;
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

pub(super) fn item_history(s: &mut PgStore, item: &str, q: &RunQuery) -> StoreResult<Value> {
    let all = RunQuery {
        last: None,
        ..q.clone()
    };
    let runs = runs(
        s,
        &all,
        "AND id IN (SELECT run_id FROM results WHERE item_id = $5)",
        Some(item),
    )?;
    let mut scores_by: HashMap<String, Vec<(String, Option<f64>)>> = HashMap::new();
    for r in s.rows(
        "SELECT run_id, scorer, score FROM results WHERE item_id = $1",
        &[&item],
    )? {
        let sc: String = r.get(1);
        if q.scorer.as_ref().is_none_or(|f| *f == sc) {
            scores_by.entry(r.get(0)).or_default().push((sc, r.get(2)));
        }
    }
    let take = q.last.map(|n| n as usize).unwrap_or(usize::MAX);
    let out: Vec<Value> = runs
        .iter()
        .take(take)
        .map(|run| item_run_json(run, scores_by.remove(&run.id).unwrap_or_default()))
        .collect();
    Ok(json!({ "item": item, "runs": out }))
}

pub(super) fn flaky(s: &mut PgStore, q: &RunQuery) -> StoreResult<Value> {
    let dataset = match &q.dataset {
        Some(d) => Some(d.clone()),
        None => s
            .rows("SELECT dataset_fp FROM runs WHERE dataset_fp IS NOT NULL ORDER BY started_at DESC, seq DESC LIMIT 1", &[])?
            .first()
            .map(|r| r.get(0)),
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
    let mut runs = runs(s, &q2, "", None)?;
    runs.reverse();
    let mut cells = FlakyCells::new(runs.len());
    for (k, run) in runs.iter().enumerate() {
        let header = json_col(run.header.clone());
        let rows = s.rows(
            "SELECT item_id, scorer, score, error IS NOT NULL FROM results WHERE run_id = $1",
            &[&run.id],
        )?;
        for r in rows {
            let scorer: String = r.get(1);
            if q.scorer.as_ref().is_some_and(|f| *f != scorer) {
                continue;
            }
            cells.add(k, &header, r.get(0), scorer, r.get(2), r.get(3));
        }
    }
    let ids: Vec<&str> = runs.iter().map(|r| r.id.as_str()).collect();
    Ok(json!({ "dataset": dataset, "runs": ids, "items": cells.items() }))
}

/// A run id given in full or by a unique prefix.
fn run_by_prefix(s: &mut PgStore, id: &str) -> StoreResult<String> {
    let like = prefix_pattern(id);
    let rows = s.rows(
        "SELECT id FROM runs WHERE id = $1 OR id LIKE $2 LIMIT 2",
        &[&id, &like],
    )?;
    pick_prefix(&s.name, id, rows.iter().map(|r| r.get(0)).collect())
}

pub(super) fn resolve_run(
    s: &mut PgStore,
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
    let found = runs(s, &q, "AND status = 'finished'", None)?;
    found
        .into_iter()
        .next()
        .map(|r| r.id)
        .ok_or_else(|| no_baseline(&s.name, spec, dataset))
}

pub(super) fn run_info(s: &mut PgStore, run_id: &str) -> StoreResult<Value> {
    let id = run_by_prefix(s, run_id)?;
    let (host, now) = (s.host.clone(), now_ms());
    let rows = s.rows(
        &format!("SELECT {RUN_COLUMNS}, config_fp, version, judge_models, (SELECT COUNT(*) FROM items WHERE run_id = $1) FROM runs WHERE id = $1"),
        &[&id],
    )?;
    let r = rows
        .first()
        .ok_or_else(|| StoreError::not_found(format!("store {}: no run {id}", s.name)))?;
    let mut run = run_row(r, &host, now);
    super::shards::judge(s, std::slice::from_mut(&mut run))?;
    let outcome: Option<String> = r.get(4);
    let (config, version, models, items): (Option<String>, Option<String>, Option<String>, i64) =
        (r.get(15), r.get(16), r.get(17), r.get(18));
    let scorers = scorers_of(s, &run)?;
    let tags = tags_by_run(s, &[id.as_str()])?
        .remove(&id)
        .unwrap_or_default();
    let mut v = run_json(&run, tags, scorers);
    v["outcomeDetail"] = json_col(outcome);
    v["configFingerprint"] = json!(config);
    v["version"] = json!(version);
    v["judgeModels"] = json_col(models);
    v["items"] = json!(items);
    Ok(v)
}

pub(super) fn export_run(
    s: &mut PgStore,
    run_id: &str,
    emit: &mut dyn FnMut(Value) -> StoreResult<()>,
) -> StoreResult<()> {
    let id = run_by_prefix(s, run_id)?;
    let rows = s.rows(
        "SELECT header, summary, started_at FROM runs WHERE id = $1",
        &[&id],
    )?;
    let r = rows
        .first()
        .ok_or_else(|| StoreError::not_found(format!("store {}: no run {id}", s.name)))?;
    let summary: Option<String> = r.get(1);
    emit(export_header(r.get(0), r.get(2), &id))?;
    let mut texts: HashMap<String, Option<String>> = HashMap::new();
    let mut after = -1i64;
    loop {
        let items = s.rows(
            "SELECT idx, record FROM items WHERE run_id = $1 AND idx > $2 ORDER BY idx LIMIT $3",
            &[&id, &after, &EXPORT_PAGE],
        )?;
        let Some(last) = items.last() else { break };
        let last: i64 = last.get(0);
        let mut results: HashMap<i64, Vec<(String, Option<String>)>> = HashMap::new();
        for r in s.rows(
            "SELECT idx, scorer, result FROM results WHERE run_id = $1 AND idx > $2 AND idx <= $3 ORDER BY idx, seq",
            &[&id, &after, &last],
        )? {
            results.entry(r.get(0)).or_default().push((r.get(1), r.get(2)));
        }
        for row in &items {
            let idx: i64 = row.get(0);
            let mine = results.remove(&idx).unwrap_or_default();
            let mut item = item_json(row.get(1), &mine)?;
            let mut missing = Vec::new();
            restore_prompts(&mut item, &mut |d| {
                texts.get(d).cloned().unwrap_or_else(|| {
                    missing.push(d.to_string());
                    None
                })
            });
            if !missing.is_empty() {
                let found = s.rows(
                    "SELECT digest, text FROM prompts WHERE digest = ANY($1)",
                    &[&missing],
                )?;
                for d in missing {
                    texts.insert(d, None);
                }
                for r in found {
                    texts.insert(r.get(0), Some(r.get(1)));
                }
                restore_prompts(&mut item, &mut |d| texts.get(d).cloned().flatten());
            }
            emit(typed_line("item", item))?;
        }
        after = last;
    }
    if let summary @ Value::Object(_) = json_col(summary) {
        emit(typed_line("summary", summary))?;
    }
    Ok(())
}

pub(super) fn prune(s: &mut PgStore, p: &Prune) -> StoreResult<u64> {
    let all = runs(s, &RunQuery::default(), "", None)?;
    let doomed = prune_doomed(&all, p)?;
    let mut go = || -> Result<(), postgres::Error> {
        let mut tx = s.client.transaction()?;
        tx.execute("DELETE FROM runs WHERE id = ANY($1)", &[&doomed])?;
        tx.execute("DELETE FROM prompts WHERE NOT EXISTS (SELECT 1 FROM run_prompts WHERE run_prompts.digest = prompts.digest)", &[])?;
        tx.commit()
    };
    match go() {
        Ok(()) => Ok(doomed.len() as u64),
        Err(e) => Err(s.error("cannot prune", e, StoreError::write)),
    }
}
