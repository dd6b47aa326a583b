//! The PostgreSQL backend under the behaviour tests (`store::contract`), each test in a
//! schema of its own in the database `$OXEVAL_TEST_POSTGRES_URL` names
//! (scripts/pg-test-server.sh starts one). Without the variable the tests skip, unless `CI`
//! is set: then they fail.

use super::*;
use crate::store::contract::{record, Backend};
use crate::store::new_run_id;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

struct Pg {
    url: String,
    schema: String,
    dir: PathBuf,
    admin: Mutex<Client>,
}

/// The test server's URL; `None` (skip) without one, a failure under CI.
fn server_url() -> Option<String> {
    match std::env::var("OXEVAL_TEST_POSTGRES_URL") {
        Ok(u) if !u.trim().is_empty() => Some(u),
        _ if std::env::var_os("CI").is_some() => {
            panic!("CI is set but OXEVAL_TEST_POSTGRES_URL is not: start scripts/pg-test-server.sh")
        }
        _ => {
            eprintln!("skipped: OXEVAL_TEST_POSTGRES_URL is not set");
            None
        }
    }
}

fn with_query(url: &str, kv: &str) -> String {
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}{kv}")
}

fn pg() -> Option<Pg> {
    let base = server_url()?;
    let schema = format!("t_{}", new_run_id());
    let (mut admin, _) = connect::connect(&base).unwrap();
    admin
        .batch_execute(&format!(
            "CREATE SCHEMA {schema}; SET search_path = {schema}"
        ))
        .unwrap();
    let dir = std::env::temp_dir().join(format!("oxeval-pg-test-{schema}"));
    std::fs::create_dir_all(&dir).unwrap();
    Some(Pg {
        url: with_query(&base, &format!("options=-csearch_path%3D{schema}")),
        schema,
        dir,
        admin: Mutex::new(admin),
    })
}

impl Drop for Pg {
    fn drop(&mut self) {
        let mut c = self.admin.lock().unwrap_or_else(|e| e.into_inner());
        let _ = c.batch_execute(&format!("DROP SCHEMA {} CASCADE", self.schema));
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Backend for Pg {
    fn open(&self) -> Box<dyn Store> {
        crate::store::open(&self.url).unwrap()
    }
    fn count(&self, sql: &str) -> i64 {
        self.admin
            .lock()
            .unwrap()
            .query_one(sql, &[])
            .unwrap()
            .get(0)
    }
    fn exec(&self, sql: &str) {
        self.admin.lock().unwrap().batch_execute(sql).unwrap();
    }
    fn dir(&self) -> &Path {
        &self.dir
    }
}

crate::contract_tests!(pg();
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
fn a_newer_schema_is_refused_and_the_store_is_named_without_its_password() {
    let Some(b) = pg() else { return };
    let mut s = b.open();
    record(s.as_mut(), "r1", 1, "main", &[1.0]);
    assert!(!s.describe().contains('@'), "{}", s.describe());
    b.exec("UPDATE schema_version SET version = 99");
    let e = crate::store::open(&b.url).err().unwrap();
    assert_eq!(e.code, "OXEVAL_STORE_NEWER");
    assert!(
        e.message.contains("version 99") && e.message.contains("newer oxeval"),
        "{}",
        e.message
    );
    let password = PgStore::open(&server_url().unwrap())
        .unwrap()
        .password
        .unwrap();
    assert!(
        !e.message.contains(&password) && !e.message.contains("search_path"),
        "{}",
        e.message
    );
}

#[test]
fn the_database_password_never_reaches_a_stored_row() {
    let Some(b) = pg() else { return };
    let password = PgStore::open(&server_url().unwrap())
        .unwrap()
        .password
        .unwrap();
    let mut s = b.open();
    let mut r = crate::store::contract::run("leak", 1, "main", &[]);
    r.header = serde_json::json!({ "note": format!("pw={password}") });
    s.begin_run(&r).unwrap();
    let mut it = crate::store::contract::item(0, 1.0);
    it["output"] = serde_json::json!(format!("the password is {password}"));
    s.add_items("leak", vec![it], true).unwrap();
    s.finish_run("leak", &crate::store::contract::summary(&[1.0]), 2)
        .unwrap();
    let mut out = Vec::new();
    crate::store::jsonl::export_to(s.as_mut(), "leak", &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains("the password is ") && !text.contains(&password),
        "{text}"
    );
    let q = format!("SELECT COUNT(*) FROM items WHERE record LIKE '%{password}%'");
    assert_eq!(b.count(&q), 0);
}

#[test]
fn a_server_that_is_down_is_a_bounded_open_error_without_the_password() {
    // a port nothing listens on: bind one, note it, close it
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("postgres://team:pa55-w0rd-secret@127.0.0.1:{port}/evals");
    let t = Instant::now();
    let e = crate::store::open(&url).err().unwrap();
    assert!(t.elapsed() < CONNECT_TIMEOUT * 2, "{:?}", t.elapsed());
    assert_eq!(e.code, "OXEVAL_STORE_OPEN");
    assert!(
        e.message
            .contains(&format!("postgres://127.0.0.1:{port}/evals")),
        "{}",
        e.message
    );
    assert!(e.message.contains("cannot connect"), "{}", e.message);
    assert!(
        !e.message.contains("pa55-w0rd-secret") && !e.message.contains("team"),
        "{}",
        e.message
    );
    // a password in the query is never shown either
    let e = crate::store::open(&format!(
        "postgresql://127.0.0.1:{port}/evals?password=qq-secret-qq"
    ))
    .err()
    .unwrap();
    assert!(!e.message.contains("qq-secret-qq"), "{}", e.message);
}

#[test]
fn a_wrong_password_or_a_tls_demand_the_server_cannot_meet_is_a_clear_error() {
    let Some(url) = server_url() else { return };
    let port = url
        .rsplit_once(':')
        .unwrap()
        .1
        .split('/')
        .next()
        .unwrap()
        .to_string();
    let e = crate::store::open(&format!(
        "postgres://oxeval:not-the-pw-xyz@127.0.0.1:{port}/oxeval_test"
    ))
    .err()
    .unwrap();
    assert_eq!(e.code, "OXEVAL_STORE_OPEN");
    assert!(!e.message.contains("not-the-pw-xyz"), "{}", e.message);
    assert!(e.message.contains("password"), "{}", e.message);
    // the test server has no TLS: sslmode=require must fail, not fall back to plain text
    let e = crate::store::open(&with_query(&url, "sslmode=require"))
        .err()
        .unwrap();
    assert_eq!(e.code, "OXEVAL_STORE_OPEN", "{}", e.message);
    // prefer falls back to plain text
    assert!(crate::store::open(&with_query(&url, "sslmode=prefer")).is_ok());
}
