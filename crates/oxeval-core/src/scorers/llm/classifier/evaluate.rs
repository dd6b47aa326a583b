//! The evaluation-model road: a Mastra / AI SDK evaluation model (`doEvaluate`, AI SDK
//! provider v7's experimental `EvaluationModelV4`, what @mastra/core 1.71's `Classifier`
//! wraps) given as `model` answers every question of the classifier in one call through the
//! host channel ([`HostCall::EvaluationModel`]). Retryable failures are tried again up to
//! `maxRetries` times (Mastra's default 2) with a doubling pause, inside the run's bounds.
//!
//! Request `{ runKey, state, questions, providerOptions?, attempt }`; reply
//! `{ ok: true, result: { answers, usage?, warnings?, rounding?, providerMetadata?,
//! response?: { id?, timestamp? (ISO text), modelId? } } }` or
//! `{ ok: false, error: { name, message, retryable } }`.

use super::answer::{check, Rounding};
use super::question::Question;
use crate::engine::RunContext;
use crate::error::{ErrorCode, JudgeError};
use crate::provider::external::{Host, HostCall};
use crate::scorers::llm::callbacks::{bounded_reply, run_key, CallFailure};
use serde_json::{json, Value};
use std::time::Duration;

/// The first pause before a retry (then doubled per attempt).
pub const FIRST_RETRY_PAUSE_MS: u64 = 200;

/// What one evaluation call gave: the whole result as the model returned it and its checked
/// rounding.
pub struct Evaluated {
    pub result: Value,
    pub rounding: Rounding,
}

fn failure(code: ErrorCode, m: String) -> JudgeError {
    JudgeError::new(code, m)
}

/// Ask the model, retrying retryable failures up to `max_retries` times.
pub async fn evaluate(
    host: &dyn Host,
    ctx: &RunContext,
    run_id: &str,
    questions: &[Question],
    state: &Value,
    provider_options: Option<&Value>,
    max_retries: u32,
) -> Result<Evaluated, JudgeError> {
    let qs: serde_json::Map<String, Value> = questions
        .iter()
        .map(|q| (q.id.clone(), q.provider_form.clone()))
        .collect();
    let mut attempt = 0;
    loop {
        let request = json!({
            "runKey": run_key(run_id),
            "state": state,
            "questions": qs,
            "providerOptions": provider_options,
            "attempt": attempt,
        });
        let reply = bounded_reply(host, HostCall::EvaluationModel, ctx, request)
            .await
            .map_err(call_failure)?;
        if reply["ok"] == Value::Bool(true) {
            return checked(questions, reply["result"].clone());
        }
        let e = &reply["error"];
        let message = e["message"].as_str().unwrap_or("an error").to_string();
        if e["retryable"] == Value::Bool(true) && attempt < max_retries {
            let pause = Duration::from_millis(FIRST_RETRY_PAUSE_MS << attempt.min(10));
            tokio::select! {
                biased;
                _ = ctx.cancel.cancelled() => return Err(call_failure(CallFailure::Aborted)),
                _ = tokio::time::sleep(pause) => {}
            }
            attempt += 1;
            continue;
        }
        let mut err = failure(
            ErrorCode::JudgeModel,
            format!(
                "the evaluation model failed{}: {message}",
                if attempt > 0 {
                    format!(" after {} attempts", attempt + 1)
                } else {
                    String::new()
                }
            ),
        );
        if let Some(name) = e["name"].as_str().filter(|n| !n.is_empty()) {
            err.name = name.chars().take(100).collect();
        }
        return Err(err);
    }
}

fn call_failure(f: CallFailure) -> JudgeError {
    match f {
        CallFailure::Aborted => failure(ErrorCode::Aborted, "The run was aborted".into()),
        CallFailure::Deadline => failure(
            ErrorCode::Deadline,
            "the run's deadline passed while the evaluation model was running".into(),
        ),
        CallFailure::Timeout => failure(
            ErrorCode::JudgeTimeout,
            "the evaluation model did not answer within the callback bound (run option callbackTimeoutMs)".into(),
        ),
        CallFailure::Broken(what) | CallFailure::Threw { message: what, .. } => {
            failure(ErrorCode::JudgeModel, format!("the evaluation model {what}"))
        }
    }
}

