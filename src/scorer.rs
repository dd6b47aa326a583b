//! The native scorer object shared by every scorer family, and the cancel handle.

use crate::error::{invalid, invalid_outcome, outcome, panic_outcome, Outcome};
use futures::FutureExt;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use oxeval_core::InvalidArgument;
use oxeval_core::{RunContext, RunInput, Scorer};
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
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
}

impl NativeScorer {
    /// Build a scorer from the JSON text of its factory options with the core's parser.
    pub fn build<S: Scorer + 'static>(
        options: &str,
        from_options: fn(&serde_json::Value) -> std::result::Result<S, InvalidArgument>,
    ) -> Result<Self> {
        let value = serde_json::from_str(options).map_err(|e| {
            invalid(InvalidArgument::options(format!(
                "options is not valid JSON text: {e}"
            )))
        })?;
        let scorer = from_options(&value).map_err(invalid)?;
        Ok(NativeScorer {
            inner: Arc::new(scorer),
        })
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
            .cache()
            .map(|c| serde_json::to_value(c.stats()).unwrap_or_default())
            .unwrap_or(serde_json::Value::Null)
    }

    /// Run the scorer. `run` is the JSON text of the run object; resolves to a
    /// `RunOutcome` (never rejects).
    #[napi(catch_unwind, ts_return_type = "Promise<Record<string, unknown>>")]
    pub fn run<'env>(
        &self,
        env: &'env Env,
        run: String,
        cancel: Option<&CancelHandle>,
        deadline_ms: Option<f64>,
    ) -> Result<PromiseRaw<'env, Outcome>> {
        let scorer = self.inner.clone();
        let ctx = RunContext {
            cancel: cancel.map(|c| c.token.clone()).unwrap_or_default(),
            // an absurdly large deadline (1e30 ms) means no deadline, never a panic
            deadline: deadline_ms
                .filter(|ms| *ms > 0.0)
                .and_then(|ms| std::time::Duration::try_from_secs_f64(ms / 1000.0).ok())
                .and_then(|d| tokio::time::Instant::now().checked_add(d)),
        };
        env.spawn_future(async move {
            let mut value = match RunInput::from_json(&run) {
                Err(e) => Outcome::Other(invalid_outcome(e)),
                Ok(input) => {
                    let run_id = input.run_id.clone();
                    let fut = AssertUnwindSafe(scorer.run(input, ctx));
                    match fut.catch_unwind().await {
                        Ok(r) => outcome(r),
                        Err(panic) => Outcome::Other(panic_outcome(Some(run_id), panic)),
                    }
                }
            };
            // engine warnings (e.g. a cache dir that cannot be used) for process.emitWarning
            value.set_warnings(scorer.judge().take_warnings());
            Ok(value)
        })
    }
}
