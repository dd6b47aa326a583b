//! Runs a scorer's steps, records prompts, step results and judge executions, and turns a
//! failed step into a [`ScorerFailure`] that keeps everything done so far.

use crate::engine::schema::StepOutput;
use crate::engine::{Call, Execution, Judge, RunContext, Structured};
use crate::error::{ErrorCode, InvalidArgument, JudgeError};
use crate::redact::Redactor;
use indexmap::IndexMap;
use serde::Serialize;
use serde_json::Value;

/// `judge[step]`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct StepJudge {
    pub executions: Vec<Execution>,
}

/// "1 verdict for 3 statements" when a judge's list does not match the list it judged.
pub fn count_mismatch(got: usize, got_noun: &str, want: usize, want_noun: &str) -> Option<String> {
    (got != want).then(|| {
        let plural = |n: usize, noun: &str| {
            if n == 1 {
                format!("{n} {noun}")
            } else {
                format!("{n} {noun}s")
            }
        };
        format!("{} for {}", plural(got, got_noun), plural(want, want_noun))
    })
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
    /// Keyed by step, in the order the steps ran (as Mastra's record).
    #[serde(skip_serializing_if = "IndexMap::is_empty")]
    pub judge: IndexMap<String, StepJudge>,
    /// What was accepted despite a problem, as `step: problem` (e.g. `analyze: 1 verdict
    /// for 3 statements`); absent when there is none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Mastra's `notScorable`: a step said the run cannot be scored; the run then has no
    /// `score` and its remaining steps did not run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_scorable: Option<NotScorable>,
}

/// `notScorable: { step, reason? }` (`@mastra/core` 1.71's `notScorable(reason?)`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NotScorable {
    pub step: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
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

impl ScorerFailure {
    /// A failure outside the judge pipeline (a user callback such as `contextExtractor`
    /// threw or ran out of time, or a panic was caught): the same shape as any other.
    pub fn outside(
        run_id: Option<String>,
        step: &str,
        code: ErrorCode,
        message: &str,
        cause_name: &str,
    ) -> ScorerFailure {
        let mut cause = JudgeError::new(code, message);
        if !cause_name.is_empty() {
            cause.name = cause_name.chars().take(100).collect::<String>().into();
        }
        ScorerFailure {
            code,
            message: format!("Scorer Run Failed: step '{step}' failed: {message}"),
            failed_step: step.to_string(),
            completed_steps: Vec::new(),
            result: ScoreResult {
                run_id: run_id.unwrap_or_default(),
                ..Default::default()
            },
            cause,
        }
    }

    /// A user callback (`contextExtractor`) failed at `step`: `kind` is `threw` (with the
    /// error's message and name), `deadline` or `aborted`.
    pub fn callback(
        run_id: Option<String>,
        step: &str,
        kind: &str,
        message: &str,
        cause_name: &str,
    ) -> ScorerFailure {
        match kind {
            "deadline" => ScorerFailure::outside(
                run_id,
                step,
                ErrorCode::Deadline,
                "the run's deadline passed",
                "",
            ),
            "aborted" => {
                ScorerFailure::outside(run_id, step, ErrorCode::Aborted, "The run was aborted", "")
            }
            _ => ScorerFailure::outside(
                run_id,
                step,
                ErrorCode::ContextExtractor,
                message,
                cause_name,
            ),
        }
    }