/// The model's result checked as @mastra/core's classifier checks it: one answer per
/// question and nothing else, each valid for its question within the declared rounding,
/// token counts finite numbers.
fn checked(questions: &[Question], result: Value) -> Result<Evaluated, JudgeError> {
    let bad = |m: String| {
        failure(
            ErrorCode::JudgeOutput,
            format!("the evaluation model returned {m}"),
        )
    };
    let answers = result["answers"]
        .as_object()
        .ok_or_else(|| bad("no answers object".into()))?;
    let extra: Vec<&str> = answers
        .keys()
        .filter(|k| !questions.iter().any(|q| &q.id == *k))
        .map(String::as_str)
        .collect();
    let missing: Vec<&str> = questions
        .iter()
        .filter(|q| !answers.contains_key(&q.id))
        .map(|q| q.id.as_str())
        .collect();
    if !extra.is_empty() || !missing.is_empty() {
        return Err(bad(format!(
            "answers that do not match the questions (missing: {}; unknown: {})",
            if missing.is_empty() {
                "none".into()
            } else {
                missing.join(", ")
            },
            if extra.is_empty() {
                "none".into()
            } else {
                extra.join(", ")
            }
        )));
    }
    let rounding = Rounding::from_value(result.get("rounding")).map_err(bad)?;
    for q in questions {
        check(q, &answers[&q.id], rounding).map_err(bad)?;
    }
    for field in ["inputTokens", "outputTokens"] {
        let v = &result["usage"][field];
        if !v.is_null() && !v.as_f64().is_some_and(f64::is_finite) {
            return Err(bad(format!("a non-numeric {field} token count ({v})")));
        }
    }
    if !result["warnings"].is_null() && !result["warnings"].is_array() {
        return Err(bad("warnings that are not a list".into()));
    }
    Ok(Evaluated { result, rounding })
}

#[cfg(test)]
mod tests {
    use super::super::question::parse_questions;
    use super::*;

    #[test]
    fn results_checked_as_core_does() {
        let q = parse_questions(
            &json!({"safe": {"type": "boolean"}, "tone": {"type": "choice", "criteria": {"a": null, "b": null}}}),
            "q",
        )
        .unwrap();
        let ok = json!({"answers": {"safe": {"type": "boolean", "probability": 0.5}, "tone": {"type": "choice", "choice": "a"}}, "usage": {"inputTokens": 3}});
        assert!(checked(&q, ok).is_ok());
        for (r, want) in [
            (json!({}), "no answers object"),
            (
                json!({"answers": {"safe": {"type": "boolean", "probability": 0.5}}}),
                "missing: tone",
            ),
            (
                json!({"answers": {"safe": {"type": "boolean", "probability": 0.5}, "tone": {"type": "choice", "choice": "a"}, "x": {}}}),
                "unknown: x",
            ),
            (
                json!({"answers": {"safe": {"type": "boolean", "probability": 0.5}, "tone": {"type": "choice", "choice": "c"}}}),
                "not one of its options",
            ),
            (
                json!({"answers": {"safe": {"type": "boolean", "probability": 0.5}, "tone": {"type": "choice", "choice": "a"}}, "usage": {"inputTokens": "3"}}),
                "non-numeric inputTokens",
            ),
            (
                json!({"answers": {"safe": {"type": "boolean", "probability": 0.5}, "tone": {"type": "choice", "choice": "a"}}, "rounding": {"probabilityDecimals": 1.5}}),
                "rounding.probabilityDecimals",
            ),
        ] {
            let e = checked(&q, r.clone()).err().expect("refused").message;
            assert!(e.contains(want), "{r}: {e}");
            assert!(e.starts_with("the evaluation model returned"), "{e}");
        }
    }
}
