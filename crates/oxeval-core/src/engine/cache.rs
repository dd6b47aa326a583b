//! Opt-in response cache keyed by the full request (provider, model, messages, schema,
//! sampling settings): in memory (quick_cache) and optionally on disk (cacache, safe for
//! several processes sharing one directory). Only validated successful responses are stored;
//! errors never are. A hit costs no HTTP call and no tokens.

use super::{opt_number, opt_uint};
use crate::error::{type_name, InvalidArgument};
use crate::provider::{ChatRequest, ChatResponse, Usage};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// Bump when the meaning of a cached entry changes.
const VERSION: &str = "oxeval-cache-v2";

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct Entry {
    text: String,
    finish_reason: Option<String>,
}

/// Default bound of the process-wide memory layer, in bytes (see [`entry_weight`]).
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
        ResponseCache { config, memory }
    }

    #[cfg(test)]
    fn with_memory_layer(config: CacheConfig, layer: MemoryLayer) -> Self {
        ResponseCache {
            config,
            memory: Some(Arc::new(layer)),
        }
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
                        return Err(InvalidArgument::options(format!(
                            "{path}.dir must be a non-empty string; got {}",
                            type_name(other)
                        )))
                    }
                };
                let mut c = CacheConfig::new(dir);
                match m.get("memory") {
                    None | Some(Value::Null) => {}
                    Some(Value::Bool(b)) => c.memory = *b,
                    Some(other) => {
                        return Err(InvalidArgument::options(format!(
                            "{path}.memory must be a boolean; got {}",
                            type_name(other)
                        )))
                    }
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
                match opt_uint(obj, "ioTimeoutMs", path)? {
                    None => {}
                    Some(0) => {
                        return Err(InvalidArgument::options(format!(
                            "{path}.ioTimeoutMs must be at least 1"
                        )))
                    }
                    Some(ms) => c.io_timeout = Duration::from_millis(ms),
                }
                Some(c)
            }
            Some(other) => {
                return Err(InvalidArgument::options(format!(
                    "options.cache must be true, false or {{ dir?: string, memory?: boolean, memoryBytes?: number, ioTimeoutMs?: number }}; got {}",
                    type_name(other)
                )))
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

    pub async fn get(&self, key: &str) -> Option<ChatResponse> {
        if let Some(mem) = &self.memory {
            if let Some(e) = mem.get(key) {
                return Some(to_response(&e));
            }
        }
        let dir = self.config.dir.clone()?;
        let k = key.to_string();
        let bytes = tokio::task::spawn_blocking(move || cacache::read_sync(&dir, &k).ok())
            .await
            .ok()
            .flatten()?;
        let entry: Entry = serde_json::from_slice(&bytes).ok()?;
        if let Some(mem) = &self.memory {
            mem.insert(key.to_string(), Arc::new(entry.clone()));
        }
        Some(to_response(&entry))
    }

    pub async fn put(&self, key: &str, resp: &ChatResponse) {
        let entry = Entry {
            text: resp.text.clone(),
            finish_reason: resp.finish_reason.clone(),
        };
        if let Some(dir) = self.config.dir.clone() {
            if let Ok(bytes) = serde_json::to_vec(&entry) {
                let k = key.to_string();
                // A cache write failure (read-only dir, full disk) must never fail the run.
                let _ =
                    tokio::task::spawn_blocking(move || cacache::write_sync(&dir, &k, bytes)).await;
            }
        }
        if let Some(mem) = &self.memory {
            mem.insert(key.to_string(), Arc::new(entry));
        }
    }
}

fn to_response(e: &Entry) -> ChatResponse {
    ChatResponse {
        text: e.text.clone(),
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
        rt.block_on(cache.put(
            key,
            &ChatResponse {
                text: text.into(),
                finish_reason: Some("stop".into()),
                usage: Usage::default(),
            },
        ));
    }

    fn req(user: &str) -> ChatRequest {
        ChatRequest {
            system: "s".into(),
            user: user.into(),
            schema: None,
            temperature: Some(0.0),
            max_tokens: None,
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
                "ioTimeoutMs must be a non-negative integer",
            ),
            (json!({"ioTimeoutMs": 0}), "ioTimeoutMs must be at least 1"),
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
        let dir = std::env::temp_dir().join(format!("oxeval-cache-test-{}", uuid::Uuid::new_v4()));
        let c = ResponseCache::new(CacheConfig {
            memory: false,
            ..CacheConfig::new(Some(dir.clone()))
        });
        let key = ResponseCache::key("p", "m", &req("disk"));
        assert!(c.get(&key).await.is_none());
        c.put(
            &key,
            &ChatResponse {
                text: "{\"a\":1}".into(),
                finish_reason: Some("stop".into()),
                usage: Usage::default(),
            },
        )
        .await;
        let c2 = ResponseCache::new(CacheConfig {
            memory: false,
            ..CacheConfig::new(Some(dir.clone()))
        });
        let hit = c2.get(&key).await.unwrap();
        assert_eq!(hit.text, "{\"a\":1}");
        assert_eq!(hit.usage.total_tokens, Some(0));
        let _ = std::fs::remove_dir_all(dir);
    }
}
