use super::*;
use crate::error::ErrorCode;

/// A host whose steps answer from a table: `(step, kind) -> reply`.
struct Steps(
    Vec<(&'static str, &'static str, Value)>,
    std::sync::Mutex<Vec<Value>>,
);

impl Host for Steps {
    fn call(&self, kind: HostCall, request: String) -> BoxFuture<'static, Result<String, String>> {
        assert_eq!(kind, HostCall::CustomStep);
        let req: Value = serde_json::from_str(&request).unwrap();
        self.1.lock().unwrap().push(req.clone());
        let reply = self
            .0
            .iter()
            .find(|(s, k, _)| req["step"] == *s && req["kind"] == *k)
            .map(|(_, _, r)| r.clone())
            .unwrap_or(json!({"ok": false, "error": {"name": "Error", "message": "no reply"}}));
        Box::pin(async move { Ok(reply.to_string()) })
    }
}

fn def(steps: &[(&str, &str)]) -> Value {
    json!({
        "id": "my-scorer",
        "judges": [],
        "steps": steps.iter().map(|(n, k)| json!({"name": n, "type": k})).collect::<Vec<_>>(),
    })
}

fn run_input() -> RunInput {
    RunInput {
        run_id: "r1".into(),
        input: Some(json!("q")),
        output: json!("a"),
        ground_truth: None,
        raw: json!({"input": "q", "output": "a"}),
    }
}

async fn run(
    steps: &[(&str, &str)],
    replies: Vec<(&'static str, &'static str, Value)>,
) -> (Result<ScoreResult, RunError>, Vec<Value>) {
    let host = Arc::new(Steps(replies, Default::default()));
    let s = build(&def(steps), host.clone()).unwrap();
    let r = s.run(run_input(), RunContext::default()).await;
    let calls = host.1.lock().unwrap().clone();
    (r, calls)
}

fn ok(v: Value) -> Value {
    json!({"ok": true, "value": v})
}

#[tokio::test]
async fn function_steps_run_in_order_and_see_earlier_results() {
    let (r, calls) = run(
        &[
            ("preprocess", "function"),
            ("generateScore", "function"),
            ("generateReason", "function"),
        ],
        vec![
            ("preprocess", "function", ok(json!({"n": 3}))),
            ("generateScore", "function", ok(json!(0.75))),
            ("generateReason", "function", ok(json!("because"))),
        ],
    )
    .await;
    let r = r.unwrap();
    assert_eq!(r.score, Some(0.75));
    assert_eq!(r.reason.as_deref(), Some("because"));
    assert_eq!(r.preprocess_step_result, Some(json!({"n": 3})));
    assert!(r.judge.is_empty());
    assert_eq!(calls.len(), 3);
    assert_eq!(
        calls[1]["results"],
        json!({"preprocessStepResult": {"n": 3}})
    );
    assert_eq!(calls[2]["score"], json!(0.75));
    assert_eq!(calls[2]["results"]["generateScoreStepResult"], json!(0.75));
    assert_eq!(calls[0]["runId"], "r1");
}

#[tokio::test]
async fn not_scorable_ends_the_run_without_a_score() {
    let (r, calls) = run(
        &[("preprocess", "function"), ("generateScore", "function")],
        vec![(
            "preprocess",
            "function",
            json!({"ok": true, "value": null, "notScorable": {"reason": "no tool calls"}}),
        )],
    )
    .await;
    let r = r.unwrap();
    assert_eq!(r.score, None);
    assert_eq!(
        r.not_scorable,
        Some(NotScorable {
            step: "preprocess".into(),
            reason: Some("no tool calls".into())
        })
    );
    assert_eq!(calls.len(), 1);
}

