//! Issue 18, the engine's part: one reply never kills the run, and no secret reaches the disk
//! or an error text. Odd usage from a host model, lone surrogate escapes in judge bodies,
//! oversized host replies, a record cache that cannot be written, the memory layer across
//! cache directories, judges echoing credentials into cached replies, and base URLs with a
//! query key. Every server is wiremock on 127.0.0.1.

mod common;

use common::*;
use futures::future::BoxFuture;
use oxeval_core::engine::cache::{CacheEnv, ResponseCache};
use oxeval_core::engine::RunContext;
use oxeval_core::provider::external::{ExternalProvider, Host, HostCall};
use oxeval_core::provider::{anthropic, google, openai};
use oxeval_core::scorers::llm::answer_relevancy::{AnswerRelevancy, Options};
use oxeval_core::{ErrorCode, Judge, ModelConfig, ModelSettings, RunError, Scorer};
use serde_json::{json, Value};
use std::path::Path;
use std::sync::Arc;
use wiremock::matchers::{method, path, query_param};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

use common::{count_files, temp_dir};

/// Every file's text under `dir/v3/entries`.
fn entry_texts(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for shard in std::fs::read_dir(dir.join("v3").join("entries")).unwrap() {
        for f in std::fs::read_dir(shard.unwrap().path()).unwrap() {
            out.push(std::fs::read_to_string(f.unwrap().path()).unwrap());
        }
    }
    out
}

async fn request_count(server: &MockServer) -> usize {
    server.received_requests().await.unwrap().len()
}

/// Answer relevancy's replies by schema name: three statements, three verdicts, a reason.
fn ar_reply(schema: &str) -> &'static str {
    match schema {
        "answer_relevancy_statements" => r#"{"statements":["A.","B.","C."]}"#,
        "answer_relevancy_verdicts" => {
            r#"{"results":[{"result":"yes","reason":"a"},{"result":"no","reason":"b"},{"result":"yes","reason":"c"}]}"#
        }
        _ => "The score is 0.67 because two statements answer.",
    }
}

fn ar_judge(s: &Seen) -> ResponseTemplate {
    completion(ar_reply(&s.schema))
}

fn q() -> Value {
    json!({"input": "What?", "output": "A. B. C."})
}

fn item(id: &str) -> RunContext {
    RunContext::default().with_item(Some(id.to_string()))
}

async fn fails(s: &dyn Scorer, v: Value) -> oxeval_core::ScorerFailure {
    match s.run(run(v), RunContext::default()).await {
        Err(RunError::Failed(f)) => *f,
        Ok(r) => panic!("expected a failure, got score {:?}", r.score),
        Err(RunError::Invalid(e)) => panic!("invalid: {}", e.message),
    }
}

// ------------------------------------------------------------------ a host model (JS)

/// A host model answering answer relevancy's requests, with `usage` on every reply and the
/// answer text padded to `pad` bytes.
struct HostModel {
    usage: Value,
    pad: usize,
}

impl Host for HostModel {
    fn call(&self, kind: HostCall, request: String) -> BoxFuture<'static, Result<String, String>> {
        assert_eq!(kind, HostCall::JudgeModel);
        let req: Value = serde_json::from_str(&request).unwrap();
        let schema = req
            .pointer("/schema/name")
            .and_then(Value::as_str)
            .unwrap_or("");
        let mut text = ar_reply(schema).to_string();
        text.push_str(&" ".repeat(self.pad));
        let reply = json!({"ok": true, "text": text, "usage": self.usage, "finishReason": "stop"});
        Box::pin(async move { Ok(reply.to_string()) })
    }
}

fn host_scorer(model: HostModel, settings: Value) -> AnswerRelevancy {
    let config = ModelConfig::external("ai-sdk", "estimator");
    let provider = Arc::new(ExternalProvider::new(
        &config.provider_id,
        &config.model_id,
        Arc::new(model),
    ));
    let settings = ModelSettings::from_value(Some(&settings)).unwrap();
    let judge = Judge::with_provider(provider, config, settings);
    AnswerRelevancy::new(judge, Options::from_value(&json!({})).unwrap())
}

