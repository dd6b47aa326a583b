//! Shards of one run over PostgreSQL, as [`crate::store::sqlite`]'s shards (the decisions
//! are [`crate::store::shards`]'s). Race-safe across processes: the run row is inserted
//! `ON CONFLICT DO NOTHING` and then locked (`FOR UPDATE`) for the rest of each shard's
//! transaction, so two shards finishing at once see each other and exactly the last one
//! writes the run's summary.

use super::PgStore;
use crate::store::shards::{check_join, combined_summary, run_status, shards_json, FoundRun};
use crate::store::shared::{stored_summary, Owner, RunRow};
use crate::store::time::now_ms;
use crate::store::{NewRun, StoreError, StoreResult};
use postgres::Client;
use serde_json::Value;

type Db<T> = Result<T, postgres::Error>;

/// Shard `k` of `n` joins run `run.id` (see the SQLite store's `begin`).
pub(super) fn begin(
    s: &mut PgStore,
    run: &NewRun,
    kn: (i64, i64),
    header: &Value,
) -> StoreResult<()> {
    let host = s.host.clone();
    match begin_tx(&mut s.client, run, kn, header, &host) {
        Ok(r) => r,
        Err(e) => Err(s.error("cannot record the shard", e, StoreError::write)),
    }
}

fn begin_tx(
    c: &mut Client,
    run: &NewRun,
    (k, n): (i64, i64),
    header: &Value,
    host: &str,
) -> Db<StoreResult<()>> {
    let (now, pid) = (now_ms(), std::process::id() as i64);
    if let Err(e) = check_join(&run.id, (k, n), None, None, now, host) {
        return Ok(Err(e));
    }
    let mut tx = c.transaction()?;
    tx.execute(
        "INSERT INTO runs (id, started_at, status, git_commit, git_branch, git_dirty, name, config_fp, dataset_fp, version, judge_models, header, owner_host, owner_pid, heartbeat_at, store_prompts, shards) \
         VALUES ($1, $2, 'running', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) ON CONFLICT (id) DO NOTHING",
        &[
            &run.id, &run.started_at_ms, &run.git_commit, &run.git_branch, &run.git_dirty,
            &run.name, &run.config_fingerprint, &run.dataset_fingerprint, &run.version,
            &run.judge_models.to_string(), &header.to_string(), &host, &pid, &now,
            &run.store_prompts, &n,
        ],
    )?;
    let r = tx.query_one(
        "SELECT shards, status FROM runs WHERE id = $1 FOR UPDATE",
        &[&run.id],
    )?;
    let found: FoundRun = (r.get(0), r.get(1));
    let mine: Option<Owner> = tx
        .query_opt(
            "SELECT status, owner_host, owner_pid, heartbeat_at FROM run_shards WHERE run_id = $1 AND shard = $2",
            &[&run.id, &k],
        )?
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)));
    if let Err(e) = check_join(&run.id, (k, n), Some(&found), mine.as_ref(), now, host) {
        return Ok(Err(e));
    }
    for t in &run.tags {
        tx.execute(
            "INSERT INTO run_tags (run_id, tag) VALUES ($1, $2) ON CONFLICT DO NOTHING",
            &[&run.id, t],
        )?;
    }
    tx.execute(
        "INSERT INTO run_shards (run_id, shard, of, status, owner_host, owner_pid, started_at, heartbeat_at) VALUES ($1, $2, $3, 'running', $4, $5, $6, $6) \
         ON CONFLICT (run_id, shard) DO UPDATE SET status = 'running', owner_host = EXCLUDED.owner_host, owner_pid = EXCLUDED.owner_pid, started_at = EXCLUDED.started_at, heartbeat_at = EXCLUDED.heartbeat_at, ended_at = NULL, summary = NULL",
        &[&run.id, &k, &n, &host, &pid, &now],
    )?;
    tx.execute(
        "UPDATE runs SET heartbeat_at = $2 WHERE id = $1",
        &[&run.id, &now],
    )?;
    tx.commit()?;
    Ok(Ok(()))
}

