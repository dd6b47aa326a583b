//! Functions the host supplies as factory options and a scorer calls in the middle of a run
//! (e.g. hallucination's `getContext({ run, results, step })`, which Mastra calls while
//! building a step's prompt).
//!
//! A function cannot cross into the core as data: the host tells which options were
//! functions (their names, in the scorer's [`BuildContext`]) and hands over ONE caller,
//! the host's channel ([`Host`], [`HostCall::FunctionOption`] calls). A scorer takes its function with [`host_function`] when it is built,
//! and calls it with [`HostFn::call`], bounded by the run's deadline and cancellation, and
//! each call by the callback bound (run option `callbackTimeoutMs`, default
//! [`DEFAULT_CALLBACK_TIMEOUT_MS`]): a function that never settles fails its step, it never
//! hangs the run.
//!
//! The wire (JSON text both ways): request `{ name, runId, args }`; reply `{ ok: true, value }`
//! or `{ ok: false, error: { name, message } }`. The host gives the function its own run
//! object (found by `runId`) as `run`, followed by `args`' fields.

use crate::engine::RunContext;
use crate::error::{ErrorCode, InvalidArgument, JudgeError};
use crate::options::scorer_value;
use crate::provider::external::{Host, HostCall};
use crate::run::{callback_timeout_message, DEFAULT_CALLBACK_TIMEOUT_MS};
use crate::scorers::spec::BuildContext;
use futures::future::BoxFuture;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

tokio::task_local! {
    /// The bound of one host function call in the run in flight (`None`: no bound), set by
    /// the host around a run from [`StartedRun::callback_timeout`](crate::run::StartedRun).
    pub static CALLBACK_TIMEOUT: Option<Duration>;
}

/// The bound of one host function call now: the run's ([`CALLBACK_TIMEOUT`]), else the
/// default [`DEFAULT_CALLBACK_TIMEOUT_MS`].
pub fn callback_timeout() -> Option<Duration> {
    CALLBACK_TIMEOUT
        .try_with(|t| *t)
        .unwrap_or(Some(Duration::from_secs_f64(
            DEFAULT_CALLBACK_TIMEOUT_MS / 1000.0,
        )))
}

/// The function option `name` (top-level or under `options`): `Some` when the host supplied
/// a function; `None` when absent; a TypeError when the option is present but not a function
/// (the host drops function values from the JSON, so a value left there is not one).
pub fn host_function(
    options: &Value,
    cx: &BuildContext,
    name: &str,
    signature: &str,
) -> Result<Option<HostFn>, InvalidArgument> {
    let supplied = cx
        .host
        .as_ref()
        .filter(|_| cx.functions.iter().any(|n| n == name));
    if let Some(host) = supplied {
        return Ok(Some(HostFn {
            name: name.to_string(),
            host: host.clone(),
        }));
    }
    match scorer_value(options, name)? {
        None => Ok(None),
        Some((value, path)) => Err(InvalidArgument::options(format!(
            "{path} must be a function {signature}; got {}",
            crate::error::type_name(value)
        ))),
    }
}

/// One host function a scorer holds.
#[derive(Clone)]
pub struct HostFn {
    name: String,
    host: Arc<dyn Host>,
}

impl std::fmt::Debug for HostFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HostFn({})", self.name)
    }
}

