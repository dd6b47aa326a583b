//! Shards of one run (`oxeval run --shard K/N` with one `--run-id`) recording into one stored
//! run, what both backends decide the same way: whether a shard may join ([`check_join`]),
//! the run's shown status while shards record ([`run_status`]), and the run's summary once
//! every shard has finished ([`combined_summary`]).
//!
//! The run row is made by whichever shard starts first (`runs.shards` = N); each shard has
//! its own `run_shards` row (owner, heartbeat, status, summary). A shard already `finished`
//! is refused (run it again under a new run id); a shard whose owner died may be run again
//! (its items are replaced by index). The run is `finished` when all N shards are.

use super::shared::{json_col, partial_scorers, passes, shown_status, Owner};
use super::{StoreError, StoreResult};
use serde_json::{json, Map, Value};

/// The run row a shard finds: `(shards, status)` (`shards` null: an unsharded run).
pub type FoundRun = (Option<i64>, String);

/// Whether shard `k` of `n` may join run `id`: `run` the run row if it exists, `mine` this
/// shard's row if one exists (its owner columns).
pub fn check_join(
    id: &str,
    (k, n): (i64, i64),
    run: Option<&FoundRun>,
    mine: Option<&Owner>,
    now: i64,
    host: &str,
) -> StoreResult<()> {
    if n < 1 || k < 1 || k > n {
        return Err(StoreError::shard(format!(
            "run {id}: shard {k}/{n} is out of range (a shard is K/N with 1 <= K <= N)"
        )));
    }
    match run {
        Some((None, _)) => {
            return Err(StoreError::shard(format!(
                "run {id} is already recorded as an unsharded run; shards need a run id of their own (another --run-id)"
            )))
        }
        Some((Some(m), _)) if *m != n => {
            return Err(StoreError::shard(format!(
                "run {id} has {m} shards, but this is shard {k}/{n}; every shard of a run must give the same N"
            )))
        }
        _ => {}
    }
    match mine.map(|o| (o.0.as_str(), shown_status(o, now, host))) {
        Some(("finished", _)) => Err(StoreError::shard(format!(
            "run {id}: shard {k}/{n} has already finished (its items are recorded); to run it again, record a new run (another --run-id)"
        ))),
        Some((_, "running")) => Err(StoreError::shard(format!(
            "run {id}: shard {k}/{n} is being recorded by another process ({} pid {}); wait for it, or run this shard under another --run-id",
            mine.and_then(|o| o.1.clone()).unwrap_or_default(),
            mine.and_then(|o| o.2).unwrap_or_default()
        ))),
        _ => Ok(()),
    }
}

/// The message for a run id given twice to unsharded runs.
pub fn taken(id: &str) -> StoreError {
    StoreError::shard(format!(
        "run {id} is already recorded in this store; a run id names one run (use another --run-id, or none for a new one)"
    ))
}

