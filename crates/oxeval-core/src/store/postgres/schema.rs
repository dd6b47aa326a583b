//! The PostgreSQL schema: the same tables, columns and version numbers as
//! [`crate::store::schema`] (SQLite), in PostgreSQL's types. Each table that SQLite orders by
//! `rowid` has a `seq` column for the same order. A migration is never edited once released:
//! a change is a new entry at the end of BOTH lists, under the same version number.

/// `MIGRATIONS[k]` takes a store from version `k` to `k + 1`.
pub const MIGRATIONS: &[&str] = &[V1, V2, V3_SHARDS];

const _: () = assert!(MIGRATIONS.len() as i64 == crate::store::schema::SCHEMA_VERSION);

/// The advisory lock every migration holds (two processes opening a new database at once).
pub const MIGRATION_LOCK: i64 = 0x0_0e7a_1001;

const V1: &str = r#"
CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  seq BIGSERIAL,
  started_at BIGINT NOT NULL,
  ended_at BIGINT,
  status TEXT NOT NULL CHECK (status IN ('running', 'finished', 'interrupted')),
  outcome TEXT,
  git_commit TEXT,
  git_branch TEXT,
  git_dirty BOOLEAN,
  name TEXT,
  config_fp TEXT,
  dataset_fp TEXT,
  version TEXT,
  judge_models TEXT,
  header TEXT,
  summary TEXT,
  owner_host TEXT,
  owner_pid BIGINT,
  heartbeat_at BIGINT,
  import_key TEXT UNIQUE,
  store_prompts BOOLEAN NOT NULL DEFAULT TRUE
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
  seq BIGSERIAL,
  scorer TEXT NOT NULL,
  mean DOUBLE PRECISION,
  ci_lo DOUBLE PRECISION,
  ci_hi DOUBLE PRECISION,
  n BIGINT NOT NULL,
  judge_model TEXT,
  PRIMARY KEY (run_id, scorer)
);
CREATE TABLE items (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  idx BIGINT NOT NULL,
  item_id TEXT NOT NULL,
  record TEXT NOT NULL,
  PRIMARY KEY (run_id, idx)
);
CREATE TABLE results (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  seq BIGSERIAL,
  idx BIGINT NOT NULL,
  item_id TEXT NOT NULL,
  scorer TEXT NOT NULL,
  score DOUBLE PRECISION,
  reason TEXT,
  error TEXT,
  usage TEXT,
  latency_ms DOUBLE PRECISION,
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

/// Version 2 (SQLite's packed items): the same columns and table. This backend keeps writing
/// items as version 1 did (`record` and the results' `result`/`usage` texts, prompts once by
/// digest; PostgreSQL compresses large values itself), so `packed` and `run_dicts` stay empty
/// here, and so do the token columns (no read uses them; `usage` keeps the tokens).
const V2: &str = r#"
ALTER TABLE items ADD COLUMN packed BYTEA;
ALTER TABLE results ADD COLUMN input_tokens BIGINT;
ALTER TABLE results ADD COLUMN output_tokens BIGINT;
CREATE TABLE run_dicts (
  run_id TEXT PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
  dict BYTEA NOT NULL
);
"#;

/// Version 3: shards of one run (see [`crate::store::schema::V3_SHARDS`]).
const V3_SHARDS: &str = r#"
ALTER TABLE runs ADD COLUMN shards BIGINT;
CREATE TABLE run_shards (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  shard BIGINT NOT NULL,
  of BIGINT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('running', 'finished', 'interrupted')),
  owner_host TEXT,
  owner_pid BIGINT,
  started_at BIGINT NOT NULL,
  heartbeat_at BIGINT,
  ended_at BIGINT,
  summary TEXT,
  PRIMARY KEY (run_id, shard)
);
"#;
