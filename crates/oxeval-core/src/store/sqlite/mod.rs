//! The embedded store: one SQLite file (rusqlite, SQLite compiled in: nothing to install).
//!
//! WAL journal and a 30 s busy timeout, so several processes record into one file at once
//! (each write is one short `BEGIN IMMEDIATE` transaction). Opening makes the directory,
//! runs the migrations ([`super::schema`]) and refuses a newer schema or a file that is no
//! SQLite database, with a message naming the file. Reads are in [`read`].
//!
//! Items are written packed (schema version 2, [`super::packed`]): per item one row in
//! `items` (its JSON text, zstd with the run's dictionary) and one row per scorer in
//! `results` with the columns the reads use (score, reason, error, tokens, latency).

mod read;
mod shards;

use super::facts::{item_facts, ItemFacts};
use super::packed::{dictionary, rewrite, Packer};
use super::rows::env_redactor;
use super::schema::{newer_message, MIGRATIONS, SCHEMA_VERSION};
use super::shared::{ids_fingerprint, stored_summary, summary_stats};
use super::status::host_name;
use super::time::now_ms;
use super::{NewRun, Prune, RunQuery, Store, StoreError, StoreResult};
use crate::redact::Redactor;
use rusqlite::{params, Connection, ErrorCode, OptionalExtension, TransactionBehavior};
use serde_json::Value;
use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

/// How long a write waits for another process's transaction before it fails.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

pub struct SqliteStore {
    conn: Connection,
    name: String,
    host: String,
    redactor: Redactor,
    /// The shard this connection records (set by `begin_run` of a shard).
    shard: Option<(String, i64)>,
    /// The packer of each run being written (its dictionary loaded once).
    packers: HashMap<String, Packer>,
}

/// A SQLite failure as a store error naming the file: a damaged or foreign file is said so.
fn sql_error(
    name: &str,
    what: &str,
    e: rusqlite::Error,
    make: fn(String) -> StoreError,
) -> StoreError {
    let code = e.sqlite_error_code();
    if matches!(
        code,
        Some(ErrorCode::NotADatabase) | Some(ErrorCode::DatabaseCorrupt)
    ) {
        return StoreError::new(
            "OXEVAL_STORE_CORRUPT",
            format!("store {name}: the file is not an oxeval store or is damaged ({e}); move it away or point --store at another file"),
        );
    }
    make(format!("store {name}: {what}: {e}"))
}

