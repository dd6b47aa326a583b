//! The one place where core errors become JS-facing values.
//!
//! - Invalid options/input → an outcome `{ ok: false, kind: 'type', code, message }` (the
//!   same for sync and async calls); the JS facade raises a `TypeError`.
//! - A failed run → `{ ok: false, kind: 'scorer' | 'abort', error: ScorerFailure }`.
//! - A panic in the core → `{ ok: false, kind: 'scorer', code: OXEVAL_INTERNAL }`.

use napi::bindgen_prelude::{ToNapiValue, TypeName, ValidateNapiValue};
use napi::{sys, Env, JsValue, ValueType};
use oxeval_core::error::{ErrorCode, InvalidArgument};
use oxeval_core::pipeline::{RunError, ScoreResult, ScorerFailure};
use serde::Serialize;
use serde_json::{json, Value};

/// What `run()` settles with. A success is serialized straight into JS values (no
/// intermediate JSON tree: a large run is not copied once more on its way out).
#[derive(Serialize)]
#[serde(untagged)]
pub enum Outcome {
    Ok {
        ok: bool,
        result: Box<ScoreResult>,
        #[serde(rename = "processWarnings", skip_serializing_if = "Vec::is_empty")]
        process_warnings: Vec<oxeval_core::engine::cache::CacheWarning>,
    },
    Other(Value),
}

impl Outcome {
    pub fn set_warnings(&mut self, w: Vec<oxeval_core::engine::cache::CacheWarning>) {
        match self {
            Outcome::Ok {
                process_warnings, ..
            } => *process_warnings = w,
            Outcome::Other(v) => {
                if !w.is_empty() {
                    v["processWarnings"] = serde_json::to_value(w).unwrap_or_default();
                }
            }
        }
    }
}

impl TypeName for Outcome {
    fn type_name() -> &'static str {
        "Outcome"
    }
    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl ValidateNapiValue for Outcome {}

impl ToNapiValue for Outcome {
    unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> napi::Result<sys::napi_value> {
        let env = Env::from_raw(env);
        Ok(env.to_js_value(&val)?.raw())
    }
}

fn type_error(e: &InvalidArgument) -> Value {
    json!({ "ok": false, "kind": "type", "code": e.code.as_str(), "message": e.message })
}

/// The settled value of `run()`.
pub fn outcome(r: Result<ScoreResult, RunError>) -> Outcome {
    match r {
        Ok(mut result) => {
            result.share_repeats();
            Outcome::Ok {
                ok: true,
                result: Box::new(result),
                process_warnings: Vec::new(),
            }
        }
        Err(RunError::Invalid(e)) => Outcome::Other(type_error(&e)),
        Err(RunError::Failed(f)) => Outcome::Other(failure_outcome(*f)),
    }
}

/// `{ ok: false, kind: 'scorer' | 'abort', error }` for a failure.
pub fn failure_outcome(f: ScorerFailure) -> Value {
    let kind = if f.code == ErrorCode::Aborted {
        "abort"
    } else {
        "scorer"
    };
    json!({ "ok": false, "kind": kind, "error": f })
}

/// The signal had fired before the run started: no partial result.
pub fn aborted_before_start() -> Value {
    json!({ "ok": false, "kind": "abort", "error": { "code": ErrorCode::Aborted.as_str(), "message": "The run was aborted before it started", "failedStep": null, "completedSteps": [], "result": null } })
}

pub fn invalid_outcome(e: InvalidArgument) -> Value {
    type_error(&e)
}

/// A caught panic: never crash Node; the same failure shape as any internal error.
pub fn panic_outcome(run_id: Option<String>, payload: Box<dyn std::any::Any + Send>) -> Value {
    let detail = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    failure_outcome(ScorerFailure::internal(run_id, &detail))
}
