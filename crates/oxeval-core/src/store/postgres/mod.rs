//! The team store: one PostgreSQL database (the `postgres` crate, sfackler's synchronous
//! client over tokio-postgres). The same tables, columns and schema versions as the SQLite
//! store, the same JSON answers (the shared computations are [`crate::store::shared`]).
//!
//! Every write is one transaction, so several processes record into one database at once
//! and each run stays complete and separate; `(run_id, idx)` is the items' primary key.
//! Connecting ([`connect`]) is bounded, statements have a timeout, and the password is never
//! in a message. Reads are in [`read`].

mod connect;
mod read;
mod schema;
mod shards;

use super::rows::{env_redactor, item_rows, ItemRows};
use super::schema::{newer_message, SCHEMA_VERSION};
use super::shared::{ids_fingerprint, stored_summary, summary_stats};
use super::status::host_name;
use super::time::now_ms;
use super::{NewRun, Prune, RunQuery, Store, StoreError, StoreResult};
use crate::redact::Redactor;
use postgres::Client;
use schema::{MIGRATIONS, MIGRATION_LOCK};
use serde_json::Value;

pub use connect::{CONNECT_TIMEOUT, STATEMENT_TIMEOUT};

pub struct PgStore {
    client: Client,
    name: String,
    host: String,
    redactor: Redactor,
    password: Option<String>,
    /// The shard this connection records (set by `begin_run` of a shard).
    shard: Option<(String, i64)>,
}

impl PgStore {
    /// Connect to `url` and migrate the schema.
    pub fn open(url: &str) -> StoreResult<Self> {
        let (client, password) = connect::connect(url)?;
        // the database's password is scrubbed from every row like the environment's secrets
        let redactor = match password.as_deref().filter(|p| !p.is_empty()) {
            Some(p) => env_redactor().with_secret(p),
            None => env_redactor(),
        };
        let mut s = PgStore {
            client,
            name: connect::describe(url),
            host: host_name(),
            redactor,
            password,
            shard: None,
        };
        s.migrate()?;
        Ok(s)
    }

    /// A driver error as a store error naming the store (the password masked).
    fn error(&self, what: &str, e: postgres::Error, make: fn(String) -> StoreError) -> StoreError {
        make(connect::mask(
            &format!("store {}: {what}: {}", self.name, connect::cause(&e)),
            self.password.as_deref(),
        ))
    }

    fn version(&mut self) -> Result<Option<i64>, postgres::Error> {
        let row = self
            .client
            .query_one("SELECT to_regclass('schema_version') IS NOT NULL", &[])?;
        if !row.get::<_, bool>(0) {
            return Ok(None);
        }
        let row = self
            .client
            .query_one("SELECT MAX(version) FROM schema_version", &[])?;
        Ok(row.get(0))
    }

    /// Run the migrations above the store's version, in one transaction under an advisory
    /// lock (the version re-read inside it: another process may have migrated meanwhile).
    fn migrate(&mut self) -> StoreResult<()> {
        let found = self
            .version()
            .map_err(|e| self.error("cannot read the schema", e, StoreError::open))?;
        if found.unwrap_or(0) > SCHEMA_VERSION {
            return Err(StoreError::newer(newer_message(
                &self.name,
                found.unwrap_or(0),
            )));
        }
        if found == Some(SCHEMA_VERSION) {
            return Ok(());
        }
        let at = self
            .apply_migrations()
            .map_err(|e| self.error("cannot migrate the schema", e, StoreError::open))?;
        match at {
            Some(v) => Err(StoreError::newer(newer_message(&self.name, v))),
            None => Ok(()),
        }
    }

    /// → `Some(version)` when another process left a newer schema meanwhile.
    fn apply_migrations(&mut self) -> Result<Option<i64>, postgres::Error> {
        let mut tx = self.client.transaction()?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
        tx.batch_execute("CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)")?;
        let at: i64 = tx
            .query_one("SELECT COALESCE(MAX(version), 0) FROM schema_version", &[])?
            .get(0);
        if at > SCHEMA_VERSION {
            return Ok(Some(at));
        }
        for (k, sql) in MIGRATIONS.iter().enumerate().skip(at as usize) {
            tx.batch_execute(sql)?;
            tx.execute("DELETE FROM schema_version", &[])?;
            tx.execute(
                "INSERT INTO schema_version (version) VALUES ($1)",
                &[&(k as i64 + 1)],
            )?;
        }
        tx.commit()?;
        Ok(None)
    }

    fn insert_items(&mut self, run_id: &str, rows: &[ItemRows]) -> Result<(), postgres::Error> {
        let mut tx = self.client.transaction()?;
        let del = tx.prepare("DELETE FROM results WHERE run_id = $1 AND idx = $2")?;
        let item = tx.prepare(
            "INSERT INTO items (run_id, idx, item_id, record) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (run_id, idx) DO UPDATE SET item_id = EXCLUDED.item_id, record = EXCLUDED.record",
        )?;
        let result = tx.prepare(
            "INSERT INTO results (run_id, idx, item_id, scorer, score, reason, error, usage, latency_ms, result) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
        )?;
        let prompt = tx
            .prepare("INSERT INTO prompts (digest, text) VALUES ($1, $2) ON CONFLICT DO NOTHING")?;
        let uses = tx.prepare(
            "INSERT INTO run_prompts (run_id, digest) VALUES ($1, $2) ON CONFLICT DO NOTHING",
        )?;
        for it in rows {
            tx.execute(&del, &[&run_id, &it.index])?;
            tx.execute(&item, &[&run_id, &it.index, &it.item_id, &it.record])?;
            for r in &it.results {
                tx.execute(
                    &result,
                    &[
                        &run_id,
                        &it.index,
                        &it.item_id,
                        &r.scorer,
                        &r.score,
                        &r.reason,
                        &r.error,
                        &r.usage,
                        &r.latency_ms,
                        &r.result,
                    ],
                )?;
            }
            for (d, text) in &it.prompts {
                tx.execute(&prompt, &[d, text])?;
                tx.execute(&uses, &[&run_id, d])?;
            }
        }
        tx.execute(
            "UPDATE runs SET heartbeat_at = $2 WHERE id = $1",
            &[&run_id, &now_ms()],
        )?;
        tx.commit()
    }

