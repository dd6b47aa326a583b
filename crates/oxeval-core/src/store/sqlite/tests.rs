use super::*;
use crate::redact::Redactor;
use crate::store::contract::{item, record, run, summary, Backend};
use crate::store::jsonl::export_to;
use crate::store::new_run_id;
use crate::store::recorder::Recorder;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

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

/// The SQLite backend under the behaviour tests: a fresh file per test.
impl Backend for Dir {
    fn open(&self) -> Box<dyn Store> {
        Box::new(SqliteStore::open(&self.db()).unwrap())
    }
    fn count(&self, sql: &str) -> i64 {
        Connection::open(self.db())
            .unwrap()
            .query_row(sql, [], |r| r.get(0))
            .unwrap()
    }
    fn exec(&self, sql: &str) {
        Connection::open(self.db())
            .unwrap()
            .execute(sql, [])
            .unwrap();
    }
    fn packs_items(&self) -> bool {
        true
    }
    fn dir(&self) -> &Path {
        &self.0
    }
}

crate::contract_tests!(Some(Dir::new());
    a_run_round_trips_through_history_item_history_and_export,
    a_run_whose_process_died_is_interrupted_with_its_items,
    concurrent_writers_each_get_a_complete_run,
    baselines_by_name,
    flaky_items_are_the_ones_whose_verdict_flips,
    prune_keeps_the_newest_and_drops_unused_prompts,
    import_is_idempotent_and_a_file_without_summary_is_interrupted,
    shards_of_one_run_interleave_into_one_run,
    a_shard_whose_owner_died_interrupts_its_run,
    a_shard_out_of_range_or_of_another_run_is_refused,
);

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
    // version 0: an empty file (as `touch .oxeval/store.db`); the fixture of version 1 is
    // store/fixtures/v1.sql (compat_tests.rs)
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
    assert_eq!(s.version().unwrap(), Some(SCHEMA_VERSION));
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
