//! The native scorer object shared by every scorer, its run tickets, and the cancel handle.

use crate::error::{failure_outcome, invalid_outcome, outcome, panic_outcome, Outcome};
use futures::FutureExt;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use oxeval_core::error::ErrorCode;
use oxeval_core::pipeline::ScorerFailure;
use oxeval_core::run::{RunOptionsDescriptor, StartError, StartedRun};
use oxeval_core::scorers::registry::ScorerSpec;
use oxeval_core::{RunContext, Scorer};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// Cancels one run (the JS facade wires an `AbortSignal` to it).
#[napi]
pub struct CancelHandle {
    token: CancellationToken,
}

#[napi]
impl CancelHandle {
    #[napi(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        CancelHandle {
            token: CancellationToken::new(),
        }
    }

    #[napi]
    pub fn cancel(&self) {
        self.token.cancel();
    }
}

#[napi]
pub struct NativeScorer {
    inner: Arc<dyn Scorer>,
    spec: &'static ScorerSpec,
}

impl NativeScorer {
    pub fn new(inner: Arc<dyn Scorer>, spec: &'static ScorerSpec) -> Self {
        NativeScorer { inner, spec }
    }
}

#[napi]
impl NativeScorer {
    /// `{ id, name, description, type, judge?, steps }`.
    #[napi(getter, catch_unwind, ts_return_type = "Record<string, unknown>")]
    pub fn meta(&self) -> serde_json::Value {
        serde_json::to_value(self.inner.meta()).unwrap_or_default()
    }

    /// Response cache statistics (`{ hits, memoryHits, diskHits, misses, writes, errors,
    /// timeouts }`), or `null` when caching is off.
    #[napi(catch_unwind, ts_return_type = "Record<string, number> | null")]
    pub fn cache_stats(&self) -> serde_json::Value {
        self.inner
            .judge()
            .and_then(|j| j.cache())
            .map(|c| serde_json::to_value(c.stats()).unwrap_or_default())
            .unwrap_or(serde_json::Value::Null)
    }

    /// The scorer never waits on anything (a code scorer without host calls): `runNow`
    /// scores a run in the call itself.
    #[napi(getter)]
    pub fn runs_now(&self) -> bool {
        self.spec.kind == oxeval_core::scorers::Kind::Code
            && oxeval_core::scorers::registry::host_calls(self.spec.factory).is_empty()
    }

    /// `start` and the run in one call on the calling thread (same arguments as `start`):
    /// the outcome as JSON text. Only for a scorer that `runsNow`.
    #[napi]
    pub fn run_now(
        &self,
        run: Option<String>,
        serialize_error: Option<String>,
        options: String,
    ) -> String {
        let outcome = match self.start(run, serialize_error, options) {
            Either::A(ticket) => ticket.run_now_outcome(None, false),
            Either::B(outcome) => outcome,
        };
        outcome_json(&outcome, None)
    }

    /// Accept a run: check the run options and the run, take its `runId`, start its
    /// deadline. Returns a `RunTicket`, or an outcome (`{ ok: false, … }`) to raise.
    /// `run` is the run's JSON text (null with `serializeError` when it has none).
    #[napi(ts_return_type = "RunTicket | Record<string, unknown>")]
    pub fn start(
        &self,
        run: Option<String>,
        serialize_error: Option<String>,
        options: String,
    ) -> Either<RunTicket, Outcome> {
        let started = catch_unwind(AssertUnwindSafe(|| {
            let d: RunOptionsDescriptor = serde_json::from_str(&options).unwrap_or_default();
            let json = match (&run, &serialize_error) {
                (Some(text), _) => Ok(text.as_str()),
                (None, Some(why)) => Err(why.as_str()),
                (None, None) => Err("it is undefined"),
            };
            StartedRun::start(json, &d)
        }));
        match started {
            Ok(Ok(started)) => {
                let needs_context = self.spec.context_extractor
                    && started.input.raw.get("context").is_none_or(|c| c.is_null());
                Either::A(RunTicket {
                    scorer: self.inner.clone(),
                    run_id: started.input.run_id.clone(),
                    needs_context,
                    runs_now: self.runs_now(),
                    started: Mutex::new(Some(started)),
                })
            }
            Ok(Err(StartError::Invalid(e))) => Either::B(Outcome::Other(invalid_outcome(e))),
            Ok(Err(StartError::AbortedBeforeStart)) => {
                Either::B(Outcome::Other(crate::error::aborted_before_start()))
            }
            Err(panic) => Either::B(Outcome::Other(panic_outcome(None, panic))),
        }
    }
}

