//! The store's behaviour for shards of one run (tests only; part of [`super::contract`], run
//! by every backend): shards interleaving into one run, a shard dying, a shard refused.

use super::contract::{item, run, summary, Backend};
use super::{NewRun, RunQuery};
use serde_json::json;

fn shard(id: &str, k: i64, n: i64) -> NewRun {
    NewRun {
        shard: Some((k, n)),
        ..run(id, 1_000, "main", &["ci"])
    }
}

fn only_run(b: &dyn Backend) -> serde_json::Value {
    let h = b.open().history(&RunQuery::default()).unwrap();
    assert_eq!(h["runs"].as_array().unwrap().len(), 1, "{h}");
    h["runs"][0].clone()
}

pub fn shards_of_one_run_interleave_into_one_run(b: &dyn Backend) {
    let (mut s1, mut s2) = (b.open(), b.open());
    s1.begin_run(&shard("shr001", 1, 2)).unwrap();
    s2.begin_run(&shard("shr001", 2, 2)).unwrap();
    s1.add_items("shr001", vec![item(0, 1.0)], true).unwrap();
    s2.add_items("shr001", vec![item(1, 0.0)], true).unwrap();
    s1.add_items("shr001", vec![item(2, 1.0)], true).unwrap();
    s2.add_items("shr001", vec![item(3, 1.0)], true).unwrap();
    let r = only_run(b);
    assert_eq!(r["status"], "running");
    assert_eq!(r["shards"], json!({ "total": 2, "finished": 0 }));
    assert_eq!(
        r["scorers"][0]["n"], 4,
        "partial statistics over both shards: {r}"
    );

    s1.finish_run("shr001", &summary(&[1.0, 1.0]), 2_000)
        .unwrap();
    let r = only_run(b);
    assert_eq!(r["status"], "running", "one shard of two finished: {r}");
    assert_eq!(r["shards"]["finished"], 1);
    assert!(r["outcome"].is_null());
    let again = b.open().begin_run(&shard("shr001", 1, 2)).unwrap_err();
    assert_eq!(again.code, "OXEVAL_STORE_SHARD");
    assert!(
        again.message.contains("shard 1/2 has already finished"),
        "{}",
        again.message
    );

    s2.finish_run("shr001", &summary(&[0.0, 1.0]), 3_000)
        .unwrap();
    let r = only_run(b);
    assert_eq!(r["status"], "finished");
    assert_eq!(r["shards"], json!({ "total": 2, "finished": 2 }));
    assert_eq!(r["outcome"], "passed");
    assert_eq!(r["tags"], json!(["ci"]));
    let sc = &r["scorers"][0];
    assert_eq!(
        sc["n"], 4,
        "the run's statistics are over every shard's items: {r}"
    );
    assert!((sc["mean"].as_f64().unwrap() - 0.75).abs() < 1e-12);
    assert_eq!(
        b.count("SELECT COUNT(*) FROM items WHERE run_id = 'shr001'"),
        4
    );
    let info = b.open().run_info("shr001").unwrap();
    assert_eq!(info["items"], 4);
    assert_eq!(info["outcomeDetail"]["status"], "passed");
}

pub fn a_shard_whose_owner_died_interrupts_its_run(b: &dyn Backend) {
    let (mut s1, mut s2) = (b.open(), b.open());
    s1.begin_run(&shard("shr002", 1, 2)).unwrap();
    s2.begin_run(&shard("shr002", 2, 2)).unwrap();
    s1.add_items("shr002", vec![item(0, 1.0)], true).unwrap();
    s2.finish_run("shr002", &summary(&[]), 2_000).unwrap();
    assert_eq!(only_run(b)["status"], "running");
    // shard 1's process is gone (a pid that cannot exist, on this host)
    b.exec("UPDATE run_shards SET owner_pid = 2147483647 WHERE run_id = 'shr002' AND shard = 1");
    let r = only_run(b);
    if cfg!(target_os = "linux") {
        assert_eq!(r["status"], "interrupted", "{r}");
    }
    assert_eq!(r["shards"], json!({ "total": 2, "finished": 1 }));
    // the dead shard may be run again: its items are replaced, then the run finishes
    let mut s3 = b.open();
    s3.begin_run(&shard("shr002", 1, 2)).unwrap();
    s3.add_items("shr002", vec![item(0, 0.0)], true).unwrap();
    s3.finish_run("shr002", &summary(&[0.0]), 4_000).unwrap();
    let r = only_run(b);
    assert_eq!(r["status"], "finished");
    assert_eq!(r["scorers"][0]["n"], 1);
    assert_eq!(r["scorers"][0]["mean"], 0.0);
    assert_eq!(
        r["outcome"], "scored",
        "the threshold 0.5 is missed over all shards: {r}"
    );
}

pub fn a_shard_out_of_range_or_of_another_run_is_refused(b: &dyn Backend) {
    let mut s = b.open();
    s.begin_run(&shard("shr003", 1, 2)).unwrap();
    let out = b.open().begin_run(&shard("shr003", 3, 2)).unwrap_err();
    assert_eq!(out.code, "OXEVAL_STORE_SHARD");
    assert!(
        out.message.contains("3/2 is out of range"),
        "{}",
        out.message
    );
    let other_n = b.open().begin_run(&shard("shr003", 2, 3)).unwrap_err();
    assert!(
        other_n.message.contains("has 2 shards"),
        "{}",
        other_n.message
    );
    let busy = b.open().begin_run(&shard("shr003", 1, 2)).unwrap_err();
    assert!(
        busy.message.contains("being recorded by another process"),
        "{}",
        busy.message
    );
    // an unsharded run's id is neither reused nor joined by shards
    super::contract::record(s.as_mut(), "plain1", 5_000, "main", &[1.0]);
    let reused = b
        .open()
        .begin_run(&run("plain1", 6_000, "main", &[]))
        .unwrap_err();
    assert_eq!(reused.code, "OXEVAL_STORE_SHARD");
    assert!(
        reused.message.contains("already recorded"),
        "{}",
        reused.message
    );
    let joined = b.open().begin_run(&shard("plain1", 1, 2)).unwrap_err();
    assert!(
        joined.message.contains("unsharded run"),
        "{}",
        joined.message
    );
    assert_eq!(
        b.count("SELECT COUNT(*) FROM run_shards WHERE run_id = 'shr003'"),
        1
    );
}
