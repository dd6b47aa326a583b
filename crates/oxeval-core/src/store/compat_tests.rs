//! Stores as earlier oxevals left them: a fixture per released schema version (`fixtures/
//! vN.sql`, the `sqlite3 .dump` of a store that version wrote) opened, migrated and read; a
//! store of a newer version refused; damaged files a clear error; `--out` files with lone
//! surrogate escapes imported.
//!
//! Versions 1 (released), 2 (items packed) and 3 (shards; the current one) have theirs, so the
//! next migration is tested from each. A new version adds its migration in `schema.rs`, keeps every `vN.sql`, adds
//! its own (`OXEVAL_WRITE_STORE_FIXTURE=path cargo test -p oxeval-core write_store_fixture --
//! --ignored`, then `sqlite3 path .dump`) and a line to [`FIXTURES`].

use super::jsonl::{export_to, import_file};
use super::schema::SCHEMA_VERSION;
use super::sqlite::SqliteStore;
use super::{new_run_id, NewRun, RunQuery, Store};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// (version, the SQL that builds a store as that version wrote it).
const FIXTURES: &[(i64, &str)] = &[
    (1, include_str!("fixtures/v1.sql")),
    (2, include_str!("fixtures/v2.sql")),
    (3, include_str!("fixtures/v3.sql")),
];

struct Dir(PathBuf);
impl Dir {
    fn new() -> Dir {
        let d = std::env::temp_dir().join(format!("oxeval-compat-{}", new_run_id()));
        std::fs::create_dir_all(&d).unwrap();
        Dir(d)
    }
}
impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn build(path: &Path, sql: &str) {
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute_batch(sql).unwrap();
}

#[test]
fn every_released_schema_version_opens_migrates_and_reads() {
    assert_eq!(
        FIXTURES.len() as i64,
        SCHEMA_VERSION,
        "a fixture per version"
    );
    for (version, sql) in FIXTURES {
        let dir = Dir::new();
        let path = dir.0.join(format!("v{version}.db"));
        build(&path, sql);
        let mut s = SqliteStore::open(&path).unwrap_or_else(|e| panic!("v{version}: {e}"));
        let h = s.history(&RunQuery::default()).unwrap();
        let runs = h["runs"].as_array().unwrap();
        let ids: Vec<&str> = runs.iter().map(|r| r["id"].as_str().unwrap()).collect();
        assert_eq!(
            ids,
            ["a3c0ffee0003", "a2c0ffee0002", "a1c0ffee0001"],
            "v{version}"
        );
        assert_eq!(runs[0]["status"], "interrupted", "v{version}: no summary");
        assert_eq!(runs[1]["tags"], json!(["nightly"]));
        assert_eq!(runs[1]["scorers"][0]["mean"], 0.5);
        assert_eq!(runs[2]["branch"], "main");
        assert_eq!(s.resolve_run("main", Some("ds1")).unwrap(), "a2c0ffee0002");
        let item = s.item_history("q1", &RunQuery::default()).unwrap();
        assert_eq!(
            item["runs"][0]["scores"]["faith"], 0.0,
            "v{version}: {item}"
        );
        let mut out = Vec::new();
        export_to(&mut s, "a2c0ffee0002", &mut out).unwrap();
        let lines: Vec<Value> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 4, "header, 2 items, summary");
        let prompt = &lines[1]["results"]["faith"]["judge"]["analyze"]["executions"][0]["prompt"];
        assert_eq!(prompt, "PROMPT 0", "v{version}: prompts restored in full");
        // and it takes new runs at the current version
        s.begin_run(&run("b0c0ffee0004", 40, "main")).unwrap();
        s.add_items("b0c0ffee0004", vec![item_json(0, 1.0)], true)
            .unwrap();
        drop(s);
        let c = rusqlite::Connection::open(&path).unwrap();
        let v: i64 = c
            .query_row("SELECT MAX(version) FROM schema_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v, SCHEMA_VERSION);
    }
}

#[test]
fn a_store_of_a_newer_version_is_refused_with_the_message() {
    let dir = Dir::new();
    let path = dir.0.join("newer.db");
    build(&path, FIXTURES[FIXTURES.len() - 1].1);
    let c = rusqlite::Connection::open(&path).unwrap();
    c.execute(
        "INSERT INTO schema_version (version) VALUES (?1)",
        [SCHEMA_VERSION + 1],
    )
    .unwrap();
    drop(c);
    let e = super::open(path.to_str().unwrap()).err().unwrap();
    assert_eq!(e.code, "OXEVAL_STORE_NEWER");
    let want = format!(
        "its schema is version {}, made by a newer oxeval",
        SCHEMA_VERSION + 1
    );
    assert!(
        e.message.contains(&want) && e.message.contains("upgrade oxeval"),
        "{}",
        e.message
    );
}

/// A damaged file: a clear store error naming the file (at open, or at the first read), never
/// a panic.
fn clear_error(path: &Path) -> super::StoreError {
    let e = match super::open(path.to_str().unwrap()) {
        Err(e) => e,
        Ok(mut s) => s
            .history(&RunQuery::default())
            .and_then(|_| s.export_run("a2c0ffee0002", &mut |_| Ok(())))
            .expect_err("a damaged store cannot answer everything"),
    };
    assert!(e.code.starts_with("OXEVAL_STORE_"), "{e:?}");
    assert!(
        e.message.contains(&path.display().to_string()),
        "{}",
        e.message
    );
    e
}