impl SqliteStore {
    /// Open (creating the file and its directory if needed) and migrate.
    pub fn open(path: &Path) -> StoreResult<Self> {
        let name = path.display().to_string();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| {
                StoreError::open(format!(
                    "store {name}: cannot create its directory {}: {e}",
                    dir.display()
                ))
            })?;
        }
        let conn = Connection::open(path)
            .map_err(|e| sql_error(&name, "cannot open", e, StoreError::open))?;
        let mut s = SqliteStore {
            conn,
            name,
            host: host_name(),
            redactor: env_redactor(),
            shard: None,
            packers: HashMap::new(),
        };
        s.setup()?;
        Ok(s)
    }

    fn err(&self, what: &str, e: rusqlite::Error) -> StoreError {
        sql_error(&self.name, what, e, StoreError::write)
    }

    fn setup(&mut self) -> StoreResult<()> {
        self.conn
            .busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| self.err("cannot set the busy timeout", e))?;
        // a read-only file keeps its journal mode: reads still work, writes fail later
        let _ = self
            .conn
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get::<_, String>(0));
        self.conn
            .execute_batch("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;")
            .map_err(|e| self.err("cannot configure", e))?;
        self.migrate()
    }

    fn version(&self) -> StoreResult<Option<i64>> {
        let exists: bool = self
            .conn
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version')",
                [],
                |r| r.get(0),
            )
            .map_err(|e| sql_error(&self.name, "cannot read the schema", e, StoreError::open))?;
        if !exists {
            return Ok(None);
        }
        self.conn
            .query_row("SELECT MAX(version) FROM schema_version", [], |r| r.get(0))
            .map_err(|e| {
                sql_error(
                    &self.name,
                    "cannot read the schema version",
                    e,
                    StoreError::open,
                )
            })
    }

    /// Run the migrations above the store's version (each in its own transaction, the
    /// version re-read inside it: another process may have migrated meanwhile).
    fn migrate(&mut self) -> StoreResult<()> {
        let found = self.version()?;
        if found.unwrap_or(0) > SCHEMA_VERSION {
            return Err(StoreError::newer(newer_message(
                &self.name,
                found.unwrap_or(0),
            )));
        }
        if found == Some(SCHEMA_VERSION) {
            return Ok(());
        }
        let name = self.name.clone();
        let fail = |e| sql_error(&name, "cannot migrate the schema", e, StoreError::open);
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(fail)?;
        tx.execute_batch("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            .map_err(fail)?;
        let at: i64 = tx
            .query_row(
                "SELECT COALESCE(MAX(version), 0) FROM schema_version",
                [],
                |r| r.get(0),
            )
            .map_err(fail)?;
        if at > SCHEMA_VERSION {
            return Err(StoreError::newer(newer_message(&self.name, at)));
        }
        for (k, sql) in MIGRATIONS.iter().enumerate().skip(at as usize) {
            tx.execute_batch(sql).map_err(fail)?;
            tx.execute("DELETE FROM schema_version", []).map_err(fail)?;
            tx.execute(
                "INSERT INTO schema_version (version) VALUES (?1)",
                [k as i64 + 1],
            )
            .map_err(fail)?;
        }
        tx.commit().map_err(fail)
    }

    /// A run's packer: cached, else from its stored dictionary, else a new dictionary made
    /// of `texts` (→ `Some(dict)`: the caller stores it in the same transaction).
    fn packer(
        &mut self,
        run_id: &str,
        texts: &[Prepared],
    ) -> StoreResult<(Packer, Option<Vec<u8>>)> {
        if let Some(p) = self.packers.remove(run_id) {
            return Ok((p, None));
        }
        let stored: Option<Vec<u8>> = self
            .conn
            .query_row(
                "SELECT dict FROM run_dicts WHERE run_id = ?1",
                [run_id],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.err("cannot read the run's dictionary", e))?;
        let name = &self.name;
        let named = |e: StoreError| StoreError::new(e.code, format!("store {name}: {}", e.message));
        match stored {
            Some(d) => Ok((Packer::new(&d).map_err(named)?, None)),
            None => {
                let d = dictionary(texts.iter().map(|p| p.text.as_ref()));
                Ok((Packer::new(&d).map_err(named)?, Some(d)))
            }
        }
    }

    /// One item's text → its columns and the text to keep: as it came (read in one pass,
    /// [`item_facts`]) unless it holds a secret, drops its prompts or is not the usual shape
    /// ([`rewrite`]).
    fn prepare<'a>(&self, text: &'a str, keep: bool) -> StoreResult<Prepared<'a>> {
        if keep && !self.redactor.occurs_in(text) {
            if let Some(facts) = item_facts(text) {
                return Ok(Prepared {
                    facts,
                    text: Cow::Borrowed(text),
                });
            }
        }
        let (facts, text) = rewrite(text, &self.redactor, keep)
            .map_err(|e| StoreError::new(e.code, format!("store {}: {}", self.name, e.message)))?;
        Ok(Prepared {
            facts,
            text: Cow::Owned(text),
        })
    }

    fn insert_packed(&mut self, run_id: &str, items: &[Prepared]) -> StoreResult<()> {
        let (mut packer, new_dict) = if items.is_empty() {
            (None, None)
        } else {
            let (p, d) = self.packer(run_id, items)?;
            (Some(p), d)
        };
        let name = self.name.clone();
        let fail = |e| sql_error(&name, "cannot record items", e, StoreError::write);
        let named = |e: StoreError| StoreError::new(e.code, format!("store {name}: {}", e.message));
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(fail)?;
        {
            if let Some(d) = &new_dict {
                tx.execute(
                    "INSERT OR REPLACE INTO run_dicts (run_id, dict) VALUES (?1, ?2)",
                    params![run_id, d],
                )
                .map_err(fail)?;
            }
            let mut del = tx
                .prepare_cached("DELETE FROM results WHERE run_id = ?1 AND idx = ?2")
                .map_err(fail)?;
            let mut item = tx
                .prepare_cached("INSERT OR REPLACE INTO items (run_id, idx, item_id, record, packed) VALUES (?1, ?2, ?3, '', ?4)")
                .map_err(fail)?;
            let mut result = tx
                .prepare_cached(
                    "INSERT INTO results (run_id, idx, item_id, scorer, score, reason, error, latency_ms, input_tokens, output_tokens) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                )
                .map_err(fail)?;
            for it in items {
                let f = &it.facts;
                let packed = match packer.as_mut() {
                    Some(p) => p.pack(&it.text).map_err(named)?,
                    None => continue,
                };
                del.execute(params![run_id, f.index]).map_err(fail)?;
                item.execute(params![run_id, f.index, f.item_id, packed])
                    .map_err(fail)?;
                for r in &f.rows {
                    result
                        .execute(params![
                            run_id,
                            f.index,
                            f.item_id,
                            r.scorer,
                            r.score,
                            r.reason,
                            r.error,
                            r.latency_ms,
                            r.input_tokens,
                            r.output_tokens
                        ])
                        .map_err(fail)?;
                }
            }
            tx.execute(
                "UPDATE runs SET heartbeat_at = ?2 WHERE id = ?1",
                params![run_id, now_ms()],
            )
            .map_err(fail)?;
        }
        tx.commit().map_err(fail)?;
        if let Some(p) = packer {
            // one run at a time records through a store; an import of many files keeps few
            if self.packers.len() >= 4 {
                self.packers.clear();
            }
            self.packers.insert(run_id.to_string(), p);
        }
        Ok(())
    }
}

