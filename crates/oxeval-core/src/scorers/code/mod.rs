//! Code scorers (no judge, `Kind::Code`): Mastra's tool-call and trajectory scorers and its
//! eleven quick checks, over the one agent-data implementation ([`crate::agent`]), and its text
//! code scorers, computed with the exact values Mastra gives (JS string semantics from
//! `js_text`).

pub mod checks;
pub mod completeness;
pub mod content_similarity;
pub mod js_text;
pub mod keyword_coverage;
pub mod ragas;
pub mod textual_difference;
pub mod tone;
pub mod tool_call_accuracy;
pub mod trajectory;
pub mod trajectory_accuracy;

use crate::agent::messages::output_messages;
use crate::agent::tools::trajectory_steps;
use crate::error::{ErrorCode, InvalidArgument};
use crate::pipeline::{RunError, ScoreResult, ScorerFailure};
use crate::run::RunInput;
use serde::Serialize;
use serde_json::{json, Value};
use std::borrow::Cow;

/// A code scorer's result: its score, `preprocessStepResult` and (function) reason.
pub(crate) fn result(run: RunInput, score: f64, pre: Value, reason: Option<String>) -> ScoreResult {
    ScoreResult {
        run_id: run.run_id,
        score: Some(score),
        reason,
        preprocess_step_result: Some(pre),
        ..Default::default()
    }
}

/// Where Mastra's step throws on purpose: the same failure (`Scorer Run Failed: …`, the
/// failed step named), with Mastra's message.
pub(crate) fn step_error(run: &RunInput, step: &str, message: &str) -> RunError {
    RunError::Failed(Box::new(ScorerFailure::outside(
        Some(run.run_id.clone()),
        step,
        ErrorCode::InvalidInput,
        message,
        "Error",
    )))
}

/// `run.output` as a message list (see [`output_messages`]: the widening); a TypeError
/// for any other shape.
pub(crate) fn messages(run: &RunInput) -> Result<Cow<'_, [Value]>, RunError> {
    output_messages(&run.output).map_err(|m| RunError::Invalid(InvalidArgument::input(m)))
}

/// `run.output` as a trajectory: a `{ steps: [...] }` object as it is; messages (any shape
/// [`output_messages`] takes) through `extractTrajectory` (Mastra's trajectory scorers
/// require the trajectory: its runEvals converts only for `scorers.trajectory`).
pub(crate) fn trajectory(run: &RunInput) -> Result<Cow<'_, Value>, RunError> {
    if run.output.get("steps").is_some_and(Value::is_array) {
        return Ok(Cow::Borrowed(&run.output));
    }
    let msgs = messages(run)?;
    Ok(Cow::Owned(json!({
        "steps": trajectory_steps(&msgs),
        "rawOutput": run.output,
    })))
}

/// The result of a text code scorer whose steps are a preprocess and a score (and maybe an
/// analyze): Mastra's step keys, no `judge`.
pub(crate) fn text_result<P: Serialize, A: Serialize>(
    run_id: String,
    score: f64,
    preprocess: &P,
    analyze: Option<&A>,
) -> ScoreResult {
    ScoreResult {
        run_id,
        score: Some(score),
        preprocess_step_result: serde_json::to_value(preprocess).ok(),
        analyze_step_result: analyze.and_then(|a| serde_json::to_value(a).ok()),
        ..Default::default()
    }
}

/// The run inputs of Mastra's text code scorers: input optional, output required.
pub(crate) const TEXT_INPUTS: crate::scorers::spec::Inputs = crate::scorers::spec::Inputs {
    input: crate::scorers::spec::Need::Optional,
    output: crate::scorers::spec::Need::Required,
    ground_truth: crate::scorers::spec::Need::Unused,
    context: crate::scorers::spec::Need::Unused,
};
