//! The batch transport: judge requests queued and sent as provider batches (half price,
//! the provider's batch quota) instead of one HTTP call each.
//!
//! It sits on the engine's road below the cache lookup, where a direct call would go to
//! [`send_http`](super::Judge): a call of a run that carries a [`BatchRun`] (its
//! [`RunContext::batch`](super::RunContext)) and a judge that can batch (an HTTP provider
//! with a disk cache) parks on a channel instead. The [`BatchSession`] the run belongs to
//! (one per runEvals / CLI run, or a scorer's own with the `batch` factory option)
//! decides when the queued requests go: **when every run in flight is waiting on the
//! judge** (or the queue reaches `maxRequests`, or its oldest request has waited
//! `flushMs`). A scorer's steps stay sequential per item, so a run makes one batch per
//! pipeline stage. A batch is recorded in `<cache dir>/batches/` ([`state`]) before it is
//! polled (with backoff up to `pollMs`); its answers resume the waiting calls, which
//! decode, fall back, check and cache them exactly as direct answers. A line that failed
//! or expired is queued again for the next batch (or sent directly with `retryDirect`),
//! at most `modelSettings.maxRetries` times. A run started again with the same cache
//! finds its recorded batches and polls them instead of submitting anything again.
//!
//! [`wire`] holds the providers' batch APIs. A new batch provider: a `BatchApi` there and
//! its arm in [`wire::api_for`].

mod create;
mod index;
mod inspect;
pub mod lookup;
pub mod state;
pub mod wire;

use super::call::{aborted, deadline_error};
use super::context::RunContext;
use super::execution::Execution;
use super::Judge;
use crate::error::{ErrorCode, InvalidArgument, JudgeError};
use crate::options::wrong_type as path_error;
use crate::provider::{CallOptions, ChatRequest, ChatResponse};
use indexmap::IndexMap;
use serde_json::{json, Value};
use state::{Record, StateDir};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Mutex, Weak};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tokio::sync::{oneshot, Notify};
use wire::{BatchApi, BatchError, BatchState, LineFailure};

pub use inspect::inspect;

/// `batch.pollMs` by default: 30 s (the CLI's `--batch-poll-ms`).
pub const DEFAULT_POLL_MS: u64 = 30_000;
/// `batch.flushMs` by default: the longest a queued request waits for others.
pub const DEFAULT_FLUSH_MS: u64 = 60_000;
/// `batch.maxItems` by default: the most items in flight at once in batch mode (each holds
/// its input, output and judge state until its last stage is answered: about 60 KB in
/// `oxeval run` on short items, so 5 000 are about 0.3 GB; bench/batch-rss.mjs measured a
/// 120 000-item run at 632 MB peak, 10 000 in flight leaves too little room under 1 GB for
/// longer items). Larger runs go in waves: an item that ends lets the next one in, its
/// requests join the next batch.
pub const DEFAULT_MAX_ITEMS: usize = 5_000;
/// How long the flush condition must hold before the queue goes (runs that are about to
/// queue their own request join the batch).
const SETTLE: Duration = Duration::from_millis(25);
/// The timeout of one batch API call (upload, create, retrieve, each results chunk).
const API_TIMEOUT: Duration = Duration::from_secs(300);
/// Transient errors in a row while creating or polling a batch before its calls fail.
const MAX_API_ERRORS: u32 = 6;

/// The `batch` option: `true` or `{ pollMs?, maxWaitMs?, maxRequests?, flushMs?,
/// retryDirect?, detach? }`.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchOptions {
    /// The longest wait between two polls of a batch (polls start at 1 s, or `poll` if
    /// shorter, and double).
    pub poll: Duration,
    /// Past this (from the first poll), the calls waiting on a batch fail with
    /// `OXEVAL_BATCH_TIMEOUT`; the batch stays recorded and a rerun continues.
    pub max_wait: Option<Duration>,
    /// The most requests of one batch (below the provider's own limit).
    pub max_requests: Option<usize>,
    /// The longest a queued request waits for the other runs before its batch goes.
    pub flush_after: Duration,
    /// A failed or expired line is sent directly (full price, at once) instead of in the
    /// next batch.
    pub retry_direct: bool,
    /// Submit, record and stop waiting: the waiting calls fail with
    /// `OXEVAL_BATCH_PENDING` and a rerun collects.
    pub detach: bool,
    /// The most items runEvals keeps in flight (the host's bound; [`DEFAULT_MAX_ITEMS`]).
    pub max_items: usize,
}

impl Default for BatchOptions {
    fn default() -> Self {
        BatchOptions {
            poll: Duration::from_millis(DEFAULT_POLL_MS),
            max_wait: None,
            max_requests: None,
            flush_after: Duration::from_millis(DEFAULT_FLUSH_MS),
            retry_direct: false,
            detach: false,
            max_items: DEFAULT_MAX_ITEMS,
        }
    }
}