/// An item ready to write: its columns and the text to pack.
struct Prepared<'a> {
    facts: ItemFacts,
    text: Cow<'a, str>,
}

/// A run's item ids, sorted (the digest of a run without a dataset fingerprint).
fn item_ids(c: &Connection, run_id: &str) -> rusqlite::Result<Vec<String>> {
    let mut st = c.prepare("SELECT item_id FROM items WHERE run_id = ?1 ORDER BY item_id")?;
    let ids = st.query_map([run_id], |r| r.get(0))?.collect();
    ids
}

impl SqliteStore {
    /// The shard this connection records of `run_id` (None: not a shard of it).
    fn shard_of(&self, run_id: &str) -> Option<i64> {
        self.shard.as_ref().filter(|s| s.0 == run_id).map(|s| s.1)
    }
}

impl Store for SqliteStore {
    fn describe(&self) -> String {
        self.name.clone()
    }

    fn begin_run(&mut self, run: &NewRun) -> StoreResult<()> {
        let name = self.name.clone();
        let fail = |e| sql_error(&name, "cannot record the run", e, StoreError::write);
        let mut header = run.header.clone();
        self.redactor.scrub_value(&mut header);
        if let Some(kn) = run.shard {
            shards::begin(self, run, kn, &header)?;
            self.shard = Some((run.id.clone(), kn.0));
            return Ok(());
        }
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(fail)?;
        if tx
            .query_row("SELECT 1 FROM runs WHERE id = ?1", [&run.id], |_| Ok(()))
            .optional()
            .map_err(fail)?
            .is_some()
        {
            return Err(super::shards::taken(&run.id));
        }
        tx.execute(
            "INSERT INTO runs (id, started_at, status, git_commit, git_branch, git_dirty, name, config_fp, dataset_fp, version, judge_models, header, owner_host, owner_pid, heartbeat_at, import_key, store_prompts) VALUES (?1, ?2, 'running', ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
            params![
                run.id,
                run.started_at_ms,
                run.git_commit,
                run.git_branch,
                run.git_dirty,
                run.name,
                run.config_fingerprint,
                run.dataset_fingerprint,
                run.version,
                run.judge_models.to_string(),
                header.to_string(),
                self.host,
                std::process::id() as i64,
                now_ms(),
                run.import_key,
                run.store_prompts,
            ],
        )
        .map_err(fail)?;
        for t in &run.tags {
            tx.execute(
                "INSERT OR IGNORE INTO run_tags (run_id, tag) VALUES (?1, ?2)",
                params![run.id, t],
            )
            .map_err(fail)?;
        }
        tx.commit().map_err(fail)
    }

    fn add_items(
        &mut self,
        run_id: &str,
        items: Vec<Value>,
        store_prompts: bool,
    ) -> StoreResult<()> {
        let texts = items.iter().map(Value::to_string).collect();
        self.add_item_texts(run_id, texts, store_prompts)
    }

