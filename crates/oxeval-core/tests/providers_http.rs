//! The native providers through the engine over real HTTP (wiremock on 127.0.0.1): the answer
//! relevancy pipeline against an Anthropic, a Gemini and an Azure OpenAI server, each checking
//! the route, the key header and the body it expects; and the self-heal of an OpenAI-compatible
//! judge that rejects `temperature`.

mod common;

use common::api_key;
use oxeval_core::engine::RunContext;
use oxeval_core::scorers::llm::answer_relevancy::AnswerRelevancy;
use oxeval_core::{RunInput, Scorer};
use serde_json::{json, Value};
use wiremock::matchers::{header, method, path, path_regex, query_param};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

/// The judge's answer for a schema (`None`: the free-text reason).
fn answer(schema: Option<&str>) -> Value {
    match schema {
        Some("answer_relevancy_statements") => {
            json!({"statements": ["Paris is the capital.", "Croissants."]})
        }
        Some("answer_relevancy_verdicts") => {
            json!({"results": [{"result": "yes", "reason": "r"}, {"result": "no", "reason": "r"}]})
        }
        Some(other) => panic!("unexpected schema {other}"),
        None => json!("The score is 0.5 because half of it is relevant."),
    }
}

fn body(req: &Request) -> Value {
    serde_json::from_slice(&req.body).expect("JSON body")
}

fn run() -> RunInput {
    RunInput::from_value(
        json!({"input": "What is the capital of France?", "output": "Paris is the capital. Croissants."}),
    )
    .unwrap()
}

async fn score(options: Value) -> oxeval_core::ScoreResult {
    let s = AnswerRelevancy::from_options(&options).unwrap();
    match s.run(run(), RunContext::default()).await {
        Ok(r) => r,
        Err(oxeval_core::RunError::Failed(f)) => panic!("run failed: {}", f.message),
        Err(oxeval_core::RunError::Invalid(e)) => panic!("invalid: {}", e.message),
    }
}

fn settings() -> Value {
    json!({"retryDelayMs": 1, "maxRetries": 0})
}

#[tokio::test]
async fn anthropic_messages_end_to_end() {
    let server = MockServer::start().await;
    let key = api_key();
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .and(header("x-api-key", key.as_str()))
        .and(header("anthropic-version", "2023-06-01"))
        .respond_with(|req: &Request| {
            let b = body(req);
            assert_eq!(b["max_tokens"], 4096);
            assert_eq!(b["messages"][0]["role"], "user");
            let tool = b.pointer("/tool_choice/name").and_then(Value::as_str);
            if let Some(name) = tool {
                assert_eq!(b["tools"][0]["name"], name);
                assert_eq!(b["tools"][0]["input_schema"]["type"], "object");
            }
            let content = match tool {
                Some(name) => json!([{"type": "tool_use", "id": "t", "name": name, "input": answer(Some(name))}]),
                None => json!([{"type": "text", "text": answer(None)}]),
            };
            ResponseTemplate::new(200).set_body_json(json!({
                "type": "message", "role": "assistant", "content": content,
                "stop_reason": if tool.is_some() { "tool_use" } else { "end_turn" },
                "usage": {"input_tokens": 30, "output_tokens": 7}
            }))
        })
        .expect(3)
        .mount(&server)
        .await;
    let r = score(json!({
        "model": {"id": "anthropic/claude-test", "url": format!("{}/v1", server.uri()), "apiKey": key},
        "modelSettings": settings(),
    }))
    .await;
    assert_eq!(r.score, Some(0.5));
    let ex = &r.judge["preprocess"].executions[0];
    assert_eq!(ex.judge_provider, "anthropic");
    assert_eq!(ex.usage.total_tokens, Some(37));
    assert_eq!(ex.finish_reason.as_deref(), Some("stop"));
}

