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
        // a slot of the directory (bounded by the run, not by the I/O timeout: waiting for
        // a slot is not a stalled disk)
        let slot = tokio::select! {
            biased;
            _ = ctx.cancel.cancelled() => return Bounded::Interrupted,
            _ = ctx.deadline_passed() => return Bounded::Interrupted,
            s = disk.state.slots.clone().acquire_owned() => s.ok(),
        };
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
            drop(slot);
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

/// Disk operations of one directory running at once (each on a blocking thread). A burst
/// (batch mode delivers a whole stage's answers at once: thousands of cache writes) waits
/// for a slot instead of growing the blocking pool to hundreds of threads; the I/O timeout
/// counts from when an operation starts.
pub(super) const DISK_SLOTS: usize = 16;

/// Per cache directory (as spelled in the options), per process.
pub(super) struct DirState {
    /// Abandoned operations still pending.
    pub(super) stalled: AtomicUsize,
    pub(super) warned_disabled: AtomicBool,
    pub(super) warned_timeout: AtomicBool,
    /// [`DISK_SLOTS`] operations at a time.
    pub(super) slots: Arc<tokio::sync::Semaphore>,
}

impl Default for DirState {
    fn default() -> Self {
        DirState {
            stalled: AtomicUsize::new(0),
            warned_disabled: AtomicBool::new(false),
            warned_timeout: AtomicBool::new(false),
            slots: Arc::new(tokio::sync::Semaphore::new(DISK_SLOTS)),
        }
    }
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

#[cfg(test)]
mod tests {
    use crate::engine::cache::tests::*;

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
}
