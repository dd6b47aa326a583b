//! The one place where core errors become JS-facing values.
//!
//! - Invalid options/input → a napi error with status `InvalidArg` (sync) or an outcome
//!   `{ ok: false, kind: 'type' }` (async); the JS facade raises a `TypeError` for both.
//! - A failed run → `{ ok: false, kind: 'scorer' | 'abort', error: ScorerFailure }`.
//! - A panic in the core → `{ ok: false, kind: 'scorer', code: OXEVAL_INTERNAL }`.

use oxeval_core::error::{ErrorCode, InvalidArgument};
use oxeval_core::pipeline::{RunError, ScoreResult};
use serde_json::{json, Value};

/// Factory-time invalid option → napi error the facade maps to `TypeError`.
pub fn invalid(e: InvalidArgument) -> napi::Error {
    napi::Error::new(
        napi::Status::InvalidArg,
        format!("{}: {}", e.code.as_str(), e.message),
    )
}

fn type_error(e: &InvalidArgument) -> Value {
    json!({ "ok": false, "kind": "type", "code": e.code.as_str(), "message": e.message })
}

/// The settled value of `run()`.
pub fn outcome(r: Result<ScoreResult, RunError>) -> Value {
    match r {
        Ok(result) => json!({ "ok": true, "result": result }),
        Err(RunError::Invalid(e)) => type_error(&e),
        Err(RunError::Failed(f)) => {
            let kind = if f.code == ErrorCode::Aborted {
                "abort"
            } else {
                "scorer"
            };
            json!({ "ok": false, "kind": kind, "error": f })
        }
    }
}

pub fn invalid_outcome(e: InvalidArgument) -> Value {
    type_error(&e)
}

/// A caught panic: never crash Node, report it as an internal error.
pub fn panic_outcome(run_id: Option<String>, payload: Box<dyn std::any::Any + Send>) -> Value {
    let detail = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    json!({
        "ok": false,
        "kind": "scorer",
        "error": {
            "code": ErrorCode::Internal.as_str(),
            "message": format!("Scorer Run Failed: internal error in oxeval (please report it): {detail}"),
            "failedStep": "run",
            "completedSteps": [],
            "result": { "runId": run_id },
            "cause": { "name": "InternalError", "code": ErrorCode::Internal.as_str(), "message": detail }
        }
    })
}
