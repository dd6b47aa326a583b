//! Opt-in response cache keyed by the full request (endpoint, model, messages, schema,
//! sampling settings): in memory (quick_cache) and optionally on disk, in a plain file
//! layout a team may commit ("record once, replay in CI"). Only validated successful
//! responses are stored; errors never are. A hit costs no HTTP call and no tokens.
//!
//! Options: `cache: true | false | { dir?, mode?, memory?, memoryBytes?, ioTimeoutMs? }`,
//! or `OXEVAL_CACHE_DIR` / `OXEVAL_CACHE_MODE`.
//!
//! - **Modes** ([`CacheMode`]): `auto` (the default) answers from the cache and asks the
//!   judge on a miss, storing the validated reply; `record` always asks the judge and
//!   stores (overwrites) the validated reply, never reading a hit (a stale recording cannot
//!   answer); a `record` cache whose directory cannot be written is refused when it is
//!   opened (the factory's `OXEVAL_INVALID_OPTIONS`: a test file is written and removed
//!   under `<dir>/v3/entries`, bounded by `ioTimeoutMs`), before any call is paid for;
//!   `replay` answers only from the cache (memory or disk) and never sends a
//!   request: a miss is an `OXEVAL_CACHE_MISS` error whose message says which call
//!   (scorer, step, item) missed and why its key differs from the one recorded for that call
//!   ([`ResponseCache::replay_miss`]). Replay stores nothing. Replay needs a `dir`.
//! - **Memory layer**: one per process, shared by every cached scorer, bounded by bytes
//!   (key + reply text + a fixed per-entry overhead), [`DEFAULT_MEMORY_BYTES`] unless a
//!   cache asks for more with `memoryBytes`: the bound is the largest any cache asked for so
//!   far (it never shrinks). `memoryBytes: 0` (or `memory: false`) keeps a cache out of it.
//!   A single reply heavier than one shard of the bound is not kept in memory. Entries are
//!   keyed by the cache's directory too: a cache over directory B is never answered from
//!   what a cache over directory A put in memory (B would then lack the entry it must
//!   replay later); caches without a directory share theirs.
//! - **Disk layer** (`<dir>/v3/`): one pretty-printed JSON file per entry,
//!   `entries/<first 2 hex of key>/<key>.json` (`format`, `key`, the `parts` digests,
//!   `reply: { finishReason, text }`; keys in a fixed order, no timestamps: recording the
//!   same reply again leaves the file byte-identical, and an identical file is not even
//!   rewritten), plus one small locator file per call site,
//!   `locators/<first 2 hex>/<digest>.json` (`format`, `key`, `locator: { attempt, call,
//!   item, scorer, step }`, `parts`): the key last recorded for that call, so a replay miss
//!   can name the part that changed. Every file is written to a temporary file in its own
//!   directory and renamed over the old one: readers see the old or the new file, never a
//!   mix, and concurrent writers (processes, Vitest workers) end with the last one's file.
//! - **Bounded I/O**: every read and write runs on tokio's blocking pool and is awaited at
//!   most until `ioTimeoutMs` ([`DISK_IO_TIMEOUT`]), the run's deadline or its cancellation.
//!   A read that times out or fails is a miss; a write that does is skipped; the run goes
//!   on. A blocked system call cannot be interrupted, so a stalled directory (an NFS/FUSE
//!   mount) keeps the abandoned call's thread; while a call is pending past `ioTimeoutMs`
//!   (whether the run waited that long or was cut short earlier), that directory is
//!   bypassed (no new calls, counted as timeouts), so it pins few threads. A damaged entry
//!   (not JSON, another format, another key) is a counted miss, repaired by the next write.
//! - **Problems are reported, not hidden**: [`ResponseCache::take_warnings`] yields
//!   `OXEVAL_CACHE_DISABLED` (the directory cannot be read or written: the message names it
//!   and the OS error) and `OXEVAL_CACHE_TIMEOUT`, each at most once per directory (as
//!   spelled) per process; [`ResponseCache::stats`] counts hits, misses, replay misses,
//!   writes, errors and timeouts per cache.
//!
//! **What reaches the disk.** Entries hold the judge's reply in clear text (the reply may
//! quote the judged input and output): treat a cache directory like the eval data itself.
//! The judge's own secrets (API key, custom header values, URL userinfo and query values)
//! are replaced by `[redacted]` in every reply as it arrives (`engine/call.rs`), so a judge
//! or gateway echoing the request never puts them in an entry, and a replay sees the same
//! text the recording run saw.
//! Besides the reply, only SHA-256 digests of the key parts ([`KeyParts`]) and the call
//! site (scorer id, step name, the run's `itemId` or a digest of its input) are written.
//! The API key is deliberately *not* part of the key: rotating a key must not invalidate a
//! team's recorded answers, and a key never reaches the disk. The endpoint part
//! ([`ResponseCache::scope`]) covers the provider, base URL, api-version and custom
//! `headers` (names and values, such as an Azure `api-key`) only through a digest; no header
//! value, URL, model id or prompt is written in clear. Changing a custom header value does
//! change the keys.

use super::call::CallSite;
use super::RunContext;
use crate::error::InvalidArgument;
use crate::options::{opt_bool, opt_number, opt_uint_in, wrong_type};
use crate::provider::{ChatRequest, ChatResponse, Usage};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};
use std::time::Duration;

/// The disk layout's folder under the cache directory. Bump (with [`FORMAT`]) when the
/// meaning of a cached entry changes.
pub const LAYOUT: &str = "v3";
/// The `format` of every file of the layout; part of every key.
const FORMAT: &str = "oxeval-cache-v3";
/// Largest cache file read; a larger one is damaged.
const MAX_FILE_BYTES: u64 = 256 << 20;

/// A reply as the memory layer keeps it.
#[derive(Debug, Clone, PartialEq)]
struct Entry {
    text: String,
    finish_reason: Option<String>,
}

/// Default bound of the process-wide memory layer, in bytes (see `entry_weight`).
pub const DEFAULT_MEMORY_BYTES: u64 = 64 * 1024 * 1024;

/// Bytes counted per memory entry on top of its key and text: the `Arc`, the `Entry` and
/// key `String` headers and quick_cache's slot bookkeeping, rounded up.
const ENTRY_OVERHEAD: u64 = 160;

/// Largest accepted `memoryBytes` (JavaScript's `Number.MAX_SAFE_INTEGER`).
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// The weight of one memory entry: approximately the bytes it keeps alive.
fn entry_weight(key: &str, e: &Entry) -> u64 {
    let finish = e.finish_reason.as_ref().map_or(0, String::len);
    (key.len() + e.text.len() + finish) as u64 + ENTRY_OVERHEAD
}

#[derive(Debug, Clone, Copy)]
struct EntryWeighter;

impl quick_cache::Weighter<String, Arc<Entry>> for EntryWeighter {
    fn weight(&self, key: &String, val: &Arc<Entry>) -> u64 {
        entry_weight(key, val)
    }
}

type MemoryLayer = quick_cache::sync::Cache<String, Arc<Entry>, EntryWeighter>;

fn new_memory_layer(bytes: u64) -> MemoryLayer {
    // the item estimate only sizes the hash tables; the weight is the bound
    let estimated_items = (bytes / 2048).clamp(64, 100_000) as usize;
    MemoryLayer::with_weighter(estimated_items, bytes, EntryWeighter)
}

/// The process-wide memory layer shared by every cached judge. Its bound is the largest
/// `memoryBytes` any cache asked for so far (a cache without the option asks for
/// [`DEFAULT_MEMORY_BYTES`]): it grows on request and never shrinks.
fn shared_memory(bytes: u64) -> Arc<MemoryLayer> {
    static MEM: Mutex<Option<Arc<MemoryLayer>>> = Mutex::new(None);
    let mut slot = MEM.lock().unwrap_or_else(PoisonError::into_inner);
    match &*slot {
        Some(m) => {
            if bytes > m.capacity() {
                m.set_capacity(bytes);
            }
            m.clone()
        }
        None => slot.insert(Arc::new(new_memory_layer(bytes))).clone(),
    }
}

/// How a cache answers (`cache.mode`, `OXEVAL_CACHE_MODE`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheMode {
    /// A hit answers; a miss asks the judge and stores the validated reply.
    #[default]
    Auto,
    /// Always ask the judge; store (overwrite) the validated reply. Never reads a hit.
    Record,
    /// Answer only from the cache; never send a request; store nothing. A miss is an
    /// `OXEVAL_CACHE_MISS` error.
    Replay,
}

impl CacheMode {
    pub fn parse(s: &str) -> Option<CacheMode> {
        match s {
            "auto" => Some(CacheMode::Auto),
            "record" => Some(CacheMode::Record),
            "replay" => Some(CacheMode::Replay),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            CacheMode::Auto => "auto",
            CacheMode::Record => "record",
            CacheMode::Replay => "replay",
        }
    }

    /// Whether a lookup may answer.
    pub fn reads(self) -> bool {
        self != CacheMode::Record
    }
}

/// The parsed `cache` option.
#[derive(Debug, Clone, PartialEq)]
pub struct CacheConfig {
    /// `cache.mode`, else `OXEVAL_CACHE_MODE`, else `auto`.
    pub mode: CacheMode,
    /// Use the process-wide memory layer (`cache.memory`, default true).
    pub memory: bool,
    /// Bound asked for the memory layer (`cache.memoryBytes`); 0 turns the memory layer off.
    pub memory_bytes: u64,
    /// The disk layer's directory (`cache.dir` or `OXEVAL_CACHE_DIR`).
    pub dir: Option<PathBuf>,
    /// Bound of each disk read or write (`cache.ioTimeoutMs`).
    pub io_timeout: Duration,
}

