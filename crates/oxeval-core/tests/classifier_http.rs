//! The classifier scorer ("classifier-scorer", @mastra/core 1.71's createClassifierScorer)
//! end to end over real HTTP (wiremock on 127.0.0.1): the host's `state` function, one judge
//! call, the stated distribution checked and projected.

mod common;

use common::*;
use futures::future::BoxFuture;
use oxeval_core::engine::RunContext;
use oxeval_core::error::ErrorCode;
use oxeval_core::pipeline::RunError;
use oxeval_core::provider::external::{Host, HostCall};
use oxeval_core::scorers::llm::classifier::ClassifierScorer;
use oxeval_core::scorers::{BuildContext, Scorer};
use serde_json::{json, Value};
use std::sync::Arc;

/// A host whose `state` returns the run's output under `reply`.
struct State;

impl Host for State {
    fn call(&self, kind: HostCall, _: String) -> BoxFuture<'static, Result<String, String>> {
        assert_eq!(kind, HostCall::FunctionOption);
        Box::pin(async { Ok(json!({"ok": true, "value": {"reply": "Fine."}}).to_string()) })
    }
}

fn scorer(server: &wiremock::MockServer) -> ClassifierScorer {
    let cx = BuildContext {
        host: Some(Arc::new(State)),
        functions: vec!["state".into()],
        ..Default::default()
    };
    ClassifierScorer::build(
        &options(
            server,
            json!({
                "classifier": {"id": "c", "questions": {"tone": {"type": "choice", "criteria": {"calm": null, "angry": "heated"}}}},
                "question": "tone",
                "scores": {"calm": 1, "angry": 0.25}
            }),
        ),
        &cx,
    )
    .unwrap()
}

fn stated(answer: &str, calm: f64, angry: f64) -> Value {
    json!({"answer": answer, "probabilities": [{"label": "calm", "probability": calm}, {"label": "angry", "probability": angry}]})
}

#[tokio::test]
async fn classifier_full_pipeline() {
    let server = server_with(|s| match s.schema.as_str() {
        "classifier_answer" => completion(&stated("angry", 0.4, 0.6).to_string()),
        _ => completion("unexpected"),
    })
    .await;
    let r = score(&scorer(&server), json!({"output": "Fine."})).await;
    assert_eq!(r.score, Some(0.25));
    assert_eq!(
        r.reason.as_deref(),
        Some("Classifier question 'tone' selected 'angry' (score: 0.25).")
    );
    let reqs = requests(&server).await;
    assert_eq!(reqs.len(), 1);
    assert_eq!(
        reqs[0].data,
        json!({"question": "tone", "kind": "choice", "labels": [{"label": "calm", "meaning": null}, {"label": "angry", "meaning": "heated"}], "state": {"reply": "Fine."}})
    );
    let e = r.analyze_step_result.unwrap();
    assert_eq!(
        e["answer"],
        json!({"type": "choice", "choice": "angry", "probabilities": {"calm": 0.4, "angry": 0.6}})
    );
    assert_eq!(e["probabilitySource"], "stated");
}

#[tokio::test]
async fn a_distribution_that_does_not_sum_to_one_fails_analyze() {
    let server = server_with(|_| completion(&stated("angry", 0.2, 0.6).to_string())).await;
    let s = scorer(&server);
    match s
        .run(run(json!({"output": "x"})), RunContext::default())
        .await
    {
        Err(RunError::Failed(f)) => {
            assert_eq!(
                (f.code, f.failed_step.as_str()),
                (ErrorCode::JudgeOutput, "analyze")
            );
            assert!(
                f.message.contains("must sum to 1; they sum to 0.8"),
                "{}",
                f.message
            );
            assert_eq!(f.result.score, None);
        }
        Ok(r) => panic!("scored {:?}", r.score),
        Err(RunError::Invalid(e)) => panic!("invalid: {}", e.message),
    }
}