#[tokio::test]
async fn estimated_usage_keeps_the_answer_with_a_warning() {
    let s = host_scorer(
        HostModel {
            usage: json!({"inputTokens": 12.5, "outputTokens": -1, "totalTokens": 1e20, "reasoningTokens": "NaN"}),
            pad: 0,
        },
        json!({}),
    );
    let r = score(&s, q()).await;
    assert!((r.score.unwrap() - 0.67).abs() < 0.01, "{:?}", r.score);
    let exec = &r.judge["preprocess"].executions[0];
    assert_eq!(exec.usage.input_tokens, Some(13));
    assert_eq!(exec.usage.output_tokens, None);
    assert_eq!(exec.usage.total_tokens, Some(9_007_199_254_740_991));
    let odd: Vec<&String> = r
        .warnings
        .iter()
        .filter(|w| w.contains("odd token usage"))
        .collect();
    assert!(!odd.is_empty(), "{:?}", r.warnings);
    assert!(
        odd[0].contains("inputTokens 12.5 rounded") && odd[0].contains("outputTokens -1 dropped"),
        "{}",
        odd[0]
    );
}

#[tokio::test]
async fn a_host_reply_over_max_response_bytes_is_too_large() {
    // 4 KiB bound, a 64 KiB answer: refused with the HTTP replies' code
    let s = host_scorer(
        HostModel {
            usage: json!({}),
            pad: 64 * 1024,
        },
        json!({"maxResponseBytes": 4096}),
    );
    let f = fails(&s, q()).await;
    assert_eq!(f.code, ErrorCode::JudgeTooLarge, "{}", f.message);
    assert!(f.message.contains("4096"), "{}", f.message);
    // within the bound the same model is fine
    let ok = host_scorer(
        HostModel {
            usage: json!({}),
            pad: 100,
        },
        json!({"maxResponseBytes": 4096}),
    );
    assert!(score(&ok, q()).await.score.is_some());
}

// ------------------------------------------------------------------ lone surrogates

#[test]
fn lone_surrogate_escapes_in_every_wire_format_are_replaced() {
    // the escape sits in the body's strings: a lone high half, then a lone low half
    let bodies: [(&str, String); 3] = [
        (
            "openai",
            r#"{"choices":[{"message":{"role":"assistant","content":"{\"r\":\"x\"} \ud83d end \ude00"},"finish_reason":"stop"}]}"#.into(),
        ),
        (
            "anthropic",
            r#"{"type":"message","role":"assistant","content":[{"type":"text","text":"{\"r\":\"x\"} \ud83d end \ude00"}],"stop_reason":"end_turn"}"#.into(),
        ),
        (
            "google",
            r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"{\"r\":\"x\"} \ud83d end \ude00"}]},"finishReason":"STOP"}]}"#.into(),
        ),
    ];
    for (wire, body) in bodies {
        let resp = match wire {
            "openai" => openai::parse_response(body.as_bytes()),
            "anthropic" => anthropic::parse_response(body.as_bytes()),
            _ => google::parse_response(body.as_bytes()),
        }
        .unwrap_or_else(|e| panic!("{wire}: {e}"));
        assert_eq!(resp.text, "{\"r\":\"x\"} \u{FFFD} end \u{FFFD}", "{wire}");
        assert_eq!(resp.warnings.len(), 1, "{wire}");
        assert!(resp.warnings[0].contains("2 lone UTF-16 surrogate escapes"));
    }
    // valid pairs and escaped backslashes are left as they are, without a warning
    let body = r#"{"choices":[{"message":{"role":"assistant","content":"\ud83d\ude00 \\ud83d"},"finish_reason":"stop"}]}"#;
    let resp = openai::parse_response(body.as_bytes()).unwrap();
    assert_eq!(resp.text, "\u{1F600} \\ud83d");
    assert!(resp.warnings.is_empty());
}

