//! Opt-in response cache keyed by the full request (provider, model, messages, schema,
//! sampling settings): in memory (quick_cache) and optionally on disk (cacache, safe for
//! several processes sharing one directory). Only validated successful responses are stored;
//! errors never are. A hit costs no HTTP call and no tokens.
//!
//! Options: `cache: true | false | { dir?, memory?, memoryBytes?, ioTimeoutMs? }`, or
//! `OXEVAL_CACHE_DIR`.
//!
//! - **Memory layer**: one per process, shared by every cached scorer, bounded by bytes
//!   (key + reply text + a fixed per-entry overhead), [`DEFAULT_MEMORY_BYTES`] unless a
//!   cache asks for more with `memoryBytes`: the bound is the largest any cache asked for so
//!   far (it never shrinks). `memoryBytes: 0` (or `memory: false`) keeps a cache out of it.
//!   A single reply heavier than one shard of the bound is not kept in memory.
//! - **Disk layer**: every read and write runs on tokio's blocking pool and is awaited at
//!   most until `ioTimeoutMs` ([`DISK_IO_TIMEOUT`]), the run's deadline or its cancellation.
//!   A read that times out or fails is a miss; a write that does is skipped; the run goes
//!   on. A blocked system call cannot be interrupted, so a stalled directory (an NFS/FUSE
//!   mount) keeps the abandoned call's thread; while a call is pending past `ioTimeoutMs`
//!   (whether the run waited that long or was cut short earlier), that directory is
//!   bypassed (no new calls, counted as timeouts), so it pins few threads.
//! - **Problems are reported, not hidden**: [`ResponseCache::take_warnings`] yields
//!   `OXEVAL_CACHE_DISABLED` (the directory cannot be read or written: the message names it
//!   and the OS error) and `OXEVAL_CACHE_TIMEOUT`, each at most once per directory (as
//!   spelled) per process; [`ResponseCache::stats`] counts hits, misses, writes, errors and
//!   timeouts per cache.
//!
//! **What reaches the disk.** Entries hold the judge's reply in clear text (the reply may
//! quote the judged input and output): treat a cache directory like the eval data itself.
//! Entry names are the hex SHA-256 cache keys. The API key is deliberately *not* part of the
//! key: rotating a key must not invalidate a team's recorded answers, and a key never
//! reaches the disk. The endpoint part of the key ([`ResponseCache::scope`]) covers the
//! provider, base URL and custom `headers` (names and values, such as an Azure `api-key`)
//! only through a SHA-256 digest, itself hashed again into the key; no header value,
//! URL, model id or prompt is written in clear, only the reply. Changing a custom header
//! value does change the keys.

use super::RunContext;
use crate::error::InvalidArgument;
use crate::options::{opt_bool, opt_number, opt_uint_in, wrong_type};
use crate::provider::{ChatRequest, ChatResponse, Usage};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};
use std::time::Duration;

/// Bump when the meaning of a cached entry changes.
const VERSION: &str = "oxeval-cache-v2";

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
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

/// The parsed `cache` option.
#[derive(Debug, Clone, PartialEq)]
pub struct CacheConfig {
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
            memory: true,
            memory_bytes: DEFAULT_MEMORY_BYTES,
            dir,
            io_timeout: DISK_IO_TIMEOUT,
        }
    }
}

/// Default bound of one disk-cache read or write.
pub const DISK_IO_TIMEOUT: Duration = Duration::from_secs(2);

