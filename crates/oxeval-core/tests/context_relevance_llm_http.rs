//! The LLM context relevance pipeline (Mastra's createContextRelevanceScorerLLM) end to end
//! over real HTTP (wiremock on 127.0.0.1).

mod common;

use common::*;
use oxeval_core::engine::RunContext;
use oxeval_core::scorers::llm::context_relevance_llm::ContextRelevanceLlm;
use oxeval_core::{ErrorCode, RunError, Scorer};
use serde_json::{json, Value};
use wiremock::MockServer;

fn scorer(server: &MockServer, extra: Value) -> ContextRelevanceLlm {
    ContextRelevanceLlm::from_options(&options(server, extra)).unwrap()
}

fn evaluation(i: usize, level: &str, used: bool) -> Value {
    json!({"context_index": i, "contextPiece": format!("c{i}"), "relevanceLevel": level, "wasUsed": used, "reasoning": "r"})
}

#[tokio::test]
async fn full_pipeline_scores_and_records() {
    let server = MockServer::start().await;
    let analysis = json!({
        "evaluations": [evaluation(0, "high", true), evaluation(1, "high", false), evaluation(2, "none", false)],
        "missingContext": ["the population"],
        "overallAssessment": "mixed"
    });
    mount(
        &server,
        "context_relevance_llm_analysis",
        completion(&analysis.to_string()),
    )
    .await;
    mount(
        &server,
        "explain a context relevance score",
        completion("The score is 0.42 because one relevant piece was unused."),
    )
    .await;
    let s = scorer(&server, json!({}));
    let r = score(
        &s,
        json!({"input": "Capital of France?", "output": "Paris.", "runId": "r1",
               "context": ["Paris is the capital.", "France is in Europe.", "Bread."]}),
    )
    .await;
    // (1 + 1 + 0) / 3 − 0.1 (one unused high) − 0.15 (one missing) = 0.4166… → 0.42
    assert_eq!(r.score, Some(0.42));
    assert_eq!(
        r.reason.as_deref(),
        Some("The score is 0.42 because one relevant piece was unused.")
    );
    assert_eq!(
        r.analyze_step_result.as_ref().unwrap()["missingContext"],
        json!(["the population"])
    );
    assert!(r.preprocess_step_result.is_none());
    let keys: Vec<&String> = r.judge.keys().collect();
    assert_eq!(keys, ["analyze", "generateReason"]);
    assert!(r.warnings.is_empty());
    let reqs = requests(&server).await;
    assert_eq!(reqs.len(), 2);
    assert_eq!(
        reqs[0].data,
        json!({"query": "Capital of France?", "response": "Paris.", "context": ["Paris is the capital.", "France is in Europe.", "Bread."]})
    );
    assert_eq!(reqs[1].data["score"], json!(0.42));
    assert_eq!(reqs[1].data["missingContext"], json!(["the population"]));
}

#[tokio::test]
async fn an_evaluation_count_mismatch_gets_one_fallback_then_a_warning() {
    let server = MockServer::start().await;
    let short = json!({"evaluations": [evaluation(0, "medium", true)], "overallAssessment": "x"});
    mount(
        &server,
        "context_relevance_llm_analysis",
        completion(&short.to_string()),
    )
    .await;
    mount(
        &server,
        "explain a context relevance score",
        completion("The score is 0.7 because."),
    )
    .await;
    let s = scorer(&server, json!({"context": ["a", "b"]}));
    let r = score(&s, json!({"input": "q?", "output": "o"})).await;
    assert_eq!(r.score, Some(0.7));
    let ex = &r.judge["analyze"].executions[0];
    assert_eq!((ex.attempt_count, ex.model_call_count), (2, 2));
    assert_eq!(
        r.warnings,
        vec!["analyze: 1 evaluation for 2 context pieces".to_string()]
    );
    let reqs = requests(&server).await;
    assert!(reqs[1].fallback);
}

#[tokio::test]
async fn no_context_anywhere_is_an_input_error_without_a_call() {
    let server = MockServer::start().await;
    let s = scorer(&server, json!({}));
    for (input, want) in [
        (
            json!({"input": "q?", "output": "o"}),
            "the tool results in run.output gave none",
        ),
        (
            json!({"input": "q?", "output": "o", "context": []}),
            "run.context gave none",
        ),
        (
            json!({"output": "o", "context": ["a"]}),
            "the user query is missing",
        ),
    ] {
        match s.run(run(input.clone()), RunContext::default()).await {
            Err(RunError::Invalid(e)) => {
                assert_eq!(e.code, ErrorCode::InvalidInput);
                assert!(e.message.contains(want), "{input}: {}", e.message);
            }
            Err(RunError::Failed(f)) => panic!("{input}: failed {}", f.message),
            Ok(r) => panic!("{input}: scored {:?}", r.score),
        }
    }
    assert!(requests(&server).await.is_empty());
}

#[tokio::test]
async fn a_failed_reason_keeps_the_score_and_analysis() {
    let server = MockServer::start().await;
    let analysis = json!({"evaluations": [evaluation(0, "low", true)], "missingContext": [], "overallAssessment": "x"});
    mount(
        &server,
        "context_relevance_llm_analysis",
        completion(&analysis.to_string()),
    )
    .await;
    mount(
        &server,
        "explain a context relevance score",
        wiremock::ResponseTemplate::new(500),
    )
    .await;
    let s = scorer(
        &server,
        json!({"modelSettings": {"retryDelayMs": 1, "maxRetries": 0}}),
    );
    let f = failure(&s, json!({"input": "q?", "output": "o", "context": ["a"]})).await;
    assert_eq!(f.failed_step, "generateReason");
    assert_eq!(f.completed_steps, ["analyze", "generateScore"]);
    assert_eq!(f.result.score, Some(0.3));
    assert_eq!(f.code, ErrorCode::JudgeHttp);
}
