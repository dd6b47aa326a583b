//! The memory layer: one per process, shared by every cached judge, bounded by bytes
//! (key + reply text + a fixed per-entry overhead), growing to the largest bound any cache
//! asked for.

use crate::provider::{ChatResponse, Usage};
use std::sync::{Arc, Mutex, PoisonError};

/// A reply as the memory layer keeps it.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Entry {
    pub(super) text: String,
    pub(super) finish_reason: Option<String>,
}

/// Default bound of the process-wide memory layer, in bytes (see `entry_weight`).
pub const DEFAULT_MEMORY_BYTES: u64 = 64 * 1024 * 1024;

/// Bytes counted per memory entry on top of its key and text: the `Arc`, the `Entry` and
/// key `String` headers and quick_cache's slot bookkeeping, rounded up.
pub(super) const ENTRY_OVERHEAD: u64 = 160;

/// The weight of one memory entry: approximately the bytes it keeps alive.
pub(super) fn entry_weight(key: &str, e: &Entry) -> u64 {
    let finish = e.finish_reason.as_ref().map_or(0, String::len);
    (key.len() + e.text.len() + finish) as u64 + ENTRY_OVERHEAD
}

#[derive(Debug, Clone, Copy)]
pub(super) struct EntryWeighter;

impl quick_cache::Weighter<String, Arc<Entry>> for EntryWeighter {
    fn weight(&self, key: &String, val: &Arc<Entry>) -> u64 {
        entry_weight(key, val)
    }
}

pub(super) type MemoryLayer = quick_cache::sync::Cache<String, Arc<Entry>, EntryWeighter>;

pub(super) fn new_memory_layer(bytes: u64) -> MemoryLayer {
    // the item estimate only sizes the hash tables; the weight is the bound
    let estimated_items = (bytes / 2048).clamp(64, 100_000) as usize;
    MemoryLayer::with_weighter(estimated_items, bytes, EntryWeighter)
}

/// The process-wide memory layer shared by every cached judge. Its bound is the largest
/// `memoryBytes` any cache asked for so far (a cache without the option asks for
/// [`DEFAULT_MEMORY_BYTES`]): it grows on request and never shrinks.
pub(super) fn shared_memory(bytes: u64) -> Arc<MemoryLayer> {
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

pub(super) fn to_response(e: &Entry) -> ChatResponse {
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
        // the cache keeps the text: a replayed answer has no log-probabilities
        logprobs: None,
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::cache::tests::*;

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
}