impl CacheConfig {
    fn new(dir: Option<PathBuf>) -> Self {
        CacheConfig {
            mode: CacheMode::Auto,
            memory: true,
            memory_bytes: DEFAULT_MEMORY_BYTES,
            dir,
            io_timeout: DISK_IO_TIMEOUT,
        }
    }
}

/// Default bound of one disk-cache read or write.
pub const DISK_IO_TIMEOUT: Duration = Duration::from_secs(2);

/// The environment variables the `cache` option falls back to.
#[derive(Debug, Clone, Default)]
pub struct CacheEnv {
    /// `OXEVAL_CACHE_DIR`.
    pub dir: Option<String>,
    /// `OXEVAL_CACHE_MODE`.
    pub mode: Option<String>,
}

impl CacheEnv {
    /// The process environment.
    pub fn from_process() -> CacheEnv {
        CacheEnv {
            dir: std::env::var("OXEVAL_CACHE_DIR").ok(),
            mode: std::env::var("OXEVAL_CACHE_MODE").ok(),
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Hex SHA-256 of length-prefixed `parts`.
fn digest_of(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for part in parts {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    hex(&h.finalize())
}

/// The parts a cache key is made of, each as a hex SHA-256 digest (never in clear: no
/// prompt, model id, URL or header value reaches the disk). Stored with every entry and
/// locator so a replay miss can name what changed. Fields in alphabetical order: the files
/// list them so.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyParts {
    /// Provider, base URL, api-version, custom headers ([`ResponseCache::scope`]).
    pub endpoint: String,
    /// The model id sent.
    pub model: String,
    /// The native output schema (name and JSON Schema); empty when the schema is in the
    /// system message.
    pub schema: String,
    /// Temperature, output budget and the extra settings (reasoning effort).
    pub settings: String,
    /// The system message.
    pub system: String,
    /// The user message (the prompt with the judged data).
    pub user: String,
}

impl KeyParts {
    /// The parts of `req` sent to `model` at `endpoint` (a [`ResponseCache::scope`]);
    /// `extra_settings` are settings that change the answer but are not in the request
    /// body as the cache sees it (the reasoning effort).
    pub fn new(endpoint: &str, model: &str, req: &ChatRequest, extra_settings: &str) -> KeyParts {
        let schema = req
            .schema
            .as_ref()
            .map(|(name, s)| format!("{name}:{s}"))
            .unwrap_or_default();
        let settings = format!(
            "{:?}|{:?}|{extra_settings}",
            req.temperature, req.max_tokens
        );
        KeyParts {
            endpoint: digest_of(&[endpoint]),
            model: digest_of(&[model]),
            schema: digest_of(&[&schema]),
            settings: digest_of(&[&settings]),
            system: digest_of(&[&req.system]),
            user: digest_of(&[&req.user]),
        }
    }

    /// The cache key (hex SHA-256 of the format and every part).
    pub fn key(&self) -> String {
        digest_of(&[
            FORMAT,
            &self.endpoint,
            &self.model,
            &self.schema,
            &self.settings,
            &self.system,
            &self.user,
        ])
    }

    /// Why a request with these parts is not the one recorded with `recorded`: one phrase
    /// per differing part.
    fn changes_since(&self, recorded: &KeyParts) -> Vec<&'static str> {
        let mut why = Vec::new();
        if self.endpoint != recorded.endpoint {
            why.push("the endpoint changed (provider, base URL, api-version or custom headers)");
        }
        if self.model != recorded.model {
            why.push("the model changed");
        }
        if self.settings != recorded.settings {
            why.push(
                "the model settings changed (temperature, maxOutputTokens or reasoningEffort)",
            );
        }
        if self.schema != recorded.schema {
            why.push("the output schema changed (oxeval upgrade?)");
        }
        if self.system != recorded.system {
            why.push("the system prompt changed (the scorer's instructions, or the output schema for a model that reads it from the prompt: oxeval upgrade?)");
        }
        if self.user != recorded.user {
            why.push("the prompt changed (the judged input/output/context, the scorer's options, or its prompt template)");
        }
        why
    }
}

/// Where a judge call comes from: the cache's stable name for "this call of this item", so
/// that a replay miss can be compared with what was recorded for the same call. Fields in
/// alphabetical order (the locator files list them so).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Locator {
    /// 1 for the first request of a call, 2 for its format fallback (or a text retry).
    pub attempt: u32,
    /// Which call of the step, when a step makes several (e.g. `response` / `reference`,
    /// `judge1` / `judge2`); empty otherwise.
    pub call: String,
    /// The run's `itemId`, else `input:<digest>` of the run's input (or `output:<digest>`).
    pub item: String,
    /// The scorer's id.
    pub scorer: String,
    /// The step name (`preprocess`, `analyze`, `generateReason`, …).
    pub step: String,
}

impl Locator {
    /// The locator of attempt `attempt` of a call made at `site`.
    pub fn new(site: &CallSite, attempt: u32) -> Locator {
        let s = |v: &Option<Arc<str>>| v.as_deref().unwrap_or("").to_string();
        Locator {
            attempt,
            call: site.call.to_string(),
            item: s(&site.item),
            scorer: s(&site.scorer),
            step: s(&site.step),
        }
    }

    /// The name of its locator file.
    fn digest(&self) -> String {
        let attempt = self.attempt.to_string();
        digest_of(&[
            FORMAT,
            &self.scorer,
            &self.step,
            &self.call,
            &self.item,
            &attempt,
        ])
    }

    /// "scorer 'x', step 'analyze' (call 'reference', fallback attempt), item 'q-1'".
    pub fn describe(&self) -> String {
        let mut s = String::new();
        if !self.scorer.is_empty() {
            s.push_str(&format!("scorer '{}', ", self.scorer));
        }
        let step = if self.step.is_empty() {
            "?"
        } else {
            &self.step
        };
        s.push_str(&format!("step '{step}'"));
        let mut extra = Vec::new();
        if !self.call.is_empty() {
            extra.push(format!("call '{}'", self.call));
        }
        if self.attempt > 1 {
            extra.push("the fallback attempt".to_string());
        }
        if !extra.is_empty() {
            s.push_str(&format!(" ({})", extra.join(", ")));
        }
        if self.item.is_empty() {
            // no item identity at all (a judge used outside a scorer run)
        } else if self.item.starts_with("input:") || self.item.starts_with("output:") {
            s.push_str(&format!(
                ", the item whose {} has digest {} (pass run options.itemId to name it)",
                self.item.split(':').next().unwrap_or("input"),
                self.item.split(':').nth(1).unwrap_or("")
            ));
        } else {
            s.push_str(&format!(", item '{}'", self.item));
        }
        s
    }
}

/// One request as the cache sees it: its key, the key's parts and its call site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheSlot {
    pub key: String,
    pub parts: KeyParts,
    pub locator: Locator,
}

impl CacheSlot {
    pub fn new(parts: KeyParts, locator: Locator) -> CacheSlot {
        CacheSlot {
            key: parts.key(),
            parts,
            locator,
        }
    }
}

/// An entry file: `<dir>/v3/entries/<2 hex>/<key>.json`.
#[derive(Debug, Serialize, Deserialize)]
struct EntryFile {
    format: String,
    key: String,
    parts: KeyParts,
    reply: ReplyFile,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReplyFile {
    finish_reason: Option<String>,
    text: String,
}

/// A locator file: `<dir>/v3/locators/<2 hex>/<locator digest>.json`.
#[derive(Debug, Serialize, Deserialize)]
struct LocatorFile {
    format: String,
    key: String,
    locator: Locator,
    parts: KeyParts,
}

/// Deterministic file text: pretty JSON (fields in declaration order) and a final newline.
fn file_text<T: Serialize>(v: &T) -> Result<Vec<u8>, DiskError> {
    let mut bytes = serde_json::to_vec_pretty(v).map_err(|e| DiskError::Other(e.to_string()))?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// `<dir>/v3/<kind>/<first 2 hex>/<name>.json`.
fn file_path(dir: &Path, kind: &str, name: &str) -> PathBuf {
    dir.join(LAYOUT)
        .join(kind)
        .join(name.get(..2).unwrap_or("__"))
        .join(format!("{name}.json"))
}

fn entry_path(dir: &Path, key: &str) -> PathBuf {
    file_path(dir, "entries", key)
}

fn locator_path(dir: &Path, locator_digest: &str) -> PathBuf {
    file_path(dir, "locators", locator_digest)
}

/// A whole file, at most [`MAX_FILE_BYTES`].
fn read_file(path: &Path) -> Result<Vec<u8>, DiskError> {
    let f = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    f.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(DiskError::Damaged(format!(
            "larger than {MAX_FILE_BYTES} bytes"
        )));
    }
    Ok(bytes)
}

/// Replace `path` with `bytes` atomically: a temporary file in the same directory, renamed
/// over it. A file that already holds exactly `bytes` is left alone.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), DiskError> {
    if matches!(read_file(path), Ok(old) if old == bytes) {
        return Ok(());
    }
    let parent = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("entry");
    let tmp = parent.join(format!(
        ".{name}.{}-{:016x}.tmp",
        std::process::id(),
        fastrand::u64(..)
    ));
    let written = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(bytes)?;
        drop(f);
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written.map_err(DiskError::from)
}

