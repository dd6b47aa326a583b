use super::*;
use crate::store::jsonl::{export_to, import_file};
use crate::store::{new_run_id, recorder::Recorder};
use serde_json::json;
use std::path::PathBuf;

/// A fresh directory under the system's temp directory (removed on drop).
struct Dir(PathBuf);
impl Dir {
    fn new() -> Dir {
        let d = std::env::temp_dir().join(format!("oxeval-store-test-{}", new_run_id()));
        std::fs::create_dir_all(&d).unwrap();
        Dir(d)
    }
    fn db(&self) -> PathBuf {
        self.0.join("sub").join("store.db")
    }
}
impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn run(id: &str, at: i64, branch: &str, tags: &[&str]) -> NewRun {
    NewRun {
        id: id.into(),
        started_at_ms: at,
        git_branch: Some(branch.into()),
        git_commit: Some(format!("c-{id}")),
        tags: tags.iter().map(|t| t.to_string()).collect(),
        dataset_fingerprint: Some("ds1".into()),
        judge_models: json!({ "faith": "openai/gpt-4o-mini" }),
        header: json!({ "scorers": [{ "id": "faith", "threshold": 0.5 }], "scorerInfo": { "faith": { "scale": 1 } } }),
        store_prompts: true,
        ..NewRun::default()
    }
}

fn item(k: i64, score: f64) -> Value {
    json!({ "index": k, "id": format!("q{k}"), "input": "in", "output": "out",
        "results": { "faith": { "score": score, "reason": "r", "analyzePrompt": "PROMPT shared",
            "judge": { "analyze": { "executions": [{ "prompt": format!("PROMPT {k}") }] } } } },
        "usage": { "faith": { "totalTokens": 7 } }, "durationMs": 3.0 })
}

fn summary(scores: &[f64]) -> Value {
    let s = crate::evals::stats(scores, 1.0);
    json!({ "stats": { "faith": s }, "outcome": { "status": "passed", "passed": true }, "durationMs": 5 })
}

fn record(store: &mut SqliteStore, id: &str, at: i64, branch: &str, scores: &[f64]) {
    store.begin_run(&run(id, at, branch, &["nightly"])).unwrap();
    let items: Vec<Value> = scores
        .iter()
        .enumerate()
        .map(|(k, s)| item(k as i64, *s))
        .collect();
    store.add_items(id, items, true).unwrap();
    store.finish_run(id, &summary(scores), at + 5).unwrap();
}