/// One scorer's response cache. Clones share the same layers.
#[derive(Clone)]
pub struct ResponseCache {
    config: CacheConfig,
    memory: Option<Arc<MemoryLayer>>,
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

impl ResponseCache {
    /// A cache with this configuration (attaches the process-wide memory layer).
    pub fn new(config: CacheConfig) -> Self {
        let memory =
            (config.memory && config.memory_bytes > 0).then(|| shared_memory(config.memory_bytes));
        ResponseCache {
            disk: config.dir.clone().map(Disk::new),
            config,
            memory,
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

    /// Parse `options.cache`: `true` (memory), `{ dir?, memory?, memoryBytes?, ioTimeoutMs? }`,
    /// or `false`. Without the option, `OXEVAL_CACHE_DIR` enables a disk (and memory) cache.
    pub fn from_options(
        v: Option<&Value>,
        env_dir: Option<String>,
    ) -> Result<Option<Self>, InvalidArgument> {
        let env_dir = env_dir.filter(|d| !d.is_empty()).map(PathBuf::from);
        let config = match v {
            None | Some(Value::Null) => env_dir.map(|d| CacheConfig::new(Some(d))),
            Some(Value::Bool(false)) => None,
            Some(Value::Bool(true)) => Some(CacheConfig::new(env_dir)),
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
                Some(c)
            }
            Some(other) => {
                return Err(wrong_type(
                    "options.cache",
                    "true, false or { dir?: string, memory?: boolean, memoryBytes?: number, ioTimeoutMs?: number }",
                    other,
                ))
            }
        };
        Ok(config.map(ResponseCache::new))
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
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The cache key of a request (hex SHA-256). `endpoint` identifies where the request
    /// goes (provider, base URL, custom headers): the same model name behind another endpoint
    /// (a proxy, a local mock, another deployment) must not share entries.
    pub fn key(endpoint: &str, model: &str, req: &ChatRequest) -> String {
        let mut h = Sha256::new();
        for part in [VERSION, endpoint, model, &req.system, &req.user] {
            h.update((part.len() as u64).to_le_bytes());
            h.update(part.as_bytes());
        }
        let schema = req
            .schema
            .as_ref()
            .map(|(name, s)| format!("{name}:{s}"))
            .unwrap_or_default();
        let settings = format!("{:?}|{:?}|{schema}", req.temperature, req.max_tokens);
        h.update(settings.as_bytes());
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Look `key` up: memory first, then disk. A disk read that fails, times out, or is cut
    /// short by the run's cancellation or deadline is a miss (`None`); only the first two are
    /// counted and warned about — the caller checks cancellation and the deadline itself.
    pub async fn get(&self, key: &str, ctx: &RunContext) -> Option<ChatResponse> {
        if let Some(mem) = &self.memory {
            if let Some(e) = mem.get(key) {
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
            .bounded(disk, ctx, move |dir| cacache::read_sync(dir, &k))
            .await;
        let found = match read {
            Bounded::Interrupted => return None,
            Bounded::TimedOut => {
                self.timed_out(disk, "read");
                None
            }
            Bounded::Done(Err(DiskError::NotFound)) => None,
            Bounded::Done(Err(e @ DiskError::Io(_))) => {
                self.failed(disk, "read", e);
                None
            }
            Bounded::Done(Err(DiskError::Other(_))) => {
                // one damaged entry (integrity or size check): a miss, rewritten by the next
                // put; counted, but the directory works
                self.counters.errors.fetch_add(1, Relaxed);
                None
            }
            Bounded::Done(Ok(bytes)) => match serde_json::from_slice::<Entry>(&bytes) {
                Ok(entry) => Some(entry),
                Err(_) => {
                    // an entry of another format: likewise
                    self.counters.errors.fetch_add(1, Relaxed);
                    None
                }
            },
        };
        let Some(entry) = found else {
            self.counters.misses.fetch_add(1, Relaxed);
            return None;
        };
        self.counters.disk_hits.fetch_add(1, Relaxed);
        if let Some(mem) = &self.memory {
            mem.insert(key.to_string(), Arc::new(entry.clone()));
        }
        Some(to_response(&entry))
    }

    /// Store a validated answer: in memory, then on disk. A disk write that fails or times out
    /// is skipped (counted, warned about once); one cut short by the run's cancellation or
    /// deadline is skipped silently. Never fails the run.
    pub async fn put(&self, key: &str, resp: &ChatResponse, ctx: &RunContext) {
        let entry = Entry {
            text: resp.text.clone(),
            finish_reason: resp.finish_reason.clone(),
        };
        let mut stored = false;
        if let Some(disk) = &self.disk {
            match serde_json::to_vec(&entry) {
                Ok(bytes) => {
                    let k = key.to_string();
                    let write = self
                        .bounded(disk, ctx, move |dir| {
                            cacache::write_sync(dir, &k, bytes).map(drop)
                        })
                        .await;
                    match write {
                        Bounded::Done(Ok(())) => stored = true,
                        Bounded::Done(Err(e)) => self.failed(disk, "write", e),
                        Bounded::TimedOut => self.timed_out(disk, "write"),
                        Bounded::Interrupted => {}
                    }
                }
                Err(e) => self.failed(disk, "write", DiskError::Other(e.to_string())),
            }
        }
        if let Some(mem) = &self.memory {
            mem.insert(key.to_string(), Arc::new(entry));
            stored = true;
        }
        if stored {
            self.counters.writes.fetch_add(1, Relaxed);
        }
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
        F: FnOnce(&Path) -> cacache::Result<T> + Send + 'static,
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
                let out = op(&dir).map_err(DiskError::from);
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
    /// Answers stored in at least one layer.
    pub writes: u64,
    /// Disk reads/writes that failed (unusable directory, unreadable entry).
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
    Other(String),
}

impl From<cacache::Error> for DiskError {
    fn from(e: cacache::Error) -> Self {
        match e {
            cacache::Error::EntryNotFound(..) => DiskError::NotFound,
            cacache::Error::IoError(io, _) => DiskError::Io(io),
            other => DiskError::Other(other.to_string()),
        }
    }
}

impl std::fmt::Display for DiskError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DiskError::NotFound => f.write_str("not found"),
            DiskError::Io(e) => write!(f, "{e}"),
            DiskError::Other(m) => f.write_str(m),
        }
    }
}

fn to_response(e: &Entry) -> ChatResponse {
    ChatResponse {
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

    fn put_blocking(cache: &ResponseCache, key: &str, text: &str) {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(cache.put(key, &answer(text), &RunContext::default()));
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

    /// A cache dir where `key`'s index bucket (the first file cacache reads or appends to)
    /// is a FIFO without a writer: opening it blocks, like a stalled network mount.
    #[cfg(unix)]
    fn dir_with_stalled_bucket(key: &str) -> (PathBuf, PathBuf) {
        let dir = temp_path("cache-fifo");
        let rt = runtime();
        rt.block_on(disk_only(&dir, DISK_IO_TIMEOUT).put(
            key,
            &answer("{}"),
            &RunContext::default(),
        ));
        rt.shutdown_background();
        let mut bucket = dir.join("index-v5");
        for _ in 0..3 {
            let mut entries = std::fs::read_dir(&bucket).unwrap();
            bucket = entries.next().unwrap().unwrap().path();
            assert!(entries.next().is_none());
        }
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

    fn config(v: Option<serde_json::Value>, env: Option<&str>) -> Option<CacheConfig> {
        ResponseCache::from_options(v.as_ref(), env.map(str::to_string))
            .unwrap()
            .map(|c| c.config().clone())
    }

    #[test]
    fn options() {
        let with = |memory, dir: Option<&str>| CacheConfig {
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
        let off = ResponseCache::from_options(Some(&json!({"memoryBytes": 0})), None)
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
            let e = ResponseCache::from_options(Some(&bad), None).unwrap_err();
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
            let key = ResponseCache::key("p", "m", &req(&format!("bytes {i}")));
            put_blocking(&cache, &key, &text);
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
        let a = ResponseCache::from_options(Some(&json!({ "memoryBytes": big })), None)
            .unwrap()
            .unwrap();
        let b = ResponseCache::from_options(Some(&json!({ "memoryBytes": 1024 })), None)
            .unwrap()
            .unwrap();
        let (ma, mb) = (a.memory.unwrap(), b.memory.unwrap());
        assert!(Arc::ptr_eq(&ma, &mb));
        assert!(ma.capacity() >= big);
    }

    #[test]
    fn keys_depend_on_every_part() {
        let a = ResponseCache::key("openai", "m", &req("u"));
        assert_eq!(a, ResponseCache::key("openai", "m", &req("u")));
        assert_ne!(a, ResponseCache::key("openai", "m2", &req("u")));
        assert_ne!(a, ResponseCache::key("groq", "m", &req("u")));
        assert_ne!(a, ResponseCache::key("openai", "m", &req("u2")));
        let mut hot = req("u");
        hot.temperature = Some(1.0);
        assert_ne!(a, ResponseCache::key("openai", "m", &hot));
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
        let key = ResponseCache::key("p", "m", &req("disk"));
        assert!(c.get(&key, &ctx).await.is_none());
        c.put(&key, &answer("{\"a\":1}"), &ctx).await;
        let c2 = disk_only(&dir, DISK_IO_TIMEOUT);
        let hit = c2.get(&key, &ctx).await.unwrap();
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
        let key = ResponseCache::key("p", "m", &req("stats"));
        assert!(c.get(&key, &ctx).await.is_none());
        c.put(&key, &answer("yes"), &ctx).await;
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
            json!({"hits": 1, "memoryHits": 0, "diskHits": 1, "misses": 0, "writes": 0, "errors": 0, "timeouts": 0})
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
            let key = ResponseCache::key("p", "m", &req(&format!("w{i}")));
            c.put(&key, &answer("a"), &ctx).await;
            assert!(c.get(&key, &ctx).await.is_none());
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
        c2.put("k", &answer("a"), &ctx).await;
        assert_eq!(c2.stats().errors, 1);
        assert!(c.take_warnings().is_empty() && c2.take_warnings().is_empty());
        let _ = std::fs::remove_file(file);
    }

    #[tokio::test]
    async fn a_damaged_entry_is_a_counted_miss_without_a_warning() {
        let dir = temp_path("cache-damaged");
        let ctx = RunContext::default();
        let c = disk_only(&dir, DISK_IO_TIMEOUT);
        let key = ResponseCache::key("p", "m", &req("damaged"));
        c.put(&key, &answer("original"), &ctx).await;
        let mut content = dir.join("content-v2");
        while content.is_dir() {
            content = std::fs::read_dir(&content)
                .unwrap()
                .next()
                .unwrap()
                .unwrap()
                .path();
        }
        std::fs::write(&content, "tampered").unwrap();
        assert!(c.get(&key, &ctx).await.is_none());
        let s = c.stats();
        assert_eq!((s.errors, s.misses, s.writes), (1, 1, 1));
        assert!(c.take_warnings().is_empty());
        // the next put repairs it
        c.put(&key, &answer("again"), &ctx).await;
        assert_eq!(c.get(&key, &ctx).await.unwrap().text, "again");
        let _ = std::fs::remove_dir_all(dir);
    }

    #[cfg(unix)]
    #[test]
    fn a_stalled_read_is_a_miss_within_the_timeout() {
        let key = ResponseCache::key("p", "m", &req("fifo"));
        let (dir, fifo) = dir_with_stalled_bucket(&key);
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
            c.put(&key, &answer("b"), &ctx).await;
            assert!(t.elapsed() < Duration::from_millis(500));
            let s = c.stats();
            assert_eq!((s.timeouts, s.misses, s.errors, s.writes), (3, 2, 0, 0));
            assert!(c.take_warnings().is_empty());
            // once the stalled call returns, the dir is used again
            let state = c.disk.as_ref().unwrap().state.clone();
            unstall(&fifo, &state.stalled).await;
            std::fs::remove_file(&fifo).unwrap();
            c.put(&key, &answer("c"), &ctx).await;
            assert_eq!(c.get(&key, &ctx).await.unwrap().text, "c");
        });
        rt.shutdown_background();
        let _ = std::fs::remove_dir_all(dir);
    }

    #[cfg(unix)]
    #[test]
    fn cancellation_and_the_deadline_cut_a_stalled_read_short() {
        let key = ResponseCache::key("p", "m", &req("fifo-cancel"));
        let (dir, fifo) = dir_with_stalled_bucket(&key);
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
            c.put(&key, &answer("x"), &ctx).await;
            assert!(t.elapsed() < Duration::from_millis(500));
            // a deadline in the past: at once
            let past = RunContext {
                deadline: Some(tokio::time::Instant::now()),
                ..RunContext::default()
            };
            let t = std::time::Instant::now();
            assert!(c.get(&key, &past).await.is_none());
            c.put(&key, &answer("x"), &past).await;
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
        let key = ResponseCache::key("p", "m", &req("slow"));
        let ctx = RunContext::default();
        let rt = runtime();
        rt.block_on(async {
            let t = std::time::Instant::now();
            c.put(&key, &answer("kept in memory"), &ctx).await;
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
}