/// One accepted run: its id and deadline are fixed; user callbacks (contextExtractor) run
/// in JS between `start` and `run`, bounded by `remainingMs()`.
#[napi]
pub struct RunTicket {
    scorer: Arc<dyn Scorer>,
    run_id: String,
    needs_context: bool,
    /// A code scorer that calls nothing outside the core (no judge, no host call): its run
    /// completes without waiting, so `runNow` computes it on the calling thread.
    runs_now: bool,
    started: Mutex<Option<StartedRun>>,
}

#[napi]
impl RunTicket {
    #[napi(getter)]
    pub fn run_id(&self) -> String {
        self.run_id.clone()
    }

    /// The scorer takes a `contextExtractor` and the run has no `context` of its own.
    #[napi(getter)]
    pub fn needs_context(&self) -> bool {
        self.needs_context
    }

    /// Milliseconds left before the run's deadline; `null` without one.
    #[napi]
    pub fn remaining_ms(&self) -> Option<f64> {
        self.started
            .lock()
            .ok()
            .and_then(|s| s.as_ref().and_then(StartedRun::remaining_ms))
    }

    /// A user callback failed: `kind` is `threw`, `deadline` or `aborted`. Returns the
    /// failure outcome, shaped like the core's.
    #[napi(ts_return_type = "Record<string, unknown>")]
    pub fn fail(&self, step: String, kind: String, message: String, cause_name: String) -> Outcome {
        let started = self.started.lock().ok();
        let f = match started.as_ref().and_then(|s| s.as_ref()) {
            Some(s) => s.callback_failure(&step, &kind, &message, &cause_name),
            None => ScorerFailure::callback(
                Some(self.run_id.clone()),
                &step,
                &kind,
                &message,
                &cause_name,
            ),
        };
        Outcome::Other(failure_outcome(f))
    }

    /// How long a user callback (`contextExtractor`) may run now: `{ ms, kind }` (`ms`
    /// null: no bound; `kind`: `deadline` or `timeout`, what `fail` is then told).
    #[napi(ts_return_type = "{ ms: number | null; kind: 'deadline' | 'timeout' }")]
    pub fn callback_bound(&self) -> serde_json::Value {
        let started = self.started.lock().ok();
        let bound = started
            .as_ref()
            .and_then(|s| s.as_ref().map(StartedRun::callback_bound));
        serde_json::to_value(bound).unwrap_or_default()
    }

    /// runEvals' bounds from its options (JSON text of `{ callbackTimeoutMs, targetTimeoutMs }`):
    /// `{ ok: true, value: { callbackTimeoutMs, callbackTimeoutSet, targetTimeoutMs, abortGraceMs } }`
    /// or `{ ok: false, code, message }` (see `oxeval_core::run::EvalBounds`).
    #[napi(catch_unwind, ts_return_type = "Record<string, any>")]
    pub fn eval_bounds(options: String) -> serde_json::Value {
        oxeval_core::run::eval_bounds_json(&options)
    }

