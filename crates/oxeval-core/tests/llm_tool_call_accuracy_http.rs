//! Tool-call accuracy (LLM), Mastra's "llm-tool-call-accuracy-scorer", end to end over real
//! HTTP (wiremock on 127.0.0.1): the tool calls extracted in Mastra's merge order, two judge
//! calls.

mod common;

use common::*;
use oxeval_core::scorers::llm::tool_call_accuracy_llm::ToolCallAccuracyLlm;
use serde_json::json;

#[tokio::test]
async fn tool_call_accuracy_llm_full_pipeline() {
    let server = server_with(|s| match s.schema.as_str() {
        "tool_call_accuracy_analysis" => completion(
            &json!({"evaluations": [
                {"toolCalled": "fetch", "wasAppropriate": false, "reasoning": "r"},
                {"toolCalled": "search", "wasAppropriate": true, "reasoning": "r"},
                {"toolCalled": "lookup", "wasAppropriate": true, "reasoning": "r"}
            ], "missingTools": []})
            .to_string(),
        ),
        _ => completion("One sentence."),
    })
    .await;
    let s = ToolCallAccuracyLlm::from_options(&options(
        &server,
        json!({"availableTools": [{"id": "search", "description": "Search the web"}, {"id": "lookup", "description": "Look up"}]}),
    ))
    .unwrap();
    let inv = |id: &str, name: &str, state: &str| json!({"toolCallId": id, "toolName": name, "state": state, "args": {}});
    let output = json!([{ "role": "assistant", "content": {
        "format": 2,
        "parts": [
            {"type": "tool-invocation", "toolInvocation": inv("c", "fetch", "output-error")},
            {"type": "tool-invocation", "toolInvocation": inv("b", "lookup", "result")},
            {"type": "text", "text": "Done."}
        ],
        "toolInvocations": [inv("a", "search", "result"), inv("b", "lookup", "result")]
    }}]);
    let r = score(
        &s,
        json!({"input": {"inputMessages": [{"role": "user", "content": "Find it."}]}, "output": output}),
    )
    .await;
    assert_eq!(r.score, Some(0.67));
    let pre = r.preprocess_step_result.clone().unwrap();
    // the catalogue's observed merge order: legacy-only calls before their next anchor
    assert_eq!(pre["actualTools"], json!(["fetch", "search", "lookup"]));
    assert_eq!(pre["hasToolCalls"], true);
    let reqs = requests(&server).await;
    assert_eq!(reqs.len(), 2);
    assert_eq!(
        reqs[0].data["toolsCalled"],
        json!(["fetch", "search", "lookup"])
    );
    assert_eq!(reqs[0].data["userRequest"], "Find it.");
    assert_eq!(reqs[0].data["agentResponse"], "Done.");
    assert_eq!(
        reqs[0].data["availableTools"],
        json!([{"id": "search", "description": "Search the web"}, {"id": "lookup", "description": "Look up"}])
    );
    assert_eq!(reqs[1].data["missingTools"], json!([]));
    assert!(ToolCallAccuracyLlm::from_options(&options(&server, json!({}))).is_err());
}
