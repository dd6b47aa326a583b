//! The store's behaviour, the same for every backend: each `pub fn` takes a [`Backend`] (a
//! fresh, empty store and a side door for SQL) and `contract_tests!` makes them `#[test]`s
//! of a backend's test module (sqlite/tests.rs, postgres/tests.rs).

use super::jsonl::{export_to, import_file};
use super::recorder::Recorder;
use super::{NewRun, Prune, RunQuery, Store};
use serde_json::{json, Value};
use std::path::Path;

pub use super::contract_shards::*;

/// A backend under test: one fresh, empty store per test.
pub trait Backend: Sync {
    /// A new connection to the test's store.
    fn open(&self) -> Box<dyn Store>;
    /// The first column of the first row of `sql` (portable SQL) as an integer.
    fn count(&self, sql: &str) -> i64;
    /// Run `sql` (portable SQL) beside the store.
    fn exec(&self, sql: &str);
    /// Whether items are kept packed (SQLite, schema 2: one dictionary per run, no prompt
    /// rows) or as version 1's rows (PostgreSQL: prompts once by digest).
    fn packs_items(&self) -> bool {
        false
    }
    /// A directory for the test's files.
    fn dir(&self) -> &Path;
}

/// `#[test]`s of every behaviour for a backend made by `$make` (an expression giving
/// `Option<impl Backend>`; `None` skips).
#[macro_export]
macro_rules! contract_tests {
    ($make:expr; $($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                if let Some(b) = $make {
                    $crate::store::contract::$name(&b);
                }
            }
        )*
    };
}