/// Check that `dir` can hold recordings: create `<dir>/v3/entries`, write a small file
/// there and remove it, on a thread of its own, waited for at most `io_timeout` (a stalled
/// mount cannot hang the caller; the thread is left to finish). The error says why not.
fn probe_writable(dir: &Path, io_timeout: Duration) -> Result<(), String> {
    let entries = dir.join(LAYOUT).join("entries");
    let (tx, rx) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("oxeval-cache-probe".into())
        .spawn(move || {
            let probe = entries.join(format!(
                ".probe-{}-{:016x}.tmp",
                std::process::id(),
                fastrand::u64(..)
            ));
            let result = (|| {
                std::fs::create_dir_all(&entries)?;
                let mut f = std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&probe)?;
                f.write_all(b"oxeval\n")?;
                drop(f);
                std::fs::remove_file(&probe)
            })();
            if result.is_err() {
                let _ = std::fs::remove_file(&probe);
            }
            let _ = tx.send(result);
        });
    if let Err(e) = spawned {
        return Err(format!("the check could not start: {e}"));
    }
    match rx.recv_timeout(io_timeout) {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err(format!(
            "a test write did not finish within {} ms (cache.ioTimeoutMs)",
            io_timeout.as_millis()
        )),
    }
}

/// Read and check the entry file of `key`: another format or another key is damaged.
fn read_entry(dir: &Path, key: &str) -> Result<Entry, DiskError> {
    let bytes = read_file(&entry_path(dir, key))?;
    match serde_json::from_slice::<EntryFile>(&bytes) {
        Ok(e) if e.format == FORMAT && e.key == key => Ok(Entry {
            text: e.reply.text,
            finish_reason: e.reply.finish_reason,
        }),
        Ok(_) => Err(DiskError::Damaged(
            "an entry of another format or key".into(),
        )),
        Err(e) => Err(DiskError::Damaged(e.to_string())),
    }
}

/// One scorer's response cache. Clones share the same layers.
#[derive(Clone)]
pub struct ResponseCache {
    config: CacheConfig,
    memory: Option<Arc<MemoryLayer>>,
    /// What this cache's memory keys start with: its disk directory (absolute), so caches
    /// over different directories never answer from each other's memory (a hit from
    /// directory A would leave directory B without the entry it must replay later).
    memory_scope: Arc<str>,
    disk: Option<Disk>,
    counters: Arc<Counters>,
    /// Tests: make every disk operation take this long first.
    #[cfg(test)]
    test_stall: Option<Duration>,
}

impl std::fmt::Debug for ResponseCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResponseCache")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

const MODES: &str = "'record', 'replay' or 'auto'";