#[tokio::test]
async fn a_lone_surrogate_in_the_body_or_in_the_judges_json_is_accepted() {
    // the body's own escape (statements) and an escape inside the judge's JSON text
    // (verdicts: the content holds `\ud83d` as six characters)
    let server = server_with(|s: &Seen| match s.schema.as_str() {
        "answer_relevancy_statements" => ResponseTemplate::new(200).set_body_raw(
            r#"{"choices":[{"message":{"role":"assistant","content":"{\"statements\":[\"A \ud83d.\",\"B.\",\"C.\"]}"},"finish_reason":"stop"}]}"#,
            "application/json",
        ),
        "answer_relevancy_verdicts" => completion(
            r#"{"results":[{"result":"yes","reason":"cut \ud83d"},{"result":"no","reason":"b"},{"result":"yes","reason":"c"}]}"#,
        ),
        _ => completion("The score is 0.67."),
    })
    .await;
    let s = AnswerRelevancy::from_options(&options(&server, json!({}))).unwrap();
    let r = score(&s, q()).await;
    assert!((r.score.unwrap() - 0.67).abs() < 0.01);
    let statements = r.preprocess_step_result.as_ref().unwrap();
    assert_eq!(statements["statements"][0], "A \u{FFFD}.");
    let verdicts = r.analyze_step_result.as_ref().unwrap();
    assert_eq!(verdicts["results"][0]["reason"], "cut \u{FFFD}");
    assert!(
        r.warnings
            .iter()
            .any(|w| w.starts_with("preprocess:") && w.contains("response body")),
        "{:?}",
        r.warnings
    );
    assert!(
        r.warnings
            .iter()
            .any(|w| w.starts_with("analyze:") && w.contains("JSON answer")),
        "{:?}",
        r.warnings
    );
}

// ------------------------------------------------------------------ cache: record, memory

#[test]
fn record_into_an_unwritable_dir_fails_when_the_cache_is_opened() {
    // a directory under a regular file cannot be created, whoever runs the test (root too)
    let file = temp_dir("not-a-dir");
    std::fs::write(&file, "x").unwrap();
    let dir = file.join("cache");
    let d = dir.display().to_string();
    let err = ResponseCache::from_options(
        Some(&json!({"dir": d, "mode": "record"})),
        CacheEnv::default(),
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidOptions);
    assert!(
        err.message.contains(&d) && err.message.contains("'record'"),
        "{}",
        err.message
    );
    // the mode from the environment: the same check, naming the variable
    let err = ResponseCache::from_options(
        None,
        CacheEnv {
            dir: Some(d.clone()),
            mode: Some("record".into()),
        },
    )
    .unwrap_err();
    assert!(
        err.message.contains("OXEVAL_CACHE_MODE") && err.message.contains(&d),
        "{}",
        err.message
    );
    // auto keeps today's behaviour: the cache opens (a warning comes with the first write)
    assert!(ResponseCache::from_options(
        Some(&json!({"dir": d, "mode": "auto"})),
        CacheEnv::default()
    )
    .unwrap()
    .is_some());
    // a writable directory: created, and no probe file left behind
    let ok = temp_dir("record-ok");
    ResponseCache::from_options(
        Some(&json!({"dir": ok.display().to_string(), "mode": "record"})),
        CacheEnv::default(),
    )
    .unwrap()
    .unwrap();
    let entries = ok.join("v3").join("entries");
    assert!(entries.is_dir());
    assert_eq!(std::fs::read_dir(&entries).unwrap().count(), 0);
    let _ = std::fs::remove_file(file);
    let _ = std::fs::remove_dir_all(ok);
}

/// An answer relevancy scorer with no API key (replay needs none), its base URL `url`.
fn keyless_replay(url: &str, dir: &str) -> AnswerRelevancy {
    keyless_replay_with(json!({"id": "openai/gpt-4o-mini", "url": url}), dir)
}

/// [`keyless_replay`] of the model `model` (its custom headers are part of the keys).
fn keyless_replay_with(model: Value, dir: &str) -> AnswerRelevancy {
    let model = ModelConfig::resolve(&model, &|_| None).unwrap();
    let cache = ResponseCache::from_options(
        Some(&json!({"dir": dir, "mode": "replay"})),
        CacheEnv::default(),
    )
    .unwrap();
    let settings = ModelSettings::from_value(Some(&json!({"retryDelayMs": 1}))).unwrap();
    AnswerRelevancy::new(
        Judge::new(model, settings).with_cache(cache),
        Options::from_value(&json!({})).unwrap(),
    )
}