#[tokio::test]
async fn gemini_generate_content_end_to_end() {
    let server = MockServer::start().await;
    let key = api_key();
    Mock::given(method("POST"))
        .and(path_regex(r"^/v1beta/models/gemini-test:generateContent$"))
        .and(header("x-goog-api-key", key.as_str()))
        .respond_with(|req: &Request| {
            assert!(req.url.query().is_none(), "no key in the URL");
            let b = body(req);
            let config = &b["generationConfig"];
            let schema = config
                .pointer("/responseJsonSchema/title")
                .and_then(Value::as_str);
            if schema.is_some() {
                assert_eq!(config["responseMimeType"], "application/json");
            }
            assert!(b["systemInstruction"]["parts"][0]["text"].is_string());
            let text = match answer(schema) {
                Value::String(s) => s,
                v => v.to_string(),
            };
            ResponseTemplate::new(200).set_body_json(json!({
                "candidates": [{"content": {"role": "model", "parts": [{"text": "hmm", "thought": true}, {"text": text}]}, "finishReason": "STOP"}],
                "usageMetadata": {"promptTokenCount": 20, "candidatesTokenCount": 5, "thoughtsTokenCount": 9, "totalTokenCount": 34}
            }))
        })
        .expect(3)
        .mount(&server)
        .await;
    let r = score(json!({
        "model": {"id": "google/gemini-test", "url": format!("{}/v1beta", server.uri()), "apiKey": key},
        "modelSettings": settings(),
    }))
    .await;
    assert_eq!(r.score, Some(0.5));
    let ex = &r.judge["analyze"].executions[0];
    assert_eq!(ex.usage.reasoning_tokens, Some(9));
    assert_eq!(ex.reasoning.as_deref(), Some("hmm"));
}

fn chat(content: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}
    }))
}

fn chat_answer(req: &Request) -> ResponseTemplate {
    let b = body(req);
    let schema = b
        .pointer("/response_format/json_schema/name")
        .and_then(Value::as_str);
    match answer(schema) {
        Value::String(s) => chat(&s),
        v => chat(&v.to_string()),
    }
}

#[tokio::test]
async fn azure_openai_end_to_end() {
    let server = MockServer::start().await;
    let key = api_key();
    Mock::given(method("POST"))
        .and(path("/openai/deployments/judge-4o/chat/completions"))
        .and(query_param("api-version", "2024-10-21"))
        .and(header("api-key", key.as_str()))
        .respond_with(|req: &Request| {
            assert!(!req.headers.contains_key("authorization"));
            chat_answer(req)
        })
        .expect(3)
        .mount(&server)
        .await;
    let r = score(json!({
        "model": {"id": "azure/judge-4o", "url": format!("{}/openai", server.uri()), "apiKey": key},
        "modelSettings": settings(),
    }))
    .await;
    assert_eq!(r.score, Some(0.5));
    assert_eq!(r.judge["preprocess"].executions[0].judge_provider, "azure");
}

#[tokio::test]
async fn a_rejected_temperature_is_dropped_once_and_remembered() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(|req: &Request| {
            if body(req).get("temperature").is_some() {
                return ResponseTemplate::new(400).set_body_json(json!({"error": {
                    "message": "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.",
                    "type": "invalid_request_error", "param": "temperature", "code": "unsupported_value"
                }}));
            }
            chat_answer(req)
        })
        .mount(&server)
        .await;
    let options = json!({
        "model": {"id": "custom/reasoner-x", "url": format!("{}/v1", server.uri())},
        "modelSettings": settings(),
    });
    let r = score(options.clone()).await;
    assert_eq!(r.score, Some(0.5));
    let ex = &r.judge["preprocess"].executions[0];
    assert_eq!((ex.attempt_count, ex.model_call_count), (1, 2));
    let temps = |reqs: &[Request]| -> Vec<bool> {
        reqs.iter()
            .map(|q| body(q).get("temperature").is_some())
            .collect()
    };
    let reqs = server.received_requests().await.unwrap();
    assert_eq!(temps(&reqs), [true, false, false, false]);
    // the next scorer of the same model at the same endpoint never sends it
    let r = score(options).await;
    assert_eq!(r.score, Some(0.5));
    let reqs = server.received_requests().await.unwrap();
    assert_eq!(temps(&reqs[4..]), [false, false, false]);
}