impl ResponseCache {
    /// A cache with this configuration (attaches the process-wide memory layer).
    pub fn new(config: CacheConfig) -> Self {
        let memory =
            (config.memory && config.memory_bytes > 0).then(|| shared_memory(config.memory_bytes));
        let memory_scope: Arc<str> = match &config.dir {
            None => Arc::from(""),
            Some(dir) => {
                let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.clone());
                Arc::from(format!("{}\0", dir.display()))
            }
        };
        ResponseCache {
            disk: config.dir.clone().map(Disk::new),
            config,
            memory,
            memory_scope,
            counters: Arc::default(),
            #[cfg(test)]
            test_stall: None,
        }
    }

    #[cfg(test)]
    fn with_memory_layer(config: CacheConfig, layer: MemoryLayer) -> Self {
        let mut c = ResponseCache::new(CacheConfig {
            memory: false,
            ..config.clone()
        });
        c.config = config;
        c.memory = Some(Arc::new(layer));
        c
    }

    pub fn config(&self) -> &CacheConfig {
        &self.config
    }

    pub fn mode(&self) -> CacheMode {
        self.config.mode
    }

    /// Parse `options.cache`: `true` (memory), `{ dir?, mode?, memory?, memoryBytes?,
    /// ioTimeoutMs? }`, or `false`. Without the option, `OXEVAL_CACHE_DIR` enables a disk
    /// (and memory) cache; `OXEVAL_CACHE_MODE` is the mode unless `cache.mode` says
    /// otherwise. Replay without a directory is an error (it could only miss), and so is
    /// `OXEVAL_CACHE_MODE=replay` with no cache at all (the scorer would call the judge).
    pub fn from_options(v: Option<&Value>, env: CacheEnv) -> Result<Option<Self>, InvalidArgument> {
        let env_dir = env.dir.filter(|d| !d.is_empty()).map(PathBuf::from);
        let env_mode = match env.mode.as_deref().map(str::trim).filter(|m| !m.is_empty()) {
            None => None,
            Some(m) => Some(CacheMode::parse(m).ok_or_else(|| {
                InvalidArgument::options(format!(
                    "process.env.OXEVAL_CACHE_MODE must be {MODES}; got '{}'",
                    crate::engine::clip(m, 40)
                ))
            })?),
        };
        let replay_without_cache = |why: &str| {
            InvalidArgument::options(format!(
                "process.env.OXEVAL_CACHE_MODE is 'replay' but {why}: this scorer would call the judge. Set cache: {{ dir }} or OXEVAL_CACHE_DIR to the recorded replies"
            ))
        };
        let (config, mode_from_option) = match v {
            None | Some(Value::Null) => match env_dir {
                Some(d) => (Some(CacheConfig::new(Some(d))), false),
                None if env_mode == Some(CacheMode::Replay) => {
                    return Err(replay_without_cache("no cache is configured"))
                }
                None => (None, false),
            },
            Some(Value::Bool(false)) => {
                if env_mode == Some(CacheMode::Replay) {
                    return Err(replay_without_cache("options.cache is false"));
                }
                (None, false)
            }
            Some(Value::Bool(true)) => (Some(CacheConfig::new(env_dir)), false),
            Some(obj @ Value::Object(m)) => {
                let path = "options.cache";
                let dir = match m.get("dir") {
                    None | Some(Value::Null) => env_dir,
                    Some(Value::String(s)) if !s.is_empty() => Some(PathBuf::from(s)),
                    Some(other) => {
                        return Err(wrong_type(
                            "options.cache.dir",
                            "a non-empty string",
                            other,
                        ))
                    }
                };
                let mut c = CacheConfig::new(dir);
                let mode = match m.get("mode") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(s)) => Some(CacheMode::parse(s).ok_or_else(|| {
                        InvalidArgument::options(format!(
                            "{path}.mode must be {MODES}; got '{}'",
                            crate::engine::clip(s, 40)
                        ))
                    })?),
                    Some(other) => return Err(wrong_type("options.cache.mode", MODES, other)),
                };
                if let Some(mode) = mode {
                    c.mode = mode;
                }
                if let Some(b) = opt_bool(obj, "memory", path)? {
                    c.memory = b;
                }
                match opt_number(obj, "memoryBytes", path)? {
                    None => {}
                    Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= MAX_SAFE_INTEGER => {
                        c.memory_bytes = n as u64
                    }
                    Some(n) => {
                        return Err(InvalidArgument::options(format!(
                            "{path}.memoryBytes must be a non-negative integer (bytes; 0 turns the memory layer off); got {n}"
                        )))
                    }
                }
                if let Some(ms) = opt_uint_in(obj, "ioTimeoutMs", path, 1, 600_000)? {
                    c.io_timeout = Duration::from_millis(ms);
                }
                (Some(c), mode.is_some())
            }
            Some(other) => {
                return Err(wrong_type(
                    "options.cache",
                    "true, false or { dir?: string, mode?: 'record' | 'replay' | 'auto', memory?: boolean, memoryBytes?: number, ioTimeoutMs?: number }",
                    other,
                ))
            }
        };
        let Some(mut config) = config else {
            return Ok(None);
        };
        if !mode_from_option {
            config.mode = env_mode.unwrap_or_default();
        }
        if config.mode == CacheMode::Replay && config.dir.is_none() {
            let source = if mode_from_option {
                "options.cache.mode"
            } else {
                "process.env.OXEVAL_CACHE_MODE"
            };
            return Err(InvalidArgument::options(format!(
                "{source} is 'replay' but there is no cache directory to replay from: set options.cache.dir (or OXEVAL_CACHE_DIR) to the recorded replies (a memory-only cache starts empty, so every call would miss)"
            )));
        }
        if config.mode == CacheMode::Record {
            if let Some(dir) = &config.dir {
                probe_writable(dir, config.io_timeout).map_err(|why| {
                    let source = if mode_from_option {
                        "options.cache.mode"
                    } else {
                        "process.env.OXEVAL_CACHE_MODE"
                    };
                    InvalidArgument::options(format!(
                        "{source} is 'record' but the cache directory '{}' cannot be written ({why}): every judge call would be paid for and nothing recorded. Make it writable or set options.cache.dir (or OXEVAL_CACHE_DIR) to a directory that is",
                        dir.display()
                    ))
                })?;
            }
        }
        Ok(Some(ResponseCache::new(config)))
    }

    /// The endpoint part of cache keys (hex SHA-256 of provider, base URL and the custom
    /// headers, so header values such as Azure `api-key`s are never kept in clear).
    pub fn scope(provider: &str, base_url: &str, headers: &[(String, String)]) -> String {
        let mut sorted: Vec<&(String, String)> = headers.iter().collect();
        sorted.sort();
        let mut h = Sha256::new();
        for part in [provider, base_url] {
            h.update((part.len() as u64).to_le_bytes());
            h.update(part.as_bytes());
        }
        for (k, v) in sorted {
            for part in [k, v] {
                h.update((part.len() as u64).to_le_bytes());
                h.update(part.as_bytes());
            }
        }
        hex(&h.finalize())
    }

    /// The memory layer's key of `key` for this cache (see `memory_scope`).
    fn memory_key(&self, key: &str) -> String {
        format!("{}{key}", self.memory_scope)
    }

    /// Look `key` up: memory first, then disk. A disk read that fails, times out, or is cut
    /// short by the run's cancellation or deadline is a miss (`None`); only the first two are
    /// counted and warned about — the caller checks cancellation and the deadline itself.
    /// (The mode is the caller's business: a `record` judge does not call this.)
    pub async fn get(&self, key: &str, ctx: &RunContext) -> Option<ChatResponse> {
        if let Some(mem) = &self.memory {
            if let Some(e) = mem.get(&self.memory_key(key)) {
                self.counters.memory_hits.fetch_add(1, Relaxed);
                return Some(to_response(&e));
            }
        }
        let Some(disk) = &self.disk else {
            self.counters.misses.fetch_add(1, Relaxed);
            return None;
        };
        let k = key.to_string();
        let read = self
            .bounded(disk, ctx, move |dir| read_entry(dir, &k))
            .await;
        let found = match read {
            Bounded::Interrupted => return None,
            Bounded::TimedOut => {
                self.timed_out(disk, "read");
                None
            }
            Bounded::Done(Err(DiskError::NotFound)) => None,
            Bounded::Done(Err(DiskError::Damaged(_))) => {
                // one damaged entry: a miss, rewritten by the next put; counted, but the
                // directory works
                self.counters.errors.fetch_add(1, Relaxed);
                None
            }
            Bounded::Done(Err(e)) => {
                self.failed(disk, "read", e);
                None
            }
            Bounded::Done(Ok(entry)) => Some(entry),
        };
        let Some(entry) = found else {
            self.counters.misses.fetch_add(1, Relaxed);
            return None;
        };
        self.counters.disk_hits.fetch_add(1, Relaxed);
        if let Some(mem) = &self.memory {
            mem.insert(self.memory_key(key), Arc::new(entry.clone()));
        }
        Some(to_response(&entry))
    }

    /// Store a validated answer for `slot`: in memory, then on disk (its entry file, then its
    /// locator file). A disk write that fails or times out is skipped (counted, warned about
    /// once); one cut short by the run's cancellation or deadline is skipped silently. Never
    /// fails the run. A `replay` cache stores nothing.
    pub async fn put(&self, slot: &CacheSlot, resp: &ChatResponse, ctx: &RunContext) {
        if self.config.mode == CacheMode::Replay {
            return;
        }
        let entry = Entry {
            text: resp.text.clone(),
            finish_reason: resp.finish_reason.clone(),
        };
        let mut stored = false;
        if let Some(disk) = &self.disk {
            let files = file_text(&EntryFile {
                format: FORMAT.into(),
                key: slot.key.clone(),
                parts: slot.parts.clone(),
                reply: ReplyFile {
                    finish_reason: entry.finish_reason.clone(),
                    text: entry.text.clone(),
                },
            })
            .and_then(|e| {
                let l = file_text(&LocatorFile {
                    format: FORMAT.into(),
                    key: slot.key.clone(),
                    locator: slot.locator.clone(),
                    parts: slot.parts.clone(),
                })?;
                Ok((e, l))
            });
            match files {
                Ok((entry_bytes, locator_bytes)) => {
                    let (key, locator) = (slot.key.clone(), slot.locator.digest());
                    let write = self
                        .bounded(disk, ctx, move |dir| {
                            write_atomic(&entry_path(dir, &key), &entry_bytes)?;
                            write_atomic(&locator_path(dir, &locator), &locator_bytes)
                        })
                        .await;
                    match write {
                        Bounded::Done(Ok(())) => stored = true,
                        Bounded::Done(Err(e)) => self.failed(disk, "write", e),
                        Bounded::TimedOut => self.timed_out(disk, "write"),
                        Bounded::Interrupted => {}
                    }
                }
                Err(e) => self.failed(disk, "write", e),
            }
        }
        if let Some(mem) = &self.memory {
            mem.insert(self.memory_key(&slot.key), Arc::new(entry));
            stored = true;
        }
        if stored {
            self.counters.writes.fetch_add(1, Relaxed);
        }
    }

    /// The message of a replay miss for `slot` (counted in `replayMisses`): which call
    /// missed, and why its key differs from the one recorded for the same call site (its
    /// locator file), part by part.
    pub async fn replay_miss(&self, slot: &CacheSlot, ctx: &RunContext) -> String {
        self.counters.replay_misses.fetch_add(1, Relaxed);
        let why = match &self.disk {
            None => "no reply was recorded for this item and step".to_string(),
            Some(disk) => {
                let digest = slot.locator.digest();
                let read = self
                    .bounded(disk, ctx, move |dir| {
                        let bytes = read_file(&locator_path(dir, &digest))?;
                        serde_json::from_slice::<LocatorFile>(&bytes)
                            .map_err(|e| DiskError::Damaged(e.to_string()))
                    })
                    .await;
                match read {
                    Bounded::Done(Ok(recorded)) if recorded.format == FORMAT => {
                        let changes = slot.parts.changes_since(&recorded.parts);
                        if !changes.is_empty() {
                            format!("{} since it was recorded", join_and(&changes))
                        } else if recorded.key == slot.key {
                            format!(
                                "the recorded reply for this call (entries/{}/{}.json) is missing or damaged",
                                &slot.key[..2],
                                slot.key
                            )
                        } else {
                            "it was recorded by another oxeval cache format".to_string()
                        }
                    }
                    Bounded::Done(Ok(_)) => {
                        "it was recorded by another oxeval cache format".to_string()
                    }
                    Bounded::Done(Err(DiskError::NotFound)) => {
                        "no reply was recorded for this item and step (a call that never got a valid answer is not recorded)".to_string()
                    }
                    Bounded::Done(Err(e)) => {
                        format!("no reply was found, and what was recorded for this call could not be read ({e})")
                    }
                    Bounded::TimedOut | Bounded::Interrupted => {
                        "no reply was found (what was recorded for this call could not be read in time)".to_string()
                    }
                }
            }
        };
        format!(
            "cache.mode is 'replay' and no reply is recorded for {}, so no request was sent: {why}. Re-record with cache.mode 'record' (or 'auto') and a judge API key",
            slot.locator.describe()
        )
    }

    /// This cache's counters so far (shared by clones).
    pub fn stats(&self) -> CacheStats {
        let c = &self.counters;
        let (memory_hits, disk_hits) = (c.memory_hits.load(Relaxed), c.disk_hits.load(Relaxed));
        CacheStats {
            hits: memory_hits + disk_hits,
            memory_hits,
            disk_hits,
            misses: c.misses.load(Relaxed),
            replay_misses: c.replay_misses.load(Relaxed),
            writes: c.writes.load(Relaxed),
            errors: c.errors.load(Relaxed),
            timeouts: c.timeouts.load(Relaxed),
        }
    }

    /// Warnings recorded since the last call (each at most once per directory per process).
    pub fn take_warnings(&self) -> Vec<CacheWarning> {
        std::mem::take(
            &mut *self
                .counters
                .warnings
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    fn warn_once(&self, flag: &AtomicBool, code: &'static str, message: impl FnOnce() -> String) {
        if !flag.swap(true, Relaxed) {
            self.counters
                .warnings
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(CacheWarning {
                    code,
                    message: message(),
                });
        }
    }

    fn failed(&self, disk: &Disk, op: &str, e: DiskError) {
        self.counters.errors.fetch_add(1, Relaxed);
        self.warn_once(&disk.state.warned_disabled, CACHE_DISABLED, || {
            format!(
                "oxeval: the response cache directory '{}' is not usable ({op} failed: {e}); judge answers are not cached on disk there until this is fixed",
                disk.dir.display()
            )
        });
    }

    fn timed_out(&self, disk: &Disk, op: &str) {
        self.counters.timeouts.fetch_add(1, Relaxed);
        self.warn_once(&disk.state.warned_timeout, CACHE_TIMEOUT, || {
            format!(
                "oxeval: a response cache {op} in '{}' did not finish within {} ms (cache.ioTimeoutMs) and was abandoned (a stalled network or FUSE mount?); reads that time out count as misses, writes are skipped, and the directory is bypassed while an abandoned operation is still pending",
                disk.dir.display(),
                self.config.io_timeout.as_millis()
            )
        });
    }

    /// Run one blocking disk operation on the blocking pool and wait for it at most until the
    /// I/O timeout, the run's deadline or its cancellation, whichever comes first. An
    /// operation that outlives its wait keeps its blocking thread (a blocked system call
    /// cannot be interrupted); while an operation that timed out is still pending, further
    /// ones on the same directory are not started and count as timed out at once, so a
    /// stalled mount pins a bounded number of threads.
    async fn bounded<T, F>(&self, disk: &Disk, ctx: &RunContext, op: F) -> Bounded<T>
    where
        T: Send + 'static,
        F: FnOnce(&Path) -> Result<T, DiskError> + Send + 'static,
    {
        if ctx.cancel.is_cancelled() || ctx.remaining().is_some_and(|r| r.is_zero()) {
            return Bounded::Interrupted;
        }
        if disk.state.stalled.load(Acquire) > 0 {
            return Bounded::TimedOut;
        }
        let this_op = Arc::new(AtomicU8::new(RUNNING));
        let until = tokio::time::Instant::now() + self.config.io_timeout;
        let mut task = {
            let (dir, state, this_op) = (disk.dir.clone(), disk.state.clone(), this_op.clone());
            #[cfg(test)]
            let stall = self.test_stall;
            tokio::task::spawn_blocking(move || {
                #[cfg(test)]
                if let Some(d) = stall {
                    std::thread::sleep(d);
                }
                let out = op(&dir);
                if this_op.swap(FINISHED, AcqRel) == ABANDONED {
                    state.stalled.fetch_sub(1, AcqRel);
                }
                out
            })
        };
        tokio::select! {
            biased;
            _ = ctx.cancel.cancelled() => {}
            _ = ctx.deadline_passed() => {}
            joined = &mut task => {
                return Bounded::Done(joined.unwrap_or_else(|e| {
                    Err(DiskError::Other(format!("the disk operation failed: {e}")))
                }))
            }
            _ = tokio::time::sleep_until(until) => {
                abandon(&disk.state, &this_op);
                return Bounded::TimedOut;
            }
        }
        // Cut short by the run: keep watching the operation until its own timeout, so that
        // runs aborted early on a stalled dir also end up bypassing it.
        let state = disk.state.clone();
        tokio::spawn(async move {
            if tokio::time::timeout_at(until, task).await.is_err() {
                abandon(&state, &this_op);
            }
        });
        Bounded::Interrupted
    }
}

/// Count a timed-out operation as stalled until it returns; whichever of this and the
/// operation's own completion marks second undoes the count.
fn abandon(state: &DirState, this_op: &AtomicU8) {
    state.stalled.fetch_add(1, AcqRel);
    if this_op.swap(ABANDONED, AcqRel) == FINISHED {
        state.stalled.fetch_sub(1, AcqRel);
    }
}

/// Warning code: a cache directory cannot be read or written (details in the message).
pub const CACHE_DISABLED: &str = "OXEVAL_CACHE_DISABLED";
/// Warning code: a disk-cache operation outlived `cache.ioTimeoutMs` and was abandoned.
pub const CACHE_TIMEOUT: &str = "OXEVAL_CACHE_TIMEOUT";

/// A cache problem worth telling the user about once (the binding forwards these to
/// `process.emitWarning(message, { code })`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CacheWarning {
    pub code: &'static str,
    pub message: String,
}