#[tokio::test]
async fn a_second_cache_dir_in_the_same_process_gets_its_own_recordings() {
    let server = server_with(ar_judge).await;
    let (a, b) = (temp_dir("mem-a"), temp_dir("mem-b"));
    let (da, db) = (a.display().to_string(), b.display().to_string());
    let url = format!("{}/v1", server.uri());
    let with_dir = |d: &str| {
        AnswerRelevancy::from_options(&options(&server, json!({"cache": {"dir": d}}))).unwrap()
    };
    let first = with_dir(&da).run(run(q()), item("m1")).await.unwrap();
    assert_eq!(request_count(&server).await, 3);
    assert_eq!(count_files(&a, "entries"), 3);
    // dir B: not answered from A's memory; asked, and recorded in B
    let second = with_dir(&db).run(run(q()), item("m1")).await.unwrap();
    assert_eq!(second.score, first.score);
    assert_eq!(
        request_count(&server).await,
        6,
        "B was answered from A's memory"
    );
    assert_eq!(count_files(&b, "entries"), 3);
    // the same dir again: memory hits, no request
    with_dir(&db).run(run(q()), item("m1")).await.unwrap();
    assert_eq!(request_count(&server).await, 6);
    // B replays with the judge gone
    drop(server);
    let r = keyless_replay(&url, &db)
        .run(run(q()), item("m1"))
        .await
        .unwrap();
    assert_eq!(r.score, first.score);
    let _ = std::fs::remove_dir_all(a);
    let _ = std::fs::remove_dir_all(b);
}

// ------------------------------------------------------------------ secrets

