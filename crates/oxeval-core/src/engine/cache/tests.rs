//! What the response cache's tests share (requests, slots, answers, temporary
//! directories, a runtime that never waits for a stalled thread, a stalled directory), and
//! the tests of the roads over both layers (replay). Each file's own tests stand beside it.

pub(super) use super::*;
pub(super) use super::{disk::*, keys::*, memory::*, options::*, stats::*};
pub(super) use crate::provider::{ChatRequest, ChatResponse, Usage};
pub(super) use serde_json::json;
pub(super) use std::path::{Path, PathBuf};
pub(super) use std::sync::atomic::AtomicBool;
pub(super) use std::sync::atomic::Ordering::{Acquire, Release};
pub(super) use std::time::Duration;

pub(super) fn put_blocking(cache: &ResponseCache, slot: &CacheSlot, text: &str) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(cache.put(slot, &answer(text), &RunContext::default()));
}

/// The slot of a request with user message `user`, for item `user` at step `analyze`.
pub(super) fn slot(user: &str) -> CacheSlot {
    slot_at(user, &req(user))
}

pub(super) fn slot_at(item: &str, req: &ChatRequest) -> CacheSlot {
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

pub(super) fn answer(text: &str) -> ChatResponse {
    ChatResponse {
        text: text.into(),
        finish_reason: Some("stop".into()),
        usage: Usage::default(),
        ..Default::default()
    }
}

pub(super) fn temp_path(what: &str) -> PathBuf {
    std::env::temp_dir().join(format!("oxeval-{what}-{}", uuid::Uuid::new_v4()))
}

pub(super) fn disk_only(dir: &Path, io_timeout: Duration) -> ResponseCache {
    ResponseCache::new(CacheConfig {
        memory: false,
        io_timeout,
        ..CacheConfig::new(Some(dir.to_path_buf()))
    })
}

/// A runtime whose shutdown does not wait for blocking threads stuck in a stalled call.
/// A test runtime that never waits for blocking-pool threads when dropped (a thread
/// stuck on a FIFO must not hang the test binary, also when an assertion fails).
pub(super) struct Rt(Option<tokio::runtime::Runtime>);

impl Rt {
    pub(super) fn block_on<F: std::future::Future>(&self, f: F) -> F::Output {
        self.0.as_ref().unwrap().block_on(f)
    }
    pub(super) fn shutdown_background(mut self) {
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

pub(super) fn runtime() -> Rt {
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
pub(super) fn dir_with_stalled_bucket(slot: &CacheSlot) -> (PathBuf, PathBuf) {
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
pub(super) async fn unstall(fifo: &Path, stalled: &std::sync::atomic::AtomicUsize) {
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

pub(super) fn req(user: &str) -> ChatRequest {
    ChatRequest {
        system: "s".into(),
        user: user.into(),
        schema: None,
        temperature: Some(0.0),
        max_tokens: None,
        max_response_bytes: crate::provider::DEFAULT_MAX_RESPONSE_BYTES,
        logprobs: false,
    }
}

pub(super) fn env(dir: Option<&str>) -> CacheEnv {
    CacheEnv {
        dir: dir.map(str::to_string),
        mode: None,
    }
}

pub(super) fn config(v: Option<serde_json::Value>, dir: Option<&str>) -> Option<CacheConfig> {
    ResponseCache::from_options(v.as_ref(), env(dir))
        .unwrap()
        .map(|c| c.config().clone())
}

#[tokio::test]
pub(super) async fn replay_stores_nothing() {
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
pub(super) async fn a_replay_miss_names_the_call_and_each_changed_part() {
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
