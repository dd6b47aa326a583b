//! Runs a scorer's steps, records prompts, step results and judge executions, and turns a
//! failed step into a [`ScorerFailure`] that keeps everything done so far.

use crate::engine::schema::StepOutput;
use crate::engine::{Call, Execution, Judge, RunContext, Structured};
use crate::error::{ErrorCode, InvalidArgument, JudgeError};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// `judge[step]`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct StepJudge {
    pub executions: Vec<Execution>,
}

/// Mastra's result keys (the binding adds the echoed input fields). `None` = undefined.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScoreResult {
    pub run_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generate_score_prompt: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generate_reason_prompt: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preprocess_step_result: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preprocess_prompt: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub analyze_step_result: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub analyze_prompt: Option<String>,
    /// Present only when at least one LLM step ran.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub judge: BTreeMap<String, StepJudge>,
}

/// A failed run: which step failed, what completed, the partial result, and the cause.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScorerFailure {
    pub code: ErrorCode,
    /// `Scorer Run Failed: …`
    pub message: String,
    pub failed_step: String,
    pub completed_steps: Vec<String>,
    pub result: ScoreResult,
    pub cause: JudgeError,
}

/// Why `run()` did not produce a score.
#[derive(Debug, Clone)]
pub enum RunError {
    /// Bad run input (a TypeError in JS); no judge call was made.
    Invalid(InvalidArgument),
    Failed(Box<ScorerFailure>),
}

impl From<InvalidArgument> for RunError {
    fn from(e: InvalidArgument) -> Self {
        RunError::Invalid(e)
    }
}

/// State of one run.
pub struct Pipeline<'a> {
    pub judge: &'a Judge,
    pub ctx: &'a RunContext,
    pub result: ScoreResult,
    completed: Vec<String>,
}

impl<'a> Pipeline<'a> {
    pub fn new(judge: &'a Judge, ctx: &'a RunContext, run_id: String) -> Self {
        Pipeline {
            judge,
            ctx,
            result: ScoreResult {
                run_id,
                ..Default::default()
            },
            completed: Vec::new(),
        }
    }

    /// Record an execution under `judge[step]`.
    pub fn record(&mut self, step: &str, execution: Execution) {
        self.result
            .judge
            .entry(step.to_string())
            .or_default()
            .executions
            .push(execution);
    }

    /// Record a call and return its value, or the run failure for `step`.
    pub fn take<T>(&mut self, step: &str, call: Call<T>) -> Result<T, RunError> {
        self.record(step, call.execution);
        call.result.map_err(|cause| self.fail(step, cause))
    }

    /// One structured judge call for `step`.
    pub async fn structured<T: StepOutput>(
        &mut self,
        step: &str,
        system: &str,
        prompt: &str,
    ) -> Result<Structured<T>, RunError> {
        let call = self.judge.structured::<T>(system, prompt, self.ctx).await;
        self.take(step, call)
    }

    /// One free-text judge call for `step`.
    pub async fn text(
        &mut self,
        step: &str,
        system: &str,
        prompt: &str,
    ) -> Result<String, RunError> {
        let call = self.judge.text(system, prompt, self.ctx).await;
        self.take(step, call)
    }

    pub fn complete(&mut self, step: &str) {
        self.completed.push(step.to_string());
    }

    /// The failure of `step`, carrying a snapshot of the partial result.
    pub fn fail(&self, step: &str, cause: JudgeError) -> RunError {
        RunError::Failed(Box::new(ScorerFailure {
            code: cause.code,
            message: format!("Scorer Run Failed: step '{step}' failed: {}", cause.message),
            failed_step: step.to_string(),
            completed_steps: self.completed.clone(),
            result: self.result.clone(),
            cause,
        }))
    }

    pub fn finish(self) -> ScoreResult {
        self.result
    }
}
