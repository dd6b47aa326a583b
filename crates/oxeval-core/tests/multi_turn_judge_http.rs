//! The multi-turn judge (Mastra's createMultiTurnJudgeScorer) end to end over real HTTP
//! (wiremock on 127.0.0.1): one judge call over every assistant turn.

mod common;

use common::*;
use oxeval_core::scorers::llm::multi_turn_judge::MultiTurnJudge;
use serde_json::json;

#[tokio::test]
async fn multi_turn_judge_full_pipeline() {
    let server = serve(completion(
        &json!({"satisfied": true, "reasoning": "Turns 1 and 2."}).to_string(),
    ))
    .await;
    let s = MultiTurnJudge::from_options(&options(
        &server,
        json!({"criterion": "Forecasts for London and Paris.", "options": {"scale": 2}}),
    ))
    .unwrap();
    let m = |id: &str, role: &str, text: &str| json!({"id": id, "role": role, "createdAt": "2025-01-01T00:00:00Z", "content": {"format": 2, "parts": [{"type": "text", "text": text}]}});
    let r = score(
        &s,
        json!({"output": [m("u1", "user", "London?"), m("a1", "assistant", "London: rain."), m("u2", "user", "Paris?"), m("a2", "assistant", " Paris: sun. ")]}),
    )
    .await;
    assert_eq!(r.score, Some(2.0));
    assert_eq!(
        r.reason.as_deref(),
        Some("✅ Criterion satisfied.\n\nForecasts for London and Paris.\n\nTurns 1 and 2.")
    );
    let reqs = requests(&server).await;
    assert_eq!(reqs.len(), 1);
    assert_eq!(
        reqs[0].data,
        json!({"criterion": "Forecasts for London and Paris.", "turns": ["London: rain.", "Paris: sun."]})
    );
    assert!(MultiTurnJudge::from_options(&options(&server, json!({}))).is_err());
}
