//! The results store: every run that finishes (or dies) is kept, with its items' scores,
//! reasons, errors, usage and step results, so history, trends, flaky items and baselines by
//! name can be asked for later.
//!
//! ONE [`Store`] trait; the embedded backend is SQLite compiled into the addon
//! ([`sqlite`]: WAL, a busy timeout, so several processes can record into one file at once);
//! a team shares one PostgreSQL database ([`postgres`]). What both compute after their
//! queries is [`shared`].
//! The schema is versioned ([`schema`]): migrations run on open, a store written by a newer
//! oxeval is refused with a message saying so.
//!
//! Files: [`rows`] (an item's JSON as rows: results per scorer, prompts once per distinct
//! text by digest, secrets scrubbed; and back for export), [`recorder`] (the writer thread a
//! run streams its items to), [`jsonl`] (import and export of `--out` files), [`time`]
//! (timestamps as ISO text and back), [`status`] (who owns a running run; interrupted runs).

pub mod api;
#[cfg(test)]
pub mod contract;
#[cfg(test)]
mod contract_shards;
pub mod facts;
pub mod jsonl;
pub mod packed;
pub mod postgres;
pub mod recorder;
pub mod rows;
pub mod schema;
pub mod shards;
pub mod shared;
pub mod sqlite;
pub mod status;
pub mod time;

use serde_json::Value;
use std::fmt;

/// A store failure: a stable `code` and a message that names the store and the cause.
#[derive(Debug, Clone, PartialEq)]
pub struct StoreError {
    pub code: &'static str,
    pub message: String,
}

