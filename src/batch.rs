//! Batch mode's binding (oxeval_core::engine::batch): a runEvals batch session the facade
//! holds, a run joining its session, and `oxeval batch status|cancel`. No logic.

use crate::error::{invalid_outcome, panic_outcome};
use crate::scorer::NativeScorer;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use oxeval_core::engine::batch::{self, BatchOptions, BatchRun, BatchSession};
use oxeval_core::{InvalidArgument, Judge, ModelConfig, ModelSettings, Scorer};
use serde_json::{json, Value};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// The session a run of `scorer` joins: the runEvals session `id`, else the scorer's own
/// (factory option `batch`); none when its judge cannot batch.
pub(crate) fn join(scorer: &Arc<dyn Scorer>, id: Option<u64>) -> Option<Arc<BatchRun>> {
    let judge = scorer.judge()?;
    judge.batch_ready().ok()?;
    let session = match id {
        Some(id) => BatchSession::find(id)?,
        None => judge.batch_session()?.clone(),
    };
    Some(session.register())
}

/// A runEvals batch session.
#[napi]
pub struct NativeBatchSession {
    inner: Arc<BatchSession>,
}

/// A session for the `batch` option (JSON text) → the session, or a TypeError outcome.
#[napi(ts_return_type = "NativeBatchSession | Record<string, unknown>")]
pub fn create_batch_session(options: String) -> Either<NativeBatchSession, Value> {
    let made = catch_unwind(AssertUnwindSafe(|| {
        let v: Value = serde_json::from_str(&options).map_err(|e| {
            InvalidArgument::options(format!("runEvals: batch is not valid JSON: {e}"))
        })?;
        BatchOptions::from_value(Some(&v), "runEvals: batch").map(|o| o.unwrap_or_default())
    }));
    match made {
        Ok(Ok(o)) => Either::A(NativeBatchSession {
            inner: BatchSession::new(o),
        }),
        Ok(Err(e)) => Either::B(invalid_outcome(e)),
        Err(panic) => Either::B(panic_outcome(None, panic)),
    }
}

#[napi]
impl NativeBatchSession {
    /// The run option `batchSession` of the runs of this session.
    #[napi(getter)]
    pub fn id(&self) -> f64 {
        self.inner.id() as f64
    }

    /// The most items in flight at once (`batch.maxItems`, default 5 000).
    #[napi(getter)]
    pub fn max_items(&self) -> f64 {
        self.inner.options().max_items as f64
    }

    /// `n` items are about to start their runs: nothing is sent before they release.
    #[napi]
    pub fn hold(&self, n: u32) {
        self.inner.hold(n as usize);
    }

    #[napi]
    pub fn release(&self, n: u32) {
        self.inner.release(n as usize);
    }

    /// `{ stage, queued, waiting, inFlight, submitted, completed, failed, stages }`.
    #[napi(ts_return_type = "Record<string, any>")]
    pub fn progress(&self) -> Value {
        self.inner.progress()
    }

    /// End the session: `{ progress, pending, removed }`.
    #[napi(ts_return_type = "Promise<Record<string, any>>")]
    pub fn close<'env>(&self, env: &'env Env) -> Result<PromiseRaw<'env, Value>> {
        let s = self.inner.clone();
        env.spawn_future(async move { Ok(s.close().await) })
    }
}

/// Whether a scorer can batch: `{ ok: true }` or `{ ok: false, message }`.
#[napi(ts_return_type = "Record<string, any>")]
pub fn scorer_batch_ready(scorer: &NativeScorer) -> Value {
    match scorer.core().judge() {
        None => json!({ "ok": true, "noJudge": true }),
        Some(j) => match j.batch_ready() {
            Ok(()) => json!({ "ok": true }),
            Err(why) => json!({ "ok": false, "message": why }),
        },
    }
}

/// `oxeval batch status|cancel`: the records of `<cacheDir>/batches/`, polled (and
/// cancelled) with the judge `model` (JSON text, as a scorer's `model` option).
#[napi(ts_return_type = "Promise<Record<string, any>>")]
pub fn batch_inspect<'env>(
    env: &'env Env,
    cache_dir: String,
    model: Option<String>,
    cancel: bool,
) -> Result<PromiseRaw<'env, Value>> {
    let judge = match model.as_deref().map(serde_json::from_str::<Value>) {
        None => Ok(None),
        Some(Ok(v)) => ModelConfig::from_value(&v)
            .map(|m| Some(Judge::new(m, ModelSettings::default())))
            .map_err(|e| e.message),
        Some(Err(e)) => Err(e.to_string()),
    };
    env.spawn_future(async move {
        let judge = match judge {
            Ok(j) => j,
            Err(message) => return Ok(json!({ "ok": false, "message": message })),
        };
        let api = judge.as_ref().and_then(Judge::batch_api);
        let fp = judge
            .as_ref()
            .map(Judge::batch_fingerprint)
            .unwrap_or_default();
        let target = api.as_deref().map(|a| (a, fp.as_str()));
        let mut v = batch::inspect(std::path::Path::new(&cache_dir), target, cancel).await;
        if let Some(j) = &judge {
            // the provider's messages may quote the request: scrubbed like every error
            j.redactor().scrub_value(&mut v);
        }
        Ok(json!({ "ok": true, "value": v }))
    })
}
