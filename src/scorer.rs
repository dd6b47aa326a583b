//! The native scorer object shared by every scorer (one `run` call per run) and the cancel
//! handle.

use crate::error::{failure_outcome, invalid_outcome, outcome, panic_outcome, Outcome};
use futures::FutureExt;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use oxeval_core::error::ErrorCode;
use oxeval_core::pipeline::ScorerFailure;
use oxeval_core::run::{RunOptionsDescriptor, StartError, StartedRun};
use oxeval_core::{RunContext, Scorer};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// A JS string read in ONE pass (napi's `String` measures the UTF-8 length in a first pass,
/// then writes): the JS length in UTF-16 units bounds the UTF-8 size (at most 3 bytes a
/// unit), so a buffer of that size takes the whole text at once. Long texts (over
/// [`ONE_PASS_MAX_UNITS`]) take the two-pass road, so the buffer is never much larger than
/// the text.
pub struct JsText(pub String);

const ONE_PASS_MAX_UNITS: usize = 1 << 20;

impl TypeName for JsText {
    fn type_name() -> &'static str {
        "string"
    }
    fn value_type() -> napi::ValueType {
        napi::ValueType::String
    }
}

impl ValidateNapiValue for JsText {}

impl FromNapiValue for JsText {
    unsafe fn from_napi_value(
        env: napi::sys::napi_env,
        value: napi::sys::napi_value,
    ) -> Result<Self> {
        use napi::sys;
        let mut units = 0usize;
        let status =
            sys::napi_get_value_string_utf16(env, value, std::ptr::null_mut(), 0, &mut units);
        if status != sys::Status::napi_ok || units > ONE_PASS_MAX_UNITS {
            return String::from_napi_value(env, value).map(JsText);
        }
        let cap = units * 3 + 1;
        let mut buf: Vec<u8> = Vec::with_capacity(cap);
        let mut written = 0usize;
        let status =
            sys::napi_get_value_string_utf8(env, value, buf.as_mut_ptr().cast(), cap, &mut written);
        if status != sys::Status::napi_ok {
            return String::from_napi_value(env, value).map(JsText);
        }
        // napi wrote `written` bytes of UTF-8 (V8 replaces lone surrogates with U+FFFD)
        buf.set_len(written);
        Ok(JsText(String::from_utf8(buf).map_err(|e| {
            Error::new(Status::InvalidArg, format!("the text is not UTF-8: {e}"))
        })?))
    }
}

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
    /// A code scorer that calls nothing outside the core (no judge, no host call): its run
    /// completes without waiting, so `runCode` computes it on the calling thread.
    runs_now: bool,
}

impl NativeScorer {
    pub fn new(inner: Arc<dyn Scorer>, runs_now: bool) -> Self {
        NativeScorer { inner, runs_now }
    }

    /// The core scorer (batch mode asks its judge whether it can batch).
    pub(crate) fn core(&self) -> &Arc<dyn Scorer> {
        &self.inner
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

    /// The scorer never waits on anything (a code scorer without host calls): `runCode`
    /// scores a run in the call itself.
    #[napi(getter)]
    pub fn runs_now(&self) -> bool {
        self.runs_now
    }

    /// Score one run: check the run options and the run, take its `runId`, start its
    /// deadline, call the scorer's extractor callbacks through the host channel, run the
    /// steps. `run` is the run's JSON text (null with `serializeError` when it has none);
    /// `options` the run options' descriptor, whose `runKey` is the host's key of this run
    /// (its host calls carry it). Resolves to an outcome; never rejects.
    #[napi(catch_unwind, ts_return_type = "Promise<Record<string, unknown>>")]
    pub fn run<'env>(
        &self,
        env: &'env Env,
        run: Option<String>,
        serialize_error: Option<String>,
        options: String,
        cancel: Option<&CancelHandle>,
    ) -> Result<PromiseRaw<'env, Outcome>> {
        let scorer = self.inner.clone();
        let token = cancel.map(|c| c.token.clone()).unwrap_or_default();
        let started = start(run, serialize_error, &options);
        // batch mode: the run joins its session now, before any of its calls can park
        let batch = started
            .as_ref()
            .ok()
            .and_then(|s| crate::batch::join(&scorer, s.2));
        env.spawn_future(async move {
            Ok(match started {
                Ok((started, key, _)) => execute(scorer, started, key, token, batch).await,
                Err(outcome) => outcome,
            })
        })
    }

    /// A scorer without a judge that calls nothing back (a `code` scorer: checks,
    /// tool/trajectory scorers) in ONE synchronous call on this thread: no hop to the
    /// runtime and back (what a check costs is mostly that hop). Returns the outcome as JSON
    /// text (one string crossing instead of a JS object built field by field). The facade
    /// calls it only for such scorers; a judged one gets an internal failure.
    #[napi(
        catch_unwind,
        ts_args_type = "run: string | undefined | null, serializeError: string | undefined | null, options: string"
    )]
    pub fn run_code(
        &self,
        run: Option<JsText>,
        serialize_error: Option<String>,
        options: String,
    ) -> String {
        let outcome = if !self.runs_now {
            let f = ScorerFailure::outside(
                None,
                "run",
                ErrorCode::Internal,
                "runCode is for code scorers that call nothing back",
                "",
            );
            Outcome::Other(failure_outcome(f))
        } else {
            match start(run.map(|t| t.0), serialize_error, &options) {
                Ok((started, key, _)) => self.run_started_now(started, key),
                Err(outcome) => outcome,
            }
        };
        serde_json::to_string(&outcome).unwrap_or_else(|e| {
            serde_json::json!({ "ok": false, "kind": "scorer", "code": "OXEVAL_INTERNAL", "message": format!("the result could not be serialized: {e}") }).to_string()
        })
    }
}