    fn insert_run(&mut self, run: &NewRun, header: &Value) -> Result<(), postgres::Error> {
        let mut tx = self.client.transaction()?;
        tx.execute(
            "INSERT INTO runs (id, started_at, status, git_commit, git_branch, git_dirty, name, config_fp, dataset_fp, version, judge_models, header, owner_host, owner_pid, heartbeat_at, import_key, store_prompts) \
             VALUES ($1, $2, 'running', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)",
            &[
                &run.id, &run.started_at_ms, &run.git_commit, &run.git_branch, &run.git_dirty,
                &run.name, &run.config_fingerprint, &run.dataset_fingerprint, &run.version,
                &run.judge_models.to_string(), &header.to_string(), &self.host,
                &(std::process::id() as i64), &now_ms(), &run.import_key, &run.store_prompts,
            ],
        )?;
        for t in &run.tags {
            tx.execute(
                "INSERT INTO run_tags (run_id, tag) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                &[&run.id, t],
            )?;
        }
        tx.commit()
    }

    /// → false when the run is not in the store.
    fn write_summary(
        &mut self,
        run_id: &str,
        summary: &Value,
        ended: i64,
    ) -> Result<bool, postgres::Error> {
        let (summary, status, outcome) = stored_summary(summary, &self.redactor);
        let mut tx = self.client.transaction()?;
        let Some(row) = tx.query_opt(
            "SELECT judge_models FROM runs WHERE id = $1 FOR UPDATE",
            &[&run_id],
        )?
        else {
            return Ok(false);
        };
        let models: Value = row
            .get::<_, Option<String>>(0)
            .and_then(|m| serde_json::from_str(&m).ok())
            .unwrap_or(Value::Null);
        let ids: Vec<String> = tx
            .query(
                "SELECT item_id FROM items WHERE run_id = $1 ORDER BY item_id COLLATE \"C\"",
                &[&run_id],
            )?
            .iter()
            .map(|r| r.get(0))
            .collect();
        tx.execute(
            "UPDATE runs SET status = $2, ended_at = $3, outcome = $4, summary = $5, heartbeat_at = $3, dataset_fp = COALESCE(dataset_fp, $6) WHERE id = $1",
            &[&run_id, &status, &ended, &outcome, &summary.to_string(), &ids_fingerprint(&ids)],
        )?;
        tx.execute("DELETE FROM run_scorers WHERE run_id = $1", &[&run_id])?;
        for (id, mean, ci, n) in summary_stats(&summary) {
            let model = models.get(&id).and_then(Value::as_str);
            tx.execute(
                "INSERT INTO run_scorers (run_id, scorer, mean, ci_lo, ci_hi, n, judge_model) VALUES ($1, $2, $3, $4, $5, $6, $7)",
                &[&run_id, &id, &mean, &ci.map(|c| c.0), &ci.map(|c| c.1), &n, &model],
            )?;
        }
        tx.commit()?;
        Ok(true)
    }
}

impl PgStore {
    /// The shard this connection records of `run_id` (None: not a shard of it).
    fn shard_of(&self, run_id: &str) -> Option<i64> {
        self.shard.as_ref().filter(|s| s.0 == run_id).map(|s| s.1)
    }
}

impl Store for PgStore {
    fn describe(&self) -> String {
        self.name.clone()
    }

    fn begin_run(&mut self, run: &NewRun) -> StoreResult<()> {
        let mut header = run.header.clone();
        self.redactor.scrub_value(&mut header);
        if let Some(kn) = run.shard {
            shards::begin(self, run, kn, &header)?;
            self.shard = Some((run.id.clone(), kn.0));
            return Ok(());
        }
        self.insert_run(run, &header).map_err(|e| match e.code() {
            Some(&postgres::error::SqlState::UNIQUE_VIOLATION) => super::shards::taken(&run.id),
            _ => self.error("cannot record the run", e, StoreError::write),
        })
    }

    fn add_items(
        &mut self,
        run_id: &str,
        items: Vec<Value>,
        store_prompts: bool,
    ) -> StoreResult<()> {
        let rows = items
            .into_iter()
            .map(|i| item_rows(i, &self.redactor, store_prompts))
            .collect::<StoreResult<Vec<_>>>()?;
        self.insert_items(run_id, &rows)
            .map_err(|e| self.error("cannot record items", e, StoreError::write))?;
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
        match self.write_summary(run_id, summary, ended_at_ms) {
            Ok(true) => Ok(()),
            Ok(false) => Err(StoreError::not_found(format!(
                "store {}: no run {run_id}",
                self.name
            ))),
            Err(e) => Err(self.error("cannot record the run's summary", e, StoreError::write)),
        }
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
        match self
            .client
            .query_opt("SELECT id FROM runs WHERE import_key = $1", &[&key])
        {
            Ok(row) => Ok(row.map(|r| r.get(0))),
            Err(e) => Err(self.error("cannot read", e, StoreError::read)),
        }
    }

    fn prune(&mut self, p: &Prune) -> StoreResult<u64> {
        read::prune(self, p)
    }
}

#[cfg(test)]
mod tests;