#[test]
fn a_run_round_trips_through_history_item_history_and_export() {
    let dir = Dir::new();
    let mut s = SqliteStore::open(&dir.db()).unwrap();
    record(&mut s, "aaa111", 1_000, "main", &[1.0, 0.0, 1.0]);
    record(&mut s, "bbb222", 2_000, "feature", &[1.0, 1.0, 1.0]);
    let h = s.history(&RunQuery::default()).unwrap();
    let runs = h["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0]["id"], "bbb222", "newest first");
    assert_eq!(runs[1]["status"], "finished");
    assert_eq!(runs[1]["outcome"], "passed");
    assert_eq!(runs[1]["tags"], json!(["nightly"]));
    let sc = &runs[1]["scorers"][0];
    assert_eq!(
        (sc["id"].as_str(), sc["n"].as_i64()),
        (Some("faith"), Some(3))
    );
    assert!((sc["mean"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-12);
    assert_eq!(sc["ci95"].as_array().unwrap().len(), 2);
    let only_main = s
        .history(&RunQuery {
            branch: Some("main".into()),
            ..RunQuery::default()
        })
        .unwrap();
    assert_eq!(only_main["runs"].as_array().unwrap().len(), 1);
    let last = s
        .history(&RunQuery {
            last: Some(1),
            ..RunQuery::default()
        })
        .unwrap();
    assert_eq!(last["runs"][0]["id"], "bbb222");
    assert_eq!(
        s.history(&RunQuery {
            scorer: Some("nope".into()),
            ..RunQuery::default()
        })
        .unwrap()["runs"],
        json!([])
    );

    let ih = s.item_history("q1", &RunQuery::default()).unwrap();
    assert_eq!(ih["item"], "q1");
    assert_eq!(ih["runs"][0]["scores"], json!({ "faith": 1.0 }));
    assert_eq!(ih["runs"][1]["scores"], json!({ "faith": 0.0 }));

    let mut out = Vec::new();
    export_to(&mut s, "aaa", &mut out).unwrap();
    let lines: Vec<Value> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 5);
    assert_eq!(lines[0]["type"], "run");
    assert_eq!(lines[2]["type"], "item");
    assert_eq!(lines[2]["results"]["faith"]["score"], 0.0);
    assert_eq!(
        lines[2]["results"]["faith"]["analyzePrompt"],
        "PROMPT shared"
    );
    assert_eq!(
        lines[2]["results"]["faith"]["judge"]["analyze"]["executions"][0]["prompt"],
        "PROMPT 1"
    );
    assert_eq!(lines[4]["type"], "summary");
    // the shared prompt is kept once: 1 shared + 3 per-item texts
    let n: i64 = s
        .conn
        .query_row("SELECT COUNT(*) FROM prompts", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 4);
}

#[test]
fn a_run_whose_process_died_is_interrupted_with_its_items() {
    let dir = Dir::new();
    let mut s = SqliteStore::open(&dir.db()).unwrap();
    s.begin_run(&run("dead", 1_000, "main", &[])).unwrap();
    s.add_items("dead", vec![item(0, 1.0), item(1, 0.0)], true)
        .unwrap();
    s.begin_run(&run("alive", 2_000, "main", &[])).unwrap();
    // the owner of "dead" is a pid that does not exist (as after a SIGKILL)
    s.conn
        .execute(
            "UPDATE runs SET owner_pid = 2147483646 WHERE id = 'dead'",
            [],
        )
        .unwrap();
    let h = s.history(&RunQuery::default()).unwrap();
    assert_eq!(h["runs"][0]["status"], "running");
    if cfg!(target_os = "linux") {
        assert_eq!(h["runs"][1]["status"], "interrupted");
    }
    assert_eq!(h["runs"][1]["scorers"][0]["n"], 2);
    assert_eq!(h["runs"][1]["scorers"][0]["mean"], 0.5);
    // never a baseline
    assert!(s.resolve_run("main", Some("ds1")).is_err());
}

#[test]
fn a_newer_schema_is_refused_and_a_damaged_file_is_an_error() {
    let dir = Dir::new();
    drop(SqliteStore::open(&dir.db()).unwrap());
    let c = Connection::open(dir.db()).unwrap();
    c.execute("UPDATE schema_version SET version = 99", [])
        .unwrap();
    drop(c);
    let e = SqliteStore::open(&dir.db()).err().unwrap();
    assert_eq!(e.code, "OXEVAL_STORE_NEWER");
    assert!(
        e.message.contains("version 99") && e.message.contains("newer oxeval"),
        "{}",
        e.message
    );

    let junk = dir.0.join("junk.db");
    std::fs::write(&junk, b"this is not a database, it is a text file of some length ....................................").unwrap();
    let e = SqliteStore::open(&junk).err().unwrap();
    assert_eq!(e.code, "OXEVAL_STORE_CORRUPT", "{}", e.message);
    assert!(e.message.contains("junk.db"));

    let under_file = junk.join("store.db");
    let e = SqliteStore::open(&under_file).err().unwrap();
    assert_eq!(e.code, "OXEVAL_STORE_OPEN");
}

#[test]
fn a_fixture_of_every_previous_version_migrates() {
    // version 0: an empty file (as `touch .oxeval/store.db`); version 1 is current
    let dir = Dir::new();
    std::fs::create_dir_all(dir.db().parent().unwrap()).unwrap();
    std::fs::write(dir.db(), b"").unwrap();
    let mut s = SqliteStore::open(&dir.db()).unwrap();
    assert_eq!(s.version().unwrap(), Some(SCHEMA_VERSION));
    record(&mut s, "r1", 1, "main", &[1.0]);
    drop(s);
    let mut again = SqliteStore::open(&dir.db()).unwrap();
    assert_eq!(
        again.history(&RunQuery::default()).unwrap()["runs"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn concurrent_writers_each_get_a_complete_run() {
    let dir = Dir::new();
    let path = dir.db();
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let path = path.clone();
            std::thread::spawn(move || {
                let store = Box::new(SqliteStore::open(&path).unwrap());
                let mut s2 = store;
                let id = format!("w{t}");
                s2.begin_run(&run(&id, t, "main", &[])).unwrap();
                let rec = Recorder::with_store(s2, run(&id, t, "main", &[]));
                for k in 0..300 {
                    rec.item(item(k, (k % 2) as f64).to_string());
                }
                rec.finish(summary(&[0.5]).to_string(), 10).unwrap();
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let mut s = SqliteStore::open(&path).unwrap();
    let h = s.history(&RunQuery::default()).unwrap();
    assert_eq!(h["runs"].as_array().unwrap().len(), 4);
    for t in 0..4 {
        let n: i64 = s
            .conn
            .query_row(
                "SELECT COUNT(*) FROM items WHERE run_id = ?1",
                [format!("w{t}")],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(n, 300);
        assert_eq!(s.run_info(&format!("w{t}")).unwrap()["status"], "finished");
    }
}

#[test]
fn baselines_by_name() {
    let dir = Dir::new();
    let mut s = SqliteStore::open(&dir.db()).unwrap();
    record(&mut s, "m1old", 1_000, "main", &[1.0]);
    record(&mut s, "m2new", 2_000, "main", &[1.0]);
    record(&mut s, "f1", 3_000, "feature", &[1.0]);
    assert_eq!(s.resolve_run("main", Some("ds1")).unwrap(), "m2new");
    assert_eq!(s.resolve_run("branch:feature", None).unwrap(), "f1");
    assert_eq!(s.resolve_run("tag:nightly", None).unwrap(), "f1");
    assert_eq!(s.resolve_run("run:m1", None).unwrap(), "m1old");
    assert_eq!(
        s.resolve_run("run:m", None).unwrap_err().code,
        "OXEVAL_STORE_INVALID"
    );
    assert_eq!(
        s.resolve_run("main", Some("other-data")).unwrap_err().code,
        "OXEVAL_STORE_NOT_FOUND"
    );
    assert_eq!(
        s.resolve_run("what:x", None).unwrap_err().code,
        "OXEVAL_STORE_INVALID"
    );
}

#[test]
fn flaky_items_are_the_ones_whose_verdict_flips() {
    let dir = Dir::new();
    let mut s = SqliteStore::open(&dir.db()).unwrap();
    // q0 flips every run, q1 once, q2 never
    record(&mut s, "r1", 1, "main", &[1.0, 1.0, 1.0]);
    record(&mut s, "r2", 2, "main", &[0.0, 1.0, 1.0]);
    record(&mut s, "r3", 3, "main", &[1.0, 0.0, 1.0]);
    let f = s.flaky(&RunQuery::default()).unwrap();
    assert_eq!(f["dataset"], "ds1");
    assert_eq!(f["runs"], json!(["r1", "r2", "r3"]));
    let items = f["items"].as_array().unwrap();
    assert_eq!(items.len(), 2);
    assert_eq!(
        (items[0]["item"].as_str(), items[0]["flips"].as_u64()),
        (Some("q0"), Some(2))
    );
    assert_eq!(items[0]["verdicts"], json!(["pass", "fail", "pass"]));
    assert_eq!(
        (items[1]["item"].as_str(), items[1]["flips"].as_u64()),
        (Some("q1"), Some(1))
    );
}

#[test]
fn prune_keeps_the_newest_and_drops_unused_prompts() {
    let dir = Dir::new();
    let mut s = SqliteStore::open(&dir.db()).unwrap();
    for k in 0..5 {
        record(
            &mut s,
            &format!("r{k}"),
            k * 86_400_000,
            "main",
            &[1.0, 0.0],
        );
    }
    assert_eq!(
        s.prune(&Prune {
            keep: Some(3),
            before_ms: None
        })
        .unwrap(),
        2
    );
    assert_eq!(
        s.prune(&Prune {
            keep: None,
            before_ms: Some(3 * 86_400_000)
        })
        .unwrap(),
        1
    );
    let ids: Vec<String> = s.history(&RunQuery::default()).unwrap()["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, ["r4", "r3"]);
    let orphans: i64 = s
        .conn
        .query_row(
            "SELECT COUNT(*) FROM results WHERE run_id NOT IN (SELECT id FROM runs)",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(orphans, 0);
    // prompts still used are kept (the shared one and two per-item ones)
    let n: i64 = s
        .conn
        .query_row("SELECT COUNT(*) FROM prompts", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 3);
    assert_eq!(
        s.prune(&Prune::default()).unwrap_err().code,
        "OXEVAL_STORE_INVALID"
    );
}

#[test]
fn import_is_idempotent_and_a_file_without_summary_is_interrupted() {
    let dir = Dir::new();
    let mut s = SqliteStore::open(&dir.db()).unwrap();
    let file = dir.0.join("run.jsonl");
    let header = json!({ "type": "run", "version": "0.1.0", "scorers": [{ "id": "faith" }], "startedAt": "2026-12-01T10:00:00.000Z", "dataset": { "sha256": "abc" }, "model": "openai/x", "prompts": "once" });
    let it = json!({ "type": "item", "index": 0, "id": "a", "results": { "faith": { "score": 1, "analyzePrompt": "P", "judge": { "analyze": { "executions": [{ "promptRef": "analyzePrompt" }] } } } } });
    let sm = json!({ "type": "summary", "stats": { "faith": { "n": 1, "mean": 1.0, "ci95": null } }, "outcome": { "status": "passed" } });
    std::fs::write(&file, format!("{header}\n{it}\n{sm}\n")).unwrap();
    let a = import_file(&mut s, &file, &["imported".into()]).unwrap();
    assert_eq!((a.items, a.already), (1, false));
    let b = import_file(&mut s, &file, &[]).unwrap();
    assert_eq!((b.run_id.as_str(), b.already), (a.run_id.as_str(), true));
    let h = s.history(&RunQuery::default()).unwrap();
    assert_eq!(h["runs"].as_array().unwrap().len(), 1);
    assert_eq!(h["runs"][0]["startedAt"], "2026-12-01T10:00:00.000Z");
    assert_eq!(h["runs"][0]["datasetFingerprint"], "abc");
    let mut out = Vec::new();
    export_to(&mut s, &a.run_id, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains(r#""executions":[{"prompt":"P"}]"#), "{text}");

    let partial = dir.0.join("partial.jsonl");
    std::fs::write(
        &partial,
        format!(
            "{}\n{it}\n",
            json!({ "type": "run", "startedAt": "2026-12-02T10:00:00.000Z" })
        ),
    )
    .unwrap();
    let p = import_file(&mut s, &partial, &[]).unwrap();
    assert_eq!(s.run_info(&p.run_id).unwrap()["status"], "interrupted");

    std::fs::write(&partial, "{\"type\":\"item\"}\n").unwrap();
    let e = import_file(&mut s, &partial, &[]).unwrap_err();
    assert!(
        e.message.contains("partial.jsonl:1") && e.message.contains("not a run header"),
        "{}",
        e.message
    );
}