impl HostFn {
    /// A function for tests: `f(args)` answers every call.
    pub fn from_fn(
        name: &str,
        f: impl Fn(Value) -> Result<Value, (String, String)> + Send + Sync + 'static,
    ) -> HostFn {
        struct Local<F>(F);
        impl<F> Host for Local<F>
        where
            F: Fn(Value) -> Result<Value, (String, String)> + Send + Sync,
        {
            fn call(
                &self,
                _: HostCall,
                request: String,
            ) -> BoxFuture<'static, Result<String, String>> {
                let req: Value = serde_json::from_str(&request).unwrap_or_default();
                let reply = match (self.0)(req["args"].clone()) {
                    Ok(value) => json!({"ok": true, "value": value}),
                    Err((name, message)) => {
                        json!({"ok": false, "error": {"name": name, "message": message}})
                    }
                };
                Box::pin(async move { Ok(reply.to_string()) })
            }
        }
        HostFn {
            name: name.to_string(),
            host: Arc::new(Local(f)),
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Call the function for `run_id` with `args`, bounded by the run's deadline and
    /// cancellation and by the callback bound ([`callback_timeout`]). A thrown error is
    /// `OXEVAL_CONTEXT_EXTRACTOR` (with the error's name and message), and so is a call that
    /// did not settle within the callback bound (named `TimeoutError`); the deadline
    /// `OXEVAL_DEADLINE`; an abort `OXEVAL_ABORTED`.
    pub async fn call(
        &self,
        ctx: &RunContext,
        run_id: &str,
        args: Value,
    ) -> Result<Value, JudgeError> {
        let request =
            json!({"name": self.name, "runId": run_id, "runKey": run_key(run_id), "args": args});
        self.send(ctx, request).await.map_err(|f| match f {
            CallFailure::Aborted => JudgeError::new(ErrorCode::Aborted, "The run was aborted"),
            CallFailure::Deadline => JudgeError::new(
                ErrorCode::Deadline,
                format!("the run's deadline passed while {} was running", self.name),
            ),
            CallFailure::Timeout => {
                let mut e = JudgeError::new(
                    ErrorCode::ContextExtractor,
                    callback_timeout_message(&self.name, callback_timeout()),
                );
                e.name = "TimeoutError".into();
                e
            }
            CallFailure::Broken(what) => {
                JudgeError::new(ErrorCode::ContextExtractor, format!("{} {what}", self.name))
            }
            CallFailure::Threw { name, message } => {
                let mut e = JudgeError::new(
                    ErrorCode::ContextExtractor,
                    format!("{} threw: {message}", self.name),
                );
                if !name.is_empty() {
                    e.name = name.into();
                }
                e
            }
        })
    }

    /// Call the function as Mastra calls an extractor: `f(run.input, run.output)` with the
    /// run's own objects (the host finds them by the run's key). Bounded as [`HostFn::call`].
    pub async fn call_positional(
        &self,
        ctx: &RunContext,
        run_id: &str,
    ) -> Result<Value, CallFailure> {
        let request = json!({
            "name": self.name,
            "runId": run_id,
            "runKey": run_key(run_id),
            "args": null,
            "positional": ["input", "output"],
        });
        self.send(ctx, request).await
    }

    async fn send(&self, ctx: &RunContext, request: Value) -> Result<Value, CallFailure> {
        let mut reply = bounded_call(&*self.host, HostCall::FunctionOption, ctx, request).await?;
        Ok(reply["value"].take())
    }
}

/// One call into the host, bounded as [`bounded_call`]: the host's reply as JSON, whether it
/// says `ok: true` or carries the error the host's code raised.
pub async fn bounded_reply(
    host: &dyn Host,
    kind: HostCall,
    ctx: &RunContext,
    request: Value,
) -> Result<Value, CallFailure> {
    let call = host.call(kind, request.to_string());
    let deadline = async {
        match ctx.deadline {
            Some(d) => tokio::time::sleep_until(d).await,
            None => std::future::pending().await,
        }
    };
    let bound = callback_timeout();
    let timeout = async {
        match bound {
            Some(d) => tokio::time::sleep(d).await,
            None => std::future::pending().await,
        }
    };
    let reply = tokio::select! {
        // an abort wins over a reply that came with it (the function saw the run's signal)
        biased;
        _ = ctx.cancel.cancelled() => return Err(CallFailure::Aborted),
        r = call => r,
        _ = timeout => return Err(CallFailure::Timeout),
        _ = deadline => return Err(CallFailure::Deadline),
    };
    let text = reply.map_err(|why| CallFailure::Broken(format!("could not be called: {why}")))?;
    serde_json::from_str(&text)
        .map_err(|e| CallFailure::Broken(format!("gave an unreadable reply: {e}")))
}

/// One call into the host, bounded by the run's cancellation and deadline and by the
/// callback bound ([`callback_timeout`]): the whole reply when it says `ok: true`, else why
/// there is none (an abort wins over a reply that came with it: the host saw the signal).
pub async fn bounded_call(
    host: &dyn Host,
    kind: HostCall,
    ctx: &RunContext,
    request: Value,
) -> Result<Value, CallFailure> {
    let reply = bounded_reply(host, kind, ctx, request).await?;
    let threw = |message: String, name: &str| CallFailure::Threw {
        name: name.chars().take(100).collect(),
        message,
    };
    if reply["ok"] == Value::Bool(true) {
        return Ok(reply);
    }
    let error = &reply["error"];
    Err(threw(
        error["message"].as_str().unwrap_or("an error").to_string(),
        error["name"].as_str().unwrap_or(""),
    ))
}

/// Why a host function call gave no value.
#[derive(Debug, Clone, PartialEq)]
pub enum CallFailure {
    /// The run was aborted.
    Aborted,
    /// The run's deadline passed.
    Deadline,
    /// The call did not settle within the callback bound.
    Timeout,
    /// The function threw (its error's name and message).
    Threw { name: String, message: String },
    /// The function could not be called, or its reply could not be read: what happened,
    /// worded after the function's name (`could not be called: …`).
    Broken(String),
}

/// The host's key of the run in flight ([`crate::provider::external::RUN_KEY`]), else its id.
pub(crate) fn run_key(run_id: &str) -> String {
    crate::provider::external::RUN_KEY
        .try_with(|k| k.to_string())
        .unwrap_or_else(|_| run_id.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Echo;
    impl Host for Echo {
        fn call(
            &self,
            kind: HostCall,
            request: String,
        ) -> BoxFuture<'static, Result<String, String>> {
            assert_eq!(kind, HostCall::FunctionOption);
            Box::pin(async move {
                let req: Value = serde_json::from_str(&request).unwrap();
                Ok(json!({"ok": true, "value": req}).to_string())
            })
        }
    }

    struct Never;
    impl Host for Never {
        fn call(&self, _: HostCall, _: String) -> BoxFuture<'static, Result<String, String>> {
            Box::pin(std::future::pending())
        }
    }

