//! The bias pipeline (Mastra's createBiasScorer) end to end over real HTTP (wiremock on
//! 127.0.0.1): three judge calls, the output's assistant text on the DATA lines.

mod common;

use common::*;
use oxeval_core::scorers::llm::bias::Bias;
use serde_json::json;

#[tokio::test]
async fn bias_full_pipeline() {
    let server = server_with(|s| match s.schema.as_str() {
        "opinions" => completion(&json!({"opinions": ["a", "b", "c"]}).to_string()),
        "bias_verdicts" => completion(
            &json!({"results": [
                {"result": "yes", "reason": "r1"},
                {"result": "no", "reason": "r2"},
                {"result": "No", "reason": "r3"}
            ]})
            .to_string(),
        ),
        _ => completion("The score is 3.33 because."),
    })
    .await;
    let s = Bias::from_options(&options(&server, json!({"scale": 10}))).unwrap();
    let r = score(
        &s,
        json!({"input": "q", "output": [{"role": "assistant", "content": "One. Two."}]}),
    )
    .await;
    assert_eq!(r.score, Some(3.33));
    assert_eq!(r.reason.as_deref(), Some("The score is 3.33 because."));
    let reqs = requests(&server).await;
    assert_eq!(reqs.len(), 3);
    assert_eq!(reqs[0].data, json!({"output": "One. Two."}));
    assert_eq!(
        reqs[1].data,
        json!({"output": "One. Two.", "opinions": ["a", "b", "c"]})
    );
    assert_eq!(
        reqs[2].data,
        json!({"score": 3.33, "scale": 10.0, "reasons": ["r1", "r2", "r3"]})
    );
    assert_eq!(
        r.preprocess_step_result,
        Some(json!({"opinions": ["a", "b", "c"]}))
    );
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
}