impl StoreError {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        StoreError {
            code,
            message: message.into(),
        }
    }
    /// The store cannot be opened (missing directory, not a database, permissions).
    pub fn open(m: impl Into<String>) -> Self {
        Self::new("OXEVAL_STORE_OPEN", m)
    }
    /// The store was made by a newer oxeval.
    pub fn newer(m: impl Into<String>) -> Self {
        Self::new("OXEVAL_STORE_NEWER", m)
    }
    /// A write failed (read-only file, disk full, locked past the busy timeout).
    pub fn write(m: impl Into<String>) -> Self {
        Self::new("OXEVAL_STORE_WRITE", m)
    }
    /// A query failed.
    pub fn read(m: impl Into<String>) -> Self {
        Self::new("OXEVAL_STORE_READ", m)
    }
    /// What was asked for is not in the store (a run id, a baseline).
    pub fn not_found(m: impl Into<String>) -> Self {
        Self::new("OXEVAL_STORE_NOT_FOUND", m)
    }
    /// A shard that cannot join its run (finished already, out of range, another N).
    pub fn shard(m: impl Into<String>) -> Self {
        Self::new("OXEVAL_STORE_SHARD", m)
    }
    /// A bad argument (an unknown baseline form, a bad duration, a bad file).
    pub fn invalid(m: impl Into<String>) -> Self {
        Self::new("OXEVAL_STORE_INVALID", m)
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for StoreError {}

pub type StoreResult<T> = Result<T, StoreError>;

/// A run as it starts: what is known before its first item.
#[derive(Debug, Clone, Default)]
pub struct NewRun {
    pub id: String,
    pub started_at_ms: i64,
    pub name: Option<String>,
    pub tags: Vec<String>,
    pub git_commit: Option<String>,
    pub git_branch: Option<String>,
    pub git_dirty: Option<bool>,
    pub config_fingerprint: Option<String>,
    pub dataset_fingerprint: Option<String>,
    pub version: Option<String>,
    /// The judge model per scorer id (`{ id: model | null }`).
    pub judge_models: Value,
    /// The `--out` header of the run (its scorers, gates, policy, …), without secrets.
    pub header: Value,
    /// An imported file's digest: importing the same file again finds this run.
    pub import_key: Option<String>,
    /// Keep prompts (once per distinct text); false: no prompt reaches the store.
    pub store_prompts: bool,
    /// Shard `k` of `n` of a run its shards share (`--shard K/N` with an agreed run id):
    /// the run row is made by whichever shard starts first ([`shards`]).
    pub shard: Option<(i64, i64)>,
}

/// Which runs a history asks for.
#[derive(Debug, Clone, Default)]
pub struct RunQuery {
    pub scorer: Option<String>,
    pub branch: Option<String>,
    pub tag: Option<String>,
    pub last: Option<u32>,
    pub dataset: Option<String>,
}

/// What `prune` removes: all but the newest `keep` runs, and/or runs started before
/// `older_than_ms` (epoch ms). A run still being recorded is never removed.
#[derive(Debug, Clone, Default)]
pub struct Prune {
    pub keep: Option<u32>,
    pub before_ms: Option<i64>,
}

/// The one store interface, implemented by each backend. Reads answer the documented JSON
/// shapes (docs/store.md) so every surface (CLI, viewer, API) formats the same data.
pub trait Store: Send {
    /// The store as shown in messages: a path, or a URL without its password.
    fn describe(&self) -> String;
    /// Record a run as `running` (its owner and heartbeat set).
    fn begin_run(&mut self, run: &NewRun) -> StoreResult<()>;
    /// Add items (each an item's JSON, as runEvals gives it) in one transaction; refreshes
    /// the run's heartbeat. An item already recorded (same index) is replaced.
    fn add_items(
        &mut self,
        run_id: &str,
        items: Vec<Value>,
        store_prompts: bool,
    ) -> StoreResult<()>;
    /// [`Store::add_items`] for items as JSON text (the recorder's: runEvals hands each item
    /// over as text). A backend that can keep the text without building it overrides this;
    /// by default each text is parsed and given to `add_items`.
    fn add_item_texts(
        &mut self,
        run_id: &str,
        items: Vec<String>,
        store_prompts: bool,
    ) -> StoreResult<()> {
        let mut values = Vec::with_capacity(items.len());
        for text in items {
            values.push(serde_json::from_str(&text).map_err(|e| {
                StoreError::invalid(format!(
                    "store {}: an item is not JSON: {e}",
                    self.describe()
                ))
            })?);
        }
        self.add_items(run_id, values, store_prompts)
    }
    /// Write the run's summary (its outcome, per-scorer statistics) and mark it
    /// `finished` (or `interrupted` when the summary says the run was aborted).
    fn finish_run(&mut self, run_id: &str, summary: &Value, ended_at_ms: i64) -> StoreResult<()>;
    /// The runs, newest first, with per-scorer mean, ci95 and n: `{ runs: [...] }`.
    fn history(&mut self, q: &RunQuery) -> StoreResult<Value>;
    /// One item's scores across runs: `{ item, runs: [{ id, startedAt, scores }] }`.
    fn item_history(&mut self, item: &str, q: &RunQuery) -> StoreResult<Value>;
    /// The items whose verdict changes most often across the last `last` runs of one
    /// dataset (the newest run's, unless `q.dataset` names one).
    fn flaky(&mut self, q: &RunQuery) -> StoreResult<Value>;
    /// A baseline by name (`main`, `branch:B`, `run:ID`, `tag:T`) → its run id.
    fn resolve_run(&mut self, spec: &str, dataset: Option<&str>) -> StoreResult<String>;
    /// One run: its row, scorers and counts (`oxeval runs show`).
    fn run_info(&mut self, run_id: &str) -> StoreResult<Value>;
    /// One run in the `--out` format: header, items (prompts in full), summary; `emit` is
    /// called once per line in order.
    fn export_run(
        &mut self,
        run_id: &str,
        emit: &mut dyn FnMut(Value) -> StoreResult<()>,
    ) -> StoreResult<()>;
    /// The run an import key was recorded under, if any.
    fn run_by_import_key(&mut self, key: &str) -> StoreResult<Option<String>>;
    /// Remove runs (and prompts no run uses any more) → how many runs went.
    fn prune(&mut self, p: &Prune) -> StoreResult<u64>;
}

/// Whether `spec` names a PostgreSQL store (`postgres://` or `postgresql://`).
pub fn is_postgres(spec: &str) -> bool {
    let s = spec.trim();
    s.starts_with("postgres://") || s.starts_with("postgresql://")
}

/// Open the store `spec` names: a `postgres://` / `postgresql://` URL (PostgreSQL), else a
/// file path (SQLite; its directory is made), creating and migrating it as needed.
pub fn open(spec: &str) -> StoreResult<Box<dyn Store>> {
    let spec = spec.trim();
    if spec.is_empty() {
        return Err(StoreError::invalid("the store is an empty path"));
    }
    if is_postgres(spec) {
        return Ok(Box::new(postgres::PgStore::open(spec)?));
    }
    Ok(Box::new(sqlite::SqliteStore::open(std::path::Path::new(
        spec,
    ))?))
}

/// A new run id: 12 hex characters (random).
pub fn new_run_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()[..12].to_string()
}

#[cfg(test)]
mod compat_tests;