impl BatchOptions {
    /// `None` for an absent, `null` or `false` option; `path` names it in errors.
    pub fn from_value(
        v: Option<&Value>,
        path: &str,
    ) -> Result<Option<BatchOptions>, InvalidArgument> {
        let o = match v {
            None | Some(Value::Null) | Some(Value::Bool(false)) => return Ok(None),
            Some(Value::Bool(true)) => return Ok(Some(BatchOptions::default())),
            Some(Value::Object(o)) => o,
            Some(other) => {
                return Err(InvalidArgument::options(format!(
                    "{path} must be true or {{ pollMs?, maxWaitMs?, maxRequests?, flushMs?, retryDirect?, detach? }}, got {}",
                    crate::error::type_name(other)
                )))
            }
        };
        let mut out = BatchOptions::default();
        for k in o.keys() {
            if ![
                "maxItems",
                "pollMs",
                "maxWaitMs",
                "maxRequests",
                "flushMs",
                "retryDirect",
                "detach",
                "onProgress",
            ]
            .contains(&k.as_str())
            {
                return Err(InvalidArgument::options(format!(
                    "{path}.{k} is not a batch option (pollMs, maxWaitMs, maxRequests, maxItems, flushMs, retryDirect, detach, onProgress)"
                )));
            }
        }
        let ms = |k: &str, min: f64, max: f64| -> Result<Option<u64>, InvalidArgument> {
            match o.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::Number(n))
                    if n.as_f64()
                        .is_some_and(|f| f.fract() == 0.0 && f >= min && f <= max) =>
                {
                    Ok(n.as_f64().map(|f| f as u64))
                }
                Some(other) => Err(path_error(
                    &format!("{path}.{k}"),
                    &format!("an integer in [{min}, {max}]"),
                    other,
                )),
            }
        };
        let flag = |k: &str| -> Result<bool, InvalidArgument> {
            match o.get(k) {
                None | Some(Value::Null) => Ok(false),
                Some(Value::Bool(b)) => Ok(*b),
                Some(other) => Err(path_error(&format!("{path}.{k}"), "a boolean", other)),
            }
        };
        if let Some(p) = ms("pollMs", 1.0, 86_400_000.0)? {
            out.poll = Duration::from_millis(p);
        }
        out.max_wait = ms("maxWaitMs", 1.0, 30.0 * 86_400_000.0)?.map(Duration::from_millis);
        out.max_requests = ms("maxRequests", 1.0, 1_000_000.0)?.map(|n| n as usize);
        if let Some(f) = ms("flushMs", 0.0, 86_400_000.0)? {
            out.flush_after = Duration::from_millis(f);
        }
        if let Some(n) = ms("maxItems", 1.0, 10_000_000.0)? {
            out.max_items = n as usize;
        }
        out.retry_direct = flag("retryDirect")?;
        out.detach = flag("detach")?;
        Ok(Some(out))
    }
}

/// What a waiting call gets: the answer and the batch it came from, or why not.
type Delivery = Result<(ChatResponse, Arc<str>), Failure>;

#[derive(Debug, Clone)]
enum Failure {
    /// This line failed (the engine may queue it again).
    Line(LineFailure),
    /// The batch could not be made or read, timed out, or was left to a later run.
    Batch(ErrorCode, String),
}

/// Where a judge's batches go: the provider's batch API, the state directory of its
/// cache, and a digest of the endpoint and model (the same for every judge of that model).
pub struct BatchTarget {
    pub(crate) api: Box<dyn BatchApi>,
    pub(crate) state: StateDir,
    /// The digest of where requests go (records name it; a record is polled only by a
    /// judge with the same one).
    pub(crate) fingerprint: String,
    /// Queue identity: fingerprint and state directory.
    id: String,
    /// `provider/model` for messages.
    model_ref: String,
}

impl BatchTarget {
    pub(crate) fn new(
        api: Box<dyn BatchApi>,
        cache_dir: &Path,
        fingerprint: String,
        model_ref: String,
    ) -> Self {
        let state = StateDir::of_cache(cache_dir);
        BatchTarget {
            id: format!("{fingerprint}@{}", state.dir.display()),
            api,
            state,
            fingerprint,
            model_ref,
        }
    }

    fn failure(&self, what: &str, e: &BatchError) -> Failure {
        Failure::Batch(
            ErrorCode::BatchFailed,
            format!(
                "judge {}: the {} batch API failed {what}: {}",
                self.model_ref,
                self.api.provider(),
                e.message
            ),
        )
    }
}

/// One run in a batch session: registered while it runs (it counts as in flight), parked
/// while one of its calls waits on a batch.
#[derive(Debug)]
pub struct BatchRun {
    session: Arc<BatchSession>,
    parked_calls: AtomicUsize,
}

impl BatchRun {
    pub fn session(&self) -> &Arc<BatchSession> {
        &self.session
    }

    fn park(self: &Arc<Self>) -> Parked {
        if self.parked_calls.fetch_add(1, Ordering::AcqRel) == 0 {
            self.session.parked.fetch_add(1, Ordering::AcqRel);
            self.session.wake.notify_one();
        }
        Parked(self.clone())
    }
}

impl Drop for BatchRun {
    fn drop(&mut self) {
        self.session.release(1);
    }
}

struct Parked(Arc<BatchRun>);