    /// A caught panic: an internal error (please report it), never a crash.
    pub fn internal(run_id: Option<String>, detail: &str) -> ScorerFailure {
        let mut f =
            ScorerFailure::outside(run_id, "run", ErrorCode::Internal, detail, "InternalError");
        f.message =
            format!("Scorer Run Failed: internal error in oxeval (please report it): {detail}");
        f
    }
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
        for w in &execution.warnings {
            self.result.warnings.push(format!("{step}: {w}"));
        }
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
        let ctx = self.ctx.at(step);
        let call = self.judge.structured::<T>(system, prompt, &ctx).await;
        self.take(step, call)
    }

    /// The `preprocess` step of a Mastra-shaped scorer: one structured call whose prompt and
    /// value become `preprocessPrompt` / `preprocessStepResult`; the step is then complete.
    pub async fn preprocess<T: StepOutput + serde::Serialize>(
        &mut self,
        system: &str,
        prompt: String,
    ) -> Result<T, RunError> {
        let value = self
            .structured::<T>("preprocess", system, &prompt)
            .await?
            .value;
        self.result.preprocess_prompt = Some(prompt);
        self.result.preprocess_step_result = serde_json::to_value(&value).ok();
        self.complete("preprocess");
        Ok(value)
    }

    /// A list of the analyze step's result as recorded (`analyzeStepResult[key]`), for the
    /// reason prompt without a second copy of a large list; `[]` when absent.
    pub fn analyzed(&self, key: &str) -> &Value {
        static EMPTY: Value = Value::Array(Vec::new());
        self.result
            .analyze_step_result
            .as_ref()
            .and_then(|v| v.get(key))
            .unwrap_or(&EMPTY)
    }

    /// The free-text `generateReason` step: its prompt and answer become
    /// `generateReasonPrompt` / `reason`; the step is then complete.
    pub async fn generate_reason(&mut self, system: &str, prompt: String) -> Result<(), RunError> {
        let reason = self.text("generateReason", system, &prompt).await?;
        self.result.generate_reason_prompt = Some(prompt);
        self.result.reason = Some(reason);
        self.complete("generateReason");
        Ok(())
    }

    /// One structured judge call for `step` with a soft expectation (see
    /// [`Judge::structured_expect`]).
    pub async fn structured_expect<T: StepOutput>(
        &mut self,
        step: &str,
        system: &str,
        prompt: &str,
        expect: impl Fn(&T) -> Option<String> + Send + Sync,
    ) -> Result<Structured<T>, RunError> {
        let ctx = self.ctx.at(step);
        let call = self
            .judge
            .structured_expect::<T>(system, prompt, &ctx, expect)
            .await;
        self.take(step, call)
    }

    /// One free-text judge call for `step`.
    pub async fn text(
        &mut self,
        step: &str,
        system: &str,
        prompt: &str,
    ) -> Result<String, RunError> {
        let ctx = self.ctx.at(step);
        let call = self.judge.text(system, prompt, &ctx).await;
        self.take(step, call)
    }

    /// Mark `step` done. Its execution records stop holding copies of what the step's own
    /// fields hold (see [`ScoreResult::share_repeats`]): a large run keeps one copy.
    pub fn complete(&mut self, step: &str) {
        self.completed.push(step.to_string());
        self.result.share_repeats();
    }

    /// The failure of `step`, carrying a snapshot of the partial result. Secrets the judge
    /// or a proxy echoed back are scrubbed from all of it.
    pub fn fail(&self, step: &str, cause: JudgeError) -> RunError {
        let cause = self.judge.scrub_error(cause);
        let mut result = self.result.clone();
        scrub_result(self.judge.redactor(), &mut result);
        RunError::Failed(Box::new(ScorerFailure {
            code: cause.code,
            message: format!("Scorer Run Failed: step '{step}' failed: {}", cause.message),
            failed_step: step.to_string(),
            completed_steps: self.completed.clone(),
            result,
            cause,
        }))
    }

    /// The finished result. Every score leaves through here: a score that is not a finite
    /// number is a bug in oxeval, reported as `OXEVAL_INTERNAL`, never returned as NaN.
    pub fn finish(self) -> Result<ScoreResult, RunError> {
        match self.result.score {
            Some(s) if !s.is_finite() => Err(self.fail(
                "generateScore",
                JudgeError::new(
                    ErrorCode::Internal,
                    format!("the computed score is not a finite number ({s}); please report this"),
                ),
            )),
            _ => {
                let mut result = self.result;
                scrub_result(self.judge.redactor(), &mut result);
                Ok(result)
            }
        }
    }
}

/// The step-level fields whose values an execution record may repeat: (judge step, prompt
/// key, step-result key).
const STEP_FIELDS: &[(&str, &str, Option<&str>)] = &[
    (
        "preprocess",
        "preprocessPrompt",
        Some("preprocessStepResult"),
    ),
    ("analyze", "analyzePrompt", Some("analyzeStepResult")),
    ("generateScore", "generateScorePrompt", None),
    ("generateReason", "generateReasonPrompt", None),
];

impl ScoreResult {
    /// Prepare the result for a host that can share strings and objects by reference (the
    /// Node binding): an execution's `prompt` (or `output`) that equals its step's
    /// `…Prompt` (or `…StepResult`) is emptied and `promptOf` / `outputOf` names that field,
    /// and the host points it at the same value. Mastra's shape is unchanged for the user,
    /// while a large run's prompts cross the boundary and sit in memory once.
    pub fn share_repeats(&mut self) {
        for (step, prompt_key, result_key) in STEP_FIELDS {
            let step_prompt = match *prompt_key {
                "preprocessPrompt" => &self.preprocess_prompt,
                "analyzePrompt" => &self.analyze_prompt,
                "generateScorePrompt" => &self.generate_score_prompt,
                _ => &self.generate_reason_prompt,
            };
            let step_result = match *result_key {
                Some("preprocessStepResult") => self.preprocess_step_result.as_ref(),
                Some(_) => self.analyze_step_result.as_ref(),
                None => None,
            };
            let Some(judge) = self.judge.get_mut(*step) else {
                continue;
            };
            let single = judge.executions.len() == 1;
            for e in &mut judge.executions {
                if step_prompt.as_deref() == Some(e.prompt.as_str()) {
                    e.prompt = String::new();
                    e.prompt_of = Some(prompt_key);
                }
                if single && step_result.is_some() && e.output.as_ref() == step_result {
                    e.output = None;
                    e.output_of = *result_key;
                }
            }
        }
    }
}

/// Replace every configured secret in every string of a result (prompts, step results,
/// judge records, warnings): a judge or proxy may echo a key or header value back.
pub fn scrub_result(r: &Redactor, res: &mut ScoreResult) {
    if r.is_empty() {
        return;
    }
    let texts = [
        &mut res.generate_score_prompt,
        &mut res.reason,
        &mut res.generate_reason_prompt,
        &mut res.preprocess_prompt,
        &mut res.analyze_prompt,
    ];
    for t in texts.into_iter().flatten() {
        r.scrub_string(t);
    }
    for v in [
        &mut res.preprocess_step_result,
        &mut res.analyze_step_result,
    ]
    .into_iter()
    .flatten()
    {
        r.scrub_value(v);
    }
    res.warnings.iter_mut().for_each(|w| r.scrub_string(w));
    for step in res.judge.values_mut() {
        for e in &mut step.executions {
            r.scrub_string(&mut e.prompt);
            if let Some(o) = e.output.as_mut() {
                r.scrub_value(o);
            }
            for t in [&mut e.raw_output, &mut e.reasoning].into_iter().flatten() {
                r.scrub_string(t);
            }
            if let Some(err) = e.error.as_mut() {
                r.scrub_string(&mut err.message);
            }
            e.warnings.iter_mut().for_each(|w| r.scrub_string(w));
        }
    }
}
