//! The context precision pipeline end to end over real HTTP (wiremock on 127.0.0.1).

mod common;

use common::*;
use oxeval_core::scorers::llm::context_precision::ContextPrecision;
use serde_json::{json, Value};

#[tokio::test]
async fn verdicts_sorted_by_index_and_mean_average_precision() {
    let server = wiremock::MockServer::start().await;
    mount(
        &server,
        "context_precision_verdicts",
        completion(r#"{"verdicts":[{"context_index":2,"verdict":"Yes","reason":"c"},{"context_index":0,"verdict":"yes","reason":"a"},{"context_index":1,"verdict":"no","reason":"b"}]}"#),
    )
    .await;
    mount(
        &server,
        "explain a context precision score",
        completion("The score is 0.83 because two of three pieces are relevant."),
    )
    .await;
    let s = ContextPrecision::from_options(&options(&server, json!({}))).unwrap();
    let r = score(
        &s,
        json!({"input": "Benefits of green tea?", "output": "Antioxidants and alertness.",
               "context": ["catechins", "history of tea", "caffeine"]}),
    )
    .await;
    assert_eq!(r.score, Some(0.83));
    assert_eq!(r.preprocess_step_result, None);
    assert_eq!(
        r.analyze_step_result,
        Some(json!({"verdicts": [
            {"context_index": 0.0, "verdict": "yes", "reason": "a"},
            {"context_index": 1.0, "verdict": "no", "reason": "b"},
            {"context_index": 2.0, "verdict": "yes", "reason": "c"}
        ]}))
    );
    let keys: Vec<&String> = r.judge.keys().collect();
    assert_eq!(keys, ["analyze", "generateReason"]);
    let data: Value = serde_json::from_str(
        r.analyze_prompt
            .as_deref()
            .unwrap()
            .lines()
            .last()
            .unwrap()
            .trim_start_matches("DATA: "),
    )
    .unwrap();
    assert_eq!(
        data,
        json!({"input": "Benefits of green tea?", "output": "Antioxidants and alertness.", "context": ["catechins", "history of tea", "caffeine"]})
    );
}

#[tokio::test]
async fn a_wrong_index_gets_the_fallback_then_a_warning() {
    let server = wiremock::MockServer::start().await;
    mount(
        &server,
        "context_precision_verdicts",
        completion(r#"{"verdicts":[{"context_index":1,"verdict":"yes","reason":"a"},{"context_index":2,"verdict":"no","reason":"b"}]}"#),
    )
    .await;
    mount(
        &server,
        "explain a context precision score",
        completion("The score is 1.0 because."),
    )
    .await;
    let s =
        ContextPrecision::from_options(&options(&server, json!({"context": ["a", "b"]}))).unwrap();
    let r = score(&s, json!({"output": "x"})).await;
    // Mastra's math over the order of the indices given: yes, no → 1
    assert_eq!(r.score, Some(1.0));
    assert_eq!(r.judge["analyze"].executions[0].attempt_count, 2);
    assert_eq!(
        r.warnings,
        vec!["analyze: context_index 2 is not one of 0..1 given once each".to_string()]
    );
}
