//! The context recall pipeline end to end over real HTTP (wiremock on 127.0.0.1).

mod common;

use common::*;
use oxeval_core::scorers::llm::context_recall::ContextRecall;
use serde_json::{json, Value};

async fn judge(verdicts: &str) -> wiremock::MockServer {
    let server = wiremock::MockServer::start().await;
    mount(
        &server,
        "context_recall_claims",
        completion(r#"{"claims":["Curie was born in Warsaw.","Curie was born in 1867.","Curie won a Chemistry Nobel."]}"#),
    )
    .await;
    mount(&server, "context_recall_verdicts", completion(verdicts)).await;
    mount(
        &server,
        "explain a context recall score",
        completion("The score is 0.67 because two claims are covered."),
    )
    .await;
    server
}

#[tokio::test]
async fn ground_truth_claims_checked_against_the_context() {
    let server = judge(r#"{"verdicts":[{"verdict":"yes","reason":"0"},{"verdict":" YES","reason":"0"},{"verdict":"no","reason":"missing"}]}"#).await;
    let s = ContextRecall::from_options(&options(
        &server,
        json!({"options": {"context": ["Curie, born in Warsaw in 1867."]}}),
    ))
    .unwrap();
    let r = score(
        &s,
        json!({"output": "ignored", "groundTruth": "Curie was born in Warsaw in 1867 and won a Chemistry Nobel."}),
    )
    .await;
    assert_eq!(r.score, Some(0.67));
    assert_eq!(
        r.analyze_step_result.as_ref().unwrap()["verdicts"][1]["verdict"],
        "yes"
    );
    let pre: Value = serde_json::from_str(
        r.preprocess_prompt
            .as_deref()
            .unwrap()
            .lines()
            .last()
            .unwrap()
            .trim_start_matches("DATA: "),
    )
    .unwrap();
    assert_eq!(
        pre,
        json!({"ground_truth": "Curie was born in Warsaw in 1867 and won a Chemistry Nobel."})
    );
    assert_eq!(requests(&server).await.len(), 3);
}

#[tokio::test]
async fn fewer_verdicts_than_claims_divides_by_the_claims() {
    let server = judge(r#"{"verdicts":[{"verdict":"yes","reason":"0"}]}"#).await;
    let s = ContextRecall::from_options(&options(&server, json!({}))).unwrap();
    let r = score(
        &s,
        json!({"output": "", "groundTruth": "Curie…", "context": ["c"]}),
    )
    .await;
    // 1 yes of 3 claims (Mastra's denominator), after the fallback and with a warning
    assert_eq!(r.score, Some(0.33));
    assert_eq!(
        r.warnings,
        vec!["analyze: 1 verdict for 3 claims".to_string()]
    );
}
