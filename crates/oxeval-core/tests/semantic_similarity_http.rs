//! `SemanticSimilarity` (Ragas) end to end over real HTTP (wiremock on 127.0.0.1): the
//! OpenAI `/v1/embeddings` and Gemini `:batchEmbedContents` wires, one request for the two
//! texts of a run, the vectors checked, faults retried, the key never in an error.

mod common;

use common::*;
use oxeval_core::scorers::registry;
use oxeval_core::{ErrorCode, Scorer};
use serde_json::{json, Value};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

/// Vectors `[len(text), 1]` for the texts of an OpenAI embeddings request.
fn openai_reply(req: &Request) -> ResponseTemplate {
    let body: Value = serde_json::from_slice(&req.body).unwrap();
    let data: Vec<Value> = body["input"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, t)| json!({"index": i, "embedding": [t.as_str().unwrap().len() as f64, 1.0]}))
        .collect();
    ResponseTemplate::new(200)
        .set_body_json(json!({"data": data, "usage": {"prompt_tokens": 4, "total_tokens": 4}}))
}

fn scorer(options: Value) -> Box<dyn Scorer> {
    let spec = registry::find("createSemanticSimilarityScorer").expect("registered");
    registry::build_spec(spec, &options, &Default::default()).expect("built")
}

async fn openai_server() -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/embeddings"))
        .respond_with(openai_reply)
        .mount(&server)
        .await;
    server
}

fn embedder(server: &MockServer, model: &str) -> Value {
    json!({"id": model, "url": format!("{}/v1", server.uri()), "apiKey": api_key()})
}

#[tokio::test]
async fn openai_one_request_for_both_texts() {
    let server = openai_server().await;
    let s = scorer(json!({"embedder": embedder(&server, "openai/emb-http-1")}));
    let r = score(s.as_ref(), json!({"output": "abc", "groundTruth": "abcd"})).await;
    // [3,1]·[4,1] / (√10 √17)
    let want = 13.0 / (10f64.sqrt() * 17f64.sqrt());
    assert!((r.score.unwrap() - want).abs() < 1e-12);
    let reqs = server.received_requests().await.unwrap();
    assert_eq!(reqs.len(), 1);
    let body: Value = serde_json::from_slice(&reqs[0].body).unwrap();
    assert_eq!(body["model"], "emb-http-1");
    assert_eq!(body["input"].as_array().unwrap().len(), 2);
    assert_eq!(
        reqs[0]
            .headers
            .get("authorization")
            .unwrap()
            .to_str()
            .unwrap(),
        format!("Bearer {}", api_key())
    );
    assert_eq!(r.judge["embed"].executions[0].usage.input_tokens, Some(4));
}

#[tokio::test]
async fn gemini_batch_embed_contents() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1beta/models/emb-g:batchEmbedContents"))
        .respond_with(|req: &Request| {
            let body: Value = serde_json::from_slice(&req.body).unwrap();
            let n = body["requests"].as_array().unwrap().len();
            assert_eq!(body["requests"][0]["model"], "models/emb-g");
            let e: Vec<Value> = (0..n).map(|_| json!({"values": [1.0, 2.0]})).collect();
            ResponseTemplate::new(200).set_body_json(json!({"embeddings": e}))
        })
        .mount(&server)
        .await;
    let s = scorer(
        json!({"embedder": {"id": "google/emb-g", "url": format!("{}/v1beta", server.uri()), "apiKey": api_key()}, "threshold": 0.99}),
    );
    let r = score(s.as_ref(), json!({"output": "x", "groundTruth": "y"})).await;
    assert_eq!(r.score, Some(1.0));
}

#[tokio::test]
async fn bad_vectors_and_http_errors() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/embeddings"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"data": [{"index": 0, "embedding": [1.0]}]})),
        )
        .mount(&server)
        .await;
    let s = scorer(
        json!({"embedder": embedder(&server, "openai/emb-http-2"), "modelSettings": {"maxRetries": 0}}),
    );
    let f = failure(s.as_ref(), json!({"output": "a", "groundTruth": "b"})).await;
    assert_eq!(f.code, ErrorCode::EmbedOutput);
    assert_eq!(f.failed_step, "embed");
    assert_eq!(f.completed_steps, ["preprocess"]);

    let server = MockServer::start().await;
    let key = api_key();
    Mock::given(method("POST"))
        .and(path("/v1/embeddings"))
        .respond_with(ResponseTemplate::new(401).set_body_string(format!("bad key {key}")))
        .mount(&server)
        .await;
    let s = scorer(json!({"embedder": embedder(&server, "openai/emb-http-3")}));
    let f = failure(s.as_ref(), json!({"output": "a", "groundTruth": "b"})).await;
    assert_eq!(f.code, ErrorCode::JudgeHttp);
    assert!(!f.message.contains(&key), "{}", f.message);
    assert_eq!(server.received_requests().await.unwrap().len(), 1);
}

#[tokio::test]
async fn a_503_is_retried() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/embeddings"))
        .respond_with(ResponseTemplate::new(503))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/v1/embeddings"))
        .respond_with(openai_reply)
        .mount(&server)
        .await;
    let s = scorer(
        json!({"embedder": embedder(&server, "openai/emb-http-4"), "modelSettings": {"retryDelayMs": 1}}),
    );
    let r = score(s.as_ref(), json!({"output": "a", "groundTruth": "a"})).await;
    assert!((r.score.unwrap() - 1.0).abs() < 1e-12);
    assert_eq!(r.judge["embed"].executions[0].model_call_count, 2);
    assert_eq!(server.received_requests().await.unwrap().len(), 2);
}