#[tokio::test]
async fn a_failing_or_unusable_step_is_a_failure_at_that_step() {
    let (r, _) = run(
        &[("preprocess", "function"), ("generateScore", "function")],
        vec![
            ("preprocess", "function", ok(json!(1))),
            (
                "generateScore",
                "function",
                json!({"ok": false, "error": {"name": "RangeError", "message": "boom"}}),
            ),
        ],
    )
    .await;
    let Err(RunError::Failed(f)) = r else {
        panic!("scored")
    };
    assert_eq!(
        (f.failed_step.as_str(), f.code),
        ("generateScore", ErrorCode::CustomStep)
    );
    assert_eq!(f.completed_steps, vec!["preprocess"]);
    assert_eq!((&*f.cause.name, &*f.cause.message), ("RangeError", "boom"));
    assert_eq!(
        f.message,
        "Scorer Run Failed: step 'generateScore' failed: boom"
    );
    assert_eq!(f.result.preprocess_step_result, Some(json!(1)));

    for (bad, what) in [
        (json!("0.5"), "string"),
        (json!(null), "undefined"),
        (json!({"s": 1}), "object"),
    ] {
        let (r, _) = run(
            &[("generateScore", "function")],
            vec![("generateScore", "function", ok(bad))],
        )
        .await;
        let Err(RunError::Failed(f)) = r else {
            panic!("scored")
        };
        assert!(
            f.message
                .contains("generateScore must give a finite number"),
            "{}",
            f.message
        );
        assert!(f.message.contains(what), "{}", f.message);
        assert_eq!(&*f.cause.name, "TypeError");
    }
    // a prompt step whose createPrompt gives no string: no judge call (there is no judge)
    let (r, _) = run(
        &[("preprocess", "prompt"), ("generateScore", "function")],
        vec![("preprocess", "prompt", ok(json!(3)))],
    )
    .await;
    let Err(RunError::Failed(f)) = r else {
        panic!("scored")
    };
    assert!(f
        .message
        .contains("preprocess's createPrompt must return a string; got number"));
    // a prompt step without a judge: Mastra's message
    let (r, _) = run(
        &[("analyze", "prompt"), ("generateScore", "function")],
        vec![("analyze", "prompt", ok(json!("judge this")))],
    )
    .await;
    let Err(RunError::Failed(f)) = r else {
        panic!("scored")
    };
    assert!(f
        .message
        .ends_with("Step \"analyze\" requires a model and instructions"));
}

#[tokio::test]
async fn definitions_are_checked() {
    let host: Arc<dyn Host> = Arc::new(Steps(vec![], Default::default()));
    let e = |v: Value| build(&v, host.clone()).err().unwrap().message;
    assert!(e(json!({"id": null})).contains("config.id is required"));
    assert!(e(json!({"id": ""})).contains("config.id must be a non-empty string"));
    assert!(e(json!({"id": "x", "name": 3})).contains("config.name must be a string"));
    assert!(
        e(json!({"id": "x", "steps": [{"name": "score", "type": "function"}]}))
            .contains("unknown name 'score'")
    );
    assert!(e(
        json!({"id": "x", "steps": [{"name": "analyze", "type": "prompt", "schema": {"type": 5}}]})
    )
    .contains("the analyze step's outputSchema is not a valid JSON Schema"));
    assert!(
        e(json!({"id": "x", "steps": [{"name": "analyze", "type": "prompt", "schema": "s"}]}))
            .contains("outputSchema must be a JSON Schema object; got string")
    );
    // no generateScore: Mastra's message, at run time
    let s = build(&def(&[("preprocess", "function")]), host.clone()).unwrap();
    let Err(RunError::Invalid(e)) = s.run(run_input(), RunContext::default()).await else {
        panic!("ran")
    };
    assert_eq!(
        e.message,
        "Cannot execute pipeline without generateScore() step"
    );
    assert_eq!(
        schema_name("my scorer/v2", "analyze"),
        "my_scorer_v2_analyze"
    );
    assert_eq!(schema_name(&"x".repeat(100), "analyze").len(), 64);
}

#[tokio::test]
async fn a_prompt_past_the_run_bound_is_refused_naming_the_step() {
    let big = "a".repeat(crate::run::MAX_RUN_BYTES + 1);
    let (r, _) = run(
        &[("analyze", "prompt"), ("generateScore", "function")],
        vec![("analyze", "prompt", ok(json!(big)))],
    )
    .await;
    let Err(RunError::Failed(f)) = r else {
        panic!("scored")
    };
    assert_eq!(
        (f.failed_step.as_str(), f.code),
        ("analyze", ErrorCode::CustomStep)
    );
    assert_eq!(&*f.cause.name, "RangeError");
    assert!(
        f.message
            .contains("analyze's createPrompt gave a prompt of 4.0 MB; the limit is 4 MB"),
        "{}",
        f.message
    );
}
