//! The answer similarity pipeline (Mastra's createAnswerSimilarityScorer) end to end over
//! real HTTP (wiremock on 127.0.0.1).

mod common;

use common::*;
use oxeval_core::engine::RunContext;
use oxeval_core::scorers::llm::answer_similarity::AnswerSimilarity;
use oxeval_core::{ErrorCode, RunError, Scorer};
use serde_json::{json, Value};
use wiremock::MockServer;

fn scorer(server: &MockServer, extra: Value) -> AnswerSimilarity {
    AnswerSimilarity::from_options(&options(server, extra)).unwrap()
}

async fn script(server: &MockServer, units: Value, analysis: Value) {
    mount(
        server,
        "answer_similarity_units",
        completion(&units.to_string()),
    )
    .await;
    mount(
        server,
        "answer_similarity_analysis",
        completion(&analysis.to_string()),
    )
    .await;
    mount(
        server,
        "explain an answer similarity score",
        completion("The score is 0.47/1 because."),
    )
    .await;
}

fn m(g: &str, o: Option<&str>, t: &str) -> Value {
    json!({"groundTruthUnit": g, "outputUnit": o, "matchType": t, "explanation": "e"})
}

#[tokio::test]
async fn full_pipeline_scores_and_records() {
    let server = MockServer::start().await;
    script(
        &server,
        json!({"outputUnits": ["a", "b2", "c"], "groundTruthUnits": ["a", "b", "c", "d"]}),
        json!({"matches": [m("a", Some("a"), "exact"), m("b", Some("b2"), "semantic"), m("c", Some("c"), "partial"), m("d", None, "missing")],
               "extraInOutput": [], "contradictions": []}),
    )
    .await;
    let s = scorer(&server, json!({}));
    let r = score(
        &s,
        json!({"output": "A. B2. C.", "groundTruth": "A. B. C. D.", "runId": "r1"}),
    )
    .await;
    assert_eq!(r.score, Some(0.47));
    assert_eq!(r.reason.as_deref(), Some("The score is 0.47/1 because."));
    let keys: Vec<&String> = r.judge.keys().collect();
    assert_eq!(keys, ["preprocess", "analyze", "generateReason"]);
    assert_eq!(
        r.analyze_step_result.as_ref().unwrap()["matches"][3]["outputUnit"],
        Value::Null
    );
    let reqs = requests(&server).await;
    assert_eq!(reqs.len(), 3);
    assert_eq!(
        reqs[0].data,
        json!({"output": "A. B2. C.", "groundTruth": "A. B. C. D."})
    );
    assert_eq!(
        reqs[1].data,
        json!({"outputUnits": ["a", "b2", "c"], "groundTruthUnits": ["a", "b", "c", "d"]})
    );
    assert_eq!(reqs[2].data["score"], json!(0.47));
}

#[tokio::test]
async fn a_match_count_mismatch_gets_one_fallback_then_a_warning() {
    let server = MockServer::start().await;
    script(
        &server,
        json!({"outputUnits": ["a"], "groundTruthUnits": ["a", "b"]}),
        json!({"matches": [m("a", Some("a"), "exact")], "extraInOutput": [], "contradictions": []}),
    )
    .await;
    let s = scorer(&server, json!({}));
    let r = score(&s, json!({"output": "A.", "groundTruth": "A. B."})).await;
    assert_eq!(r.score, Some(1.0));
    assert_eq!(
        r.warnings,
        vec!["analyze: 1 match for 2 ground-truth units".to_string()]
    );
    assert_eq!(r.judge["analyze"].executions[0].attempt_count, 2);
}

#[tokio::test]
async fn no_ground_truth_units_skips_analyze() {
    let server = MockServer::start().await;
    script(
        &server,
        json!({"outputUnits": ["a"], "groundTruthUnits": []}),
        json!({}),
    )
    .await;
    let s = scorer(&server, json!({}));
    let r = score(&s, json!({"output": "A.", "groundTruth": "..."})).await;
    assert_eq!(r.score, Some(0.0));
    assert_eq!(
        r.analyze_step_result,
        Some(json!({"matches": [], "extraInOutput": [], "contradictions": []}))
    );
    assert!(r.analyze_prompt.is_none());
    let steps: Vec<String> = requests(&server)
        .await
        .iter()
        .map(|q| q.schema.clone())
        .collect();
    assert_eq!(steps, ["answer_similarity_units", ""]);
}

#[tokio::test]
async fn missing_ground_truth_is_an_input_error_or_zero_without_calls() {
    let server = MockServer::start().await;
    let s = scorer(&server, json!({}));
    for input in [
        json!({"output": "A."}),
        json!({"output": "A.", "groundTruth": "  "}),
    ] {
        match s.run(run(input.clone()), RunContext::default()).await {
            Err(RunError::Invalid(e)) => {
                assert_eq!(e.code, ErrorCode::InvalidInput);
                assert!(
                    e.message.contains("requires run.groundTruth"),
                    "{}",
                    e.message
                );
            }
            _ => panic!("{input}: expected an input error"),
        }
    }
    let lenient = scorer(&server, json!({"options": {"requireGroundTruth": false}}));
    let r = score(&lenient, json!({"output": "A."})).await;
    assert_eq!(r.score, Some(0.0));
    assert!(r.judge.is_empty());
    assert!(r.reason.unwrap().contains("no ground truth"));
    assert!(requests(&server).await.is_empty());
}
