//! The faithfulness pipeline end to end over real HTTP (wiremock on 127.0.0.1).

mod common;

use common::*;
use oxeval_core::scorers::llm::faithfulness::Faithfulness;
use serde_json::{json, Value};

fn scorer(server: &wiremock::MockServer, extra: Value) -> Faithfulness {
    Faithfulness::from_options(&options(server, extra)).unwrap()
}

#[tokio::test]
async fn claims_verdicts_score_and_reason() {
    let server = wiremock::MockServer::start().await;
    mount(
        &server,
        "faithfulness_claims",
        completion(r#"{"claims":["Paris is the capital of France.","Paris has 9 million people.","Paris might host the next Olympics."]}"#),
    )
    .await;
    mount(
        &server,
        "faithfulness_verdicts",
        completion(r#"{"verdicts":[{"verdict":"Yes","reason":"stated"},{"verdict":"no","reason":"2.1 million"},{"verdict":"unsure","reason":"speculative"}]}"#),
    )
    .await;
    mount(
        &server,
        "explain a faithfulness score",
        completion("The score is 0.33 because one claim is supported."),
    )
    .await;
    let s = scorer(
        &server,
        json!({"options": {"context": ["from the option"]}}),
    );
    let r = score(
        &s,
        json!({"input": "Tell me about Paris", "output": "Paris is the capital of France with 9 million people. It might host the next Olympics.",
               "context": ["Paris is the capital of France.", "Paris has 2.1 million inhabitants."], "runId": "r1"}),
    )
    .await;
    assert_eq!(r.score, Some(0.33));
    assert_eq!(
        r.analyze_step_result,
        Some(json!({"verdicts": [
            {"verdict": "yes", "reason": "stated"},
            {"verdict": "no", "reason": "2.1 million"},
            {"verdict": "unsure", "reason": "speculative"}
        ]}))
    );
    let keys: Vec<&String> = r.judge.keys().collect();
    assert_eq!(keys, ["preprocess", "analyze", "generateReason"]);
    let reqs = requests(&server).await;
    assert_eq!(reqs.len(), 3);
    // run.context wins over the option; the contexts reach the judge as a JSON list
    let analyze = r.analyze_prompt.as_deref().unwrap();
    let data: Value =
        serde_json::from_str(analyze.lines().last().unwrap().trim_start_matches("DATA: ")).unwrap();
    assert_eq!(
        data["context"],
        json!([
            "Paris is the capital of France.",
            "Paris has 2.1 million inhabitants."
        ])
    );
    assert_eq!(data["claims"].as_array().unwrap().len(), 3);
}

#[tokio::test]
async fn verdict_count_mismatch_gets_the_fallback_then_a_warning() {
    let server = wiremock::MockServer::start().await;
    mount(
        &server,
        "faithfulness_claims",
        completion(r#"{"claims":["a","b"]}"#),
    )
    .await;
    mount(
        &server,
        "faithfulness_verdicts",
        completion(r#"{"verdicts":[{"verdict":"yes","reason":"r"}]}"#),
    )
    .await;
    mount(
        &server,
        "explain a faithfulness score",
        completion("The score is 1.0 because."),
    )
    .await;
    let s = scorer(&server, json!({"context": ["ctx"]}));
    let r = score(&s, json!({"output": "a. b."})).await;
    // Mastra's formula over the verdicts given: 1 yes of 1 verdict
    assert_eq!(r.score, Some(1.0));
    assert_eq!(r.judge["analyze"].executions[0].attempt_count, 2);
    assert_eq!(
        r.warnings,
        vec!["analyze: 1 verdict for 2 claims".to_string()]
    );
}

#[tokio::test]
async fn no_claims_skips_the_analyze_call_and_tool_results_are_context() {
    let server = wiremock::MockServer::start().await;
    mount(
        &server,
        "faithfulness_claims",
        completion(r#"{"claims":[]}"#),
    )
    .await;
    mount(
        &server,
        "explain a faithfulness score",
        completion("The score is 0 because there is no claim."),
    )
    .await;
    let s = scorer(&server, json!({}));
    let output = json!([{"role": "assistant", "content": {"format": 2, "parts": [
        {"type": "tool-invocation", "toolInvocation": {"state": "result", "toolCallId": "t1", "result": "doc"}},
        {"type": "text", "text": "Hello!"}
    ]}}]);
    let r = score(&s, json!({"output": output})).await;
    assert_eq!(r.score, Some(0.0));
    assert_eq!(r.analyze_step_result, Some(json!({"verdicts": []})));
    assert_eq!(executions(&r, "analyze"), 0);
    assert_eq!(requests(&server).await.len(), 2);
    let reason: Value = serde_json::from_str(
        r.generate_reason_prompt
            .as_deref()
            .unwrap()
            .lines()
            .last()
            .unwrap()
            .trim_start_matches("DATA: "),
    )
    .unwrap();
    assert_eq!(reason["context"], json!(["doc"]));
}