/// The status a sharded run shows: `shown` its row's (judged by the run row's heartbeat
/// alone, which every shard's writes refresh; a run row's owner is only the shard that made
/// it); `shards` its shard rows' owner columns. A `running` run is `interrupted` when a
/// shard's owner is gone or a shard was aborted.
pub fn run_status(shown: &'static str, shards: &[Owner], now: i64, host: &str) -> &'static str {
    let dead = shards
        .iter()
        .any(|o| shown_status(o, now, host) == "interrupted");
    if shown == "running" && dead {
        "interrupted"
    } else {
        shown
    }
}

/// A sharded run row's owner columns as judged: its heartbeat only (see [`run_status`]).
pub fn run_owner(o: Owner, sharded: bool) -> Owner {
    if sharded {
        (o.0, None, None, o.3)
    } else {
        o
    }
}

/// `{ total, finished }` of a sharded run's JSON.
pub fn shards_json(total: i64, shards: &[Owner]) -> Value {
    let finished = shards.iter().filter(|o| o.0 == "finished").count();
    json!({ "total": total, "finished": finished })
}

/// The run's summary once all its shards have finished: per-scorer statistics computed from
/// every shard's scores `(scorer, score)` in item order; the outcome `failed` when any
/// shard's outcome failed, else `scored` when a scorer's threshold (the run header's) is
/// missed by its mean over all shards, else `passed`. `shards`: each shard's stored summary
/// text, in shard order (kept under `shards`).
pub fn combined_summary(
    header: Option<&str>,
    scores: Vec<(String, f64)>,
    shards: Vec<Option<String>>,
) -> Value {
    let head = json_col(header.map(str::to_string));
    let mut stats = Map::new();
    let mut missed = Vec::new();
    for s in partial_scorers(header, scores) {
        let id = s["id"].as_str().unwrap_or_default().to_string();
        let has_threshold = head["scorers"]
            .as_array()
            .and_then(|a| a.iter().find(|x| x["id"] == id.as_str()))
            .is_some_and(|x| !x["threshold"].is_null());
        if let Some(mean) = s["mean"].as_f64() {
            if has_threshold && !passes(&head, &id, mean) {
                missed.push(json!({ "id": id, "averageScore": mean, "reason": format!("{id}: the mean over all shards ({mean}) misses its threshold") }));
            }
        }
        stats.insert(
            id,
            json!({ "mean": s["mean"], "ci95": s["ci95"], "n": s["n"] }),
        );
    }
    let parts: Vec<Value> = shards.into_iter().map(json_col).collect();
    let failed: Vec<Value> = parts
        .iter()
        .enumerate()
        .filter(|(_, p)| p["outcome"]["status"] == "failed")
        .map(|(k, p)| json!({ "shard": k + 1, "reasons": p["outcome"]["reasons"] }))
        .collect();
    let status = if !failed.is_empty() {
        "failed"
    } else if !missed.is_empty() {
        "scored"
    } else {
        "passed"
    };
    json!({
        "stats": stats,
        "outcome": { "status": status, "passed": status == "passed", "failedShards": failed, "missedThresholds": missed },
        "shards": parts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_outcome_fails_with_a_failed_shard_and_thresholds_apply_to_all_shards() {
        let h = r#"{"scorers":[{"id":"faith","threshold":0.5}]}"#;
        let ok = Some(r#"{"outcome":{"status":"passed"}}"#.to_string());
        let bad = Some(r#"{"outcome":{"status":"failed","reasons":["x"]}}"#.to_string());
        let sc = |xs: &[f64]| xs.iter().map(|x| ("faith".to_string(), *x)).collect();
        let s = combined_summary(Some(h), sc(&[1.0, 0.0, 1.0]), vec![ok.clone(), ok.clone()]);
        assert_eq!(s["outcome"]["status"], "passed");
        assert_eq!(s["stats"]["faith"]["n"], 3);
        let s = combined_summary(Some(h), sc(&[0.0, 0.0, 1.0]), vec![ok.clone(), ok.clone()]);
        assert_eq!(s["outcome"]["status"], "scored");
        let s = combined_summary(Some(h), sc(&[1.0]), vec![ok, bad]);
        assert_eq!(s["outcome"]["status"], "failed");
        assert_eq!(s["outcome"]["failedShards"][0]["shard"], 2);
    }

    #[test]
    fn a_shard_is_refused_out_of_range_finished_or_of_another_count() {
        let now = 1_000_000;
        assert!(check_join("r", (3, 2), None, None, now, "h").is_err());
        assert!(check_join("r", (0, 2), None, None, now, "h").is_err());
        assert!(check_join(
            "r",
            (1, 2),
            Some(&(None, "finished".into())),
            None,
            now,
            "h"
        )
        .is_err());
        assert!(check_join(
            "r",
            (1, 2),
            Some(&(Some(3), "running".into())),
            None,
            now,
            "h"
        )
        .is_err());
        let done: Owner = ("finished".into(), None, None, Some(now));
        let e = check_join(
            "r",
            (1, 2),
            Some(&(Some(2), "running".into())),
            Some(&done),
            now,
            "h",
        );
        assert_eq!(e.unwrap_err().code, "OXEVAL_STORE_SHARD");
        let dead: Owner = (
            "running".into(),
            Some("h".into()),
            Some(i32::MAX as i64),
            Some(0),
        );
        assert!(check_join(
            "r",
            (1, 2),
            Some(&(Some(2), "running".into())),
            Some(&dead),
            now,
            "h"
        )
        .is_ok());
        assert!(check_join(
            "r",
            (2, 2),
            Some(&(Some(2), "running".into())),
            None,
            now,
            "h"
        )
        .is_ok());
    }
}
