//! The answer relevancy pipeline end to end over real HTTP (wiremock on 127.0.0.1).

mod common;

use common::*;
use oxeval_core::engine::RunContext;
use oxeval_core::scorers::llm::answer_relevancy::AnswerRelevancy;
use oxeval_core::{ErrorCode, RunError, RunInput, Scorer};
use serde_json::{json, Value};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

fn scorer(server: &MockServer, extra: Value) -> AnswerRelevancy {
    AnswerRelevancy::from_options(&options(server, extra)).unwrap()
}

fn qa(input: &str, output: &str) -> RunInput {
    run(json!({"input": input, "output": output, "runId": "r1"}))
}

#[tokio::test]
async fn full_pipeline_scores_and_records() {
    let server = MockServer::start().await;
    mount(
        &server,
        "answer_relevancy_statements",
        completion(r#"{"statements":["Paris is the capital.","I like croissants.","Hm."]}"#),
    )
    .await;
    mount(
        &server,
        "answer_relevancy_verdicts",
        completion(r#"{"results":[{"result":"yes","reason":"a"},{"result":"unsure","reason":"b"},{"result":"no","reason":"c"}]}"#),
    )
    .await;
    mount(
        &server,
        "explain an answer relevancy score",
        completion("The score is 0.43 because one statement answers."),
    )
    .await;

    let s = scorer(&server, json!({}));
    let r = s
        .run(
            qa(
                "Capital of France?",
                "Paris is the capital. I like croissants. Hm.",
            ),
            RunContext::default(),
        )
        .await
        .unwrap();
    assert_eq!(r.score, Some(0.43));
    assert_eq!(r.run_id, "r1");
    assert_eq!(
        r.reason.as_deref(),
        Some("The score is 0.43 because one statement answers.")
    );
    assert_eq!(
        r.preprocess_step_result.as_ref().unwrap()["statements"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    let keys: Vec<&String> = r.judge.keys().collect();
    // in the order the steps ran, as Mastra records them
    assert_eq!(keys, ["preprocess", "analyze", "generateReason"]);
    let ex = &r.judge["analyze"].executions[0];
    assert_eq!(
        (ex.status, ex.attempt_count, ex.model_call_count),
        ("success", 1, 1)
    );
    assert_eq!(ex.usage.total_tokens, Some(120));

    let reqs = server.received_requests().await.unwrap();
    assert_eq!(reqs.len(), 3);
    let body: Value = serde_json::from_slice(&reqs[0].body).unwrap();
    assert_eq!(body["model"], "gpt-4o-mini");
    assert_eq!(body["temperature"], 0.0);
    assert_eq!(body["response_format"]["json_schema"]["strict"], true);
    assert_eq!(
        reqs[0].headers.get("authorization").unwrap(),
        format!("Bearer {}", api_key()).as_str()
    );
}

#[tokio::test]
async fn prompt_style_provider_gets_the_schema_in_the_system_message() {
    let server = MockServer::start().await;
    mount(
        &server,
        "answer_relevancy_statements",
        completion("```json\n{\"statements\": []}\n```"),
    )
    .await;
    mount(
        &server,
        "explain an answer relevancy score",
        completion("The score is 0 because nothing was said."),
    )
    .await;
    let s = scorer(
        &server,
        json!({"model": {"id": "ollama/llama3.2", "url": format!("{}/v1", server.uri()), "structuredOutput": "prompt"}}),
    );
    let r = s.run(qa("q", "..."), RunContext::default()).await.unwrap();
    assert_eq!(r.score, Some(0.0));
    let reqs = server.received_requests().await.unwrap();
    assert_eq!(
        reqs.len(),
        2,
        "analyze is skipped when there are no statements"
    );
    let body: Value = serde_json::from_slice(&reqs[0].body).unwrap();
    assert!(body.get("response_format").is_none());
    let system = body["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("Output schema name: answer_relevancy_statements"));
    assert!(system.contains("\"additionalProperties\": false"));
    assert!(
        reqs[0].headers.get("authorization").is_none(),
        "ollama needs no key"
    );
}

#[tokio::test]
async fn format_error_then_fallback_then_failure_keeps_partial_result() {
    let server = MockServer::start().await;
    mount(
        &server,
        "answer_relevancy_statements",
        completion(r#"{"statements":["a"]}"#),
    )
    .await;
    mount(
        &server,
        "answer_relevancy_verdicts",
        completion("I refuse to answer in JSON."),
    )
    .await;
    let s = scorer(&server, json!({}));
    let err = s
        .run(qa("q", "a"), RunContext::default())
        .await
        .unwrap_err();
    let RunError::Failed(f) = err else {
        panic!("expected a scorer failure")
    };
    assert_eq!(f.code, ErrorCode::JudgeOutput);
    assert_eq!(f.failed_step, "analyze");
    assert_eq!(f.completed_steps, ["preprocess"]);
    assert!(f
        .message
        .starts_with("Scorer Run Failed: step 'analyze' failed: "));
    assert!(f.result.preprocess_step_result.is_some());
    let ex = &f.result.judge["analyze"].executions[0];
    assert_eq!(
        (ex.status, ex.attempt_count, ex.model_call_count),
        ("failed", 2, 2)
    );
    assert_eq!(
        ex.raw_output.as_deref(),
        Some("I refuse to answer in JSON.")
    );
    // the fallback request dropped the native schema and carries it in the system message
    let reqs = server.received_requests().await.unwrap();
    let fallback: Value = serde_json::from_slice(&reqs[2].body).unwrap();
    assert!(fallback.get("response_format").is_none());
    assert!(fallback["messages"][0]["content"]
        .as_str()
        .unwrap()
        .contains("answer_relevancy_verdicts"));
}

#[tokio::test]
async fn unauthorized_is_not_retried_and_retryable_statuses_are() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(401).set_body_json(
            json!({"error": {"message": format!("Incorrect API key provided: {}", api_key())}}),
        ))
        .mount(&server)
        .await;
    let s = scorer(&server, json!({}));
    let RunError::Failed(f) = s
        .run(qa("q", "a"), RunContext::default())
        .await
        .unwrap_err()
    else {
        panic!()
    };
    assert_eq!(f.code, ErrorCode::JudgeHttp);
    assert_eq!(f.cause.status, Some(401));
    assert!(!f.message.contains(&api_key()), "{}", f.message);
    assert_eq!(server.received_requests().await.unwrap().len(), 1);

    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(503))
        .mount(&server)
        .await;
    let s = scorer(
        &server,
        json!({"modelSettings": {"maxRetries": 3, "retryDelayMs": 1}}),
    );
    let RunError::Failed(f) = s
        .run(qa("q", "a"), RunContext::default())
        .await
        .unwrap_err()
    else {
        panic!()
    };
    assert_eq!(f.cause.status, Some(503));
    assert!(f.message.contains("after 4 attempts"), "{}", f.message);
    assert_eq!(
        f.result.judge["preprocess"].executions[0].model_call_count,
        4
    );
    assert_eq!(server.received_requests().await.unwrap().len(), 4);
}

#[tokio::test]
async fn missing_key_sends_nothing() {
    let server = MockServer::start().await;
    // a provider whose key variable is certainly unset, pointed at the mock via its env var name
    let opts = json!({"model": "deepinfra/some-model"});
    let s = AnswerRelevancy::from_options(&opts).unwrap();
    let RunError::Failed(f) = s
        .run(qa("q", "a"), RunContext::default())
        .await
        .unwrap_err()
    else {
        panic!()
    };
    assert_eq!(f.code, ErrorCode::MissingApiKey);
    assert_eq!(f.failed_step, "preprocess");
    assert!(f.message.contains("process.env.DEEPINFRA_API_KEY"));
    assert!(server.received_requests().await.unwrap().is_empty());
}

#[tokio::test]
async fn cancellation_stops_a_hanging_call() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(completion("{}").set_delay(std::time::Duration::from_secs(30)))
        .mount(&server)
        .await;
    let s = scorer(&server, json!({}));
    let ctx = RunContext::default();
    let token = ctx.cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        token.cancel();
    });
    let t0 = std::time::Instant::now();
    let RunError::Failed(f) = s.run(qa("q", "a"), ctx).await.unwrap_err() else {
        panic!()
    };
    assert_eq!(f.code, ErrorCode::Aborted);
    assert!(t0.elapsed() < std::time::Duration::from_secs(5));
}