/// Counters of one [`ResponseCache`] (shared by its clones).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheStats {
    /// `memory_hits + disk_hits`.
    pub hits: u64,
    pub memory_hits: u64,
    pub disk_hits: u64,
    /// Lookups that found nothing (including failed or timed-out disk reads; not lookups cut
    /// short by cancellation or the deadline).
    pub misses: u64,
    /// Misses of a `replay` cache (each one failed its run with `OXEVAL_CACHE_MISS`).
    pub replay_misses: u64,
    /// Answers stored in at least one layer.
    pub writes: u64,
    /// Disk reads/writes that failed (unusable directory, damaged entry).
    pub errors: u64,
    /// Disk reads/writes abandoned after `cache.ioTimeoutMs`, or not started because an
    /// abandoned one on the same directory is still pending.
    pub timeouts: u64,
}

#[derive(Default)]
struct Counters {
    memory_hits: AtomicU64,
    disk_hits: AtomicU64,
    misses: AtomicU64,
    replay_misses: AtomicU64,
    writes: AtomicU64,
    errors: AtomicU64,
    timeouts: AtomicU64,
    warnings: Mutex<Vec<CacheWarning>>,
}

/// The disk layer of one cache: its directory and that directory's process-wide state.
#[derive(Clone)]
struct Disk {
    dir: PathBuf,
    state: Arc<DirState>,
}

/// Per cache directory (as spelled in the options), per process.
#[derive(Default)]
struct DirState {
    /// Abandoned operations still pending.
    stalled: AtomicUsize,
    warned_disabled: AtomicBool,
    warned_timeout: AtomicBool,
}

impl Disk {
    fn new(dir: PathBuf) -> Disk {
        static DIRS: LazyLock<Mutex<HashMap<PathBuf, Arc<DirState>>>> =
            LazyLock::new(Default::default);
        let state = DIRS
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(dir.clone())
            .or_default()
            .clone();
        Disk { dir, state }
    }
}

const RUNNING: u8 = 0;
const FINISHED: u8 = 1;
const ABANDONED: u8 = 2;

enum Bounded<T> {
    Done(Result<T, DiskError>),
    TimedOut,
    /// The run was cancelled or its deadline passed.
    Interrupted,
}

#[derive(Debug)]
enum DiskError {
    NotFound,
    Io(std::io::Error),
    /// One file is not what the layout says (not JSON, another format or key): a counted
    /// miss, repaired by the next write, not a reason to warn about the directory.
    Damaged(String),
    Other(String),
}

impl From<std::io::Error> for DiskError {
    fn from(e: std::io::Error) -> Self {
        match e.kind() {
            std::io::ErrorKind::NotFound => DiskError::NotFound,
            _ => DiskError::Io(e),
        }
    }
}

impl std::fmt::Display for DiskError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DiskError::NotFound => f.write_str("not found"),
            DiskError::Io(e) => write!(f, "{e}"),
            DiskError::Damaged(m) => write!(f, "damaged entry: {m}"),
            DiskError::Other(m) => f.write_str(m),
        }
    }
}