/// The shard's heartbeat.
pub(super) fn beat(s: &mut PgStore, run_id: &str, k: i64) -> StoreResult<()> {
    match s.client.execute(
        "UPDATE run_shards SET heartbeat_at = $3 WHERE run_id = $1 AND shard = $2",
        &[&run_id, &k, &now_ms()],
    ) {
        Ok(_) => Ok(()),
        Err(e) => Err(s.error("cannot record the shard's heartbeat", e, StoreError::write)),
    }
}

/// Shard `k` finished → the run's summary when every shard has now finished.
pub(super) fn finish(
    s: &mut PgStore,
    run_id: &str,
    k: i64,
    summary: &Value,
    ended: i64,
) -> StoreResult<Option<Value>> {
    let (summary, status, _) = stored_summary(summary, &s.redactor);
    match finish_tx(&mut s.client, run_id, k, &summary, status, ended) {
        Ok(v) => Ok(v),
        Err(e) => Err(s.error("cannot record the shard's summary", e, StoreError::write)),
    }
}

fn finish_tx(
    c: &mut Client,
    run_id: &str,
    k: i64,
    summary: &Value,
    status: &str,
    ended: i64,
) -> Db<Option<Value>> {
    let mut tx = c.transaction()?;
    // the run row locked first: shards finishing at once take turns
    let r = tx.query_one(
        "SELECT shards, header FROM runs WHERE id = $1 FOR UPDATE",
        &[&run_id],
    )?;
    let (n, header): (Option<i64>, Option<String>) = (r.get(0), r.get(1));
    tx.execute(
        "UPDATE run_shards SET status = $3, ended_at = $4, heartbeat_at = $6, summary = $5 WHERE run_id = $1 AND shard = $2",
        &[&run_id, &k, &status, &ended, &summary.to_string(), &now_ms()],
    )?;
    tx.execute(
        "UPDATE runs SET heartbeat_at = $2 WHERE id = $1",
        &[&run_id, &now_ms()],
    )?;
    let done: i64 = tx
        .query_one(
            "SELECT COUNT(*) FROM run_shards WHERE run_id = $1 AND status = 'finished'",
            &[&run_id],
        )?
        .get(0);
    if done < n.unwrap_or(i64::MAX) {
        tx.commit()?;
        return Ok(None);
    }
    let scores = tx
        .query("SELECT scorer, score FROM results WHERE run_id = $1 AND score IS NOT NULL ORDER BY idx, seq", &[&run_id])?
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let parts = tx
        .query(
            "SELECT summary FROM run_shards WHERE run_id = $1 ORDER BY shard",
            &[&run_id],
        )?
        .iter()
        .map(|r| r.get(0))
        .collect();
    tx.commit()?;
    Ok(Some(combined_summary(header.as_deref(), scores, parts)))
}

/// Sharded runs as reads show them (see the SQLite store's `judge`).
pub(super) fn judge(s: &mut PgStore, runs: &mut [RunRow]) -> StoreResult<()> {
    let (host, now) = (s.host.clone(), now_ms());
    for run in runs.iter_mut() {
        let Some(total) = run.shards.as_ref().and_then(|v| v["total"].as_i64()) else {
            continue;
        };
        let rows: Vec<Owner> = match s.client.query(
            "SELECT status, owner_host, owner_pid, heartbeat_at FROM run_shards WHERE run_id = $1 ORDER BY shard",
            &[&run.id],
        ) {
            Ok(rows) => rows.iter().map(|r| (r.get(0), r.get(1), r.get(2), r.get(3))).collect(),
            Err(e) => return Err(s.error("cannot read", e, StoreError::read)),
        };
        run.status = run_status(run.status, &rows, now, &host);
        run.shards = Some(shards_json(total, &rows));
    }
    Ok(())
}
