//! Mastra's extractor callbacks: functions `(input, output) => value` a factory takes
//! (`contextExtractor` for the RAG scorers, summarization's `sourceExtractor`), called once
//! per run BEFORE the scorer's first step, through the host's one channel
//! ([`HostCall::FunctionOption`](crate::provider::external::HostCall) with `positional:
//! ["input", "output"]`: the host calls the function with the run's own input and output
//! objects, as Mastra does). The value lands on the run under the extractor's `field` (e.g.
//! `extractedContext`), where the scorer reads it as one of its sources.
//!
//! A scorer declares the extractors it takes in its spec ([`ScorerSpec::extractors`]); the
//! registry wraps a scorer built with extractor functions in [`Extracting`]. A failure is
//! the run's failure at a step named after the callback (`failedStep: 'contextExtractor'`),
//! before any judge call: a throw or a call that outlives the callback bound is
//! `OXEVAL_CONTEXT_EXTRACTOR`, the run's deadline `OXEVAL_DEADLINE`, an abort
//! `OXEVAL_ABORTED`.

use crate::engine::{Judge, RunContext};
use crate::error::{ErrorCode, InvalidArgument};
use crate::pipeline::{RunError, ScoreResult, ScorerFailure};
use crate::run::{callback_timeout_message, RunInput};
use crate::scorers::llm::callbacks::{callback_timeout, host_function, CallFailure, HostFn};
use crate::scorers::spec::{BuildContext, ScorerSpec};
use crate::scorers::{Scorer, ScorerMeta};
use futures::future::BoxFuture;
use serde_json::Value;

/// One extractor callback a scorer takes.
#[derive(Debug)]
pub struct Extractor {
    /// The option's name (top-level or under `options`).
    pub option: &'static str,
    /// The run field its value is put in.
    pub field: &'static str,
    /// The run field whose presence (not null) makes the call unneeded (the run's own data
    /// wins), e.g. `context`.
    pub unless: &'static str,
    /// Called only for an agent-shaped run (Mastra's `isScorerRunInputForAgent(input) &&
    /// isScorerRunOutputForAgent(output)`), as Mastra calls summarization's.
    pub agent_only: bool,
    /// How the signature is written in messages.
    pub signature: &'static str,
}

/// `contextExtractor(input, output) => string[]` (called whenever the run has no `context`).
pub const CONTEXT: Extractor = Extractor {
    option: "contextExtractor",
    field: "extractedContext",
    unless: "context",
    agent_only: false,
    signature: "(input, output) => string[]",
};

/// Summarization's `sourceExtractor(input, output) => string`: for an agent-shaped run
/// without its own `source`; its text wins over the `source` option, as in Mastra.
pub const SOURCE: Extractor = Extractor {
    option: "sourceExtractor",
    field: "extractedSource",
    unless: "source",
    agent_only: true,
    signature: "(input, output) => string",
};

/// Mastra's agent-shaped run: an input object with arrays `inputMessages`,
/// `rememberedMessages`, `systemMessages` and an object `taggedSystemMessages`, and an
/// output array whose every element has a string `id`, a string `role`, and `content` and
/// `createdAt` keys.
pub fn is_agent_run(input: Option<&Value>, output: &Value) -> bool {
    let input_ok = input.and_then(Value::as_object).is_some_and(|i| {
        ["inputMessages", "rememberedMessages", "systemMessages"]
            .iter()
            .all(|k| i.get(*k).is_some_and(Value::is_array))
            && i.get("taggedSystemMessages").is_some_and(Value::is_object)
    });
    let output_ok = output.as_array().is_some_and(|o| {
        o.iter().all(|m| {
            m.get("id").is_some_and(Value::is_string)
                && m.get("role").is_some_and(Value::is_string)
                && m.get("content").is_some()
                && m.get("createdAt").is_some()
        })
    });
    input_ok && output_ok
}

