//! The prompt alignment pipeline (Mastra's createPromptAlignmentScorerLLM) end to end over
//! real HTTP (wiremock on 127.0.0.1): an agent-shaped run, its system prompt and history.

mod common;

use common::*;
use oxeval_core::scorers::llm::prompt_alignment::PromptAlignment;
use oxeval_core::Scorer;
use serde_json::{json, Value};

fn analysis() -> Value {
    json!({
        "intentAlignment": {"score": 0.85, "primaryIntent": "p", "isAddressed": true, "reasoning": "r"},
        "requirementsFulfillment": {"requirements": [{"requirement": "a", "isFulfilled": true, "reasoning": "r"}], "overallScore": 0.55},
        "completeness": {"score": 0.35, "missingElements": ["x"], "reasoning": "r"},
        "responseAppropriateness": {"score": 0.15, "formatAlignment": false, "toneAlignment": true, "reasoning": "r"},
        "overallAssessment": "o",
        "extra": 1
    })
}

#[tokio::test]
async fn prompt_alignment_full_pipeline() {
    let server = server_with(|s| match s.schema.as_str() {
        "prompt_alignment_analysis" => completion(&analysis().to_string()),
        _ => completion("The score is 0.59 because."),
    })
    .await;
    let s = PromptAlignment::from_options(&options(
        &server,
        json!({"options": {"includeConversationHistory": {"maxMessages": 1}}}),
    ))
    .unwrap();
    assert!(serde_json::to_value(s.meta())
        .unwrap()
        .get("type")
        .is_none());
    let input = json!({
        "inputMessages": [{"role": "user", "content": "Which one?"}],
        "rememberedMessages": [{"role": "user", "content": "Pick A or B"}, {"role": "assistant", "content": "A is cheaper."}],
        "systemMessages": [{"role": "system", "content": "Be brief."}],
        "taggedSystemMessages": {}
    });
    let r = score(&s, json!({"input": input, "output": "A."})).await;
    assert_eq!(r.score, Some(0.59));
    let reqs = requests(&server).await;
    assert_eq!(reqs.len(), 2);
    assert_eq!(
        reqs[0].data,
        json!({"conversationHistory": "assistant: A is cheaper.", "userPrompt": "Which one?", "systemPrompt": "Be brief.", "agentResponse": "A."})
    );
    assert_eq!(reqs[1].data["analysis"], analysis());
    assert_eq!(reqs[1].data["evaluationMode"], "both");
    // the step result is the judge's JSON as it answered (extra keys kept)
    assert_eq!(r.analyze_step_result, Some(analysis()));

    // user mode without a user message: the run fails at analyze with Mastra's message,
    // before any judge call
    let s = PromptAlignment::from_options(&options(&server, json!({"evaluationMode": "user"})))
        .unwrap();
    let e = match s
        .run(
            run(json!({"input": {"systemMessages": []}, "output": "A."})),
            Default::default(),
        )
        .await
    {
        Err(oxeval_core::RunError::Failed(e)) => e,
        _ => panic!("expected a run failure"),
    };
    assert_eq!(e.failed_step, "analyze");
    assert!(
        e.message
            .contains("User prompt is required for user prompt alignment scoring"),
        "{}",
        e.message
    );
    assert_eq!(requests(&server).await.len(), 2);
}
