//! The hallucination pipeline end to end over real HTTP (wiremock on 127.0.0.1), with a
//! host-supplied `getContext` called at the analyze and reason steps.

mod common;

use common::*;
use futures::future::BoxFuture;
use oxeval_core::provider::external::{Host, HostCall};
use oxeval_core::scorers::llm::hallucination::Hallucination;
use oxeval_core::scorers::BuildContext;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

/// A host whose `getContext` records its arguments and returns one context.
#[derive(Default, Clone)]
struct Recorder(Arc<Mutex<Vec<Value>>>);

impl Host for Recorder {
    fn call(&self, kind: HostCall, request: String) -> BoxFuture<'static, Result<String, String>> {
        assert_eq!(kind, HostCall::FunctionOption);
        let req: Value = serde_json::from_str(&request).unwrap();
        self.0.lock().unwrap().push(req);
        Box::pin(async {
            Ok(json!({"ok": true, "value": ["The museum opened in March 1998."]}).to_string())
        })
    }
}

async fn judge() -> wiremock::MockServer {
    let server = wiremock::MockServer::start().await;
    mount(
        &server,
        "hallucination_claims",
        completion(r#"{"claims":["The museum opened in 1998.","The museum is the city's leading attraction."]}"#),
    )
    .await;
    mount(
        &server,
        "hallucination_verdicts",
        completion(r#"{"verdicts":[{"statement":"The museum opened in 1998.","verdict":"no","reason":"supported"},{"statement":"The museum is the city's leading attraction.","verdict":" YES","reason":"not stated"}]}"#),
    )
    .await;
    mount(
        &server,
        "explain a hallucination score",
        completion("The score is 0.5 because one claim is unsupported."),
    )
    .await;
    server
}

#[tokio::test]
async fn get_context_is_called_per_step_with_the_results_so_far() {
    let server = judge().await;
    let host = Recorder::default();
    let s = Hallucination::build(
        &options(&server, json!({"context": ["unused option"]})),
        &BuildContext {
            host: Some(Arc::new(host.clone())),
            functions: vec!["getContext".into()],
            ..Default::default()
        },
    )
    .unwrap();
    let r = score(
        &s,
        json!({"output": "The museum opened in 1998. It is the city's leading attraction.", "runId": "h1"}),
    )
    .await;
    assert_eq!(r.score, Some(0.5));
    assert_eq!(
        r.analyze_step_result.as_ref().unwrap()["verdicts"][1]["verdict"],
        "yes"
    );
    let calls = host.0.lock().unwrap().clone();
    assert_eq!(calls.len(), 2);
    assert_eq!(
        calls[0],
        json!({"name": "getContext", "runId": "h1", "runKey": "h1", "args": {
            "results": {"preprocessStepResult": r.preprocess_step_result},
            "step": "analyze"
        }})
    );
    assert_eq!(calls[1]["args"]["step"], "generateReason");
    assert_eq!(calls[1]["args"]["score"], 0.5);
    assert_eq!(calls[1]["args"]["results"]["generateScoreStepResult"], 0.5);
    assert_eq!(
        calls[1]["args"]["results"]["analyzeStepResult"],
        r.analyze_step_result.clone().unwrap()
    );
    // getContext's context (not the option's) reached the judge
    let data: Value = serde_json::from_str(
        r.analyze_prompt
            .as_deref()
            .unwrap()
            .lines()
            .last()
            .unwrap()
            .trim_start_matches("DATA: "),
    )
    .unwrap();
    assert_eq!(data["context"], json!(["The museum opened in March 1998."]));
}

#[tokio::test]
async fn run_context_wins_and_get_context_is_not_called() {
    let server = judge().await;
    let host = Recorder::default();
    let s = Hallucination::build(
        &options(&server, json!({})),
        &BuildContext {
            host: Some(Arc::new(host.clone())),
            functions: vec!["getContext".into()],
            ..Default::default()
        },
    )
    .unwrap();
    let r = score(
        &s,
        json!({"output": "The museum opened in 1998.", "context": ["from the run"]}),
    )
    .await;
    assert_eq!(r.score, Some(0.5));
    assert!(host.0.lock().unwrap().is_empty());
    assert_eq!(requests(&server).await.len(), 3);
}