    fn set(host: Arc<dyn Host>) -> BuildContext {
        BuildContext {
            host: Some(host),
            functions: vec!["getContext".into()],
            ..Default::default()
        }
    }

    #[tokio::test]
    async fn supplied_absent_and_wrong_options() {
        let f = host_function(&json!({}), &set(Arc::new(Echo)), "getContext", "(x) => y")
            .unwrap()
            .unwrap();
        let v = f
            .call(&RunContext::default(), "r1", json!({"step": "analyze"}))
            .await
            .unwrap();
        assert_eq!(
            v,
            json!({"name": "getContext", "runId": "r1", "runKey": "r1", "args": {"step": "analyze"}})
        );
        // without the host's functions nothing is supplied
        let none = BuildContext::default();
        assert!(host_function(&json!({}), &none, "getContext", "()")
            .unwrap()
            .is_none());
        let e = host_function(
            &json!({"options": {"getContext": ["a"]}}),
            &none,
            "getContext",
            "(p) => string[]",
        )
        .unwrap_err();
        assert_eq!(
            e.message,
            "options.options.getContext must be a function (p) => string[]; got array"
        );
    }

    #[tokio::test]
    async fn errors_deadline_and_abort() {
        let f = HostFn::from_fn("getContext", |_| Err(("RangeError".into(), "boom".into())));
        let e = f
            .call(&RunContext::default(), "r", json!({}))
            .await
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::ContextExtractor);
        assert_eq!(
            (&*e.name, e.message.as_str()),
            ("RangeError", "getContext threw: boom")
        );

        let never = host_function(&json!({}), &set(Arc::new(Never)), "getContext", "")
            .unwrap()
            .unwrap();
        let ctx = RunContext {
            deadline: Some(tokio::time::Instant::now() + std::time::Duration::from_millis(20)),
            ..Default::default()
        };
        let e = never.call(&ctx, "r", json!({})).await.unwrap_err();
        assert_eq!(e.code, ErrorCode::Deadline);
        let ctx = RunContext::default();
        ctx.cancel.cancel();
        let e = never.call(&ctx, "r", json!({})).await.unwrap_err();
        assert_eq!(e.code, ErrorCode::Aborted);
    }

    #[tokio::test]
    async fn a_call_that_never_settles_fails_at_the_callback_bound() {
        // without a run's bound: the default
        assert_eq!(
            callback_timeout(),
            Some(Duration::from_millis(DEFAULT_CALLBACK_TIMEOUT_MS as u64))
        );
        let never = host_function(&json!({}), &set(Arc::new(Never)), "getContext", "")
            .unwrap()
            .unwrap();
        // no deadline, no signal: only the bound ends it
        let t0 = std::time::Instant::now();
        let e = CALLBACK_TIMEOUT
            .scope(Some(Duration::from_millis(30)), async {
                assert_eq!(callback_timeout(), Some(Duration::from_millis(30)));
                never.call(&RunContext::default(), "r", json!({})).await
            })
            .await
            .unwrap_err();
        assert!(t0.elapsed() < Duration::from_secs(5));
        assert_eq!(e.code, ErrorCode::ContextExtractor);
        assert_eq!(&*e.name, "TimeoutError");
        assert!(
            e.message
                .starts_with("getContext did not settle within 30 ms")
                && e.message.contains("callbackTimeoutMs"),
            "{}",
            e.message
        );
        // the deadline still wins when it comes first
        let ctx = RunContext {
            deadline: Some(tokio::time::Instant::now() + Duration::from_millis(10)),
            ..Default::default()
        };
        let e = CALLBACK_TIMEOUT
            .scope(
                Some(Duration::from_secs(30)),
                never.call(&ctx, "r", json!({})),
            )
            .await
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::Deadline);
        // a fast function is not affected by the bound
        let f = HostFn::from_fn("getContext", |_| Ok(json!(["c"])));
        let v = CALLBACK_TIMEOUT
            .scope(
                Some(Duration::from_millis(30)),
                f.call(&RunContext::default(), "r", json!({})),
            )
            .await
            .unwrap();
        assert_eq!(v, json!(["c"]));
    }
}