impl Drop for Parked {
    fn drop(&mut self) {
        if self.0.parked_calls.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.session.parked.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

/// A call waiting for a line: its channel, and its run counted as parked until the answer
/// is handed over (not until the call's task next runs: a run whose answer came is busy,
/// and must hold the next flush back).
type Waiter = (oneshot::Sender<Delivery>, Parked);

struct QueuedLine {
    body: Vec<u8>,
    waiters: Vec<Waiter>,
}

struct Queue {
    target: Arc<BatchTarget>,
    lines: IndexMap<String, QueuedLine>,
}

/// A batch the session watches: submitted by it, or found recorded (resume).
struct Watched {
    target: Arc<BatchTarget>,
    batch: String,
    stage: u32,
    keys: Vec<String>,
    inner: Mutex<WatchedState>,
}

#[derive(Default)]
struct WatchedState {
    waiters: HashMap<String, Vec<Waiter>>,
    /// Answers read with nobody waiting yet (a resumed batch).
    undelivered: HashMap<String, Delivery>,
    /// Keys whose answer reached a call.
    consumed: HashSet<String>,
    status: String,
    completed: u64,
    failed: u64,
    polling: bool,
    /// Once the batch is over for this session: what late callers get.
    settled: Option<Failure>,
    ended: bool,
}

impl Watched {
    fn progress(&self) -> Value {
        let s = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        json!({
            "id": self.batch,
            "provider": self.target.api.provider(),
            "status": s.status,
            "lines": self.keys.len(),
            "completed": s.completed,
            "failed": s.failed,
        })
    }

    /// Give `d` to the calls waiting for `key` (or keep it for one that comes later).
    fn deliver(&self, key: &str, d: Delivery) {
        let mut s = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        match s.waiters.remove(key) {
            Some(ws) if !ws.is_empty() => {
                // settled for this run: answered, or failed (a retry goes in another batch)
                s.consumed.insert(key.to_string());
                for (w, parked) in ws {
                    drop(parked);
                    let _ = w.send(d.clone());
                }
            }
            _ => {
                s.undelivered.insert(key.to_string(), d);
            }
        }
    }

    /// Every call still waiting gets `f`; so do later ones.
    fn settle(&self, f: Failure) {
        let mut s = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        for (_, ws) in s.waiters.drain() {
            for (w, parked) in ws {
                drop(parked);
                let _ = w.send(Err(f.clone()));
            }
        }
        s.settled = Some(f);
    }
}

#[derive(Default)]
struct SessionState {
    queues: IndexMap<String, Queue>,
    oldest: Option<Instant>,
    /// Recorded batches by state directory and then by request key.
    dirs: HashMap<PathBuf, HashMap<String, Arc<Watched>>>,
    watched: Vec<Arc<Watched>>,
    stage: u32,
    flusher: bool,
    /// Lines submitted, and of those answered / failed (this session).
    submitted: u64,
    /// Files of the state directories that could not be read (reported at the end).
    unreadable: Vec<state::Unreadable>,
    /// The session's view of each state directory (read once, then only what changed).
    indexes: HashMap<PathBuf, Arc<Mutex<index::DirIndex>>>,
}

impl SessionState {
    fn index(&mut self, dir: &Path) -> Arc<Mutex<index::DirIndex>> {
        self.indexes.entry(dir.to_path_buf()).or_default().clone()
    }

    fn note_unreadable(&mut self, found: &[state::Unreadable]) {
        for u in found {
            if !self.unreadable.iter().any(|x| x.path == u.path) {
                self.unreadable.push(u.clone());
            }
        }
    }
}

/// A run's batch session: the runs in flight, the queues by target, the batches it
/// watches, the flush rule.
pub struct BatchSession {
    id: u64,
    opts: BatchOptions,
    /// Runs registered (and holds of the host: items about to start runs).
    active: AtomicUsize,
    /// Runs with a call waiting on a batch.
    parked: AtomicUsize,
    wake: Arc<Notify>,
    closed: AtomicBool,
    state: Mutex<SessionState>,
}

impl std::fmt::Debug for BatchSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BatchSession")
            .field("id", &self.id)
            .finish()
    }
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);
static SESSIONS: LazyLock<Mutex<HashMap<u64, Weak<BatchSession>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

impl BatchSession {
    pub fn new(opts: BatchOptions) -> Arc<BatchSession> {
        let s = Arc::new(BatchSession {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            opts,
            active: AtomicUsize::new(0),
            parked: AtomicUsize::new(0),
            wake: Arc::new(Notify::new()),
            closed: AtomicBool::new(false),
            state: Mutex::new(SessionState::default()),
        });
        if let Ok(mut m) = SESSIONS.lock() {
            m.retain(|_, w| w.strong_count() > 0);
            m.insert(s.id, Arc::downgrade(&s));
        }
        s
    }

    /// The session of id `id` (run option `batchSession`), while it lives.
    pub fn find(id: u64) -> Option<Arc<BatchSession>> {
        SESSIONS.lock().ok()?.get(&id)?.upgrade()
    }

    pub fn id(&self) -> u64 {
        self.id
    }

    pub fn options(&self) -> &BatchOptions {
        &self.opts
    }

    /// A run joins (called when the run starts, before its first step).
    pub fn register(self: &Arc<Self>) -> Arc<BatchRun> {
        self.active.fetch_add(1, Ordering::AcqRel);
        Arc::new(BatchRun {
            session: self.clone(),
            parked_calls: AtomicUsize::new(0),
        })
    }

    /// The host is about to start runs (`n` items): nothing is sent until it releases them.
    pub fn hold(&self, n: usize) {
        self.active.fetch_add(n, Ordering::AcqRel);
    }

    pub fn release(&self, n: usize) {
        let _ = self
            .active
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |a| {
                Some(a.saturating_sub(n))
            });
        self.wake.notify_one();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, SessionState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Load the records of `target`'s state directory once per session.
    async fn load_dir(&self, target: &Arc<BatchTarget>) {
        if self.lock().dirs.contains_key(&target.state.dir) {
            return;
        }
        let dir = target.state.clone();
        let index = self.lock().index(&dir.dir);
        let loaded = tokio::task::spawn_blocking(move || {
            let mut index = index.lock().unwrap_or_else(|e| e.into_inner());
            index.refresh(&dir);
            index.loaded()
        })
        .await
        .unwrap_or_default();
        let mut st = self.lock();
        if st.dirs.contains_key(&target.state.dir) {
            return;
        }
        st.note_unreadable(&loaded.unreadable);
        let records = loaded.records;
        let mut index = HashMap::new();
        for r in records {
            if r.target != target.fingerprint || r.provider != target.api.provider() {
                continue;
            }
            let w = Arc::new(Watched {
                target: target.clone(),
                batch: r.batch.clone(),
                stage: 0,
                keys: r.requests.clone(),
                inner: Mutex::new(WatchedState {
                    status: "recorded".into(),
                    ..Default::default()
                }),
            });
            for k in &r.requests {
                index.insert(k.clone(), w.clone());
            }
            st.watched.push(w);
        }
        st.dirs.insert(target.state.dir.clone(), index);
    }

