//! Helpers shared by the integration tests: fake credentials, wiremock servers answering
//! chat completions, the judge requests as a server saw them, scorer options, and runs.
//!
//! Credentials are built at run time: no key-shaped literal in the repository.

// Each test binary uses its own subset.
#![allow(dead_code)]

use oxeval_core::engine::RunContext;
use oxeval_core::pipeline::ScorerFailure;
use oxeval_core::{RunError, RunInput, ScoreResult, Scorer};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use wiremock::matchers::{body_string_contains, method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

// ---------------------------------------------------------------- credentials

/// A fake API key.
pub fn api_key() -> String {
    ["test", "key", "123456"].join("-")
}

/// A fake password (URL userinfo, header values).
pub fn password() -> String {
    ["pass", "word", "9876"].join("_")
}

// ---------------------------------------------------------------- servers

/// A chat completion whose message is `message`, with usage 100 + 20 = 120 tokens.
pub fn completion_message(message: Value) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "id": "c1", "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
    }))
}

/// A chat completion whose assistant text is `content`.
pub fn completion(content: &str) -> ResponseTemplate {
    completion_message(json!({"role": "assistant", "content": content}))
}

/// A server answering every chat completion with `reply`.
pub async fn serve(reply: ResponseTemplate) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(reply)
        .mount(&server)
        .await;
    server
}

/// Answer the chat completions whose body contains `marker` with `reply`.
pub async fn mount(server: &MockServer, marker: &str, reply: ResponseTemplate) {
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(body_string_contains(marker))
        .respond_with(reply)
        .mount(server)
        .await;
}

/// A server whose reply depends on the request (see [`Seen`]).
pub async fn server_with(
    reply: impl Fn(&Seen) -> ResponseTemplate + Send + Sync + 'static,
) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(move |req: &Request| reply(&seen(req)))
        .mount(&server)
        .await;
    server
}

/// One judge request as the server saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    /// Output schema name (native `response_format`, or the fallback's system message).
    pub schema: String,
    pub prompt: String,
    /// The prompt's `DATA:` line.
    pub data: Value,
    /// The engine's format fallback request.
    pub fallback: bool,
}

pub fn seen(req: &Request) -> Seen {
    let body: Value = serde_json::from_slice(&req.body).expect("JSON body");
    let messages = body["messages"].as_array().expect("messages");
    let prompt = messages.last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    let system = messages
        .iter()
        .find(|m| m["role"] == "system")
        .and_then(|m| m["content"].as_str())
        .unwrap_or("");
    let schema = body
        .pointer("/response_format/json_schema/name")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| {
            system
                .lines()
                .find_map(|l| l.strip_prefix("Output schema name: "))
                .map(str::to_owned)
        })
        .unwrap_or_default();
    let data = prompt
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("DATA: "))
        .map(|d| serde_json::from_str(d).expect("DATA is JSON"))
        .unwrap_or(Value::Null);
    Seen {
        schema,
        fallback: prompt.contains("A previous answer to this request was rejected"),
        prompt,
        data,
    }
}

/// The requests a server received, in order.
pub async fn requests(server: &MockServer) -> Vec<Seen> {
    server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(seen)
        .collect()
}

/// Per-key call counters for scripts that change their reply over attempts.
#[derive(Default, Clone)]
pub struct Counter(Arc<Mutex<HashMap<String, usize>>>);

impl Counter {
    /// 0-based index of this call for `key`.
    pub fn next(&self, key: &str) -> usize {
        let mut m = self.0.lock().unwrap();
        let n = m.entry(key.to_string()).or_insert(0);
        *n += 1;
        *n - 1
    }
}

/// Arrival times of requests (concurrency checks).
#[derive(Default, Clone)]
pub struct Arrivals(Arc<Mutex<Vec<Instant>>>);

impl Arrivals {
    pub fn push(&self) {
        self.0.lock().unwrap().push(Instant::now());
    }

    pub fn get(&self) -> Vec<Instant> {
        let mut v = self.0.lock().unwrap().clone();
        v.sort();
        v
    }

    /// Most requests in flight at once, given that each is answered after `delay`.
    pub fn max_in_flight(&self, delay: Duration) -> usize {
        let v = self.get();
        (0..v.len())
            .map(|i| v[..=i].iter().filter(|t| **t + delay > v[i]).count())
            .max()
            .unwrap_or(0)
    }
}

// ---------------------------------------------------------------- scorers and runs

/// Scorer options for `openai/gpt-4o-mini` at `server` (fake key, 1 ms retry delay),
/// with `extra` merged on top.
pub fn options(server: &MockServer, extra: Value) -> Value {
    let mut opts = json!({
        "model": {"id": "openai/gpt-4o-mini", "url": format!("{}/v1", server.uri()), "apiKey": api_key()},
        "modelSettings": {"retryDelayMs": 1}
    });
    if let (Value::Object(o), Value::Object(e)) = (&mut opts, extra) {
        o.extend(e);
    }
    opts
}

pub fn run(v: Value) -> RunInput {
    RunInput::from_value(v).unwrap()
}

/// A run's result; panics on a failure.
pub async fn score(s: &dyn Scorer, v: Value) -> ScoreResult {
    match s.run(run(v), RunContext::default()).await {
        Ok(r) => r,
        Err(RunError::Failed(f)) => panic!("run failed: {}", f.message),
        Err(RunError::Invalid(e)) => panic!("invalid: {}", e.message),
    }
}

/// A run's failure; panics on a score or an input error.
pub async fn failure(s: &dyn Scorer, v: Value) -> ScorerFailure {
    match s.run(run(v), RunContext::default()).await {
        Err(RunError::Failed(f)) => *f,
        Ok(r) => panic!("expected a failure, got score {:?}", r.score),
        Err(RunError::Invalid(e)) => panic!("invalid: {}", e.message),
    }
}

/// The executions recorded under `step`.
pub fn executions(r: &ScoreResult, step: &str) -> usize {
    r.judge.get(step).map_or(0, |j| j.executions.len())
}

// ---------------------------------------------------------------- cache directories

/// A fresh temp path (not created) for a cache directory.
pub fn temp_dir(what: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("oxeval-{what}-{}", uuid::Uuid::new_v4()))
}

/// Files under `dir/v3/<kind>` (the cache's `entries` or `locators`).
pub fn count_files(dir: &std::path::Path, kind: &str) -> usize {
    let Ok(shards) = std::fs::read_dir(dir.join("v3").join(kind)) else {
        return 0;
    };
    shards
        .map(|s| std::fs::read_dir(s.unwrap().path()).unwrap().count())
        .sum()
}
