//! The response cache's tests (options, keys, memory, disk, stats, and the roads over
//! them).

use super::*;
use super::{disk::*, keys::*, memory::*, options::*, stats::*};
use crate::provider::{ChatRequest, ChatResponse, Usage};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering::{Acquire, Release};
use std::time::Duration;

fn put_blocking(cache: &ResponseCache, slot: &CacheSlot, text: &str) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(cache.put(slot, &answer(text), &RunContext::default()));
}

/// The slot of a request with user message `user`, for item `user` at step `analyze`.
fn slot(user: &str) -> CacheSlot {
    slot_at(user, &req(user))
}

fn slot_at(item: &str, req: &ChatRequest) -> CacheSlot {
    CacheSlot::new(
        KeyParts::new("p", "m", req, ""),
        Locator {
            attempt: 1,
            call: String::new(),
            item: item.into(),
            scorer: "s".into(),
            step: "analyze".into(),
        },
    )
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

/// A cache dir where `slot`'s entry file (the first file a read or a write opens) is a
/// FIFO without a writer: opening it blocks, like a stalled network mount.
#[cfg(unix)]
fn dir_with_stalled_bucket(slot: &CacheSlot) -> (PathBuf, PathBuf) {
    let dir = temp_path("cache-fifo");
    let rt = runtime();
    rt.block_on(disk_only(&dir, DISK_IO_TIMEOUT).put(slot, &answer("{}"), &RunContext::default()));
    rt.shutdown_background();
    let bucket = entry_path(&dir, &slot.key);
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

fn env(dir: Option<&str>) -> CacheEnv {
    CacheEnv {
        dir: dir.map(str::to_string),
        mode: None,
    }
}

fn config(v: Option<serde_json::Value>, dir: Option<&str>) -> Option<CacheConfig> {
    ResponseCache::from_options(v.as_ref(), env(dir))
        .unwrap()
        .map(|c| c.config().clone())
}

#[test]
fn options() {
    let with = |memory, dir: Option<&str>| CacheConfig {
        mode: CacheMode::Auto,
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
    let off = ResponseCache::from_options(Some(&json!({"memoryBytes": 0})), env(None))
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
        let e = ResponseCache::from_options(Some(&bad), env(None)).unwrap_err();
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

#[test]
fn keys_depend_on_every_part() {
    let key = |e: &str, m: &str, r: &ChatRequest| KeyParts::new(e, m, r, "").key();
    let a = key("openai", "m", &req("u"));
    assert_eq!(a, key("openai", "m", &req("u")));
    assert_ne!(a, key("openai", "m2", &req("u")));
    assert_ne!(a, key("groq", "m", &req("u")));
    assert_ne!(a, key("openai", "m", &req("u2")));
    let mut hot = req("u");
    hot.temperature = Some(1.0);
    assert_ne!(a, key("openai", "m", &hot));
    let mut sys = req("u");
    sys.system = "s2".into();
    assert_ne!(a, key("openai", "m", &sys));
    let mut schema = req("u");
    schema.schema = Some(("S", Arc::new(json!({"type": "object"}))));
    assert_ne!(a, key("openai", "m", &schema));
    assert_ne!(a, KeyParts::new("openai", "m", &req("u"), "effort").key());
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

#[test]
fn modes_and_their_options() {
    let parse = |v: Option<serde_json::Value>, dir: Option<&str>, mode: Option<&str>| {
        ResponseCache::from_options(
            v.as_ref(),
            CacheEnv {
                dir: dir.map(str::to_string),
                mode: mode.map(str::to_string),
            },
        )
        .map(|c| c.map(|c| c.mode()))
    };
    assert_eq!(
        parse(Some(json!(true)), None, None),
        Ok(Some(CacheMode::Auto))
    );
    assert_eq!(
        parse(Some(json!({"dir": "/d", "mode": "replay"})), None, None),
        Ok(Some(CacheMode::Replay))
    );
    assert_eq!(
        parse(Some(json!({"mode": "record"})), None, None),
        Ok(Some(CacheMode::Record))
    );
    // the environment: the mode of every cache that does not set one
    assert_eq!(
        parse(None, Some("/d"), Some("replay")),
        Ok(Some(CacheMode::Replay))
    );
    assert_eq!(
        parse(Some(json!({"dir": "/d"})), None, Some(" record ")),
        Ok(Some(CacheMode::Record))
    );
    assert_eq!(
        parse(
            Some(json!({"dir": "/d", "mode": "auto"})),
            None,
            Some("replay")
        ),
        Ok(Some(CacheMode::Auto))
    );
    assert_eq!(parse(None, None, Some("record")), Ok(None));
    assert_eq!(parse(None, None, Some("")), Ok(None));
    let err = |v: Option<serde_json::Value>, dir: Option<&str>, mode: Option<&str>| {
        let e = parse(v, dir, mode).unwrap_err();
        assert!(e.code.is_type_error());
        e.message
    };
    for (msg, want) in [
        (
            err(Some(json!({"mode": "replay"})), None, None),
            "options.cache.mode is 'replay' but there is no cache directory",
        ),
        (
            err(Some(json!(true)), None, Some("replay")),
            "process.env.OXEVAL_CACHE_MODE is 'replay' but there is no cache directory",
        ),
        (
            err(None, None, Some("replay")),
            "OXEVAL_CACHE_MODE is 'replay' but no cache is configured",
        ),
        (
            err(Some(json!(false)), Some("/d"), Some("replay")),
            "OXEVAL_CACHE_MODE is 'replay' but options.cache is false",
        ),
        (
            err(Some(json!({"mode": "REPLAY"})), None, None),
            "options.cache.mode must be 'record', 'replay' or 'auto'; got 'REPLAY'",
        ),
        (
            err(Some(json!({"mode": 1})), None, None),
            "options.cache.mode must be 'record', 'replay' or 'auto'; got number",
        ),
        (
            err(Some(json!(true)), None, Some("sometimes")),
            "process.env.OXEVAL_CACHE_MODE must be 'record', 'replay' or 'auto'; got 'sometimes'",
        ),
    ] {
        assert!(msg.contains(want), "{msg}");
    }
}

#[tokio::test]
async fn replay_stores_nothing() {
    let dir = temp_path("cache-replay-put");
    let c = ResponseCache::new(CacheConfig {
        mode: CacheMode::Replay,
        ..CacheConfig::new(Some(dir.clone()))
    });
    let sl = slot("replay-put");
    c.put(&sl, &answer("x"), &RunContext::default()).await;
    assert!(!dir.exists());
    assert!(c.get(&sl.key, &RunContext::default()).await.is_none());
    assert_eq!(c.stats().writes, 0);
}

#[tokio::test]
async fn a_replay_miss_names_the_call_and_each_changed_part() {
    let dir = temp_path("cache-why");
    let ctx = RunContext::default();
    let auto = disk_only(&dir, DISK_IO_TIMEOUT);
    let replay = ResponseCache::new(CacheConfig {
        mode: CacheMode::Replay,
        memory: false,
        ..CacheConfig::new(Some(dir.clone()))
    });
    let base = req("what was asked");
    let recorded = slot_at("q-17", &base);
    auto.put(&recorded, &answer("{}"), &ctx).await;
    let parts = |endpoint: &str, model: &str, r: &ChatRequest, extra: &str| {
        CacheSlot::new(
            KeyParts::new(endpoint, model, r, extra),
            recorded.locator.clone(),
        )
    };
    let mut user = base.clone();
    user.user = "what is asked now".into();
    let mut system = base.clone();
    system.system = "new instructions".into();
    let mut schema = base.clone();
    schema.schema = Some(("S", Arc::new(json!({"type": "object"}))));
    let mut settings = base.clone();
    settings.max_tokens = Some(100);
    for (now, want) in [
        (parts("p", "m", &user, ""), "the prompt changed"),
        (parts("p", "m", &system, ""), "the system prompt changed"),
        (
            parts("p", "m", &schema, ""),
            "the output schema changed (oxeval upgrade?)",
        ),
        (parts("p", "m", &settings, ""), "the model settings changed"),
        (
            parts("p", "m", &base, "effort"),
            "the model settings changed",
        ),
        (parts("p", "m2", &base, ""), "the model changed"),
        (parts("p2", "m", &base, ""), "the endpoint changed"),
    ] {
        let msg = replay.replay_miss(&now, &ctx).await;
        assert!(
            msg.contains(want) && msg.contains(" since it was recorded."),
            "{msg}"
        );
        assert!(
            msg.contains("scorer 's', step 'analyze', item 'q-17'"),
            "{msg}"
        );
        // only that part
        assert_eq!(msg.matches("changed").count(), 1, "{msg}");
    }
    // two parts at once
    let msg = replay.replay_miss(&parts("p", "m2", &user, ""), &ctx).await;
    assert!(
        msg.contains("the model changed and the prompt changed"),
        "{msg}"
    );
    // nothing recorded for this call
    let mut other = recorded.clone();
    other.locator.item = "q-18".into();
    other.locator.call = "reference".into();
    other.locator.attempt = 2;
    let msg = replay.replay_miss(&other, &ctx).await;
    assert!(
        msg.contains("no reply was recorded for this item and step"),
        "{msg}"
    );
    assert!(
        msg.contains("step 'analyze' (call 'reference', the fallback attempt), item 'q-18'"),
        "{msg}"
    );
    // recorded, but its entry file is gone
    std::fs::remove_file(entry_path(&dir, &recorded.key)).unwrap();
    assert!(replay.get(&recorded.key, &ctx).await.is_none());
    let msg = replay.replay_miss(&recorded, &ctx).await;
    assert!(msg.contains("is missing or damaged"), "{msg}");
    // an item named by a digest of the run's input
    let mut anonymous = recorded.clone();
    anonymous.locator.item = "input:0123456789ab".into();
    let msg = replay.replay_miss(&anonymous, &ctx).await;
    assert!(
        msg.contains("the item whose input has digest 0123456789ab (pass run options.itemId"),
        "{msg}"
    );
    assert_eq!(replay.stats().replay_misses, 11);
    let _ = std::fs::remove_dir_all(dir);
}