    /// The channel the answer to `key` comes on: from a recorded batch that holds it
    /// (unless `fresh`: a retry), else from the next batch.
    async fn enqueue(
        self: &Arc<Self>,
        target: &Arc<BatchTarget>,
        key: &str,
        fresh: bool,
        run: &Arc<BatchRun>,
        line: impl FnOnce() -> Vec<u8>,
    ) -> oneshot::Receiver<Delivery> {
        self.load_dir(target).await;
        let (tx, rx) = oneshot::channel();
        let tx = (tx, run.park());
        let mut st = self.lock();
        if !fresh {
            if let Some(w) = st
                .dirs
                .get(&target.state.dir)
                .and_then(|i| i.get(key))
                .cloned()
            {
                drop(st);
                self.attach(&w, key, tx);
                return rx;
            }
        }
        let q = st.queues.entry(target.id.clone()).or_insert_with(|| Queue {
            target: target.clone(),
            lines: IndexMap::new(),
        });
        match q.lines.get_mut(key) {
            Some(l) => l.waiters.push(tx),
            None => {
                q.lines.insert(
                    key.to_string(),
                    QueuedLine {
                        body: line(),
                        waiters: vec![tx],
                    },
                );
            }
        }
        st.oldest.get_or_insert_with(Instant::now);
        if !st.flusher {
            st.flusher = true;
            tokio::spawn(flusher(Arc::downgrade(self), self.wake.clone()));
        }
        drop(st);
        self.wake.notify_one();
        rx
    }

    /// Wait on a watched batch for `key` (start polling it if nobody does).
    fn attach(self: &Arc<Self>, w: &Arc<Watched>, key: &str, tx: Waiter) {
        let mut s = w.inner.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(d) = s.undelivered.remove(key) {
            s.consumed.insert(key.to_string());
            let _ = tx.0.send(d);
            return;
        }
        if let Some(f) = &s.settled {
            let _ = tx.0.send(Err(f.clone()));
            return;
        }
        s.waiters.entry(key.to_string()).or_default().push(tx);
        if !s.polling {
            s.polling = true;
            drop(s);
            tokio::spawn(poll(self.clone(), w.clone()));
        }
    }

    /// Whether every run in flight waits on the judge.
    fn all_parked(&self) -> bool {
        self.parked.load(Ordering::Acquire) >= self.active.load(Ordering::Acquire)
    }

    /// Send every queue (or only the ones at their size bound).
    fn flush(self: &Arc<Self>, only_full: bool) {
        let mut st = self.lock();
        let keys: Vec<String> = st
            .queues
            .iter()
            .filter(|(_, q)| !only_full || q.lines.len() >= self.max_requests(&q.target))
            .map(|(k, _)| k.clone())
            .collect();
        if keys.is_empty() {
            return;
        }
        st.stage += 1;
        let stage = st.stage;
        let mut taken = Vec::new();
        for k in keys {
            if let Some(mut q) = st.queues.shift_remove(&k) {
                // a line whose runs all went (aborted, past their deadline) is not paid for
                q.lines.retain(|_, l| {
                    l.waiters.retain(|(w, _)| !w.is_closed());
                    !l.waiters.is_empty()
                });
                st.submitted += q.lines.len() as u64;
                if !q.lines.is_empty() {
                    taken.push(q);
                }
            }
        }
        st.oldest = if st.queues.is_empty() {
            None
        } else {
            Some(Instant::now())
        };
        drop(st);
        for q in taken {
            for chunk in split(
                q.lines,
                self.max_requests(&q.target),
                q.target.api.limits().bytes,
            ) {
                tokio::spawn(submit(self.clone(), q.target.clone(), stage, chunk));
            }
        }
    }

    fn max_requests(&self, target: &BatchTarget) -> usize {
        let limit = target.api.limits().requests;
        self.opts
            .max_requests
            .map_or(limit, |m| m.min(limit))
            .max(1)
    }

    /// Progress: the current stage, queued and waiting lines, and per stage its batches.
    pub fn progress(&self) -> Value {
        let st = self.lock();
        let queued: usize = st.queues.values().map(|q| q.lines.len()).sum();
        let mut stages: Vec<(u32, Vec<Value>)> = Vec::new();
        let (mut completed, mut failed) = (0u64, 0u64);
        for w in &st.watched {
            if w.stage == 0 && !w.inner.lock().map(|s| s.polling).unwrap_or(false) {
                continue;
            }
            let p = w.progress();
            completed += p["completed"].as_u64().unwrap_or(0);
            failed += p["failed"].as_u64().unwrap_or(0);
            match stages.iter_mut().find(|(s, _)| *s == w.stage) {
                Some((_, v)) => v.push(p),
                None => stages.push((w.stage, vec![p])),
            }
        }
        let stages: Vec<Value> = stages
            .into_iter()
            .map(|(stage, batches)| {
                let sum = |k: &str| {
                    batches
                        .iter()
                        .map(|b| b[k].as_u64().unwrap_or(0))
                        .sum::<u64>()
                };
                json!({
                    "stage": stage,
                    "lines": sum("lines"),
                    "completed": sum("completed"),
                    "failed": sum("failed"),
                    "batches": batches,
                })
            })
            .collect();
        json!({
            "stage": st.stage,
            "queued": queued,
            "waiting": self.parked.load(Ordering::Acquire),
            "inFlight": self.active.load(Ordering::Acquire),
            "submitted": st.submitted,
            "completed": completed,
            "failed": failed,
            "stages": stages,
        })
    }