/// A scorer whose extractor callbacks run before its steps.
pub struct Extracting {
    inner: Box<dyn Scorer>,
    calls: Vec<(&'static Extractor, HostFn)>,
}

/// Wrap `scorer` when the host supplied functions for `spec`'s extractors.
pub fn wrap(
    spec: &ScorerSpec,
    scorer: Box<dyn Scorer>,
    options: &Value,
    cx: &BuildContext,
) -> Result<Box<dyn Scorer>, InvalidArgument> {
    let mut calls = Vec::new();
    for &x in spec.extractors {
        if let Some(f) = host_function(options, cx, x.option, x.signature)? {
            calls.push((x, f));
        }
    }
    if calls.is_empty() {
        return Ok(scorer);
    }
    Ok(Box::new(Extracting {
        inner: scorer,
        calls,
    }))
}

impl Extracting {
    async fn extract(&self, mut run: RunInput, ctx: &RunContext) -> Result<RunInput, RunError> {
        for (x, f) in &self.calls {
            let own = run.raw.get(x.unless).is_some_and(|v| !v.is_null());
            if own || (x.agent_only && !is_agent_run(run.input.as_ref(), &run.output)) {
                continue;
            }
            let fail = |code, message: &str, cause: &str| {
                RunError::Failed(Box::new(ScorerFailure::outside(
                    Some(run.run_id.clone()),
                    x.option,
                    code,
                    message,
                    cause,
                )))
            };
            let value = match f.call_positional(ctx, &run.run_id).await {
                Ok(v) => v,
                Err(CallFailure::Aborted) => {
                    return Err(fail(ErrorCode::Aborted, "The run was aborted", ""))
                }
                Err(CallFailure::Deadline) => {
                    return Err(fail(ErrorCode::Deadline, "the run's deadline passed", ""))
                }
                Err(CallFailure::Timeout) => {
                    let m = callback_timeout_message(x.option, callback_timeout());
                    return Err(fail(ErrorCode::ContextExtractor, &m, "TimeoutError"));
                }
                Err(CallFailure::Threw { name, message }) => {
                    return Err(fail(ErrorCode::ContextExtractor, &message, &name))
                }
                Err(CallFailure::Broken(what)) => {
                    let m = format!("{} {what}", x.option);
                    return Err(fail(ErrorCode::ContextExtractor, &m, ""));
                }
            };
            // a deadline that passed as the callback returned is the callback's
            if ctx
                .deadline
                .is_some_and(|d| d <= tokio::time::Instant::now())
            {
                return Err(fail(ErrorCode::Deadline, "the run's deadline passed", ""));
            }
            if let Value::Object(raw) = &mut run.raw {
                raw.insert(x.field.to_string(), value);
            }
        }
        Ok(run)
    }
}

impl Scorer for Extracting {
    fn meta(&self) -> &ScorerMeta {
        self.inner.meta()
    }

    fn meta_mut(&mut self) -> &mut ScorerMeta {
        self.inner.meta_mut()
    }

    fn judge(&self) -> Option<&Judge> {
        self.inner.judge()
    }

