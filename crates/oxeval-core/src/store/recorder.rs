//! A run recording into a store as its items finish: the run row is written when it starts
//! ([`Recorder::start`]: an error here is the caller's to report), then each item's JSON
//! text goes to a writer thread ([`Recorder::item`]: no parse, no I/O on the caller's
//! thread) that hands them to the store as text ([`Store::add_item_texts`]: SQLite keeps
//! the text packed, reading only its columns) in batches of up to [`BATCH`] per transaction, and
//! [`Recorder::finish`] writes the summary once every item is in.
//!
//! A write that fails never stops the run: the first failure is kept, later items are
//! dropped, and `finish` returns that failure (the caller says so and exits with status 2).
//! While no item arrives the thread refreshes the run's heartbeat every [`HEARTBEAT_MS`], so a
//! slow run is never taken for a dead one ([`super::status`]).
//! The queue is bounded ([`QUEUE`] items): a store slower than the run holds the run back
//! rather than letting memory grow. The writer is woken once per [`WAKE`] items (a wake-up
//! per item cost more than writing it), and otherwise takes what is queued every
//! [`FLUSH_MS`]: an item waits at most that long before it is written.

use super::status::HEARTBEAT_MS;
use super::{open, NewRun, Store, StoreError, StoreResult};
use serde_json::Value;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Items written per transaction (at most).
pub const BATCH: usize = 512;
/// Items queued for the writer thread (at most): ~25 KB each for a judged item with its
/// prompts and judge records, so at most ~50 MB waiting.
pub const QUEUE: usize = 2048;
/// The writer is woken when this many items wait.
pub const WAKE: usize = 64;
/// Otherwise it takes what waits this often (ms).
pub const FLUSH_MS: u64 = 200;

#[derive(Default)]
struct State {
    items: Vec<String>,
    finish: Option<(String, i64)>,
    /// The recorder was dropped without `finish`: write what waits, then stop.
    closed: bool,
    /// The writer has stopped (it could not start, or it returned).
    gone: bool,
}

#[derive(Default)]
struct Queue {
    state: Mutex<State>,
    /// The writer waits on it for items.
    more: Condvar,
    /// A full queue's producer waits on it for room.
    room: Condvar,
}

impl Queue {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A run being recorded.
pub struct Recorder {
    run_id: String,
    describe: String,
    queue: Arc<Queue>,
    thread: Option<JoinHandle<Option<StoreError>>>,
}

impl Recorder {
    /// Open `spec` and record `run` as running.
    pub fn start(spec: &str, run: NewRun) -> StoreResult<Recorder> {
        let mut store = open(spec)?;
        store.begin_run(&run)?;
        Ok(Self::with_store(store, run))
    }

    /// Record into an open store (the run row already written).
    pub fn with_store(store: Box<dyn Store>, run: NewRun) -> Recorder {
        let queue = Arc::new(Queue::default());
        let describe = store.describe();
        let (id, keep) = (run.id.clone(), run.store_prompts);
        let q = queue.clone();
        let thread = std::thread::Builder::new()
            .name("oxeval-store".into())
            .spawn(move || {
                let failed = write_loop(store, &id, keep, &q);
                q.lock().gone = true;
                q.room.notify_all();
                failed
            })
            .ok();
        if thread.is_none() {
            queue.lock().gone = true;
        }
        Recorder {
            run_id: run.id,
            describe,
            queue,
            thread,
        }
    }

    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    pub fn describe(&self) -> &str {
        &self.describe
    }

    /// Queue one item's JSON text (blocks only while the queue is full).
    pub fn item(&self, json: String) {
        let mut st = self.queue.lock();
        while st.items.len() >= QUEUE && !st.gone {
            st = self.queue.room.wait(st).unwrap_or_else(|p| p.into_inner());
        }
        if st.gone {
            return;
        }
        st.items.push(json);
        if st.items.len() == WAKE {
            self.queue.more.notify_one();
        }
    }

    /// Write the summary after every queued item; the first failure of the whole recording.
    pub fn finish(mut self, summary: String, ended_at_ms: i64) -> StoreResult<()> {
        let Some(thread) = self.thread.take() else {
            return Err(StoreError::write(format!(
                "store {}: the writer thread could not start",
                self.describe
            )));
        };
        self.queue.lock().finish = Some((summary, ended_at_ms));
        self.queue.more.notify_one();
        match thread.join() {
            Ok(None) => Ok(()),
            Ok(Some(e)) => Err(e),
            Err(_) => Err(StoreError::write(format!(
                "store {}: the writer thread failed",
                self.describe
            ))),
        }
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        // dropped without finish (the run threw): the items queued are still written, the
        // run stays `running` and reads as interrupted once this process is gone
        self.queue.lock().closed = true;
        self.queue.more.notify_one();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// What the writer takes from the queue at once.
struct Take {
    items: Vec<String>,
    finish: Option<(String, i64)>,
    closed: bool,
}

fn take(q: &Queue) -> Take {
    let mut st = q.lock();
    if st.items.len() < WAKE && st.finish.is_none() && !st.closed {
        st = q
            .more
            .wait_timeout(st, Duration::from_millis(FLUSH_MS))
            .unwrap_or_else(|p| p.into_inner())
            .0;
    }
    let t = Take {
        items: std::mem::take(&mut st.items),
        finish: st.finish.take(),
        closed: st.closed,
    };
    drop(st);
    q.room.notify_all();
    t
}

fn write_loop(
    mut store: Box<dyn Store>,
    run_id: &str,
    keep: bool,
    q: &Queue,
) -> Option<StoreError> {
    let mut failed: Option<StoreError> = None;
    let mut wrote = Instant::now();
    loop {
        let Take {
            mut items,
            finish,
            closed,
        } = take(q);
        // the texts go to the store as they came: it reads what its columns need (store::facts)
        while failed.is_none() && !items.is_empty() {
            let rest = items.split_off(items.len().min(BATCH));
            if let Err(e) = store.add_item_texts(run_id, items, keep) {
                failed = Some(e);
            }
            items = rest;
            wrote = Instant::now();
        }
        if let Some((summary, ended)) = finish {
            if failed.is_none() {
                let s = serde_json::from_str(&summary).unwrap_or(Value::Null);
                if let Err(e) = store.finish_run(run_id, &s, ended) {
                    failed = Some(e);
                }
            }
            return failed;
        }
        if closed {
            return failed;
        }
        // no item for a while (slow targets): the heartbeat says the run is alive
        if failed.is_none() && wrote.elapsed() >= Duration::from_millis(HEARTBEAT_MS as u64) {
            if let Err(e) = store.add_item_texts(run_id, Vec::new(), keep) {
                failed = Some(e);
            }
            wrote = Instant::now();
        }
    }
}
