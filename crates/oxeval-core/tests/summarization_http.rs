//! The summarization pipeline (Mastra's createSummarizationScorer) end to end over real HTTP
//! (wiremock on 127.0.0.1).

mod common;

use common::*;
use oxeval_core::scorers::llm::summarization::Summarization;
use serde_json::json;
use wiremock::MockServer;

#[tokio::test]
async fn summarization_full_pipeline() {
    let server = MockServer::start().await;
    let judgement = json!({"alignment": [{"claim": "a", "supported": true, "reason": "r"}, {"claim": "b", "supported": false, "reason": "r"}],
        "questions": ["q1?", "q2?", "q3?"]});
    mount(
        &server,
        "summarization_source_judgement",
        completion(&judgement.to_string()),
    )
    .await;
    let coverage = json!({"coverage": [{"question": "q1?", "answered": true, "reason": "r"}, {"question": "q2?", "answered": true, "reason": "r"}]});
    mount(
        &server,
        "summarization_coverage",
        completion(&coverage.to_string()),
    )
    .await;
    mount(
        &server,
        "explain a summarization score",
        completion("The score is 0.5 because."),
    )
    .await;
    let s = Summarization::from_options(&options(&server, json!({"maxQuestions": 2}))).unwrap();
    let r = score(
        &s,
        json!({"input": "The source.", "output": "The summary."}),
    )
    .await;
    // alignment 1/2, coverage 2/2 of the first two questions
    assert_eq!(r.score, Some(0.5));
    let reqs = requests(&server).await;
    assert_eq!(reqs.len(), 3);
    assert_eq!(
        reqs[0].data,
        json!({"source": "The source.", "summary": "The summary.", "maxQuestions": 2})
    );
    assert_eq!(
        reqs[1].data,
        json!({"summary": "The summary.", "questions": ["q1?", "q2?"]})
    );
    assert_eq!(reqs[2].data["missingQuestions"], json!([]));
    assert_eq!(reqs[2].data["unsupportedClaims"], json!(["b"]));
    assert!(r.warnings.is_empty());
}