    /// Run the scorer once. `extra` is JSON text of fields a callback produced (e.g.
    /// `{ extractedContext }`); `afterCallback` says a callback ran (a deadline that passed
    /// meanwhile is blamed on it). Resolves to an outcome; never rejects.
    #[napi(catch_unwind, ts_return_type = "Promise<Record<string, unknown>>")]
    pub fn run<'env>(
        &self,
        env: &'env Env,
        extra: Option<String>,
        after_callback: bool,
        cancel: Option<&CancelHandle>,
    ) -> Result<PromiseRaw<'env, Outcome>> {
        let scorer = self.scorer.clone();
        let run_id = self.run_id.clone();
        let started = self.started.lock().ok().and_then(|mut s| s.take());
        let token = cancel.map(|c| c.token.clone()).unwrap_or_default();
        env.spawn_future(async move {
            Ok(run_started(scorer, run_id, started, extra, after_callback, token).await)
        })
    }
}

/// One run of a started ticket, to its outcome (never fails).
async fn run_started(
    scorer: Arc<dyn Scorer>,
    run_id: String,
    started: Option<StartedRun>,
    extra: Option<String>,
    after_callback: bool,
    token: CancellationToken,
) -> Outcome {
    let Some(mut started) = started else {
        let f = ScorerFailure::outside(
            Some(run_id),
            "run",
            ErrorCode::InvalidInput,
            "this run ticket was already used",
            "",
        );
        return Outcome::Other(failure_outcome(f));
    };
    if let Some(extra) = extra.and_then(|t| serde_json::from_str(&t).ok()) {
        started.merge(extra);
    }
    if started.remaining_ms().is_some_and(|ms| ms <= 0.0) {
        let step = if after_callback {
            "contextExtractor"
        } else {
            "run"
        };
        let f = ScorerFailure::outside(
            Some(run_id),
            step,
            ErrorCode::Deadline,
            "the run's deadline passed",
            "",
        );
        return Outcome::Other(failure_outcome(f));
    }
    let ctx = RunContext {
        cancel: token,
        deadline: started.deadline,
        ..RunContext::default()
    }
    .with_item(started.item_id.take());
    let run_id_arc: Arc<str> = Arc::from(run_id.as_str());
    // the bound of each host function call (getContext) of this run
    let callback_timeout = started.callback_timeout;
    let fut = AssertUnwindSafe(
        oxeval_core::provider::external::RUN_ID.scope(
            run_id_arc,
            oxeval_core::scorers::llm::callbacks::CALLBACK_TIMEOUT
                .scope(callback_timeout, scorer.run(started.input, ctx)),
        ),
    );
    let mut value = match fut.catch_unwind().await {
        Ok(r) => outcome(r),
        Err(panic) => Outcome::Other(panic_outcome(Some(run_id), panic)),
    };
    // engine warnings (e.g. a cache dir that cannot be used) for process.emitWarning
    value.set_warnings(
        scorer
            .judge()
            .map(|j| j.take_warnings())
            .unwrap_or_default(),
    );
    value
}

impl RunTicket {
    /// The run computed on the calling thread: only for a scorer that never waits (else an
    /// internal-error outcome).
    fn run_now_outcome(&self, extra: Option<String>, after_callback: bool) -> Outcome {
        if !self.runs_now {
            let f = ScorerFailure::outside(
                Some(self.run_id.clone()),
                "run",
                ErrorCode::Internal,
                "runNow is only for a scorer that never waits (a code scorer without host calls)",
                "",
            );
            return Outcome::Other(failure_outcome(f));
        }
        let started = self.started.lock().ok().and_then(|mut s| s.take());
        futures::executor::block_on(run_started(
            self.scorer.clone(),
            self.run_id.clone(),
            started,
            extra,
            after_callback,
            CancellationToken::new(),
        ))
    }
}

/// An outcome as JSON text (never fails: a serialization error is an internal failure).
fn outcome_json(outcome: &Outcome, run_id: Option<&str>) -> String {
    serde_json::to_string(outcome).unwrap_or_else(|e| {
        let f = ScorerFailure::outside(
            run_id.map(str::to_owned),
            "run",
            ErrorCode::Internal,
            &format!("the result could not be serialized: {e}"),
            "",
        );
        failure_outcome(f).to_string()
    })
}
