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
//!
//! Files: [`options`] (modes, configuration, env vars, the factory option), [`keys`] (key
//! parts, digests, locators, replay-miss reasons), [`memory`] (the process-wide layer),
//! [`disk`] (the file layout, atomic writes, bounded I/O, the probe) and [`stats`]
//! (counters and warnings). This file holds the [`ResponseCache`] and its lookup, store and
//! replay-miss roads over both layers.

mod disk;
mod keys;
mod memory;
mod options;
mod stats;

pub use disk::LAYOUT;
pub use keys::{CacheSlot, KeyParts, Locator};
pub use memory::DEFAULT_MEMORY_BYTES;
pub use options::{CacheConfig, CacheEnv, CacheMode, DISK_IO_TIMEOUT};
pub use stats::{CacheStats, CacheWarning, CACHE_DISABLED, CACHE_TIMEOUT};

use super::context::RunContext;

/// Whether `dir` (a disk cache) holds an entry for `key` (the batch transport's sweep of
/// answered records).
pub(crate) fn has_entry(dir: &std::path::Path, key: &str) -> bool {
    disk::entry_path(dir, key).is_file()
}
use crate::provider::ChatResponse;
use disk::{
    entry_path, file_text, locator_path, read_entry, read_file, write_atomic, Bounded, Disk,
    DiskError, EntryFile, LocatorFile, ReplyFile,
};
use keys::{join_and, FORMAT};
use memory::{shared_memory, to_response, Entry, MemoryLayer};
use stats::Counters;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

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
    test_stall: Option<std::time::Duration>,
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
}

#[cfg(test)]
mod tests;
