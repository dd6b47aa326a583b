//! The disk layer: the committable `v3` layout (entry and locator files), atomic writes,
//! bounded reads, the writability probe of a `record` cache, and bounded I/O (every
//! operation on the blocking pool, awaited at most `ioTimeoutMs`, the run's deadline or its
//! cancellation; a stalled directory is bypassed).

use super::keys::{KeyParts, Locator, FORMAT};
use super::memory::Entry;
use super::ResponseCache;
use crate::engine::context::RunContext;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::{AcqRel, Acquire};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};
use std::time::Duration;

/// The disk layout's folder under the cache directory. Bump (with [`FORMAT`]) when the
/// meaning of a cached entry changes.
pub const LAYOUT: &str = "v3";
/// Largest cache file read; a larger one is damaged.
pub(super) const MAX_FILE_BYTES: u64 = 256 << 20;

/// An entry file: `<dir>/v3/entries/<2 hex>/<key>.json`.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct EntryFile {
    pub(super) format: String,
    pub(super) key: String,
    pub(super) parts: KeyParts,
    pub(super) reply: ReplyFile,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ReplyFile {
    pub(super) finish_reason: Option<String>,
    pub(super) text: String,
}

/// A locator file: `<dir>/v3/locators/<2 hex>/<locator digest>.json`.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct LocatorFile {
    pub(super) format: String,
    pub(super) key: String,
    pub(super) locator: Locator,
    pub(super) parts: KeyParts,
}

/// Deterministic file text: pretty JSON (fields in declaration order) and a final newline.
pub(super) fn file_text<T: Serialize>(v: &T) -> Result<Vec<u8>, DiskError> {
    let mut bytes = serde_json::to_vec_pretty(v).map_err(|e| DiskError::Other(e.to_string()))?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// `<dir>/v3/<kind>/<first 2 hex>/<name>.json`.
pub(super) fn file_path(dir: &Path, kind: &str, name: &str) -> PathBuf {
    dir.join(LAYOUT)
        .join(kind)
        .join(name.get(..2).unwrap_or("__"))
        .join(format!("{name}.json"))
}

pub(super) fn entry_path(dir: &Path, key: &str) -> PathBuf {
    file_path(dir, "entries", key)
}

pub(super) fn locator_path(dir: &Path, locator_digest: &str) -> PathBuf {
    file_path(dir, "locators", locator_digest)
}

/// A whole file, at most [`MAX_FILE_BYTES`].
pub(super) fn read_file(path: &Path) -> Result<Vec<u8>, DiskError> {
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
pub(super) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), DiskError> {
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
pub(super) fn probe_writable(dir: &Path, io_timeout: Duration) -> Result<(), String> {
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
pub(super) fn read_entry(dir: &Path, key: &str) -> Result<Entry, DiskError> {
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

impl ResponseCache {
    /// Run one blocking disk operation on the blocking pool and wait for it at most until the
    /// I/O timeout, the run's deadline or its cancellation, whichever comes first. An
    /// operation that outlives its wait keeps its blocking thread (a blocked system call
    /// cannot be interrupted); while an operation that timed out is still pending, further
    /// ones on the same directory are not started and count as timed out at once, so a
    /// stalled mount pins a bounded number of threads.
    pub(super) async fn bounded<T, F>(&self, disk: &Disk, ctx: &RunContext, op: F) -> Bounded<T>
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
pub(super) fn abandon(state: &DirState, this_op: &AtomicU8) {
    state.stalled.fetch_add(1, AcqRel);
    if this_op.swap(ABANDONED, AcqRel) == FINISHED {
        state.stalled.fetch_sub(1, AcqRel);
    }
}

/// The disk layer of one cache: its directory and that directory's process-wide state.
#[derive(Clone)]
pub(super) struct Disk {
    pub(super) dir: PathBuf,
    pub(super) state: Arc<DirState>,
}

/// Per cache directory (as spelled in the options), per process.
#[derive(Default)]
pub(super) struct DirState {
    /// Abandoned operations still pending.
    pub(super) stalled: AtomicUsize,
    pub(super) warned_disabled: AtomicBool,
    pub(super) warned_timeout: AtomicBool,
}

impl Disk {
    pub(super) fn new(dir: PathBuf) -> Disk {
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

pub(super) const RUNNING: u8 = 0;
pub(super) const FINISHED: u8 = 1;
pub(super) const ABANDONED: u8 = 2;

pub(super) enum Bounded<T> {
    Done(Result<T, DiskError>),
    TimedOut,
    /// The run was cancelled or its deadline passed.
    Interrupted,
}

#[derive(Debug)]
pub(super) enum DiskError {
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