/// "a, b and c".
fn join_and(parts: &[&str]) -> String {
    match parts {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

fn to_response(e: &Entry) -> ChatResponse {
    ChatResponse {
        warnings: Vec::new(),
        text: e.text.clone(),
        refusal: None,
        reasoning: None,
        finish_reason: e.finish_reason.clone(),
        usage: Usage {
            input_tokens: Some(0),
            output_tokens: Some(0),
            total_tokens: Some(0),
            ..Default::default()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::sync::atomic::Ordering::Release;

    fn put_blocking(cache: &ResponseCache, slot: &CacheSlot, text: &str) {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(cache.put(slot, &answer(text), &RunContext::default()));
    }

    /// The slot of a request with user message `user`, for item `user` at step `analyze`.
    fn slot(user: &str) -> CacheSlot {
        slot_at(user, &req(user))
    }

    fn slot_at(item: &str, req: &ChatRequest) -> CacheSlot {
        CacheSlot::new(
            KeyParts::new("p", "m", req, ""),
            Locator {
                attempt: 1,
                call: String::new(),
                item: item.into(),
                scorer: "s".into(),
                step: "analyze".into(),
            },
        )
    }

    fn answer(text: &str) -> ChatResponse {
        ChatResponse {
            text: text.into(),
            finish_reason: Some("stop".into()),
            usage: Usage::default(),
            ..Default::default()
        }
    }

    fn temp_path(what: &str) -> PathBuf {
        std::env::temp_dir().join(format!("oxeval-{what}-{}", uuid::Uuid::new_v4()))
    }

    fn disk_only(dir: &Path, io_timeout: Duration) -> ResponseCache {
        ResponseCache::new(CacheConfig {
            memory: false,
            io_timeout,
            ..CacheConfig::new(Some(dir.to_path_buf()))
        })
    }

    /// A runtime whose shutdown does not wait for blocking threads stuck in a stalled call.
    /// A test runtime that never waits for blocking-pool threads when dropped (a thread
    /// stuck on a FIFO must not hang the test binary, also when an assertion fails).
    struct Rt(Option<tokio::runtime::Runtime>);

    impl Rt {
        fn block_on<F: std::future::Future>(&self, f: F) -> F::Output {
            self.0.as_ref().unwrap().block_on(f)
        }
        fn shutdown_background(mut self) {
            if let Some(rt) = self.0.take() {
                rt.shutdown_background();
            }
        }
    }

    impl Drop for Rt {
        fn drop(&mut self) {
            if let Some(rt) = self.0.take() {
                rt.shutdown_background();
            }
        }
    }

    fn runtime() -> Rt {
        Rt(Some(
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .unwrap(),
        ))
    }

    /// A cache dir where `slot`'s entry file (the first file a read or a write opens) is a
    /// FIFO without a writer: opening it blocks, like a stalled network mount.
    #[cfg(unix)]
    fn dir_with_stalled_bucket(slot: &CacheSlot) -> (PathBuf, PathBuf) {
        let dir = temp_path("cache-fifo");
        let rt = runtime();
        rt.block_on(disk_only(&dir, DISK_IO_TIMEOUT).put(
            slot,
            &answer("{}"),
            &RunContext::default(),
        ));
        rt.shutdown_background();
        let bucket = entry_path(&dir, &slot.key);
        std::fs::remove_file(&bucket).unwrap();
        let ok = std::process::Command::new("mkfifo")
            .arg(&bucket)
            .status()
            .unwrap()
            .success();
        assert!(ok, "mkfifo failed");
        (dir, bucket)
    }

    /// Give the stalled FIFO a peer so the blocked open returns (EOF: a miss).
    #[cfg(unix)]
    /// Release the readers blocked on the FIFO until no stalled call is left: each round
    /// opens it read-write (never blocks; every blocked reader's open returns), then closes it
    /// (they read EOF). A reader that arrives between rounds is released by the next one.
    async fn unstall(fifo: &Path, stalled: &std::sync::atomic::AtomicUsize) {
        let t = std::time::Instant::now();
        while stalled.load(Acquire) > 0 {
            assert!(
                t.elapsed() < Duration::from_secs(20),
                "the stalled calls never returned"
            );
            if let Ok(peer) = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open(fifo)
            {
                tokio::time::sleep(Duration::from_millis(20)).await;
                drop(peer);
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    fn req(user: &str) -> ChatRequest {
        ChatRequest {
            system: "s".into(),
            user: user.into(),
            schema: None,
            temperature: Some(0.0),
            max_tokens: None,
            max_response_bytes: crate::provider::DEFAULT_MAX_RESPONSE_BYTES,
        }
    }

    fn env(dir: Option<&str>) -> CacheEnv {
        CacheEnv {
            dir: dir.map(str::to_string),
            mode: None,
        }
    }

    fn config(v: Option<serde_json::Value>, dir: Option<&str>) -> Option<CacheConfig> {
        ResponseCache::from_options(v.as_ref(), env(dir))
            .unwrap()
            .map(|c| c.config().clone())
    }

    #[test]
    fn options() {
        let with = |memory, dir: Option<&str>| CacheConfig {
            mode: CacheMode::Auto,
            memory,
            memory_bytes: DEFAULT_MEMORY_BYTES,
            dir: dir.map(PathBuf::from),
            io_timeout: DISK_IO_TIMEOUT,
        };
        assert_eq!(config(None, None), None);
        assert_eq!(config(Some(json!(true)), None), Some(with(true, None)));
        assert_eq!(
            config(None, Some("/tmp/x")),
            Some(with(true, Some("/tmp/x")))
        );
        assert_eq!(config(Some(json!(false)), Some("/tmp/x")), None);
        assert_eq!(
            config(Some(json!({"dir": "/d", "memory": false})), None),
            Some(with(false, Some("/d")))
        );
        assert_eq!(
            config(
                Some(json!({"memoryBytes": 1048576, "ioTimeoutMs": 250})),
                None
            ),
            Some(CacheConfig {
                memory_bytes: 1 << 20,
                io_timeout: Duration::from_millis(250),
                ..with(true, None)
            })
        );
        // 0 bytes: no memory layer
        let off = ResponseCache::from_options(Some(&json!({"memoryBytes": 0})), env(None))
            .unwrap()
            .unwrap();
        assert!(off.memory.is_none());
        for (bad, want) in [
            (json!(3), "options.cache must be true, false or"),
            (
                json!({"dir": 3}),
                "options.cache.dir must be a non-empty string",
            ),
            (
                json!({"memory": "yes"}),
                "options.cache.memory must be a boolean",
            ),
            (
                json!({"memoryBytes": "1MB"}),
                "options.cache.memoryBytes must be a number",
            ),
            (
                json!({"memoryBytes": -1}),
                "memoryBytes must be a non-negative integer",
            ),
            (
                json!({"memoryBytes": 1.5}),
                "memoryBytes must be a non-negative integer",
            ),
            (
                json!({"ioTimeoutMs": -5}),
                "ioTimeoutMs must be an integer from 1 to 600000; got -5",
            ),
            (
                json!({"ioTimeoutMs": 0}),
                "ioTimeoutMs must be an integer from 1",
            ),
            (json!({"ioTimeoutMs": true}), "ioTimeoutMs must be a number"),
        ] {
            let e = ResponseCache::from_options(Some(&bad), env(None)).unwrap_err();
            assert!(e.message.contains(want), "{bad}: {}", e.message);
            assert!(e.code.is_type_error());
        }
    }

    #[test]
    fn memory_layer_is_bounded_by_bytes() {
        let cache = ResponseCache::with_memory_layer(
            CacheConfig {
                memory_bytes: 1 << 20,
                ..CacheConfig::new(None)
            },
            new_memory_layer(1 << 20),
        );
        let layer = cache.memory.clone().unwrap();
        let text = "x".repeat(8 * 1024);
        // 1280 × 8 KiB = 10 MiB of answers into a 1 MiB layer
        for i in 0..1280 {
            put_blocking(&cache, &slot(&format!("bytes {i}")), &text);
        }
        assert!(layer.weight() <= 1 << 20, "weight {}", layer.weight());
        assert!(layer.capacity() <= 1 << 20);
        assert!(layer.len() > 50, "still caches: {}", layer.len());
        let one = entry_weight(
            &"k".repeat(64),
            &Entry {
                text: text.clone(),
                finish_reason: Some("stop".into()),
            },
        );
        assert_eq!(one, 64 + 8 * 1024 + 4 + ENTRY_OVERHEAD);
    }

    #[test]
    fn the_shared_memory_layer_takes_the_largest_bound_asked_for() {
        let big = 300 << 20;
        let a = ResponseCache::from_options(Some(&json!({ "memoryBytes": big })), env(None))
            .unwrap()
            .unwrap();
        let b = ResponseCache::from_options(Some(&json!({ "memoryBytes": 1024 })), env(None))
            .unwrap()
            .unwrap();
        let (ma, mb) = (a.memory.unwrap(), b.memory.unwrap());
        assert!(Arc::ptr_eq(&ma, &mb));
        assert!(ma.capacity() >= big);
    }

    #[test]
    fn keys_depend_on_every_part() {
        let key = |e: &str, m: &str, r: &ChatRequest| KeyParts::new(e, m, r, "").key();
        let a = key("openai", "m", &req("u"));
        assert_eq!(a, key("openai", "m", &req("u")));
        assert_ne!(a, key("openai", "m2", &req("u")));
        assert_ne!(a, key("groq", "m", &req("u")));
        assert_ne!(a, key("openai", "m", &req("u2")));
        let mut hot = req("u");
        hot.temperature = Some(1.0);
        assert_ne!(a, key("openai", "m", &hot));
        let mut sys = req("u");
        sys.system = "s2".into();
        assert_ne!(a, key("openai", "m", &sys));
        let mut schema = req("u");
        schema.schema = Some(("S", Arc::new(json!({"type": "object"}))));
        assert_ne!(a, key("openai", "m", &schema));
        assert_ne!(a, KeyParts::new("openai", "m", &req("u"), "effort").key());
        assert_eq!(a.len(), 64);
        // the same model behind another endpoint or with other headers is another scope
        let s1 = ResponseCache::scope("openai", "http://a/v1", &[]);
        assert_ne!(s1, ResponseCache::scope("openai", "http://b/v1", &[]));
        let h = |k: &str, v: &str| (k.to_string(), v.to_string());
        assert_ne!(
            s1,
            ResponseCache::scope("openai", "http://a/v1", &[h("api-version", "1")])
        );
        assert_eq!(
            ResponseCache::scope("p", "u", &[h("a", "1"), h("b", "2")]),
            ResponseCache::scope("p", "u", &[h("b", "2"), h("a", "1")])
        );
    }

    #[tokio::test]
    async fn disk_round_trip_survives_a_new_cache_object() {
        let dir = temp_path("cache-test");
        let ctx = RunContext::default();
        let c = disk_only(&dir, DISK_IO_TIMEOUT);
        let s = slot("disk");
        let key = &s.key;
        assert!(c.get(key, &ctx).await.is_none());
        c.put(&s, &answer("{\"a\":1}"), &ctx).await;
        let c2 = disk_only(&dir, DISK_IO_TIMEOUT);
        let hit = c2.get(key, &ctx).await.unwrap();
        assert_eq!(hit.text, "{\"a\":1}");
        assert_eq!(hit.usage.total_tokens, Some(0));
        let _ = std::fs::remove_dir_all(dir);
    }

    #[tokio::test]
    async fn stats_count_hits_misses_and_writes() {
        let dir = temp_path("cache-stats");
        let ctx = RunContext::default();
        let c = ResponseCache::with_memory_layer(
            CacheConfig::new(Some(dir.clone())),
            new_memory_layer(1 << 20),
        );
        let shared = c.clone();
        let s = slot("stats");
        let key = s.key.clone();
        assert!(c.get(&key, &ctx).await.is_none());
        c.put(&s, &answer("yes"), &ctx).await;
        assert!(c.get(&key, &ctx).await.is_some());
        assert!(c.get(&key, &ctx).await.is_some());
        assert_eq!(
            shared.stats(),
            CacheStats {
                hits: 2,
                memory_hits: 2,
                misses: 1,
                writes: 1,
                ..CacheStats::default()
            }
        );
        // another cache (its own counters) reads it from disk
        let d = disk_only(&dir, DISK_IO_TIMEOUT);
        assert!(d.get(&key, &ctx).await.is_some());
        assert_eq!(d.stats().disk_hits, 1);
        assert_eq!(d.stats().hits, 1);
        assert_eq!(
            serde_json::to_value(d.stats()).unwrap(),
            json!({"hits": 1, "memoryHits": 0, "diskHits": 1, "misses": 0, "replayMisses": 0, "writes": 0, "errors": 0, "timeouts": 0})
        );
        assert!(c.take_warnings().is_empty() && d.take_warnings().is_empty());
        let _ = std::fs::remove_dir_all(dir);
    }

    #[tokio::test]
    async fn an_unusable_dir_is_reported_once() {
        let file = temp_path("cache-file");
        std::fs::write(&file, "not a dir").unwrap();
        // a dir under a regular file (chmod 000 would not stop root, who runs the tests)
        let dir = file.join("cache");
        let ctx = RunContext::default();
        let c = disk_only(&dir, DISK_IO_TIMEOUT);
        for i in 0..3 {
            let s = slot(&format!("w{i}"));
            c.put(&s, &answer("a"), &ctx).await;
            assert!(c.get(&s.key, &ctx).await.is_none());
        }
        let w = c.take_warnings();
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0].code, "OXEVAL_CACHE_DISABLED");
        assert!(
            w[0].message.contains(&dir.display().to_string()),
            "{}",
            w[0].message
        );
        assert!(w[0].message.contains("os error"), "{}", w[0].message);
        let s = c.stats();
        assert_eq!((s.errors, s.writes, s.misses, s.hits), (6, 0, 3, 0));
        // once per directory per process, even from another cache
        let c2 = disk_only(&dir, DISK_IO_TIMEOUT);
        c2.put(&slot("k"), &answer("a"), &ctx).await;
        assert_eq!(c2.stats().errors, 1);
        assert!(c.take_warnings().is_empty() && c2.take_warnings().is_empty());
        let _ = std::fs::remove_file(file);
    }

    #[tokio::test]
    async fn a_damaged_entry_is_a_counted_miss_without_a_warning() {
        let dir = temp_path("cache-damaged");
        let ctx = RunContext::default();
        let c = disk_only(&dir, DISK_IO_TIMEOUT);
        let sl = slot("damaged");
        let key = &sl.key;
        c.put(&sl, &answer("original"), &ctx).await;
        let file = entry_path(&dir, key);
        let original = std::fs::read_to_string(&file).unwrap();
        for tampered in [
            "tampered".to_string(),
            // valid JSON, but the entry of another key (a file copied or renamed by hand)
            original.replace(key.as_str(), &"0".repeat(64)),
            original.replace(FORMAT, "oxeval-cache-v9"),
        ] {
            std::fs::write(&file, tampered).unwrap();
            assert!(c.get(key, &ctx).await.is_none());
        }
        let s = c.stats();
        assert_eq!((s.errors, s.misses, s.writes), (3, 3, 1));
        assert!(c.take_warnings().is_empty());
        // the next put repairs it
        c.put(&sl, &answer("again"), &ctx).await;
        assert_eq!(c.get(key, &ctx).await.unwrap().text, "again");
        let _ = std::fs::remove_dir_all(dir);
    }

    #[cfg(unix)]
    #[test]
    fn a_stalled_read_is_a_miss_within_the_timeout() {
        let sl = slot("fifo");
        let key = sl.key.clone();
        let (dir, fifo) = dir_with_stalled_bucket(&sl);
        let c = disk_only(&dir, Duration::from_millis(200));
        let ctx = RunContext::default();
        let rt = runtime();
        rt.block_on(async {
            let t = std::time::Instant::now();
            assert!(c.get(&key, &ctx).await.is_none());
            let took = t.elapsed();
            assert!(
                took >= Duration::from_millis(200) && took < Duration::from_secs(2),
                "{took:?}"
            );
            let w = c.take_warnings();
            assert_eq!(w.len(), 1);
            assert_eq!(w[0].code, "OXEVAL_CACHE_TIMEOUT");
            assert!(w[0].message.contains("200 ms"), "{}", w[0].message);
            // while the abandoned read is pending, the dir is bypassed at once
            let t = std::time::Instant::now();
            assert!(c.get(&key, &ctx).await.is_none());
            c.put(&sl, &answer("b"), &ctx).await;
            assert!(t.elapsed() < Duration::from_millis(500));
            let s = c.stats();
            assert_eq!((s.timeouts, s.misses, s.errors, s.writes), (3, 2, 0, 0));
            assert!(c.take_warnings().is_empty());
            // once the stalled call returns, the dir is used again
            let state = c.disk.as_ref().unwrap().state.clone();
            unstall(&fifo, &state.stalled).await;
            std::fs::remove_file(&fifo).unwrap();
            c.put(&sl, &answer("c"), &ctx).await;
            assert_eq!(c.get(&key, &ctx).await.unwrap().text, "c");
        });
        rt.shutdown_background();
        let _ = std::fs::remove_dir_all(dir);
    }

    #[cfg(unix)]
    #[test]
    fn cancellation_and_the_deadline_cut_a_stalled_read_short() {
        let sl = slot("fifo-cancel");
        let key = sl.key.clone();
        let (dir, fifo) = dir_with_stalled_bucket(&sl);
        let c = disk_only(&dir, Duration::from_millis(1500));
        let state = c.disk.as_ref().unwrap().state.clone();
        let quick = Duration::from_millis(1200);
        let rt = runtime();
        rt.block_on(async {
            // cancelled during the read
            let ctx = RunContext::default();
            let cancel = ctx.cancel.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(100)).await;
                cancel.cancel();
            });
            let t = std::time::Instant::now();
            assert!(c.get(&key, &ctx).await.is_none());
            assert!(t.elapsed() < quick, "{:?}", t.elapsed());
            // already cancelled: at once, nothing started
            let t = std::time::Instant::now();
            assert!(c.get(&key, &ctx).await.is_none());
            c.put(&sl, &answer("x"), &ctx).await;
            assert!(t.elapsed() < Duration::from_millis(500));
            // a deadline in the past: at once
            let past = RunContext {
                deadline: Some(tokio::time::Instant::now()),
                ..RunContext::default()
            };
            let t = std::time::Instant::now();
            assert!(c.get(&key, &past).await.is_none());
            c.put(&sl, &answer("x"), &past).await;
            assert!(t.elapsed() < Duration::from_millis(500));
            // a deadline passing during the read
            let soon = RunContext {
                deadline: Some(tokio::time::Instant::now() + Duration::from_millis(150)),
                ..RunContext::default()
            };
            let t = std::time::Instant::now();
            assert!(c.get(&key, &soon).await.is_none());
            assert!(t.elapsed() < quick, "{:?}", t.elapsed());
            // none of that is a cache problem
            assert_eq!(c.stats(), CacheStats::default());
            assert!(c.take_warnings().is_empty());
            // but the two reads cut short are still stuck after their own timeout: the dir
            // is bypassed from then on
            tokio::time::sleep(Duration::from_millis(2000)).await;
            assert_eq!(state.stalled.load(Acquire), 2);
            let t = std::time::Instant::now();
            assert!(c.get(&key, &RunContext::default()).await.is_none());
            assert!(t.elapsed() < Duration::from_millis(500));
            assert_eq!(c.stats().timeouts, 1);
            assert_eq!(c.take_warnings()[0].code, "OXEVAL_CACHE_TIMEOUT");
            unstall(&fifo, &state.stalled).await;
        });
        rt.shutdown_background();
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_stalled_write_is_skipped_within_the_timeout() {
        let dir = temp_path("cache-slow");
        let mut c = ResponseCache::with_memory_layer(
            CacheConfig {
                io_timeout: Duration::from_millis(100),
                ..CacheConfig::new(Some(dir.clone()))
            },
            new_memory_layer(1 << 20),
        );
        c.test_stall = Some(Duration::from_millis(1500));
        let sl = slot("slow");
        let key = sl.key.clone();
        let ctx = RunContext::default();
        let rt = runtime();
        rt.block_on(async {
            let t = std::time::Instant::now();
            c.put(&sl, &answer("kept in memory"), &ctx).await;
            assert!(
                t.elapsed() < Duration::from_millis(1000),
                "{:?}",
                t.elapsed()
            );
            let s = c.stats();
            assert_eq!((s.timeouts, s.writes, s.errors), (1, 1, 0));
            assert_eq!(c.take_warnings()[0].code, "OXEVAL_CACHE_TIMEOUT");
            // the memory layer still answers
            assert_eq!(c.get(&key, &ctx).await.unwrap().text, "kept in memory");
        });
        rt.shutdown_background();
        let _ = std::fs::remove_dir_all(dir);
    }

    /// Every file under `dir`, relative, sorted.
    fn files(dir: &Path) -> Vec<String> {
        fn walk(base: &Path, d: &Path, out: &mut Vec<String>) {
            for e in std::fs::read_dir(d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    walk(base, &p, out);
                } else {
                    out.push(p.strip_prefix(base).unwrap().display().to_string());
                }
            }
        }
        let mut out = Vec::new();
        walk(dir, dir, &mut out);
        out.sort();
        out
    }

    #[tokio::test]
    async fn the_layout_is_plain_and_recording_again_leaves_it_byte_identical() {
        let dir = temp_path("cache-layout");
        let ctx = RunContext::default();
        let sl = slot("layout");
        disk_only(&dir, DISK_IO_TIMEOUT)
            .put(&sl, &answer("{\"a\":1}"), &ctx)
            .await;
        let listing = files(&dir);
        let want = vec![format!("v3/entries/{}/{}.json", &sl.key[..2], sl.key), {
            let d = sl.locator.digest();
            format!("v3/locators/{}/{d}.json", &d[..2])
        }];
        assert_eq!(listing, want);
        let entry = std::fs::read_to_string(dir.join(&want[0])).unwrap();
        let p = &sl.parts;
        let expected = format!(
            "{{\n  \"format\": \"oxeval-cache-v3\",\n  \"key\": \"{}\",\n  \"parts\": {{\n    \"endpoint\": \"{}\",\n    \"model\": \"{}\",\n    \"schema\": \"{}\",\n    \"settings\": \"{}\",\n    \"system\": \"{}\",\n    \"user\": \"{}\"\n  }},\n  \"reply\": {{\n    \"finishReason\": \"stop\",\n    \"text\": \"{{\\\"a\\\":1}}\"\n  }}\n}}\n",
            sl.key, p.endpoint, p.model, p.schema, p.settings, p.system, p.user
        );
        assert_eq!(entry, expected);
        let locator = std::fs::read_to_string(dir.join(&want[1])).unwrap();
        assert!(
            locator.contains("\"item\": \"layout\"") && locator.contains("\"step\": \"analyze\""),
            "{locator}"
        );
        // the same reply recorded again, by another cache (another process): the same bytes,
        // and the files are not even rewritten
        let before: Vec<_> = want
            .iter()
            .map(|f| std::fs::metadata(dir.join(f)).unwrap().modified().unwrap())
            .collect();
        std::thread::sleep(Duration::from_millis(20));
        let record = ResponseCache::new(CacheConfig {
            mode: CacheMode::Record,
            memory: false,
            ..CacheConfig::new(Some(dir.clone()))
        });
        record.put(&sl, &answer("{\"a\":1}"), &ctx).await;
        assert_eq!(std::fs::read_to_string(dir.join(&want[0])).unwrap(), entry);
        assert_eq!(
            std::fs::read_to_string(dir.join(&want[1])).unwrap(),
            locator
        );
        let after: Vec<_> = want
            .iter()
            .map(|f| std::fs::metadata(dir.join(f)).unwrap().modified().unwrap())
            .collect();
        assert_eq!(before, after);
        // another reply overwrites the entry in place (no second file, no temp file left)
        record.put(&sl, &answer("{\"a\":2}"), &ctx).await;
        assert_eq!(files(&dir), want);
        assert!(std::fs::read_to_string(dir.join(&want[0]))
            .unwrap()
            .contains("{\\\"a\\\":2}"));
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn concurrent_writers_replace_files_atomically() {
        let dir = temp_path("cache-atomic");
        let sl = slot("atomic");
        let replies: Vec<String> = (0..6)
            .map(|i| format!("{{\"writer\":{i},\"pad\":\"{}\"}}", "x".repeat(20_000 + i)))
            .collect();
        let done = Arc::new(AtomicBool::new(false));
        let reader = {
            let (file, replies, done) = (entry_path(&dir, &sl.key), replies.clone(), done.clone());
            std::thread::spawn(move || {
                let mut seen = 0;
                while !done.load(Acquire) {
                    if let Ok(bytes) = std::fs::read(&file) {
                        let e: EntryFile = serde_json::from_slice(&bytes)
                            .expect("a reader never sees a partly written file");
                        assert!(replies.contains(&e.reply.text));
                        seen += 1;
                    }
                }
                seen
            })
        };
        let writers: Vec<_> = replies
            .iter()
            .cloned()
            .map(|text| {
                let (dir, sl) = (dir.clone(), sl.clone());
                std::thread::spawn(move || {
                    let c = disk_only(&dir, Duration::from_secs(20));
                    for _ in 0..25 {
                        put_blocking(&c, &sl, &text);
                    }
                    c.stats()
                })
            })
            .collect();
        for w in writers {
            let s = w.join().unwrap();
            assert_eq!((s.writes, s.errors, s.timeouts), (25, 0, 0));
        }
        done.store(true, Release);
        assert!(reader.join().unwrap() > 0);
        // one entry and one locator, whole, from one of the writers; no temp file left
        assert_eq!(files(&dir).len(), 2, "{:?}", files(&dir));
        let rt = runtime();
        let hit = rt
            .block_on(disk_only(&dir, DISK_IO_TIMEOUT).get(&sl.key, &RunContext::default()))
            .unwrap();
        assert!(replies.contains(&hit.text));
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn modes_and_their_options() {
        let parse = |v: Option<serde_json::Value>, dir: Option<&str>, mode: Option<&str>| {
            ResponseCache::from_options(
                v.as_ref(),
                CacheEnv {
                    dir: dir.map(str::to_string),
                    mode: mode.map(str::to_string),
                },
            )
            .map(|c| c.map(|c| c.mode()))
        };
        assert_eq!(
            parse(Some(json!(true)), None, None),
            Ok(Some(CacheMode::Auto))
        );
        assert_eq!(
            parse(Some(json!({"dir": "/d", "mode": "replay"})), None, None),
            Ok(Some(CacheMode::Replay))
        );
        assert_eq!(
            parse(Some(json!({"mode": "record"})), None, None),
            Ok(Some(CacheMode::Record))
        );
        // the environment: the mode of every cache that does not set one
        assert_eq!(
            parse(None, Some("/d"), Some("replay")),
            Ok(Some(CacheMode::Replay))
        );
        assert_eq!(
            parse(Some(json!({"dir": "/d"})), None, Some(" record ")),
            Ok(Some(CacheMode::Record))
        );
        assert_eq!(
            parse(
                Some(json!({"dir": "/d", "mode": "auto"})),
                None,
                Some("replay")
            ),
            Ok(Some(CacheMode::Auto))
        );
        assert_eq!(parse(None, None, Some("record")), Ok(None));
        assert_eq!(parse(None, None, Some("")), Ok(None));
        let err = |v: Option<serde_json::Value>, dir: Option<&str>, mode: Option<&str>| {
            let e = parse(v, dir, mode).unwrap_err();
            assert!(e.code.is_type_error());
            e.message
        };
        for (msg, want) in [
            (
                err(Some(json!({"mode": "replay"})), None, None),
                "options.cache.mode is 'replay' but there is no cache directory",
            ),
            (
                err(Some(json!(true)), None, Some("replay")),
                "process.env.OXEVAL_CACHE_MODE is 'replay' but there is no cache directory",
            ),
            (
                err(None, None, Some("replay")),
                "OXEVAL_CACHE_MODE is 'replay' but no cache is configured",
            ),
            (
                err(Some(json!(false)), Some("/d"), Some("replay")),
                "OXEVAL_CACHE_MODE is 'replay' but options.cache is false",
            ),
            (
                err(Some(json!({"mode": "REPLAY"})), None, None),
                "options.cache.mode must be 'record', 'replay' or 'auto'; got 'REPLAY'",
            ),
            (
                err(Some(json!({"mode": 1})), None, None),
                "options.cache.mode must be 'record', 'replay' or 'auto'; got number",
            ),
            (
                err(Some(json!(true)), None, Some("sometimes")),
                "process.env.OXEVAL_CACHE_MODE must be 'record', 'replay' or 'auto'; got 'sometimes'",
            ),
        ] {
            assert!(msg.contains(want), "{msg}");
        }
    }

    #[tokio::test]
    async fn replay_stores_nothing() {
        let dir = temp_path("cache-replay-put");
        let c = ResponseCache::new(CacheConfig {
            mode: CacheMode::Replay,
            ..CacheConfig::new(Some(dir.clone()))
        });
        let sl = slot("replay-put");
        c.put(&sl, &answer("x"), &RunContext::default()).await;
        assert!(!dir.exists());
        assert!(c.get(&sl.key, &RunContext::default()).await.is_none());
        assert_eq!(c.stats().writes, 0);
    }

    #[tokio::test]
    async fn a_replay_miss_names_the_call_and_each_changed_part() {
        let dir = temp_path("cache-why");
        let ctx = RunContext::default();
        let auto = disk_only(&dir, DISK_IO_TIMEOUT);
        let replay = ResponseCache::new(CacheConfig {
            mode: CacheMode::Replay,
            memory: false,
            ..CacheConfig::new(Some(dir.clone()))
        });
        let base = req("what was asked");
        let recorded = slot_at("q-17", &base);
        auto.put(&recorded, &answer("{}"), &ctx).await;
        let parts = |endpoint: &str, model: &str, r: &ChatRequest, extra: &str| {
            CacheSlot::new(
                KeyParts::new(endpoint, model, r, extra),
                recorded.locator.clone(),
            )
        };
        let mut user = base.clone();
        user.user = "what is asked now".into();
        let mut system = base.clone();
        system.system = "new instructions".into();
        let mut schema = base.clone();
        schema.schema = Some(("S", Arc::new(json!({"type": "object"}))));
        let mut settings = base.clone();
        settings.max_tokens = Some(100);
        for (now, want) in [
            (parts("p", "m", &user, ""), "the prompt changed"),
            (parts("p", "m", &system, ""), "the system prompt changed"),
            (
                parts("p", "m", &schema, ""),
                "the output schema changed (oxeval upgrade?)",
            ),
            (parts("p", "m", &settings, ""), "the model settings changed"),
            (
                parts("p", "m", &base, "effort"),
                "the model settings changed",
            ),
            (parts("p", "m2", &base, ""), "the model changed"),
            (parts("p2", "m", &base, ""), "the endpoint changed"),
        ] {
            let msg = replay.replay_miss(&now, &ctx).await;
            assert!(
                msg.contains(want) && msg.contains(" since it was recorded."),
                "{msg}"
            );
            assert!(
                msg.contains("scorer 's', step 'analyze', item 'q-17'"),
                "{msg}"
            );
            // only that part
            assert_eq!(msg.matches("changed").count(), 1, "{msg}");
        }
        // two parts at once
        let msg = replay.replay_miss(&parts("p", "m2", &user, ""), &ctx).await;
        assert!(
            msg.contains("the model changed and the prompt changed"),
            "{msg}"
        );
        // nothing recorded for this call
        let mut other = recorded.clone();
        other.locator.item = "q-18".into();
        other.locator.call = "reference".into();
        other.locator.attempt = 2;
        let msg = replay.replay_miss(&other, &ctx).await;
        assert!(
            msg.contains("no reply was recorded for this item and step"),
            "{msg}"
        );
        assert!(
            msg.contains("step 'analyze' (call 'reference', the fallback attempt), item 'q-18'"),
            "{msg}"
        );
        // recorded, but its entry file is gone
        std::fs::remove_file(entry_path(&dir, &recorded.key)).unwrap();
        assert!(replay.get(&recorded.key, &ctx).await.is_none());
        let msg = replay.replay_miss(&recorded, &ctx).await;
        assert!(msg.contains("is missing or damaged"), "{msg}");
        // an item named by a digest of the run's input
        let mut anonymous = recorded.clone();
        anonymous.locator.item = "input:0123456789ab".into();
        let msg = replay.replay_miss(&anonymous, &ctx).await;
        assert!(
            msg.contains("the item whose input has digest 0123456789ab (pass run options.itemId"),
            "{msg}"
        );
        assert_eq!(replay.stats().replay_misses, 11);
        let _ = std::fs::remove_dir_all(dir);
    }
}
