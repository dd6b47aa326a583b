//! The OpenAI-compatible provider against odd, hostile or broken servers over real HTTP:
//! odd replies (refusal, reasoning, content parts, no choices, tool calls), response size
//! limits, redirects, and credentials (URL userinfo, secrets echoed in errors).
//!
//! Servers are wiremock on 127.0.0.1, or a raw one-connection std TCP server where the
//! test must control the bytes on the wire (huge or lying bodies).

mod common;

use common::{api_key, completion_message, password, serve};
use oxeval_core::model::ModelConfig;
use oxeval_core::provider::openai::OpenAiProvider;
use oxeval_core::provider::{
    CallError, CallOptions, ChatRequest, ChatResponse, Provider, DEFAULT_MAX_RESPONSE_BYTES,
    MAX_ERROR_BODY_BYTES, MAX_REDIRECTS,
};
use oxeval_core::redact::basic_credentials;
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const MIB: usize = 1024 * 1024;

fn model(v: Value) -> ModelConfig {
    ModelConfig::resolve(&v, &|_| None).expect("model config")
}

/// The provider as the engine builds it (the key resolved from the config).
fn provider(m: &ModelConfig) -> OpenAiProvider {
    let key = m.api_key.clone().ok().flatten();
    OpenAiProvider::new(m, key)
}

fn keyed(url: &str) -> OpenAiProvider {
    provider(&model(
        json!({"id": "custom/judge", "url": url, "apiKey": api_key()}),
    ))
}

fn request(max_response_bytes: usize) -> ChatRequest {
    ChatRequest {
        system: "You are a judge.".into(),
        user: "Judge this.".into(),
        schema: None,
        temperature: Some(0.0),
        max_tokens: None,
        max_response_bytes,
        logprobs: false,
    }
}

async fn call(p: &OpenAiProvider, max_response_bytes: usize) -> Result<ChatResponse, CallError> {
    p.complete(
        &request(max_response_bytes),
        &CallOptions::NONE,
        Duration::from_secs(30),
    )
    .await
}

async fn reply_to(message: Value) -> Result<ChatResponse, CallError> {
    let server = serve(completion_message(message)).await;
    call(
        &keyed(&format!("{}/v1", server.uri())),
        DEFAULT_MAX_RESPONSE_BYTES,
    )
    .await
}

fn bad_response(r: Result<ChatResponse, CallError>) -> (String, String) {
    match r {
        Err(CallError::BadResponse { message, body }) => (message, body),
        other => panic!("expected BadResponse, got {other:?}"),
    }
}

// ---- odd replies ----

#[tokio::test]
async fn refusal_is_parsed_and_is_not_the_text() {
    let r = reply_to(json!({"role": "assistant", "content": null, "refusal": "I'm sorry, I can't help with that."}))
        .await
        .unwrap();
    assert_eq!(r.text, "");
    assert_eq!(
        r.refusal.as_deref(),
        Some("I'm sorry, I can't help with that.")
    );
    assert_eq!(r.usage.total_tokens, Some(120));
}

#[tokio::test]
async fn reasoning_is_parsed_and_is_not_the_text() {
    let r = reply_to(json!({"role": "assistant", "content": "{\"score\":1}", "reasoning_content": "Let me think."}))
        .await
        .unwrap();
    assert_eq!(r.text, "{\"score\":1}");
    assert_eq!(r.reasoning.as_deref(), Some("Let me think."));

    let r = reply_to(json!({"role": "assistant", "content": "ok", "reasoning": "Thinking..."}))
        .await
        .unwrap();
    assert_eq!(r.text, "ok");
    assert_eq!(r.reasoning.as_deref(), Some("Thinking..."));
}

#[tokio::test]
async fn content_parts_join_only_text_parts() {
    let r = reply_to(json!({"role": "assistant", "content": [
        {"type": "reasoning", "text": "not the answer"},
        {"type": "text", "text": "{\"a\":"},
        {"type": "image_url", "image_url": {"url": "http://example.invalid/x.png"}},
        {"type": "output_text", "text": "1}"}
    ]}))
    .await
    .unwrap();
    assert_eq!(r.text, "{\"a\":1}");
}