#[test]
fn random_bytes_and_a_truncated_store_are_clear_errors() {
    let dir = Dir::new();
    let noise = dir.0.join("noise.db");
    let mut rng = fastrand::Rng::with_seed(35);
    let bytes: Vec<u8> = (0..8192).map(|_| rng.u8(..)).collect();
    std::fs::write(&noise, bytes).unwrap();
    let e = clear_error(&noise);
    assert_eq!(e.code, "OXEVAL_STORE_CORRUPT", "{}", e.message);

    let whole = dir.0.join("whole.db");
    build(&whole, FIXTURES[0].1);
    let c = rusqlite::Connection::open(&whole).unwrap();
    c.execute_batch("PRAGMA journal_mode = DELETE; VACUUM;")
        .unwrap();
    drop(c);
    let full = std::fs::read(&whole).unwrap();
    for keep in [100, 4096, full.len() / 2] {
        let cut = dir.0.join(format!("cut-{keep}.db"));
        std::fs::write(&cut, &full[..keep]).unwrap();
        let e = clear_error(&cut);
        assert!(
            e.code == "OXEVAL_STORE_CORRUPT" || e.code == "OXEVAL_STORE_OPEN",
            "{keep}: {e:?}"
        );
    }
}

#[test]
fn an_out_file_with_lone_surrogates_imports_as_the_replacement_character() {
    let dir = Dir::new();
    let mut s = SqliteStore::open(&dir.0.join("s.db")).unwrap();
    let file = dir.0.join("run.jsonl");
    // what JSON.stringify writes for 'cut \ud83d' and a lone low surrogate
    let text = concat!(
        r#"{"type":"run","startedAt":"2026-12-01T10:00:00.000Z","scorers":[{"id":"faith"}],"name":"x\ud800"}"#,
        "\n",
        r#"{"type":"item","index":0,"id":"a","output":"cut \ud83d","results":{"faith":{"score":1,"reason":"\udc00 ok \ud83d\ude00"}}}"#,
        "\n",
        r#"{"type":"summary","stats":{"faith":{"n":1,"mean":1.0}},"outcome":{"status":"passed"}}"#,
        "\n"
    );
    std::fs::write(&file, text).unwrap();
    let i = import_file(&mut s, &file, &[]).unwrap();
    assert_eq!((i.items, i.replaced, i.already), (1, 3, false));
    let mut out = Vec::new();
    export_to(&mut s, &i.run_id, &mut out).unwrap();
    let lines: Vec<Value> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[1]["output"], "cut \u{fffd}");
    assert_eq!(
        lines[1]["results"]["faith"]["reason"],
        "\u{fffd} ok \u{1f600}"
    );
    // idempotent by the header's text as written
    assert!(import_file(&mut s, &file, &[]).unwrap().already);
}

fn run(id: &str, at: i64, branch: &str) -> NewRun {
    NewRun {
        id: id.into(),
        started_at_ms: at,
        git_branch: Some(branch.into()),
        git_commit: Some(format!("c-{id}")),
        dataset_fingerprint: Some("ds1".into()),
        judge_models: json!({ "faith": "openai/gpt-4o-mini" }),
        header: json!({ "type": "run", "version": "0.1.0", "scorers": [{ "id": "faith", "threshold": 0.5 }], "scorerInfo": { "faith": { "scale": 1 } } }),
        store_prompts: true,
        ..NewRun::default()
    }
}

fn item_json(k: i64, score: f64) -> Value {
    json!({ "index": k, "id": format!("q{k}"), "input": "in", "output": "out",
        "results": { "faith": { "score": score, "reason": "r", "analyzePrompt": format!("PROMPT {k}"),
            "judge": { "analyze": { "executions": [{ "prompt": format!("PROMPT {k}") }] } } } },
        "usage": { "faith": { "totalTokens": 7 } }, "durationMs": 3.0 })
}

/// Writes the current version's fixture store to `$OXEVAL_WRITE_STORE_FIXTURE` (then
/// `sqlite3 FILE .dump > fixtures/vN.sql`): three runs, one with a tag, one without summary.
#[test]
#[ignore]
fn write_store_fixture() {
    let path = PathBuf::from(std::env::var("OXEVAL_WRITE_STORE_FIXTURE").unwrap());
    let mut s = SqliteStore::open(&path).unwrap();
    for (id, at, scores, tags) in [
        ("a1c0ffee0001", 1_796_000_000_000, [1.0, 1.0], vec![]),
        (
            "a2c0ffee0002",
            1_796_000_100_000,
            [1.0, 0.0],
            vec!["nightly".to_string()],
        ),
    ] {
        s.begin_run(&NewRun {
            tags,
            ..run(id, at, "main")
        })
        .unwrap();
        let items = scores
            .iter()
            .enumerate()
            .map(|(k, x)| item_json(k as i64, *x))
            .collect();
        s.add_items(id, items, true).unwrap();
        let st = crate::evals::stats(&scores, 1.0);
        let summary = json!({ "stats": { "faith": st }, "outcome": { "status": "passed", "passed": true }, "durationMs": 5 });
        s.finish_run(id, &summary, at + 5).unwrap();
    }
    let mut died = run("a3c0ffee0003", 1_796_000_200_000, "feature");
    died.tags = vec![];
    s.begin_run(&died).unwrap();
    s.add_items("a3c0ffee0003", vec![item_json(0, 0.5)], true)
        .unwrap();
    s.finish_run(
        "a3c0ffee0003",
        &json!({ "aborted": true }),
        1_796_000_200_000,
    )
    .unwrap();
}