    fn add_item_texts(
        &mut self,
        run_id: &str,
        items: Vec<String>,
        store_prompts: bool,
    ) -> StoreResult<()> {
        let prepared = items
            .iter()
            .map(|t| self.prepare(t, store_prompts))
            .collect::<StoreResult<Vec<_>>>()?;
        self.insert_packed(run_id, &prepared)?;
        match self.shard_of(run_id) {
            Some(k) => shards::beat(self, run_id, k),
            None => Ok(()),
        }
    }

    fn finish_run(&mut self, run_id: &str, summary: &Value, ended_at_ms: i64) -> StoreResult<()> {
        let whole;
        let summary = match self.shard_of(run_id) {
            None => summary,
            Some(k) => match shards::finish(self, run_id, k, summary, ended_at_ms)? {
                None => return Ok(()),
                Some(s) => {
                    whole = s;
                    &whole
                }
            },
        };
        let name = self.name.clone();
        let fail = |e| {
            sql_error(
                &name,
                "cannot record the run's summary",
                e,
                StoreError::write,
            )
        };
        let (summary, status, outcome) = stored_summary(summary, &self.redactor);
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(fail)?;
        let models: Option<String> = tx
            .query_row(
                "SELECT judge_models FROM runs WHERE id = ?1",
                [run_id],
                |r| r.get(0),
            )
            .optional()
            .map_err(fail)?
            .ok_or_else(|| {
                StoreError::not_found(format!("store {}: no run {run_id}", self.name))
            })?;
        let models: Value = models
            .and_then(|m| serde_json::from_str(&m).ok())
            .unwrap_or(Value::Null);
        // a run without a dataset fingerprint (runEvals over an array): its item ids' digest
        let ids = item_ids(&tx, run_id).map_err(fail)?;
        let ids_fp = ids_fingerprint(&ids);
        tx.execute(
            "UPDATE runs SET status = ?2, ended_at = ?3, outcome = ?4, summary = ?5, heartbeat_at = ?3, dataset_fp = COALESCE(dataset_fp, ?6) WHERE id = ?1",
            params![run_id, status, ended_at_ms, outcome, summary.to_string(), ids_fp],
        )
        .map_err(fail)?;
        tx.execute("DELETE FROM run_scorers WHERE run_id = ?1", [run_id])
            .map_err(fail)?;
        for (id, mean, ci, n) in summary_stats(&summary) {
            let model = models.get(&id).and_then(Value::as_str);
            tx.execute(
                "INSERT INTO run_scorers (run_id, scorer, mean, ci_lo, ci_hi, n, judge_model) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![run_id, id, mean, ci.map(|c| c.0), ci.map(|c| c.1), n, model],
            )
            .map_err(fail)?;
        }
        tx.commit().map_err(fail)
    }

    fn history(&mut self, q: &RunQuery) -> StoreResult<Value> {
        read::history(self, q)
    }

    fn item_history(&mut self, item: &str, q: &RunQuery) -> StoreResult<Value> {
        read::item_history(self, item, q)
    }

    fn flaky(&mut self, q: &RunQuery) -> StoreResult<Value> {
        read::flaky(self, q)
    }

    fn resolve_run(&mut self, spec: &str, dataset: Option<&str>) -> StoreResult<String> {
        read::resolve_run(self, spec, dataset)
    }

    fn run_info(&mut self, run_id: &str) -> StoreResult<Value> {
        read::run_info(self, run_id)
    }

    fn export_run(
        &mut self,
        run_id: &str,
        emit: &mut dyn FnMut(Value) -> StoreResult<()>,
    ) -> StoreResult<()> {
        read::export_run(self, run_id, emit)
    }

    fn run_by_import_key(&mut self, key: &str) -> StoreResult<Option<String>> {
        self.conn
            .query_row("SELECT id FROM runs WHERE import_key = ?1", [key], |r| {
                r.get(0)
            })
            .optional()
            .map_err(|e| sql_error(&self.name, "cannot read", e, StoreError::read))
    }

    fn prune(&mut self, p: &Prune) -> StoreResult<u64> {
        read::prune(self, p)
    }
}

#[cfg(test)]
mod tests;
