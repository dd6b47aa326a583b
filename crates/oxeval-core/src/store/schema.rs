//! The store's schema, as versioned migrations. `schema_version` holds the version a store
//! is at; opening runs every migration above it (each in its own transaction) and refuses a
//! store whose version is above [`SCHEMA_VERSION`] (made by a newer oxeval).
//!
//! A migration is never edited once released: a change is a new entry at the end, and the
//! fixture of every previous version (tests in `sqlite.rs`) must still open and migrate.

/// The schema version this oxeval writes.
pub const SCHEMA_VERSION: i64 = 3;

/// `MIGRATIONS[k]` takes a store from version `k` to `k + 1`.
pub const MIGRATIONS: &[&str] = &[V1, V2, V3_SHARDS];

/// Version 1: runs, their tags and per-scorer statistics, items, per-scorer results, prompts
/// (and which runs use each, so prune can drop the ones no run uses).
const V1: &str = r#"
CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  started_at INTEGER NOT NULL,
  ended_at INTEGER,
  status TEXT NOT NULL CHECK (status IN ('running', 'finished', 'interrupted')),
  outcome TEXT,
  git_commit TEXT,
  git_branch TEXT,
  git_dirty INTEGER,
  name TEXT,
  config_fp TEXT,
  dataset_fp TEXT,
  version TEXT,
  judge_models TEXT,
  header TEXT,
  summary TEXT,
  owner_host TEXT,
  owner_pid INTEGER,
  heartbeat_at INTEGER,
  import_key TEXT UNIQUE,
  store_prompts INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX runs_started ON runs (started_at);
CREATE INDEX runs_branch ON runs (git_branch, started_at);
CREATE INDEX runs_dataset ON runs (dataset_fp, started_at);
CREATE TABLE run_tags (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  tag TEXT NOT NULL,
  PRIMARY KEY (run_id, tag)
);
CREATE INDEX run_tags_tag ON run_tags (tag);
CREATE TABLE run_scorers (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  scorer TEXT NOT NULL,
  mean REAL,
  ci_lo REAL,
  ci_hi REAL,
  n INTEGER NOT NULL,
  judge_model TEXT,
  PRIMARY KEY (run_id, scorer)
);
CREATE TABLE items (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  item_id TEXT NOT NULL,
  record TEXT NOT NULL,
  PRIMARY KEY (run_id, idx)
);
CREATE TABLE results (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  item_id TEXT NOT NULL,
  scorer TEXT NOT NULL,
  score REAL,
  reason TEXT,
  error TEXT,
  usage TEXT,
  latency_ms REAL,
  result TEXT,
  PRIMARY KEY (run_id, idx, scorer)
);
CREATE INDEX results_item ON results (item_id, run_id);
CREATE TABLE prompts (
  digest TEXT PRIMARY KEY,
  text TEXT NOT NULL
);
CREATE TABLE run_prompts (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  digest TEXT NOT NULL,
  PRIMARY KEY (run_id, digest)
);
CREATE INDEX run_prompts_digest ON run_prompts (digest);
"#;

/// Version 2: an item is kept packed (`items.packed`: its JSON, results included,
/// zstd-compressed with its run's dictionary in `run_dicts`; `record` is then '' and the
/// results rows keep only their columns, `result` and `usage` NULL, the tokens as integers).
/// Version-1 rows stay as they are and read as before: nothing to rewrite.
const V2: &str = r#"
ALTER TABLE items ADD COLUMN packed BLOB;
ALTER TABLE results ADD COLUMN input_tokens INTEGER;
ALTER TABLE results ADD COLUMN output_tokens INTEGER;
CREATE TABLE run_dicts (
  run_id TEXT PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
  dict BLOB NOT NULL
);
"#;

/// Version 3: shards of one run (`oxeval run --shard K/N --run-id ID`) record into one run:
/// `runs.shards` (N, null for an unsharded run) and one `run_shards` row per shard (its owner,
/// heartbeat, status and summary).
pub const V3_SHARDS: &str = r#"
ALTER TABLE runs ADD COLUMN shards INTEGER;
CREATE TABLE run_shards (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  shard INTEGER NOT NULL,
  of INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('running', 'finished', 'interrupted')),
  owner_host TEXT,
  owner_pid INTEGER,
  started_at INTEGER NOT NULL,
  heartbeat_at INTEGER,
  ended_at INTEGER,
  summary TEXT,
  PRIMARY KEY (run_id, shard)
);
"#;

/// The message for a store made by a newer oxeval.
pub fn newer_message(store: &str, found: i64) -> String {
    format!(
        "store {store}: its schema is version {found}, made by a newer oxeval; this oxeval reads versions up to {SCHEMA_VERSION} (upgrade oxeval, or point --store at another file)"
    )
}