#[tokio::test]
async fn echoed_credentials_never_reach_the_disk_and_the_entry_still_replays() {
    // the judge (or a gateway) echoes the Authorization header and a custom header value
    // into every answer
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(|req: &Request| {
            let h = |n: &str| {
                req.headers
                    .get(n)
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("")
                    .to_string()
            };
            let echo = format!(
                "Authorization: {}; x-team: {}",
                h("authorization"),
                h("x-team")
            );
            let s = seen(req);
            let text = match s.schema.as_str() {
                "answer_relevancy_statements" => {
                    json!({"statements": ["A.", "B.", "C."], "debug": echo}).to_string()
                }
                "answer_relevancy_verdicts" => json!({"results": [
                    {"result": "yes", "reason": echo},
                    {"result": "no", "reason": "b"},
                    {"result": "yes", "reason": "c"}
                ]})
                .to_string(),
                _ => format!("The score is 0.67. ({echo})"),
            };
            completion(&text)
        })
        .mount(&server)
        .await;
    let dir = temp_dir("echo");
    let d = dir.display().to_string();
    let url = format!("{}/v1", server.uri());
    let s = AnswerRelevancy::from_options(&json!({
        "model": {"id": "openai/gpt-4o-mini", "url": url, "apiKey": api_key(), "headers": {"x-team": password()}},
        "modelSettings": {"retryDelayMs": 1},
        "cache": {"dir": d, "mode": "record"}
    }))
    .unwrap();
    let recorded = score(&s, q()).await;
    assert_eq!(request_count(&server).await, 3);
    let texts = entry_texts(&dir);
    assert_eq!(texts.len(), 3);
    for t in &texts {
        assert!(
            !t.contains(&api_key()) && !t.contains(&password()),
            "a secret reached the disk: {t}"
        );
    }
    assert!(
        texts.iter().any(|t| t.contains("Bearer [redacted]")),
        "{texts:?}"
    );
    // the redacted entries still decode: replayed with the judge gone, the same score
    drop(server);
    let model = json!({"id": "openai/gpt-4o-mini", "url": url, "headers": {"x-team": password()}});
    let r = keyless_replay_with(model, &d)
        .run(run(q()), RunContext::default())
        .await
        .unwrap();
    assert_eq!(r.score, recorded.score);
    let v = r.analyze_step_result.unwrap();
    assert!(
        v["results"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("Bearer [redacted]"),
        "{v}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

fn secret_query() -> String {
    ["query", "secret", "4242"].join("-")
}

#[tokio::test]
async fn a_base_url_query_is_kept_on_every_request() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(query_param("api-key", secret_query()))
        .respond_with(|req: &Request| ar_judge(&seen(req)))
        .mount(&server)
        .await;
    let url = format!("{}/v1/?api-key={}", server.uri(), secret_query());
    let s = AnswerRelevancy::from_options(&json!({
        "model": {"id": "custom/judge", "url": url},
        "modelSettings": {"retryDelayMs": 1}
    }))
    .unwrap();
    let r = score(&s, q()).await;
    assert!(r.score.is_some());
    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 3);
    for req in &requests {
        assert_eq!(req.url.path(), "/v1/chat/completions");
        assert_eq!(
            req.url.query(),
            Some(format!("api-key={}", secret_query()).as_str())
        );
    }
    // every wire format keeps the query after its own path
    let m = |v: Value| ModelConfig::resolve(&v, &|_| None).unwrap();
    let key = secret_query();
    let azure = openai::OpenAiProvider::new(
        &m(
            json!({"id": "azure/dep", "url": format!("https://r.example/openai?k={key}"), "apiKey": "k-123456"}),
        ),
        None,
    );
    assert!(
        azure
            .endpoint()
            .starts_with("https://r.example/openai/deployments/dep/chat/completions?api-version=")
            && azure.endpoint().ends_with(&format!("&k={key}")),
        "{}",
        azure.endpoint()
    );
    let claude = anthropic::AnthropicProvider::new(
        &m(
            json!({"id": "anthropic/claude-x", "url": format!("https://a.example/v1?k={key}"), "apiKey": "k-123456"}),
        ),
        None,
    );
    assert_eq!(
        claude.endpoint(),
        format!("https://a.example/v1/messages?k={key}")
    );
    let bare = anthropic::AnthropicProvider::new(
        &m(
            json!({"id": "anthropic/claude-x", "url": format!("https://a.example?k={key}"), "apiKey": "k-123456"}),
        ),
        None,
    );
    assert_eq!(
        bare.endpoint(),
        format!("https://a.example/v1/messages?k={key}")
    );
    let gemini = google::GoogleProvider::new(
        &m(
            json!({"id": "google/gemini-x", "url": format!("https://g.example/v1beta?key={key}"), "apiKey": "k-123456"}),
        ),
        None,
    );
    assert_eq!(
        gemini.endpoint(),
        format!("https://g.example/v1beta/models/gemini-x:generateContent?key={key}")
    );
}

#[tokio::test]
async fn a_query_key_never_appears_in_an_error() {
    // a closed port (network error), and a server that quotes the URL it was sent back
    let closed = AnswerRelevancy::from_options(&json!({
        "model": {"id": "custom/judge", "url": format!("http://127.0.0.1:9/v1?api-key={}", secret_query())},
        "modelSettings": {"retryDelayMs": 1, "maxRetries": 0}
    }))
    .unwrap();
    let f = fails(&closed, q()).await;
    assert_eq!(f.code, ErrorCode::JudgeNetwork);
    let shown = format!(
        "{} | {} | {:?}",
        f.message, f.cause.message, f.cause.raw_output
    );
    assert!(!shown.contains(&secret_query()), "{shown}");
    assert!(shown.contains("127.0.0.1:9/v1"), "{shown}");

    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(|req: &Request| {
            ResponseTemplate::new(401)
                .set_body_json(json!({"error": {"message": format!("bad key in {}", req.url)}}))
        })
        .mount(&server)
        .await;
    let s = AnswerRelevancy::from_options(&json!({
        "model": {"id": "custom/judge", "url": format!("{}/v1?api-key={}", server.uri(), secret_query())},
        "modelSettings": {"retryDelayMs": 1}
    }))
    .unwrap();
    let f = fails(&s, q()).await;
    assert_eq!(f.code, ErrorCode::JudgeHttp);
    let shown = format!(
        "{} | {} | {:?} | {:?}",
        f.message,
        f.cause.message,
        f.cause.raw_output,
        serde_json::to_string(&f.result.judge).unwrap()
    );
    assert!(!shown.contains(&secret_query()), "{shown}");
    assert!(shown.contains("api-key=[redacted]"), "{shown}");
}
