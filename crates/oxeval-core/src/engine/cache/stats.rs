//! What a cache tells: its counters ([`CacheStats`]) and its warnings ([`CacheWarning`]:
//! `OXEVAL_CACHE_DISABLED`, `OXEVAL_CACHE_TIMEOUT`, each at most once per directory per
//! process).

use super::disk::{Disk, DiskError};
use super::ResponseCache;
use serde::Serialize;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Mutex, PoisonError};

impl ResponseCache {
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

    pub(super) fn warn_once(
        &self,
        flag: &AtomicBool,
        code: &'static str,
        message: impl FnOnce() -> String,
    ) {
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

    pub(super) fn failed(&self, disk: &Disk, op: &str, e: DiskError) {
        self.counters.errors.fetch_add(1, Relaxed);
        self.warn_once(&disk.state.warned_disabled, CACHE_DISABLED, || {
            format!(
                "oxeval: the response cache directory '{}' is not usable ({op} failed: {e}); judge answers are not cached on disk there until this is fixed",
                disk.dir.display()
            )
        });
    }

    pub(super) fn timed_out(&self, disk: &Disk, op: &str) {
        self.counters.timeouts.fetch_add(1, Relaxed);
        self.warn_once(&disk.state.warned_timeout, CACHE_TIMEOUT, || {
            format!(
                "oxeval: a response cache {op} in '{}' did not finish within {} ms (cache.ioTimeoutMs) and was abandoned (a stalled network or FUSE mount?); reads that time out count as misses, writes are skipped, and the directory is bypassed while an abandoned operation is still pending",
                disk.dir.display(),
                self.config.io_timeout.as_millis()
            )
        });
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
pub(super) struct Counters {
    pub(super) memory_hits: AtomicU64,
    pub(super) disk_hits: AtomicU64,
    pub(super) misses: AtomicU64,
    pub(super) replay_misses: AtomicU64,
    pub(super) writes: AtomicU64,
    pub(super) errors: AtomicU64,
    pub(super) timeouts: AtomicU64,
    pub(super) warnings: Mutex<Vec<CacheWarning>>,
}

#[cfg(test)]
mod tests {
    use crate::engine::cache::tests::*;

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
}
