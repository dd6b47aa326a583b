//! Shards of one run over SQLite (the decisions are [`crate::store::shards`]'s): a shard
//! joins its run (the run row inserted if missing), refreshes its heartbeat, finishes (the
//! run finished with every shard's items once all N have), and how reads show the run.

use super::{sql_error, SqliteStore};
use crate::store::shards::{check_join, combined_summary, run_status, shards_json, FoundRun};
use crate::store::shared::{stored_summary, Owner, RunRow};
use crate::store::time::now_ms;
use crate::store::{NewRun, StoreError, StoreResult};
use rusqlite::{params, OptionalExtension, TransactionBehavior};
use serde_json::Value;

/// Shard `k` of `n` joins run `run.id`: refused (finished, out of range, another N, an
/// unsharded run); else the run row is made if no shard made it yet, and the shard's row.
pub(super) fn begin(
    s: &mut SqliteStore,
    run: &NewRun,
    (k, n): (i64, i64),
    header: &Value,
) -> StoreResult<()> {
    let name = s.name.clone();
    let fail = |e| sql_error(&name, "cannot record the shard", e, StoreError::write);
    let (host, now, pid) = (s.host.clone(), now_ms(), std::process::id() as i64);
    let tx = s
        .conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(fail)?;
    let found: Option<FoundRun> = tx
        .query_row(
            "SELECT shards, status FROM runs WHERE id = ?1",
            [&run.id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()
        .map_err(fail)?;
    let mine: Option<Owner> = tx
        .query_row(
            "SELECT status, owner_host, owner_pid, heartbeat_at FROM run_shards WHERE run_id = ?1 AND shard = ?2",
            params![run.id, k],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .optional()
        .map_err(fail)?;
    check_join(&run.id, (k, n), found.as_ref(), mine.as_ref(), now, &host)?;
    tx.execute(
        "INSERT INTO runs (id, started_at, status, git_commit, git_branch, git_dirty, name, config_fp, dataset_fp, version, judge_models, header, owner_host, owner_pid, heartbeat_at, store_prompts, shards) VALUES (?1, ?2, 'running', ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16) ON CONFLICT (id) DO NOTHING",
        params![
            run.id, run.started_at_ms, run.git_commit, run.git_branch, run.git_dirty, run.name,
            run.config_fingerprint, run.dataset_fingerprint, run.version,
            run.judge_models.to_string(), header.to_string(), host, pid, now, run.store_prompts, n,
        ],
    )
    .map_err(fail)?;
    for t in &run.tags {
        tx.execute(
            "INSERT OR IGNORE INTO run_tags (run_id, tag) VALUES (?1, ?2)",
            params![run.id, t],
        )
        .map_err(fail)?;
    }
    tx.execute(
        "INSERT OR REPLACE INTO run_shards (run_id, shard, of, status, owner_host, owner_pid, started_at, heartbeat_at) VALUES (?1, ?2, ?3, 'running', ?4, ?5, ?6, ?6)",
        params![run.id, k, n, host, pid, now],
    )
    .map_err(fail)?;
    tx.execute(
        "UPDATE runs SET heartbeat_at = ?2 WHERE id = ?1",
        params![run.id, now],
    )
    .map_err(fail)?;
    tx.commit().map_err(fail)
}

/// The shard's heartbeat (after each batch of items, and while idle).
pub(super) fn beat(s: &SqliteStore, run_id: &str, k: i64) -> StoreResult<()> {
    s.conn
        .execute(
            "UPDATE run_shards SET heartbeat_at = ?3 WHERE run_id = ?1 AND shard = ?2",
            params![run_id, k, now_ms()],
        )
        .map(|_| ())
        .map_err(|e| {
            sql_error(
                &s.name,
                "cannot record the shard's heartbeat",
                e,
                StoreError::write,
            )
        })
}

/// Shard `k` finished (or was aborted): its row says so, with its summary → the run's
/// summary when every shard has now finished (the caller writes it as the run's).
pub(super) fn finish(
    s: &mut SqliteStore,
    run_id: &str,
    k: i64,
    summary: &Value,
    ended: i64,
) -> StoreResult<Option<Value>> {
    let name = s.name.clone();
    let fail = |e| {
        sql_error(
            &name,
            "cannot record the shard's summary",
            e,
            StoreError::write,
        )
    };
    let (summary, status, _) = stored_summary(summary, &s.redactor);
    let tx = s
        .conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(fail)?;
    tx.execute(
        "UPDATE run_shards SET status = ?3, ended_at = ?4, heartbeat_at = ?6, summary = ?5 WHERE run_id = ?1 AND shard = ?2",
        params![run_id, k, status, ended, summary.to_string(), now_ms()],
    )
    .map_err(fail)?;
    tx.execute(
        "UPDATE runs SET heartbeat_at = ?2 WHERE id = ?1",
        params![run_id, now_ms()],
    )
    .map_err(fail)?;
    let (n, header, done): (i64, Option<String>, i64) = tx
        .query_row(
            "SELECT shards, header, (SELECT COUNT(*) FROM run_shards WHERE run_id = ?1 AND status = 'finished') FROM runs WHERE id = ?1",
            [run_id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .map_err(fail)?;
    if done < n {
        tx.commit().map_err(fail)?;
        return Ok(None);
    }
    let scores = {
        let mut st = tx
            .prepare("SELECT scorer, score FROM results WHERE run_id = ?1 AND score IS NOT NULL ORDER BY idx")
            .map_err(fail)?;
        let rows = st
            .query_map([run_id], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(fail)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(fail)?
    };
    let parts = {
        let mut st = tx
            .prepare("SELECT summary FROM run_shards WHERE run_id = ?1 ORDER BY shard")
            .map_err(fail)?;
        let rows = st.query_map([run_id], |r| r.get(0)).map_err(fail)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(fail)?
    };
    tx.commit().map_err(fail)?;
    Ok(Some(combined_summary(header.as_deref(), scores, parts)))
}

/// Sharded runs as reads show them: `interrupted` when a shard's owner is gone, and their
/// `shards: { total, finished }`.
pub(super) fn judge(s: &SqliteStore, runs: &mut [RunRow]) -> StoreResult<()> {
    let (host, now) = (s.host.clone(), now_ms());
    for run in runs.iter_mut() {
        let Some(total) = run.shards.as_ref().and_then(|v| v["total"].as_i64()) else {
            continue;
        };
        let mut st = s
            .conn
            .prepare_cached("SELECT status, owner_host, owner_pid, heartbeat_at FROM run_shards WHERE run_id = ?1 ORDER BY shard")
            .map_err(|e| sql_error(&s.name, "cannot read", e, StoreError::read))?;
        let rows: Vec<Owner> = st
            .query_map([&run.id], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })
            .and_then(|r| r.collect())
            .map_err(|e| sql_error(&s.name, "cannot read", e, StoreError::read))?;
        run.status = run_status(run.status, &rows, now, &host);
        run.shards = Some(shards_json(total, &rows));
    }
    Ok(())
}