pub fn run(id: &str, at: i64, branch: &str, tags: &[&str]) -> NewRun {
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

pub fn item(k: i64, score: f64) -> Value {
    json!({ "index": k, "id": format!("q{k}"), "input": "in", "output": "out",
        "results": { "faith": { "score": score, "reason": "r", "analyzePrompt": "PROMPT shared",
            "judge": { "analyze": { "executions": [{ "prompt": format!("PROMPT {k}") }] } } } },
        "usage": { "faith": { "totalTokens": 7 } }, "durationMs": 3.0 })
}

pub fn summary(scores: &[f64]) -> Value {
    let s = crate::evals::stats(scores, 1.0);
    json!({ "stats": { "faith": s }, "outcome": { "status": "passed", "passed": true }, "durationMs": 5 })
}

pub fn record(store: &mut dyn Store, id: &str, at: i64, branch: &str, scores: &[f64]) {
    store.begin_run(&run(id, at, branch, &["nightly"])).unwrap();
    let items: Vec<Value> = scores
        .iter()
        .enumerate()
        .map(|(k, s)| item(k as i64, *s))
        .collect();
    store.add_items(id, items, true).unwrap();
    store.finish_run(id, &summary(scores), at + 5).unwrap();
}

pub fn a_run_round_trips_through_history_item_history_and_export(b: &dyn Backend) {
    let mut s = b.open();
    record(s.as_mut(), "aaa111", 1_000, "main", &[1.0, 0.0, 1.0]);
    record(s.as_mut(), "bbb222", 2_000, "feature", &[1.0, 1.0, 1.0]);
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
    export_to(s.as_mut(), "aaa", &mut out).unwrap();
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
    if b.packs_items() {
        // one dictionary per run, the item's text in `items.packed`, the results rows only
        // their columns, no prompt rows
        assert_eq!(b.count("SELECT COUNT(*) FROM run_dicts"), 2);
        let loose = "SELECT COUNT(*) FROM items WHERE packed IS NULL OR record != ''";
        assert_eq!(b.count(loose), 0);
        let texts = "SELECT COUNT(*) FROM results WHERE result IS NOT NULL OR usage IS NOT NULL";
        assert_eq!(b.count(texts), 0);
        assert_eq!(b.count("SELECT COUNT(*) FROM prompts"), 0);
    } else {
        // the shared prompt is kept once: 1 shared + 3 per-item texts
        assert_eq!(b.count("SELECT COUNT(*) FROM prompts"), 4);
    }
}

pub fn a_run_whose_process_died_is_interrupted_with_its_items(b: &dyn Backend) {
    let mut s = b.open();
    s.begin_run(&run("dead", 1_000, "main", &[])).unwrap();
    s.add_items("dead", vec![item(0, 1.0), item(1, 0.0)], true)
        .unwrap();
    s.begin_run(&run("alive", 2_000, "main", &[])).unwrap();
    // the owner of "dead" is a pid that does not exist (as after a SIGKILL)
    b.exec("UPDATE runs SET owner_pid = 2147483646 WHERE id = 'dead'");
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

pub fn concurrent_writers_each_get_a_complete_run(b: &dyn Backend) {
    std::thread::scope(|scope| {
        for t in 0..4 {
            scope.spawn(move || {
                let mut s2 = b.open();
                let id = format!("w{t}");
                s2.begin_run(&run(&id, t, "main", &[])).unwrap();
                let rec = Recorder::with_store(s2, run(&id, t, "main", &[]));
                for k in 0..300 {
                    rec.item(item(k, (k % 2) as f64).to_string());
                }
                rec.finish(summary(&[0.5]).to_string(), 10).unwrap();
            });
        }
    });
    let mut s = b.open();
    let h = s.history(&RunQuery::default()).unwrap();
    assert_eq!(h["runs"].as_array().unwrap().len(), 4);
    for t in 0..4 {
        let n = b.count(&format!("SELECT COUNT(*) FROM items WHERE run_id = 'w{t}'"));
        assert_eq!(n, 300);
        assert_eq!(s.run_info(&format!("w{t}")).unwrap()["status"], "finished");
    }
}

pub fn baselines_by_name(b: &dyn Backend) {
    let mut s = b.open();
    record(s.as_mut(), "m1old", 1_000, "main", &[1.0]);
    record(s.as_mut(), "m2new", 2_000, "main", &[1.0]);
    record(s.as_mut(), "f1", 3_000, "feature", &[1.0]);
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

pub fn flaky_items_are_the_ones_whose_verdict_flips(b: &dyn Backend) {
    let mut s = b.open();
    // q0 flips every run, q1 once, q2 never
    record(s.as_mut(), "r1", 1, "main", &[1.0, 1.0, 1.0]);
    record(s.as_mut(), "r2", 2, "main", &[0.0, 1.0, 1.0]);
    record(s.as_mut(), "r3", 3, "main", &[1.0, 0.0, 1.0]);
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

pub fn prune_keeps_the_newest_and_drops_unused_prompts(b: &dyn Backend) {
    let mut s = b.open();
    for k in 0..5 {
        record(
            s.as_mut(),
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
    let orphans = b.count("SELECT COUNT(*) FROM results WHERE run_id NOT IN (SELECT id FROM runs)");
    assert_eq!(orphans, 0);
    if b.packs_items() {
        // the pruned runs' dictionaries go with them
        assert_eq!(b.count("SELECT COUNT(*) FROM run_dicts"), 2);
    } else {
        // prompts still used are kept (the shared one and two per-item ones)
        assert_eq!(b.count("SELECT COUNT(*) FROM prompts"), 3);
    }
    assert_eq!(
        s.prune(&Prune::default()).unwrap_err().code,
        "OXEVAL_STORE_INVALID"
    );
}

pub fn import_is_idempotent_and_a_file_without_summary_is_interrupted(b: &dyn Backend) {
    let mut s = b.open();
    let file = b.dir().join("run.jsonl");
    let header = json!({ "type": "run", "version": "0.1.0", "scorers": [{ "id": "faith" }], "startedAt": "2026-12-01T10:00:00.000Z", "dataset": { "sha256": "abc" }, "model": "openai/x", "prompts": "once" });
    let it = json!({ "type": "item", "index": 0, "id": "a", "results": { "faith": { "score": 1, "analyzePrompt": "P", "judge": { "analyze": { "executions": [{ "promptRef": "analyzePrompt" }] } } } } });
    let sm = json!({ "type": "summary", "stats": { "faith": { "n": 1, "mean": 1.0, "ci95": null } }, "outcome": { "status": "passed" } });
    std::fs::write(&file, format!("{header}\n{it}\n{sm}\n")).unwrap();
    let a = import_file(s.as_mut(), &file, &["imported".into()]).unwrap();
    assert_eq!((a.items, a.already), (1, false));
    let again = import_file(s.as_mut(), &file, &[]).unwrap();
    assert_eq!(
        (again.run_id.as_str(), again.already),
        (a.run_id.as_str(), true)
    );
    let h = s.history(&RunQuery::default()).unwrap();
    assert_eq!(h["runs"].as_array().unwrap().len(), 1);
    assert_eq!(h["runs"][0]["startedAt"], "2026-12-01T10:00:00.000Z");
    assert_eq!(h["runs"][0]["datasetFingerprint"], "abc");
    let mut out = Vec::new();
    export_to(s.as_mut(), &a.run_id, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains(r#""executions":[{"prompt":"P"}]"#), "{text}");

    let partial = b.dir().join("partial.jsonl");
    std::fs::write(
        &partial,
        format!(
            "{}\n{it}\n",
            json!({ "type": "run", "startedAt": "2026-12-02T10:00:00.000Z" })
        ),
    )
    .unwrap();
    let p = import_file(s.as_mut(), &partial, &[]).unwrap();
    assert_eq!(s.run_info(&p.run_id).unwrap()["status"], "interrupted");

    std::fs::write(&partial, "{\"type\":\"item\"}\n").unwrap();
    let e = import_file(s.as_mut(), &partial, &[]).unwrap_err();
    assert!(
        e.message.contains("partial.jsonl:1") && e.message.contains("not a run header"),
        "{}",
        e.message
    );
}
