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
    // packed (schema 2): one dictionary per run, the item's text in `items.packed`, the
    // results rows only their columns, no prompt rows
    let count = |sql: &str| -> i64 { s.conn.query_row(sql, [], |r| r.get(0)).unwrap() };
    assert_eq!(count("SELECT COUNT(*) FROM run_dicts"), 2);
    assert_eq!(
        count("SELECT COUNT(*) FROM items WHERE packed IS NULL OR record != ''"),
        0
    );
    assert_eq!(
        count("SELECT COUNT(*) FROM results WHERE result IS NOT NULL OR usage IS NOT NULL"),
        0
    );
    assert_eq!(count("SELECT COUNT(*) FROM prompts"), 0);
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
    // the pruned runs' dictionaries go with them
    let n: i64 = s
        .conn
        .query_row("SELECT COUNT(*) FROM run_dicts", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 2);
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

/// A version-1 store with one run ("v1run") of `items`, written as version 1 wrote it
/// (record and result texts, prompts once by digest).
fn v1_fixture(path: &std::path::Path, items: &[Value]) {
    use crate::store::rows::item_rows;
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let c = Connection::open(path).unwrap();
    c.execute_batch(crate::store::schema::MIGRATIONS[0])
        .unwrap();
    c.execute_batch("CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (1);").unwrap();
    c.execute("INSERT INTO runs (id, started_at, status, git_branch, dataset_fp, header) VALUES ('v1run', 1, 'finished', 'main', 'ds1', '{}')", []).unwrap();
    for it in items {
        let rows = item_rows(it.clone(), &Redactor::default(), true).unwrap();
        c.execute(
            "INSERT INTO items (run_id, idx, item_id, record) VALUES ('v1run', ?1, ?2, ?3)",
            params![rows.index, rows.item_id, rows.record],
        )
        .unwrap();
        for r in &rows.results {
            c.execute("INSERT INTO results (run_id, idx, item_id, scorer, score, reason, error, usage, latency_ms, result) VALUES ('v1run', ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                params![rows.index, rows.item_id, r.scorer, r.score, r.reason, r.error, r.usage, r.latency_ms, r.result]).unwrap();
        }
        for (d, t) in &rows.prompts {
            c.execute(
                "INSERT OR IGNORE INTO prompts (digest, text) VALUES (?1, ?2)",
                params![d, t],
            )
            .unwrap();
            c.execute(
                "INSERT OR IGNORE INTO run_prompts (run_id, digest) VALUES ('v1run', ?1)",
                params![d],
            )
            .unwrap();
        }
    }
}

fn exported_items(s: &mut SqliteStore, run: &str) -> Vec<String> {
    let mut out = Vec::new();
    export_to(s, run, &mut out).unwrap();
    String::from_utf8(out)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with(r#"{"type":"item""#))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_version_1_store_migrates_and_exports_what_the_packed_rows_export() {
    // items of every shape the rows know: prompts by step key, a promptRef (an --out
    // import), an error-only scorer, a turns item, a result that is not an object
    let items = vec![
        item(0, 1.0),
        json!({ "index": 1, "id": "b", "z": 1, "results": { "faith": { "score": 1, "analyzePrompt": "P", "judge": { "analyze": { "executions": [{ "promptRef": "analyzePrompt", "status": "success" }] } } } }, "a": 2 }),
        json!({ "index": 2, "results": { "faith": null }, "errors": { "rel": { "code": "X", "message": "m" } } }),
        json!({ "index": 3, "turns": [{ "results": { "faith": { "score": 0, "analyzePrompt": "T" } } }], "results": {} }),
    ];
    let dir = Dir::new();
    v1_fixture(&dir.db(), &items);
    let mut s = SqliteStore::open(&dir.db()).unwrap();
    assert_eq!(s.version().unwrap(), Some(2));
    let old = exported_items(&mut s, "v1run");
    assert_eq!(old.len(), 4);
    // the same items recorded now (packed, through the recorder's texts) export the same lines
    s.begin_run(&run("v2run", 2, "main", &[])).unwrap();
    let texts = items.iter().map(Value::to_string).collect();
    s.add_item_texts("v2run", texts, true).unwrap();
    assert_eq!(exported_items(&mut s, "v2run"), old);
    // and the columns the reads use agree
    let cols = |s: &SqliteStore, run: &str| -> Vec<(i64, String, String, Option<f64>, bool)> {
        let mut st = s.conn.prepare("SELECT idx, item_id, scorer, score, error IS NOT NULL FROM results WHERE run_id = ?1 ORDER BY idx, scorer").unwrap();
        st.query_map([run], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect()
    };
    assert_eq!(cols(&s, "v2run"), cols(&s, "v1run"));
    // pruning the version-1 run drops its prompts
    s.prune(&Prune {
        keep: Some(1),
        before_ms: None,
    })
    .unwrap();
    let n: i64 = s
        .conn
        .query_row("SELECT COUNT(*) FROM prompts", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 0);
    assert_eq!(exported_items(&mut s, "v2run").len(), 4);
}

#[test]
fn secrets_and_dropped_prompts_take_the_slow_road_and_still_export() {
    let dir = Dir::new();
    let mut s = SqliteStore::open(&dir.db()).unwrap();
    s.redactor = Redactor::new(["sk-secret-value-123"]);
    s.begin_run(&run("sec", 1, "main", &[])).unwrap();
    let mut it = item(0, 0.5);
    it["input"] = json!("key sk-secret-value-123 here");
    s.add_item_texts("sec", vec![it.to_string(), "not json".into()], true)
        .unwrap_err();
    s.add_item_texts("sec", vec![it.to_string()], true).unwrap();
    let lines = exported_items(&mut s, "sec");
    assert!(!lines[0].contains("sk-secret") && lines[0].contains("[redacted]"));
    assert!(lines[0].contains("PROMPT 0"));
    s.begin_run(&run("np", 2, "main", &[])).unwrap();
    s.add_item_texts("np", vec![item(0, 0.5).to_string()], false)
        .unwrap();
    let lines = exported_items(&mut s, "np");
    assert!(!lines[0].contains("PROMPT") && lines[0].contains("\"score\":0.5"));
    // a damaged packed item is a read error, never a panic
    s.conn
        .execute(
            "UPDATE items SET packed = x'00112233' WHERE run_id = 'np'",
            [],
        )
        .unwrap();
    let mut out = Vec::new();
    assert_eq!(
        export_to(&mut s, "np", &mut out).unwrap_err().code,
        "OXEVAL_STORE_READ"
    );
}

#[test]
fn a_recorder_dropped_without_finish_still_writes_what_it_was_given() {
    let dir = Dir::new();
    let mut s = Box::new(SqliteStore::open(&dir.db()).unwrap());
    s.begin_run(&run("dropped", 1, "main", &[])).unwrap();
    // fewer items than wake the writer, and more than one batch: both are written
    let rec = Recorder::with_store(s, run("dropped", 1, "main", &[]));
    for k in 0..3 {
        rec.item(item(k, 1.0).to_string());
    }
    drop(rec);
    let s = Box::new(SqliteStore::open(&dir.db()).unwrap());
    s.conn
        .execute(
            "INSERT INTO runs (id, started_at, status) VALUES ('big', 2, 'running')",
            [],
        )
        .unwrap();
    let rec = Recorder::with_store(s, run("big", 2, "main", &[]));
    for k in 0..1200 {
        rec.item(item(k, 0.0).to_string());
    }
    rec.finish(summary(&[0.0]).to_string(), 3).unwrap();
    let s = SqliteStore::open(&dir.db()).unwrap();
    let n = |run: &str| -> i64 {
        s.conn
            .query_row("SELECT COUNT(*) FROM items WHERE run_id = ?1", [run], |r| {
                r.get(0)
            })
            .unwrap()
    };
    assert_eq!((n("dropped"), n("big")), (3, 1200));
}