#[tokio::test]
async fn empty_choices_is_typed_and_keeps_the_body() {
    let body = json!({"id": "c1", "object": "chat.completion", "choices": []});
    let server = serve(ResponseTemplate::new(200).set_body_json(body.clone())).await;
    let r = call(
        &keyed(&format!("{}/v1", server.uri())),
        DEFAULT_MAX_RESPONSE_BYTES,
    )
    .await;
    let (message, kept) = bad_response(r);
    assert_eq!(message, "the judge's response has no choices");
    assert_eq!(serde_json::from_str::<Value>(&kept).unwrap(), body);
}

#[tokio::test]
async fn tool_call_is_typed_and_keeps_the_body() {
    let r = reply_to(json!({"role": "assistant", "content": null, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "score", "arguments": "{}"}}
    ]}))
    .await;
    let (message, kept) = bad_response(r);
    assert_eq!(
        message,
        "the judge answered with a tool call instead of text"
    );
    assert!(kept.contains("call_1"), "{kept}");
}

// ---- size limits ----

/// A one-connection HTTP server on 127.0.0.1: reads one request, then hands the stream to
/// `respond`, whose result the handle returns.
fn raw_server<R: Send + 'static>(
    respond: impl FnOnce(&mut TcpStream) -> R + Send + 'static,
) -> (String, JoinHandle<R>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        read_request(&mut stream);
        respond(&mut stream)
    });
    (url, handle)
}

/// Read one HTTP/1.1 request (headers, then `content-length` bytes of body).
fn read_request(stream: &mut TcpStream) {
    let mut data = Vec::new();
    let mut buf = [0u8; 4096];
    let header_end = loop {
        let n = stream.read(&mut buf).unwrap();
        assert!(n > 0, "client closed before sending a request");
        data.extend_from_slice(&buf[..n]);
        if let Some(i) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&data[..header_end]).to_ascii_lowercase();
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .map_or(0, |v| v.trim().parse().unwrap());
    while data.len() < header_end + length {
        let n = stream.read(&mut buf).unwrap();
        assert!(n > 0);
        data.extend_from_slice(&buf[..n]);
    }
}

