//! The rubric pipeline (Mastra's createRubricScorer) end to end over real HTTP (wiremock on
//! 127.0.0.1): one judge call, the reason a checklist.

mod common;

use common::*;
use oxeval_core::scorers::llm::rubric::Rubric;
use serde_json::json;

#[tokio::test]
async fn rubric_full_pipeline() {
    let server = server_with(|s| match s.schema.as_str() {
        "rubric_analysis" => completion(
            &json!({"criteria": [
                {"criterion": "Has a title", "satisfied": true, "required": true, "reasoning": "yes"},
                {"criterion": "Cites a source", "satisfied": false, "required": true, "reasoning": "no"}
            ], "overallAssessment": "Half."})
            .to_string(),
        ),
        _ => completion("unexpected"),
    })
    .await;
    let s = Rubric::from_options(&options(
        &server,
        json!({"criteria": "- Has a title\n- Cites a source", "options": {"scale": 2}}),
    ))
    .unwrap();
    let r = score(
        &s,
        json!({"input": {"originalTask": "Write a report.", "messages": []}, "output": "Report"}),
    )
    .await;
    assert_eq!(r.score, Some(0.0));
    let reqs = requests(&server).await;
    assert_eq!(reqs.len(), 1, "one judge call: the reason is a function");
    assert_eq!(
        reqs[0].data,
        json!({"task": "Write a report.", "criteria": [
            {"criterion": "Has a title", "required": true},
            {"criterion": "Cites a source", "required": true}
        ], "output": "Report"})
    );
    assert!(r
        .reason
        .as_deref()
        .unwrap()
        .starts_with("❌ Rubric not yet satisfied."));
    assert_eq!(r.generate_reason_prompt, None);

    // a per-run rubric from additionalContext
    let s = Rubric::from_options(&options(&server, json!({}))).unwrap();
    let _ = score(
        &s,
        json!({"input": "q", "output": "o", "additionalContext": {"rubric": [{"description": "Is short", "required": false}]}}),
    )
    .await;
    let reqs = requests(&server).await;
    assert_eq!(
        reqs[1].data["criteria"],
        json!([{"criterion": "Is short", "required": false}])
    );
}