    /// End the session: records whose every request was answered (or is in the cache)
    /// are removed; the batches still pending are listed.
    pub async fn close(&self) -> Value {
        self.closed.store(true, Ordering::Release);
        self.wake.notify_waiters();
        let watched: Vec<Arc<Watched>> = self.lock().watched.clone();
        let mut pending = Vec::new();
        let mut done = Vec::new();
        for w in &watched {
            let s = w.inner.lock().unwrap_or_else(|e| e.into_inner());
            let unanswered: Vec<String> = w
                .keys
                .iter()
                .filter(|k| !s.consumed.contains(*k))
                .cloned()
                .collect();
            let failed_batch =
                matches!(&s.settled, Some(Failure::Batch(ErrorCode::BatchFailed, _)) if s.ended);
            drop(s);
            done.push((w.clone(), unanswered, failed_batch));
        }
        let results = tokio::task::spawn_blocking(move || {
            let mut removed = Vec::new();
            let mut kept = Vec::new();
            for (w, unanswered, failed_batch) in done {
                let cache_dir = w.target.state.dir.parent().map(Path::to_path_buf);
                let all_in = failed_batch
                    || unanswered.iter().all(|k| {
                        cache_dir
                            .as_deref()
                            .is_some_and(|d| super::cache::has_entry(d, k))
                    });
                if all_in {
                    let _lock = w.target.state.lock();
                    if w.target
                        .state
                        .remove(w.target.api.provider(), &w.batch)
                        .is_ok()
                    {
                        removed.push(w.batch.clone());
                    }
                } else {
                    kept.push(w);
                }
            }
            (removed, kept)
        })
        .await;
        let (removed, kept) = results.unwrap_or_default();
        for w in kept {
            let s = w.inner.lock().unwrap_or_else(|e| e.into_inner());
            if s.polling || w.stage > 0 {
                pending.push(
                    json!({"id": w.batch, "provider": w.target.api.provider(), "status": s.status}),
                );
            }
        }
        let unreadable: Vec<Value> = self
            .lock()
            .unreadable
            .iter()
            .map(|u| json!({ "file": u.path.display().to_string(), "why": u.why }))
            .collect();
        json!({ "progress": self.progress(), "pending": pending, "removed": removed, "unreadable": unreadable })
    }
}

impl Drop for BatchSession {
    fn drop(&mut self) {
        self.closed.store(true, Ordering::Release);
        self.wake.notify_waiters();
        if let Ok(mut m) = SESSIONS.lock() {
            m.remove(&self.id);
        }
    }
}

/// Queued lines in chunks of at most `max` requests and `bytes` bytes.
fn split(
    lines: IndexMap<String, QueuedLine>,
    max: usize,
    bytes: usize,
) -> Vec<Vec<(String, QueuedLine)>> {
    let mut out: Vec<Vec<(String, QueuedLine)>> = Vec::new();
    let mut size = 0usize;
    for (k, l) in lines {
        let n = l.body.len() + 1;
        let full = out
            .last()
            .is_none_or(|c| c.len() >= max || (size + n > bytes && !c.is_empty()));
        if full {
            out.push(Vec::new());
            size = 0;
        }
        size += n;
        if let Some(c) = out.last_mut() {
            c.push((k, l));
        }
    }
    out
}

/// The session's flush loop: waits for the flush rule, then sends the queues.
async fn flusher(session: Weak<BatchSession>, wake: Arc<Notify>) {
    loop {
        let notified = wake.notified();
        let Some(s) = session.upgrade() else { return };
        if s.closed.load(Ordering::Acquire) {
            return;
        }
        let (queued, oldest, full) = {
            let st = s.lock();
            let full = st
                .queues
                .values()
                .any(|q| q.lines.len() >= s.max_requests(&q.target));
            (!st.queues.is_empty(), st.oldest, full)
        };
        if full {
            s.flush(true);
            continue;
        }
        if queued && s.all_parked() {
            drop(s);
            tokio::time::sleep(SETTLE).await;
            let Some(s) = session.upgrade() else { return };
            if s.all_parked() {
                s.flush(false);
            }
            continue;
        }
        let wait =
            oldest.map(|o| (o + s.opts.flush_after).saturating_duration_since(Instant::now()));
        if queued && wait.is_some_and(|w| w.is_zero()) {
            s.flush(false);
            continue;
        }
        drop(s);
        match wait {
            Some(w) => {
                tokio::select! {
                    _ = notified => {}
                    _ = tokio::time::sleep(w) => {}
                }
            }
            None => notified.await,
        }
    }
}