#[tokio::test]
async fn huge_streamed_body_stops_at_the_limit() {
    const TOTAL: usize = 64 * MIB;
    // Close-delimited body (no Content-Length): the client only learns the size by reading.
    let (url, server) = raw_server(|stream| {
        stream
            .write_all(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n",
            )
            .unwrap();
        let chunk = vec![b' '; 64 * 1024];
        let mut written = 0;
        while written < TOTAL {
            if stream.write_all(&chunk).is_err() {
                return (written, false);
            }
            written += chunk.len();
        }
        (written, true)
    });
    let started = Instant::now();
    let r = call(&keyed(&url), MIB).await;
    assert!(
        matches!(r, Err(CallError::TooLarge { limit: MIB })),
        "{r:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    let (written, completed) = tokio::task::spawn_blocking(move || server.join().unwrap())
        .await
        .unwrap();
    assert!(
        !completed && written < TOTAL / 2,
        "the client stopped reading: the server could write only {written} of {TOTAL} bytes"
    );
}

#[tokio::test]
async fn content_length_over_the_limit_fails_without_reading() {
    // Announces 50 MB, sends one byte, then waits: only a client that trusts the header
    // (and does not read) returns before the server gives up.
    let (url, server) = raw_server(|stream| {
        stream
            .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 50000000\r\n\r\n{")
            .unwrap();
        let mut buf = [0u8; 16];
        // returns when the client closes the connection (or after the read timeout)
        let _ = stream.read(&mut buf);
    });
    let started = Instant::now();
    let r = call(&keyed(&url), MIB).await;
    assert!(
        matches!(r, Err(CallError::TooLarge { limit: MIB })),
        "{r:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "failed fast: {:?}",
        started.elapsed()
    );
    tokio::task::spawn_blocking(move || server.join().unwrap())
        .await
        .unwrap();
}

#[tokio::test]
async fn a_body_within_the_limit_is_read() {
    let server = serve(completion_message(
        json!({"role": "assistant", "content": "x".repeat(100_000)}),
    ))
    .await;
    let r = call(&keyed(&format!("{}/v1", server.uri())), MIB)
        .await
        .unwrap();
    assert_eq!(r.text.len(), 100_000);
    // the same body over a smaller limit (announced by Content-Length)
    let r = call(&keyed(&format!("{}/v1", server.uri())), 50_000).await;
    assert!(
        matches!(r, Err(CallError::TooLarge { limit: 50_000 })),
        "{r:?}"
    );
}

#[tokio::test]
async fn error_bodies_are_bounded() {
    let server = serve(ResponseTemplate::new(500).set_body_string("e".repeat(MIB))).await;
    match call(
        &keyed(&format!("{}/v1", server.uri())),
        DEFAULT_MAX_RESPONSE_BYTES,
    )
    .await
    {
        Err(CallError::Http { status, body, .. }) => {
            assert_eq!(status, 500);
            assert_eq!(body.len(), MAX_ERROR_BODY_BYTES);
        }
        other => panic!("expected Http, got {other:?}"),
    }
}

// ---- redirects ----

fn secret_headers_model(url: &str) -> ModelConfig {
    model(json!({
        "id": "custom/judge",
        "url": url,
        "apiKey": api_key(),
        "headers": {"x-api-key": api_key()}
    }))
}

#[tokio::test]
async fn same_origin_redirect_is_followed() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(ResponseTemplate::new(307).insert_header("location", "/v2/chat/completions"))
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/v2/chat/completions"))
        .respond_with(completion_message(
            json!({"role": "assistant", "content": "moved"}),
        ))
        .expect(1)
        .mount(&server)
        .await;
    let p = provider(&secret_headers_model(&format!("{}/v1", server.uri())));
    let r = call(&p, DEFAULT_MAX_RESPONSE_BYTES).await.unwrap();
    assert_eq!(r.text, "moved");
    let requests = server.received_requests().await.unwrap();
    let moved = requests
        .iter()
        .find(|r| r.url.path() == "/v2/chat/completions")
        .unwrap();
    // a 307 keeps the method, the body and (same origin) the credentials
    let body: Value = moved.body_json().unwrap();
    assert_eq!(body["messages"][1]["content"], "Judge this.");
    assert_eq!(moved.headers.get("x-api-key").unwrap(), api_key().as_str());
}

#[tokio::test]
async fn cross_origin_redirect_is_not_followed() {
    let other = MockServer::start().await;
    Mock::given(wiremock::matchers::any())
        .respond_with(completion_message(
            json!({"role": "assistant", "content": "stolen"}),
        ))
        .mount(&other)
        .await;
    let target = format!(
        "http://someone:{}@{}/v1/chat/completions?token={}#f",
        password(),
        other.address(),
        api_key()
    );
    let server = serve(ResponseTemplate::new(307).insert_header("location", target.as_str())).await;
    let p = provider(&secret_headers_model(&format!("{}/v1", server.uri())));
    let r = call(&p, DEFAULT_MAX_RESPONSE_BYTES).await;
    match r {
        Err(CallError::Redirect {
            status,
            location,
            cross_origin,
        }) => {
            assert_eq!(status, 307);
            assert!(cross_origin);
            // no userinfo, query or fragment in what is shown
            assert_eq!(
                location,
                format!("http://{}/v1/chat/completions", other.address())
            );
        }
        other => panic!("expected Redirect, got {other:?}"),
    }
    assert_eq!(
        other.received_requests().await.unwrap().len(),
        0,
        "the other origin received nothing"
    );
}

#[tokio::test]
async fn redirect_loops_stop() {
    let server =
        serve(ResponseTemplate::new(307).insert_header("location", "/v1/chat/completions")).await;
    let r = call(
        &keyed(&format!("{}/v1", server.uri())),
        DEFAULT_MAX_RESPONSE_BYTES,
    )
    .await;
    assert!(
        matches!(
            r,
            Err(CallError::Redirect {
                status: 307,
                cross_origin: false,
                ..
            })
        ),
        "{r:?}"
    );
    assert_eq!(
        server.received_requests().await.unwrap().len(),
        MAX_REDIRECTS + 1
    );
}

// ---- credentials ----

/// A base URL with userinfo on a port where nothing listens.
#[tokio::test]
async fn userinfo_never_appears_in_network_errors() {
    let port = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let pw = format!("{}@/:", password());
    let encoded = pw
        .replace('@', "%40")
        .replace('/', "%2F")
        .replace(':', "%3A");
    let m = model(
        json!({"id": "custom/judge", "url": format!("http://someone:{encoded}@127.0.0.1:{port}/v1")}),
    );
    let p = provider(&m);
    assert_eq!(
        p.endpoint(),
        format!("http://127.0.0.1:{port}/v1/chat/completions")
    );
    let r = call(&p, DEFAULT_MAX_RESPONSE_BYTES).await;
    let Err(CallError::Network(text)) = &r else {
        panic!("expected Network, got {r:?}");
    };
    assert!(text.contains(&format!("127.0.0.1:{port}")), "{text}");
    let shown = format!("{r:?} {}", r.as_ref().unwrap_err());
    for secret in [password(), pw.clone(), encoded.clone()] {
        assert!(!shown.contains(&secret), "{shown}");
    }
}

#[tokio::test]
async fn userinfo_becomes_basic_auth_without_an_api_key() {
    let server = serve(completion_message(
        json!({"role": "assistant", "content": "ok"}),
    ))
    .await;
    let url = format!("http://someone:{}@{}/v1", password(), server.address());
    let r = call(
        &provider(&model(json!({"id": "custom/judge", "url": url}))),
        DEFAULT_MAX_RESPONSE_BYTES,
    )
    .await
    .unwrap();
    assert_eq!(r.text, "ok");
    // with an API key, the key is the one credential sent
    call(
        &provider(&model(
            json!({"id": "custom/judge", "url": url, "apiKey": api_key()}),
        )),
        DEFAULT_MAX_RESPONSE_BYTES,
    )
    .await
    .unwrap();
    let requests = server.received_requests().await.unwrap();
    let auth = |i: usize| -> Vec<String> {
        requests[i]
            .headers
            .get_all("authorization")
            .iter()
            .map(|v| v.to_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        auth(0),
        [format!(
            "Basic {}",
            basic_credentials("someone", Some(&password()))
        )]
    );
    assert_eq!(auth(1), [format!("Bearer {}", api_key())]);
}

#[tokio::test]
async fn secrets_echoed_by_the_server_are_scrubbed() {
    let quote_key = format!("{}\"q", api_key());
    let body = json!({"error": {"message": format!("Incorrect API key provided: {quote_key}; header {}", password())}});
    let server = serve(ResponseTemplate::new(401).set_body_json(body)).await;
    let m = model(json!({
        "id": "custom/judge",
        "url": format!("{}/v1", server.uri()),
        "apiKey": quote_key.clone(),
        "headers": {"x-secret": password()}
    }));
    match call(&provider(&m), DEFAULT_MAX_RESPONSE_BYTES).await {
        Err(CallError::Http { status, body, .. }) => {
            assert_eq!(status, 401);
            assert!(
                !body.contains(&api_key()) && !body.contains(&password()),
                "{body}"
            );
            assert!(
                body.contains("Incorrect API key provided: [redacted]; header [redacted]"),
                "{body}"
            );
        }
        other => panic!("expected Http, got {other:?}"),
    }
    // the key sent is still the real one
    let requests = server.received_requests().await.unwrap();
    assert_eq!(
        requests[0].headers.get("authorization").unwrap(),
        format!("Bearer {quote_key}").as_str()
    );
}
