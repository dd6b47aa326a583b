//! Trajectory accuracy (LLM), Mastra's "llm-trajectory-accuracy-scorer", end to end over real
//! HTTP (wiremock on 127.0.0.1): a nested trajectory formatted as Mastra formats it, two
//! judge calls.

mod common;

use common::*;
use oxeval_core::scorers::llm::trajectory_accuracy_llm::TrajectoryAccuracyLlm;
use oxeval_core::Scorer;
use serde_json::json;

#[tokio::test]
async fn trajectory_accuracy_llm_full_pipeline() {
    let server = server_with(|s| match s.schema.as_str() {
        "trajectory_accuracy_analysis" => completion(
            &json!({"stepEvaluations": [
                {"stepName": "search", "wasNecessary": true, "wasInOrder": true, "reasoning": "r"},
                {"stepName": "summarize", "wasNecessary": true, "wasInOrder": false, "reasoning": "r"}
            ], "missingSteps": ["cite"], "overallAssessment": "ok"})
            .to_string(),
        ),
        _ => completion("One sentence."),
    })
    .await;
    let s = TrajectoryAccuracyLlm::from_options(&options(
        &server,
        json!({"expectedTrajectory": {"steps": [
            {"stepType": "tool_call", "name": "search", "durationMs": 5},
            {"stepType": "agent_run", "name": "writer", "children": [{"stepType": "tool_call", "name": "cite", "toolArgs": {"n": 1}}]}
        ]}}),
    ))
    .unwrap();
    assert_eq!(s.meta().kind, "trajectory");
    let output = json!({
        "steps": [
            {"stepType": "tool_call", "name": "search", "toolArgs": {"q": "rust"}, "toolResult": {"n": 2}, "success": true},
            {"stepType": "tool_call", "name": "summarize", "success": true}
        ],
        "rawOutput": [{"role": "assistant", "content": "Rust is a language."}]
    });
    let r = score(
        &s,
        json!({"input": "Tell me about Rust.", "output": output}),
    )
    .await;
    // 0.6·2/2 + 0.3·1/2 − 0.1·1/3 = 0.7167 → 0.72
    assert_eq!(r.score, Some(0.72));
    let pre = r.preprocess_step_result.clone().unwrap();
    assert_eq!(
        pre["actualTrajectoryFormatted"],
        "1. [tool_call] search (args: {\"q\":\"rust\"}, result: {\"n\":2})\n2. [tool_call] summarize"
    );
    assert_eq!(
        pre["expectedTrajectoryFormatted"],
        "1. [tool_call] search\n2. [agent_run] writer\n  1. [tool_call] cite ({\"toolArgs\":{\"n\":1}})"
    );
    assert_eq!(pre["hasSteps"], true);
    let reqs = requests(&server).await;
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[0].data["agentResponse"], "Rust is a language.");
    assert_eq!(reqs[0].data["userRequest"], "Tell me about Rust.");
    assert_eq!(
        reqs[0].data["expectedTrajectory"],
        pre["expectedTrajectoryFormatted"]
    );
    assert_eq!(reqs[1].data["missingSteps"], json!(["cite"]));
    assert_eq!(reqs[1].data["extraSteps"], json!([]));
}