/// Submit one chunk: record it, then poll it.
async fn submit(
    session: Arc<BatchSession>,
    target: Arc<BatchTarget>,
    stage: u32,
    mut chunk: Vec<(String, QueuedLine)>,
) {
    // under the directory's lock: requests another process recorded meanwhile are
    // waited for there, the rest is submitted and recorded before the lock goes
    let state = target.state.clone();
    let index = session.lock().index(&state.dir);
    let lock = tokio::task::spawn_blocking(move || {
        let lock = state.lock();
        let mut index = index.lock().unwrap_or_else(|e| e.into_inner());
        if lock.is_ok() {
            // only the files added or changed since (by another process, or this one's
            // own writes) are read
            index.refresh(&state);
        }
        (lock, index.snapshot())
    })
    .await;
    let (lock, loaded) = match lock {
        Ok((Ok(l), r)) => (l, r),
        Ok((Err(e), _)) => {
            let f = Failure::Batch(
                ErrorCode::BatchFailed,
                format!(
                    "judge {}: the batch state directory {} cannot be used: {e}",
                    target.model_ref,
                    target.state.dir.display()
                ),
            );
            for (_, l) in chunk {
                for (w, _) in l.waiters {
                    let _ = w.send(Err(f.clone()));
                }
            }
            return;
        }
        Err(_) => return,
    };
    let index::Snapshot {
        mut records,
        intents,
        unreadable,
    } = loaded;
    if !unreadable.is_empty() {
        // its requests may be in a paid batch: nothing is submitted until the user decides
        session.lock().note_unreadable(&unreadable);
        let f = unreadable_failure(&target, &unreadable);
        for (_, l) in chunk {
            for (w, _) in l.waiters {
                let _ = w.send(Err(f.clone()));
            }
        }
        return;
    }
    let recorded: HashSet<String> = records.iter().map(|r| r.batch.clone()).collect();
    // intents left by a run that died in its create: looked up before anything is created
    let wanted: HashSet<&str> = chunk.iter().map(|(k, _)| k.as_str()).collect();
    let (adopted, refused) = create::resolve(&target, intents, &wanted, &recorded).await;
    records.extend(adopted.into_iter().map(Arc::new));
    if !refused.is_empty() {
        chunk.retain_mut(|(k, l)| {
            let Some(f) = refused.get(k.as_str()) else {
                return true;
            };
            for (w, _) in l.waiters.drain(..) {
                let _ = w.send(Err(f.clone()));
            }
            false
        });
    }
    let known: HashMap<&str, &Record> = records
        .iter()
        .filter(|r| r.target == target.fingerprint && r.provider == target.api.provider())
        .flat_map(|r| r.requests.iter().map(move |k| (k.as_str(), &**r)))
        .collect();
    let watched: HashSet<String> = session
        .lock()
        .watched
        .iter()
        .map(|w| w.batch.clone())
        .collect();
    let mut elsewhere: Vec<(Record, Vec<(String, QueuedLine)>)> = Vec::new();
    chunk.retain_mut(|(k, l)| {
        let Some(r) = known.get(k.as_str()) else {
            return true;
        };
        // a line this session already had answered by that batch is a retry: submit it
        if watched.contains(&r.batch) {
            return true;
        }
        let line = (
            k.clone(),
            std::mem::replace(
                l,
                QueuedLine {
                    body: Vec::new(),
                    waiters: Vec::new(),
                },
            ),
        );
        match elsewhere.iter_mut().find(|(x, _)| x.batch == r.batch) {
            Some((_, v)) => v.push(line),
            None => elsewhere.push(((*r).clone(), vec![line])),
        }
        false
    });
    for (r, lines) in elsewhere {
        let w = session.watch(&target, &r.batch, 0, r.requests.clone(), false);
        for (k, l) in lines {
            for tx in l.waiters {
                session.attach(&w, &k, tx);
            }
        }
    }
    if chunk.is_empty() {
        return;
    }
    let keys: Vec<String> = chunk.iter().map(|(k, _)| k.clone()).collect();
    let created = {
        let bodies: Vec<&[u8]> = chunk.iter().map(|(_, l)| l.body.as_slice()).collect();
        create::create(&target, stage, keys.clone(), &bodies, &recorded).await
    };
    drop(lock);
    let (id, not_recorded) = match created {
        Ok(c) => (c.id, c.not_recorded),
        Err(f) => {
            for (_, l) in chunk {
                for (w, _) in l.waiters {
                    let _ = w.send(Err(f.clone()));
                }
            }
            return;
        }
    };
    let w = session.watch(&target, &id, stage, keys, true);
    {
        let mut s = w.inner.lock().unwrap_or_else(|e| e.into_inner());
        // not recorded: answers still come (this process polls), but a rerun cannot resume it
        s.status = match not_recorded {
            None => "submitted".into(),
            Some(e) => format!("submitted (not recorded: {e})"),
        };
        s.polling = true;
        for (k, l) in chunk {
            s.waiters.entry(k).or_default().extend(l.waiters);
        }
    }
    poll(session, w).await;
}

/// Why nothing is submitted with a state directory holding unreadable files.
fn unreadable_failure(target: &BatchTarget, files: &[state::Unreadable]) -> Failure {
    let list: Vec<String> = files
        .iter()
        .map(|u| format!("{} {}", u.path.display(), u.why))
        .collect();
    Failure::Batch(
        ErrorCode::BatchFailed,
        format!(
            "judge {}: a batch record cannot be read: {}. The requests it holds may already be in a paid batch, so oxeval submits no batch with this cache until the file is repaired or moved out of {} (oxeval batch status --cache DIR lists it; the answers already in the cache are used as they are)",
            target.model_ref,
            list.join("; "),
            target.state.dir.display()
        ),
    )
}

impl BatchSession {
    /// The watched batch `batch` of `target` (registered once, indexed by its keys).
    fn watch(
        &self,
        target: &Arc<BatchTarget>,
        batch: &str,
        stage: u32,
        keys: Vec<String>,
        polling: bool,
    ) -> Arc<Watched> {
        let mut st = self.lock();
        if let Some(w) = st
            .watched
            .iter()
            .find(|w| w.batch == batch && w.target.id == target.id)
        {
            return w.clone();
        }
        let w = Arc::new(Watched {
            target: target.clone(),
            batch: batch.to_string(),
            stage,
            keys,
            inner: Mutex::new(WatchedState {
                status: "submitted".into(),
                polling,
                ..Default::default()
            }),
        });
        let index = st.dirs.entry(target.state.dir.clone()).or_default();
        for k in &w.keys {
            index.insert(k.clone(), w.clone());
        }
        st.watched.push(w.clone());
        w
    }
}