impl NativeScorer {
    /// A started run of a code scorer, scored in this call: [`Scorer::run_now`] when the
    /// scorer has it (no future, no runtime), else its run on this thread.
    fn run_started_now(&self, started: StartedRun, key: Arc<str>) -> Outcome {
        // a passed deadline is the run's error, as in `execute`
        if started.remaining_ms().is_some_and(|ms| ms <= 0.0) {
            return execute_sync(&self.inner, started, key);
        }
        let StartedRun {
            input,
            deadline,
            item_id,
            callback_timeout,
            trial,
            estimate,
        } = started;
        let run_id = input.run_id.clone();
        match catch_unwind(AssertUnwindSafe(|| self.inner.run_now(input))) {
            Ok(Ok(r)) => outcome(r),
            Ok(Err(input)) => {
                let started = StartedRun {
                    input: *input,
                    deadline,
                    item_id,
                    callback_timeout,
                    trial,
                    estimate,
                };
                execute_sync(&self.inner, started, key)
            }
            Err(panic) => Outcome::Other(panic_outcome(Some(run_id), panic)),
        }
    }
}

fn execute_sync(scorer: &Arc<dyn Scorer>, started: StartedRun, key: Arc<str>) -> Outcome {
    futures::executor::block_on(execute(
        scorer.clone(),
        started,
        key,
        CancellationToken::new(),
        None,
    ))
}

/// Accept a run (check the run options and the run, take its `runId`, start its deadline):
/// the started run and its host key, or the outcome to return.
fn start(
    run: Option<String>,
    serialize_error: Option<String>,
    options: &str,
) -> std::result::Result<(StartedRun, Arc<str>, Option<u64>), Outcome> {
    let d: RunOptionsDescriptor = serde_json::from_str(options).unwrap_or_default();
    let started = catch_unwind(AssertUnwindSafe(|| {
        let json = match (&run, &serialize_error) {
            (Some(text), _) => Ok(text.as_str()),
            (None, Some(why)) => Err(why.as_str()),
            (None, None) => Err("it is undefined"),
        };
        StartedRun::start(json, &d)
    }));
    match started {
        Ok(Ok(started)) => {
            let key: Arc<str> = Arc::from(
                d.run_key
                    .as_deref()
                    .unwrap_or(started.input.run_id.as_str()),
            );
            // run option `batchSession`: the runEvals batch session the run belongs to
            let batch = d
                .data
                .get("batchSession")
                .and_then(serde_json::Value::as_u64);
            Ok((started, key, batch))
        }
        Ok(Err(StartError::Invalid(e))) => Err(Outcome::Other(invalid_outcome(e))),
        Ok(Err(StartError::AbortedBeforeStart)) => {
            Err(Outcome::Other(crate::error::aborted_before_start()))
        }
        Err(panic) => Err(Outcome::Other(panic_outcome(None, panic))),
    }
}

/// One accepted run of `scorer` (the body of `run` and `run_code`).
async fn execute(
    scorer: Arc<dyn Scorer>,
    mut started: StartedRun,
    key: Arc<str>,
    token: CancellationToken,
    batch: Option<Arc<oxeval_core::engine::batch::BatchRun>>,
) -> Outcome {
    let run_id = started.input.run_id.clone();
    if started.remaining_ms().is_some_and(|ms| ms <= 0.0) {
        let f = ScorerFailure::outside(
            Some(run_id),
            "run",
            ErrorCode::Deadline,
            "the run's deadline passed",
            "",
        );
        return Outcome::Other(failure_outcome(f));
    }
    let ctx = RunContext {
        cancel: token,
        deadline: started.deadline,
        batch,
        estimate: started.estimate,
        ..RunContext::default()
    }
    .with_item(started.item_id.take())
    .with_trial(started.trial);
    // the bound of each host function call (contextExtractor, getContext) of this run
    let callback_timeout = started.callback_timeout;
    let fut = AssertUnwindSafe(
        oxeval_core::provider::external::RUN_KEY.scope(
            key,
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

/// runEvals' bounds from its options (JSON text of `{ callbackTimeoutMs, targetTimeoutMs }`):
/// `{ ok: true, value: { callbackTimeoutMs, callbackTimeoutSet, targetTimeoutMs, abortGraceMs } }`
/// or `{ ok: false, code, message }` (see `oxeval_core::run::EvalBounds`).
#[napi(catch_unwind, ts_return_type = "Record<string, any>")]
pub fn eval_bounds(options: String) -> serde_json::Value {
    oxeval_core::run::eval_bounds_json(&options)
}
