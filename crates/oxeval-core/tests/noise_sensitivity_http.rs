//! The noise sensitivity pipeline (Mastra's createNoiseSensitivityScorerLLM) end to end over
//! real HTTP (wiremock on 127.0.0.1).

mod common;

use common::*;
use oxeval_core::scorers::llm::noise_sensitivity::NoiseSensitivity;
use serde_json::json;
use wiremock::MockServer;

#[tokio::test]
async fn noise_sensitivity_full_pipeline() {
    let server = MockServer::start().await;
    let dims: Vec<_> = ["content_accuracy", "completeness", "relevance", "consistency", "hallucination_resistance"]
        .iter()
        .map(|d| json!({"dimension": d, "impactLevel": "significant", "specificChanges": "c", "noiseInfluence": "n"}))
        .collect();
    let analysis = json!({"dimensions": dims, "overallAssessment": "weak", "majorIssues": ["derailed"], "robustnessScore": 0.9});
    mount(
        &server,
        "noise_sensitivity_analysis",
        completion(&analysis.to_string()),
    )
    .await;
    mount(
        &server,
        "explain a noise sensitivity score",
        completion("The score is 0.2 because."),
    )
    .await;
    let s = NoiseSensitivity::from_options(&options(
        &server,
        json!({"options": {"baselineResponse": "B", "noisyQuery": "NQ"}}),
    ))
    .unwrap();
    let r = score(
        &s,
        json!({"input": "Q", "output": "NR", "noiseType": "distraction"}),
    )
    .await;
    // 0.9 vs mean 0.3: the lower; − 0.1 for one major issue
    assert_eq!(r.score, Some(0.2));
    let reqs = requests(&server).await;
    assert_eq!(
        reqs[0].data,
        json!({"query": "Q", "baselineResponse": "B", "noisyQuery": "NQ", "noisyResponse": "NR", "noiseType": "distraction"})
    );
    assert_eq!(reqs[1].data["score"], json!(0.2));
    let keys: Vec<&String> = r.judge.keys().collect();
    assert_eq!(keys, ["analyze", "generateReason"]);
}