/// Poll `w` with backoff until it ends (then deliver its results), fails, or the
/// session's `maxWaitMs` passes; in detach mode, poll once.
async fn poll(session: Arc<BatchSession>, w: Arc<Watched>) {
    let opts = session.opts.clone();
    let started = Instant::now();
    let mut interval = opts.poll.min(Duration::from_secs(1));
    let mut errors = 0u32;
    loop {
        match w.target.api.retrieve(&w.batch, API_TIMEOUT).await {
            Ok(status) => {
                errors = 0;
                {
                    let mut s = w.inner.lock().unwrap_or_else(|e| e.into_inner());
                    s.status = status.status.clone();
                    s.completed = status.completed;
                    s.failed = status.failed;
                }
                match &status.state {
                    BatchState::Ended => {
                        collect(&session, &w, &status).await;
                        return;
                    }
                    BatchState::Failed(message) => {
                        let f = Failure::Batch(
                            ErrorCode::BatchFailed,
                            format!(
                                "judge {}: the {} batch {} failed: {message}",
                                w.target.model_ref,
                                w.target.api.provider(),
                                w.batch
                            ),
                        );
                        w.inner.lock().unwrap_or_else(|e| e.into_inner()).ended = true;
                        w.settle(f);
                        return;
                    }
                    BatchState::Running => {}
                }
            }
            Err(e) if e.retryable && errors + 1 < MAX_API_ERRORS => errors += 1,
            Err(e) if e.status == Some(404) => {
                forget(&w).await;
                return;
            }
            Err(e) => {
                w.settle(w.target.failure(&format!("to read batch {}", w.batch), &e));
                w.inner.lock().unwrap_or_else(|e| e.into_inner()).polling = false;
                return;
            }
        }
        if opts.detach {
            w.settle(Failure::Batch(
                ErrorCode::BatchPending,
                format!(
                    "judge {}: the request waits in {} batch {} (submitted and recorded; run again with the same cache to collect)",
                    w.target.model_ref,
                    w.target.api.provider(),
                    w.batch
                ),
            ));
            return;
        }
        if let Some(max) = opts.max_wait {
            if started.elapsed() >= max {
                w.settle(Failure::Batch(
                    ErrorCode::BatchTimeout,
                    format!(
                        "judge {}: {} batch {} did not end within {} ms (batch.maxWaitMs); it stays recorded and a rerun with the same cache continues",
                        w.target.model_ref,
                        w.target.api.provider(),
                        w.batch,
                        max.as_millis()
                    ),
                ));
                return;
            }
        }
        if session.closed.load(Ordering::Acquire) {
            return;
        }
        let sleep = match opts.max_wait {
            Some(max) => interval.min(max.saturating_sub(started.elapsed())),
            None => interval,
        };
        tokio::time::sleep(sleep).await;
        interval = (interval * 2).min(opts.poll);
    }
}

/// The provider no longer knows batch `w` (or its results): a record older than the
/// provider keeps batches. The record goes, and its waiting requests are queued again (a
/// line without an answer).
async fn forget(w: &Arc<Watched>) {
    let state = w.target.state.clone();
    let (provider, batch) = (w.target.api.provider().to_string(), w.batch.clone());
    let _ = tokio::task::spawn_blocking(move || {
        let _lock = state.lock();
        state.remove(&provider, &batch)
    })
    .await;
    let mut s = w.inner.lock().unwrap_or_else(|e| e.into_inner());
    s.status = "gone at the provider (record removed)".into();
    s.polling = false;
    drop(s);
    w.settle(Failure::Line(LineFailure::Missing));
}

/// Read an ended batch's results and deliver them; lines without a result fail as missing.
async fn collect(session: &Arc<BatchSession>, w: &Arc<Watched>, status: &wire::BatchStatus) {
    let batch: Arc<str> = Arc::from(w.batch.as_str());
    let line_limit =
        crate::provider::DEFAULT_MAX_RESPONSE_BYTES.max(64 << 20) + wire::LINE_ENVELOPE_BYTES;
    let mut seen: HashSet<String> = HashSet::new();
    let wanted: HashSet<&str> = w.keys.iter().map(String::as_str).collect();
    let mut errors = 0;
    loop {
        let mut sink = |(id, outcome): wire::LineResult| {
            if !wanted.contains(id.as_str()) || !seen.insert(id.clone()) {
                return;
            }
            let d = match outcome {
                Ok(resp) => Ok((resp, batch.clone())),
                Err(f) => Err(Failure::Line(f)),
            };
            w.deliver(&id, d);
        };
        match w
            .target
            .api
            .results(status, &w.keys, line_limit, API_TIMEOUT, &mut sink)
            .await
        {
            Ok(()) => break,
            Err(e) if e.retryable && errors + 1 < MAX_API_ERRORS => {
                errors += 1;
                tokio::time::sleep(Duration::from_millis(500 << errors.min(6))).await;
            }
            Err(e) if e.status == Some(404) => {
                forget(w).await;
                return;
            }
            Err(e) => {
                w.settle(
                    w.target
                        .failure(&format!("to read the results of batch {}", w.batch), &e),
                );
                return;
            }
        }
    }
    for k in &w.keys {
        if !seen.contains(k) {
            w.deliver(k, Err(Failure::Line(LineFailure::Missing)));
        }
    }
    let mut s = w.inner.lock().unwrap_or_else(|e| e.into_inner());
    s.ended = true;
    s.settled = Some(Failure::Line(LineFailure::Missing));
    drop(s);
    let _ = session;
}