    fn run<'a>(
        &'a self,
        run: RunInput,
        ctx: RunContext,
    ) -> BoxFuture<'a, Result<ScoreResult, RunError>> {
        Box::pin(async move {
            let run = self.extract(run, &ctx).await?;
            self.inner.run(run, ctx).await
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::external::{Host, HostCall};
    use serde_json::json;
    use std::sync::Arc;
    use std::time::Duration;

    /// The inner scorer: its score says whether the run reached it with the field.
    struct Echo {
        meta: ScorerMeta,
    }
    impl Echo {
        async fn run_inner(&self, run: RunInput, _: RunContext) -> Result<ScoreResult, RunError> {
            Ok(ScoreResult {
                run_id: run.run_id,
                score: Some(run.raw["extractedContext"].as_array().map_or(0, Vec::len) as f64),
                ..Default::default()
            })
        }
    }
    crate::impl_scorer!(Echo, code);

    struct Reply(Result<&'static str, ()>);
    impl Host for Reply {
        fn call(
            &self,
            kind: HostCall,
            request: String,
        ) -> BoxFuture<'static, Result<String, String>> {
            assert_eq!(kind, HostCall::FunctionOption);
            let req: Value = serde_json::from_str(&request).unwrap();
            assert_eq!(req["positional"], json!(["input", "output"]));
            let reply = self.0;
            Box::pin(async move {
                match reply {
                    Ok(text) => Ok(text.to_string()),
                    Err(()) => std::future::pending().await,
                }
            })
        }
    }

    fn scorer(reply: Result<&'static str, ()>) -> Box<dyn Scorer> {
        static SPEC: ScorerSpec = ScorerSpec {
            extractors: &[&CONTEXT],
            ..crate::scorers::spec::test_spec()
        };
        let cx = BuildContext {
            host: Some(Arc::new(Reply(reply))),
            functions: vec!["contextExtractor".into()],
            ..Default::default()
        };
        let inner = Box::new(Echo {
            meta: ScorerMeta::code(&SPEC, "agent"),
        });
        wrap(&SPEC, inner, &json!({}), &cx).unwrap()
    }

    fn input(raw: Value) -> RunInput {
        RunInput {
            run_id: "r1".into(),
            input: None,
            output: raw["output"].clone(),
            ground_truth: None,
            raw,
        }
    }

    async fn failure(s: &dyn Scorer, raw: Value) -> ScorerFailure {
        let scope = crate::scorers::llm::callbacks::CALLBACK_TIMEOUT.scope(
            Some(Duration::from_millis(30)),
            s.run(input(raw), RunContext::default()),
        );
        match scope.await {
            Err(RunError::Failed(f)) => *f,
            other => panic!("not a failure: {:?}", other.map(|r| r.score)),
        }
    }

    #[tokio::test]
    async fn an_extractor_runs_before_the_steps_and_fails_at_its_own_step() {
        let ok = scorer(Ok(r#"{"ok":true,"value":["a","b"]}"#));
        let r = ok
            .run(input(json!({"output": "x"})), RunContext::default())
            .await
            .unwrap();
        assert_eq!(r.score, Some(2.0));
        // the run's own context wins: no call (the host would answer 2 pieces)
        let own = json!({"output": "x", "context": ["c"]});
        assert_eq!(
            ok.run(input(own), RunContext::default())
                .await
                .unwrap()
                .score,
            Some(0.0)
        );

        let threw = scorer(Ok(
            r#"{"ok":false,"error":{"name":"RangeError","message":"boom"}}"#,
        ));
        let f = failure(&*threw, json!({"output": "x"})).await;
        assert_eq!(
            (f.code, f.failed_step.as_str()),
            (ErrorCode::ContextExtractor, "contextExtractor")
        );
        assert_eq!((&*f.cause.name, &*f.cause.message), ("RangeError", "boom"));
        assert_eq!(f.result.run_id, "r1");

        let never = scorer(Err(()));
        let f = failure(&*never, json!({"output": "x"})).await;
        assert_eq!(
            (f.code, &*f.cause.name),
            (ErrorCode::ContextExtractor, "TimeoutError")
        );
        assert!(
            f.message.starts_with("Scorer Run Failed: step 'contextExtractor' failed: contextExtractor did not settle within 30 ms")
                && f.message.contains("callbackTimeoutMs, default 60000 ms"),
            "{}",
            f.message
        );
        let cancelled = RunContext::default();
        cancelled.cancel.cancel();
        let Err(RunError::Failed(f)) = never.run(input(json!({"output": "x"})), cancelled).await
        else {
            panic!("an aborted run scored")
        };
        assert_eq!(f.code, ErrorCode::Aborted);
        let late = RunContext {
            deadline: Some(tokio::time::Instant::now() + Duration::from_millis(5)),
            ..RunContext::default()
        };
        let Err(RunError::Failed(f)) = never.run(input(json!({"output": "x"})), late).await else {
            panic!("a run past its deadline scored")
        };
        assert_eq!(
            (f.code, f.failed_step.as_str()),
            (ErrorCode::Deadline, "contextExtractor")
        );
    }

    #[test]
    fn agent_shaped_runs() {
        let agent = |run: Value| is_agent_run(run.get("input"), &run["output"]);
        let input = json!({"inputMessages": [], "rememberedMessages": [], "systemMessages": [], "taggedSystemMessages": {}});
        let msg = json!({"id": "1", "role": "assistant", "content": "x", "createdAt": "t"});
        assert!(agent(json!({"input": input, "output": [msg]})));
        assert!(agent(json!({"input": input, "output": []})));
        assert!(!agent(json!({"input": input, "output": "text"})));
        assert!(!agent(
            json!({"input": input, "output": [{"role": "assistant", "content": "x"}]})
        ));
        assert!(!agent(json!({"input": "q", "output": [msg]})));
        assert!(!agent(
            json!({"input": {"inputMessages": []}, "output": [msg]})
        ));
    }
}
