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
//! rather than letting memory grow.

use super::status::HEARTBEAT_MS;
use super::{open, NewRun, Store, StoreError, StoreResult};
use serde_json::Value;
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender};
use std::thread::JoinHandle;
use std::time::Duration;

/// Items written per transaction (at most).
pub const BATCH: usize = 512;
/// Items queued for the writer thread (at most): ~25 KB each for a judged item with its
/// prompts and judge records, so at most ~50 MB waiting.
pub const QUEUE: usize = 2048;

enum Msg {
    Item(String),
    Finish(String, i64),
}

/// A run being recorded.
pub struct Recorder {
    run_id: String,
    describe: String,
    tx: Option<SyncSender<Msg>>,
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
        let (tx, rx) = sync_channel(QUEUE);
        let describe = store.describe();
        let (id, keep) = (run.id.clone(), run.store_prompts);
        let thread = std::thread::Builder::new()
            .name("oxeval-store".into())
            .spawn(move || write_loop(store, &id, keep, rx))
            .ok();
        Recorder {
            run_id: run.id,
            describe,
            tx: thread.as_ref().map(|_| tx),
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
        if let Some(tx) = &self.tx {
            let _ = tx.send(Msg::Item(json));
        }
    }

    /// Write the summary after every queued item; the first failure of the whole recording.
    pub fn finish(mut self, summary: String, ended_at_ms: i64) -> StoreResult<()> {
        let Some(tx) = self.tx.take() else {
            return Err(StoreError::write(format!(
                "store {}: the writer thread could not start",
                self.describe
            )));
        };
        let _ = tx.send(Msg::Finish(summary, ended_at_ms));
        drop(tx);
        match self.thread.take().map(JoinHandle::join) {
            Some(Ok(None)) => Ok(()),
            Some(Ok(Some(e))) => Err(e),
            _ => Err(StoreError::write(format!(
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
        self.tx.take();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn write_loop(
    mut store: Box<dyn Store>,
    run_id: &str,
    keep: bool,
    rx: Receiver<Msg>,
) -> Option<StoreError> {
    let mut failed: Option<StoreError> = None;
    let mut batch: Vec<String> = Vec::with_capacity(BATCH);
    // the texts go to the store as they came: it reads what its columns need (store::facts)
    let flush =
        |batch: &mut Vec<String>, store: &mut Box<dyn Store>, failed: &mut Option<StoreError>| {
            if failed.is_none() && !batch.is_empty() {
                let texts = std::mem::replace(batch, Vec::with_capacity(BATCH));
                if let Err(e) = store.add_item_texts(run_id, texts, keep) {
                    *failed = Some(e);
                }
            }
            batch.clear();
        };
    loop {
        let msg = match rx.recv_timeout(Duration::from_millis(HEARTBEAT_MS as u64)) {
            Ok(m) => m,
            // no item for a while (slow targets): the heartbeat says the run is alive
            Err(RecvTimeoutError::Timeout) => {
                if failed.is_none() {
                    if let Err(e) = store.add_item_texts(run_id, Vec::new(), keep) {
                        failed = Some(e);
                    }
                }
                continue;
            }
            Err(RecvTimeoutError::Disconnected) => break,
        };
        let mut next = Some(msg);
        while let Some(m) = next.take() {
            match m {
                Msg::Item(text) => {
                    if failed.is_none() {
                        batch.push(text);
                    }
                    if batch.len() >= BATCH {
                        flush(&mut batch, &mut store, &mut failed);
                    }
                    next = rx.try_recv().ok();
                }
                Msg::Finish(summary, ended) => {
                    flush(&mut batch, &mut store, &mut failed);
                    if failed.is_none() {
                        let s = serde_json::from_str(&summary).unwrap_or(Value::Null);
                        if let Err(e) = store.finish_run(run_id, &s, ended) {
                            failed = Some(e);
                        }
                    }
                    return failed;
                }
            }
        }
        flush(&mut batch, &mut store, &mut failed);
    }
    flush(&mut batch, &mut store, &mut failed);
    failed
}