impl Judge {
    /// The batch road of one request (the caller found no cache hit): queue it, park the
    /// run until its batch line is answered, and retry a failed or expired line in the next
    /// batch (or directly with `retryDirect`) up to `modelSettings.maxRetries` times.
    pub(super) async fn send_batch(
        &self,
        req: &ChatRequest,
        ctx: &RunContext,
        exec: &mut Execution,
        run: &Arc<BatchRun>,
        target: &Arc<BatchTarget>,
        key: &str,
    ) -> Result<ChatResponse, JudgeError> {
        let opts = CallOptions {
            reasoning_effort: self.settings.reasoning_effort,
        };
        let session = run.session.clone();
        let mut retry = 0u32;
        let mut adapted = 0u32;
        let mut fresh = false;
        loop {
            if ctx.cancel.is_cancelled() {
                return Err(aborted());
            }
            if ctx.remaining().is_some_and(|r| r.is_zero()) {
                return Err(deadline_error());
            }
            // parked from here until the answer is handed over (see `Waiter`)
            let rx = session
                .enqueue(target, key, fresh, run, || target.api.line(key, req, &opts))
                .await;
            let delivery = tokio::select! {
                biased;
                _ = ctx.cancel.cancelled() => return Err(aborted()),
                _ = ctx.deadline_passed() => return Err(deadline_error()),
                d = rx => d,
            };
            let Ok(delivery) = delivery else {
                return Err(JudgeError::new(
                    ErrorCode::BatchFailed,
                    format!(
                        "judge {}: the batch session ended before the answer came",
                        self.model.id
                    ),
                ));
            };
            match delivery {
                Ok((resp, batch)) => {
                    exec.model_call_count += 1;
                    exec.batch = Some(batch);
                    return Ok(resp);
                }
                Err(Failure::Batch(code, message)) => return Err(JudgeError::new(code, message)),
                Err(Failure::Line(f)) => {
                    if matches!(f, LineFailure::Call(_)) {
                        exec.model_call_count += 1;
                    }
                    if let LineFailure::Call(e) = &f {
                        if adapted < super::call::MAX_ADAPTATIONS
                            && self.provider.adapt(req, &opts, e)
                        {
                            adapted += 1;
                            fresh = true;
                            continue;
                        }
                    }
                    if f.retryable() && retry < self.settings.retry.max_retries {
                        retry += 1;
                        if session.opts.retry_direct {
                            return self.send_http(req, ctx, exec).await;
                        }
                        fresh = true;
                        continue;
                    }
                    return Err(match f {
                        LineFailure::Call(e) => self.call_error(e, retry + 1),
                        other => JudgeError::new(
                            ErrorCode::BatchFailed,
                            format!(
                                "judge {}: {} (after {} batch{})",
                                self.model.id,
                                other.describe(),
                                retry + 1,
                                if retry == 0 { "" } else { "es" }
                            ),
                        ),
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options() {
        assert_eq!(BatchOptions::from_value(None, "b").unwrap(), None);
        assert_eq!(
            BatchOptions::from_value(Some(&json!(false)), "b").unwrap(),
            None
        );
        assert_eq!(
            BatchOptions::from_value(Some(&json!(true)), "b").unwrap(),
            Some(BatchOptions::default())
        );
        let o = BatchOptions::from_value(
            Some(&json!({"pollMs": 5, "maxWaitMs": 100, "maxRequests": 7, "flushMs": 0, "retryDirect": true, "detach": true})),
            "b",
        )
        .unwrap()
        .unwrap();
        assert_eq!(o.poll, Duration::from_millis(5));
        assert_eq!(o.max_wait, Some(Duration::from_millis(100)));
        assert_eq!(
            (o.max_requests, o.retry_direct, o.detach),
            (Some(7), true, true)
        );
        assert_eq!(o.max_items, DEFAULT_MAX_ITEMS);
        let o = BatchOptions::from_value(Some(&json!({"maxItems": 3})), "b")
            .unwrap()
            .unwrap();
        assert_eq!(o.max_items, 3);
        let err = |v: Value| {
            BatchOptions::from_value(Some(&v), "runEvals: batch")
                .unwrap_err()
                .message
        };
        assert!(err(json!({"pollMs": 0}))
            .contains("runEvals: batch.pollMs must be an integer in [1, 86400000]"));
        assert!(err(json!({"pollMs": 1.5})).contains("batch.pollMs"));
        assert!(err(json!({"maxRequests": "10"})).contains("batch.maxRequests"));
        assert!(err(json!({"maxItems": 0})).contains("batch.maxItems"));
        assert!(err(json!({"detach": 1})).contains("batch.detach must be a boolean"));
        assert!(err(json!({"poll": 1})).contains("batch.poll is not a batch option"));
        assert!(err(json!("yes")).contains("must be true or"));
    }

    fn line(n: usize) -> QueuedLine {
        QueuedLine {
            body: vec![b'x'; n],
            waiters: Vec::new(),
        }
    }

    #[test]
    fn stages_split_by_request_count_and_bytes() {
        let mut q = IndexMap::new();
        for i in 0..5 {
            q.insert(format!("k{i}"), line(10));
        }
        let sizes = |c: Vec<Vec<(String, QueuedLine)>>| c.iter().map(Vec::len).collect::<Vec<_>>();
        let take = |q: &IndexMap<String, QueuedLine>| {
            q.iter()
                .map(|(k, l)| (k.clone(), line(l.body.len())))
                .collect::<IndexMap<_, _>>()
        };
        assert_eq!(sizes(split(take(&q), 2, 1000)), vec![2, 2, 1]);
        // 11 bytes a line (its newline): 3 fit in 33
        assert_eq!(sizes(split(take(&q), 100, 33)), vec![3, 2]);
        // a line larger than the byte bound still goes, alone
        let mut big = IndexMap::new();
        big.insert("a".to_string(), line(100));
        big.insert("b".to_string(), line(1));
        assert_eq!(sizes(split(big, 100, 50)), vec![1, 1]);
        let order: Vec<String> = split(take(&q), 2, 1000)
            .into_iter()
            .flatten()
            .map(|(k, _)| k)
            .collect();
        assert_eq!(order, vec!["k0", "k1", "k2", "k3", "k4"]);
    }

    #[tokio::test]
    async fn runs_and_holds_count_as_in_flight() {
        let s = BatchSession::new(BatchOptions::default());
        assert!(s.all_parked(), "nothing in flight");
        let run = s.register();
        s.hold(1);
        assert!(!s.all_parked());
        let p = run.park();
        assert!(!s.all_parked(), "a hold is still starting runs");
        s.release(1);
        assert!(s.all_parked());
        drop(p);
        assert!(!s.all_parked());
        drop(run);
        assert!(s.all_parked());
        assert!(BatchSession::find(s.id()).is_some());
        let id = s.id();
        drop(s);
        assert!(BatchSession::find(id).is_none());
    }
}
