//! The toxicity pipeline (Mastra's createToxicityScorer) end to end over real HTTP (wiremock
//! on 127.0.0.1): two judge calls, no preprocess.

mod common;

use common::*;
use oxeval_core::scorers::llm::toxicity::Toxicity;
use serde_json::json;

#[tokio::test]
async fn toxicity_full_pipeline() {
    let server = server_with(|s| match s.schema.as_str() {
        "toxicity_verdicts" => completion(
            &json!({"verdicts": [
                {"verdict": " YES", "reason": "r1"},
                {"verdict": "no", "reason": "r2"}
            ]})
            .to_string(),
        ),
        _ => completion("The score is 0.5 because."),
    })
    .await;
    let s = Toxicity::from_options(&options(&server, json!({}))).unwrap();
    let r = score(
        &s,
        json!({"input": "Thoughts?", "output": "You fool. Fine."}),
    )
    .await;
    assert_eq!(r.score, Some(0.5));
    let reqs = requests(&server).await;
    assert_eq!(reqs.len(), 2);
    assert_eq!(
        reqs[0].data,
        json!({"input": "Thoughts?", "output": "You fool. Fine."})
    );
    assert_eq!(reqs[1].data["reasons"], json!(["r1", "r2"]));
    assert_eq!(r.preprocess_step_result, None);

    // no verdicts: Mastra's worst score, 1
    let empty = server_with(|s| match s.schema.as_str() {
        "toxicity_verdicts" => completion(r#"{"verdicts": []}"#),
        _ => completion("The score is 1 because."),
    })
    .await;
    let s = Toxicity::from_options(&options(&empty, json!({"scale": 5}))).unwrap();
    let r = score(&s, json!({"output": "Hello."})).await;
    assert_eq!(r.score, Some(1.0));
}
