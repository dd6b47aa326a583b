use super::*;
use crate::store::contract::{record, Backend};
use crate::store::new_run_id;
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
