//! Custom scorers (`kind: custom`): Mastra's `createScorer` builder, whose steps are defined
//! in the host at run time. The core owns the run: its id and deadline, the order of the
//! steps, every judge call (structured output against the step's JSON Schema, compiled once
//! per scorer, the one fallback, retries, limits, the cache and its replay, redaction,
//! execution records), the failure shape (`failedStep`, `completedSteps`, the partial
//! result) and Mastra's `notScorable`. The host owns what only it can run: a function step
//! and a prompt step's `createPrompt`, each one [`HostCall::CustomStep`] call, bounded like
//! every user callback (the run's deadline and signal, the callback bound per call).
//!
//! The wire of a step call (JSON text both ways): request `{ runKey, runId, index, step,
//! kind: 'function' | 'prompt', results, score? }` (`results`: the step results so far as
//! JSON, `score` for `generateReason`); reply `{ ok: true, value, notScorable?: { reason? } }`
//! or `{ ok: false, error: { name, message } }`. A function step's value crosses as JSON only
//! where the core needs it (the score, the reason); the host keeps the value itself (a `Set`
//! stays a `Set`) and puts it in the result.

use crate::engine::schema::StepSchema;
use crate::engine::{Judge, RunContext};
use crate::error::{type_name, ErrorCode, InvalidArgument, JudgeError};
use crate::pipeline::{scrub_result, NotScorable, RunError, ScoreResult, ScorerFailure};
use crate::provider::external::{Host, HostCall, RUN_KEY};
use crate::run::RunInput;
use crate::scorers::llm::callbacks::{bounded_call, CallFailure};
use crate::scorers::llm::common::judge_from_options;
use crate::scorers::spec::{BuildContext, HostModel};
use crate::scorers::{Direction, Scorer, ScorerMeta};
use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// The four step names, in Mastra's result order.
const STEP_NAMES: [&str; 4] = ["preprocess", "analyze", "generateScore", "generateReason"];

/// The largest step schema accepted, as JSON text.
const MAX_SCHEMA_BYTES: usize = 256 * 1024;

/// A custom scorer as the host describes it (`createScorer` and its chained steps).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Definition {
    id: Value,
    #[serde(default)]
    name: Value,
    #[serde(default)]
    judges: Vec<JudgeDef>,
    #[serde(default)]
    steps: Vec<StepDef>,
}

/// One judge: the scorer's (index 0) or a step's, merged with the scorer's field by field.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct JudgeDef {
    /// `{ model, modelSettings, cache }` as factory options read them.
    options: Value,
    #[serde(default)]
    instructions: Option<String>,
    /// `data`, `function` or `languageModel` (a JS model: answered by the host).
    #[serde(default)]
    model: String,
    #[serde(default)]
    model_provider: String,
    #[serde(default)]
    model_id: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct StepDef {
    name: String,
    #[serde(rename = "type")]
    kind: String,
    /// A preprocess / analyze prompt step's output schema (JSON Schema).
    #[serde(default)]
    schema: Option<Value>,
    /// Index into `judges`.
    #[serde(default)]
    judge: Option<usize>,
}

enum StepKind {
    Function,
    /// `schema`: the structured output (preprocess / analyze with an output schema, and
    /// generateScore's `{ score: number }`); `None`: free text.
    Prompt {
        schema: Option<Arc<StepSchema>>,
    },
}

struct Step {
    name: &'static str,
    kind: StepKind,
    judge: Option<usize>,
}

/// A judge of the scorer, or why a prompt step using it cannot run.
struct StepJudge {
    judge: Option<Judge>,
    instructions: Option<String>,
}

pub struct CustomScorer {
    meta: ScorerMeta,
    steps: Vec<Step>,
    judges: Vec<StepJudge>,
    host: Arc<dyn Host>,
}

/// Build a custom scorer from the host's definition (JSON) and its channel. Errors are
/// TypeError-style and name what is wrong.
pub fn build(definition: &Value, host: Arc<dyn Host>) -> Result<CustomScorer, InvalidArgument> {
    let bad = |m: String| InvalidArgument::options(format!("createScorer(): {m}"));
    let d: Definition = serde_json::from_value(definition.clone())
        .map_err(|e| bad(format!("the scorer's definition could not be read ({e})")))?;
    let id = match &d.id {
        Value::String(s) if !s.trim().is_empty() && s.chars().count() <= 200 => s.clone(),
        Value::Null => {
            return Err(bad(
                "config.id is required (Mastra: \"Scorers must have an ID field. Please provide an ID in the scorer config.\")".into(),
            ))
        }
        other => {
            return Err(bad(format!(
                "config.id must be a non-empty string of at most 200 characters; got {}",
                type_name(other)
            )))
        }
    };
    let name = match &d.name {
        Value::Null => id.clone(),
        Value::String(s) if s.chars().count() <= 200 => s.clone(),
        other => {
            return Err(bad(format!(
                "config.name must be a string of at most 200 characters; got {}",
                type_name(other)
            )))
        }
    };
    let mut judges = Vec::new();
    for (slot, j) in d.judges.iter().enumerate() {
        let has_model = !matches!(j.options.get("model"), None | Some(Value::Null));
        let judge = if has_model {
            let js = matches!(j.model.as_str(), "function" | "languageModel");
            let cx = BuildContext {
                host: js.then(|| host.clone()),
                model: js.then(|| HostModel {
                    provider_id: j.model_provider.clone(),
                    model_id: j.model_id.clone(),
                    slot,
                }),
                functions: Vec::new(),
                embedder: None,
                evaluation_model: false,
            };
            Some(
                judge_from_options(&j.options, "createScorer", &cx).map_err(|e| {
                    let which = if slot == 0 {
                        "config.judge".to_string()
                    } else {
                        "a step's judge".to_string()
                    };
                    InvalidArgument {
                        message: format!("createScorer(): {which}: {}", e.message),
                        ..e
                    }
                })?,
            )
        } else {
            None
        };
        judges.push(StepJudge {
            judge,
            instructions: j.instructions.clone(),
        });
    }
    let mut steps = Vec::new();
    for (i, s) in d.steps.iter().enumerate() {
        let Some(name) = STEP_NAMES.iter().copied().find(|n| *n == s.name) else {
            return Err(bad(format!("step {i} has an unknown name '{}'", s.name)));
        };
        let kind = match s.kind.as_str() {
            "function" => StepKind::Function,
            "prompt" => {
                let schema = match (name, &s.schema) {
                    ("generateScore", _) => Some(score_schema()),
                    ("generateReason", _) => None,
                    (_, None) => None,
                    (_, Some(schema)) => {
                        let text = serde_json::to_string(schema).unwrap_or_default();
                        if text.len() > MAX_SCHEMA_BYTES {
                            return Err(bad(format!(
                                "the {name} step's outputSchema is {} KB as JSON; the limit is {} KB",
                                text.len() / 1024,
                                MAX_SCHEMA_BYTES / 1024
                            )));
                        }
                        let schema_name = schema_name(&id, name);
                        Some(Arc::new(
                            StepSchema::from_json(&schema_name, schema).map_err(|why| {
                                bad(format!("the {name} step's outputSchema {why}"))
                            })?,
                        ))
                    }
                };
                StepKind::Prompt { schema }
            }
            other => return Err(bad(format!("step {i} has an unknown type '{other}'"))),
        };
        if let Some(j) = s.judge.filter(|j| *j >= judges.len()) {
            return Err(bad(format!(
                "step {i} names judge {j}, which does not exist"
            )));
        }
        steps.push(Step {
            name,
            kind,
            judge: s.judge,
        });
    }
    Ok(CustomScorer {
        meta: ScorerMeta {
            id: id.into(),
            name: name.into(),
            description: "".into(),
            kind: "custom",
            judge: None,
            steps: &[],
            direction: Direction::Higher,
            scale: 1.0,
        },
        steps,
        judges,
        host,
    })
}

/// `{ score: number }`, the schema of a prompt `generateScore` step (as Mastra asks).
fn score_schema() -> Arc<StepSchema> {
    static SCHEMA: std::sync::OnceLock<Arc<StepSchema>> = std::sync::OnceLock::new();
    SCHEMA
        .get_or_init(|| {
            let schema = json!({
                "type": "object",
                "properties": {"score": {"type": "number"}},
                "required": ["score"],
            });
            Arc::new(StepSchema::from_json("custom_score", &schema).expect("a fixed schema"))
        })
        .clone()
}

/// The name a step's schema is sent under: `<id>_<step>`, in the characters and length
/// every provider accepts (`[a-zA-Z0-9_-]{1,64}`).
fn schema_name(id: &str, step: &str) -> String {
    let clean: String = format!("{id}_{step}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    clean
        .chars()
        .rev()
        .take(64)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect()
}

/// The result key of a step's value.
fn result_key(step: &str) -> &'static str {
    match step {
        "preprocess" => "preprocessStepResult",
        "analyze" => "analyzeStepResult",
        "generateScore" => "generateScoreStepResult",
        _ => "generateReasonStepResult",
    }
}

struct CustomRun<'a> {
    scorer: &'a CustomScorer,
    ctx: &'a RunContext,
    result: ScoreResult,
    completed: Vec<String>,
    /// The step results so far, as JSON (what later steps' host calls receive).
    results: Map<String, Value>,
}

impl CustomRun<'_> {
    fn fail(&self, step: &str, cause: JudgeError) -> RunError {
        let mut cause = cause;
        let mut result = self.result.clone();
        for j in self.scorer.judges.iter().filter_map(|j| j.judge.as_ref()) {
            cause = j.scrub_error(cause);
            scrub_result(j.redactor(), &mut result);
        }
        RunError::Failed(Box::new(ScorerFailure {
            code: cause.code,
            message: format!("Scorer Run Failed: step '{step}' failed: {}", cause.message),
            failed_step: step.to_string(),
            completed_steps: self.completed.clone(),
            result,
            cause,
        }))
    }

    /// One call of the host's step `index`.
    async fn host_step(&self, index: usize, step: &str, kind: &str) -> Result<Value, RunError> {
        let run_id = &self.result.run_id;
        let key = RUN_KEY
            .try_with(|k| k.to_string())
            .unwrap_or_else(|_| run_id.clone());
        let mut request = json!({
            "runKey": key,
            "runId": run_id,
            "index": index,
            "step": step,
            "kind": kind,
            "results": self.results,
        });
        if let Some(score) = self.result.score {
            request["score"] = json!(score);
        }
        let what = if kind == "prompt" {
            format!("{step}'s createPrompt")
        } else {
            format!("the {step} step")
        };
        bounded_call(&*self.scorer.host, HostCall::CustomStep, self.ctx, request)
            .await
            .map_err(|f| {
                let e = match f {
                    CallFailure::Aborted => {
                        JudgeError::new(ErrorCode::Aborted, "The run was aborted")
                    }
                    CallFailure::Deadline => JudgeError::new(
                        ErrorCode::Deadline,
                        format!("the run's deadline passed while {what} was running"),
                    ),
                    CallFailure::Timeout => {
                        let mut e = JudgeError::new(
                            ErrorCode::CustomStep,
                            crate::run::callback_timeout_message(
                                &what,
                                crate::scorers::llm::callbacks::callback_timeout(),
                            ),
                        );
                        e.name = "TimeoutError".into();
                        e
                    }
                    CallFailure::Threw { name, message } => {
                        let mut e = JudgeError::new(ErrorCode::CustomStep, message);
                        if !name.is_empty() {
                            e.name = name.into();
                        }
                        e
                    }
                    CallFailure::Broken(why) => {
                        JudgeError::new(ErrorCode::CustomStep, format!("{what} {why}"))
                    }
                };
                self.fail(step, e)
            })
    }

    fn keep(&mut self, step: &str, value: Value) {
        self.results
            .insert(result_key(step).to_string(), value.clone());
        match step {
            "preprocess" => self.result.preprocess_step_result = Some(value),
            "analyze" => self.result.analyze_step_result = Some(value),
            _ => {}
        }
    }

    async fn function_step(&mut self, index: usize, step: &'static str) -> Result<bool, RunError> {
        let mut reply = self.host_step(index, step, "function").await?;
        if let Some(ns) = reply.get("notScorable").filter(|v| v.is_object()) {
            self.result.not_scorable = Some(NotScorable {
                step: step.to_string(),
                reason: ns.get("reason").and_then(Value::as_str).map(String::from),
            });
            return Ok(false);
        }
        let value = reply["value"].take();
        match step {
            "generateScore" => self.result.score = Some(self.score_of(step, &value)?),
            "generateReason" => self.result.reason = self.reason_of(step, value.clone())?,
            _ => {}
        }
        self.keep(step, value);
        Ok(true)
    }

    fn score_of(&self, step: &str, value: &Value) -> Result<f64, RunError> {
        match value.as_f64().filter(|n| n.is_finite()) {
            Some(n) => Ok(n),
            None => {
                let mut e = JudgeError::new(
                    ErrorCode::CustomStep,
                    format!(
                        "generateScore must give a finite number; got {}",
                        match value {
                            Value::Null => "undefined or a value that is not a number".to_string(),
                            other => type_name(other).to_string(),
                        }
                    ),
                );
                e.name = "TypeError".into();
                Err(self.fail(step, e))
            }
        }
    }

    fn reason_of(&self, step: &str, value: Value) -> Result<Option<String>, RunError> {
        match value {
            Value::Null => Ok(None),
            Value::String(s) => Ok(Some(s)),
            other => {
                let mut e = JudgeError::new(
                    ErrorCode::CustomStep,
                    format!(
                        "generateReason must give a string; got {}",
                        type_name(&other)
                    ),
                );
                e.name = "TypeError".into();
                Err(self.fail(step, e))
            }
        }
    }

    async fn prompt_step(
        &mut self,
        index: usize,
        step: &'static str,
        schema: Option<Arc<StepSchema>>,
        judge: usize,
    ) -> Result<(), RunError> {
        let reply = self.host_step(index, step, "prompt").await?;
        let prompt = match &reply["value"] {
            Value::String(p) => p.clone(),
            other => {
                let mut e = JudgeError::new(
                    ErrorCode::CustomStep,
                    format!(
                        "{step}'s createPrompt must return a string; got {}",
                        type_name(other)
                    ),
                );
                e.name = "TypeError".into();
                return Err(self.fail(step, e));
            }
        };
        // the bound of a run's input: a prompt past it is refused before any request
        if prompt.len() > crate::run::MAX_RUN_BYTES {
            let mut e = JudgeError::new(
                ErrorCode::CustomStep,
                format!(
                    "{step}'s createPrompt gave a prompt of {:.1} MB; the limit is {} MB, the bound of a run's input (no judge request was made)",
                    prompt.len() as f64 / 1_048_576.0,
                    crate::run::MAX_RUN_BYTES / 1_048_576
                ),
            );
            e.name = "RangeError".into();
            return Err(self.fail(step, e));
        }
        let sj = self.scorer.judges.get(judge);
        let (Some(j), Some(system)) = (
            sj.and_then(|j| j.judge.as_ref()),
            sj.and_then(|j| j.instructions.as_deref()),
        ) else {
            return Err(self.fail(
                step,
                JudgeError::new(
                    ErrorCode::InvalidOptions,
                    format!("Step \"{step}\" requires a model and instructions"),
                ),
            ));
        };
        let ctx = self.ctx.at(step);
        let (value, mut execution) = match &schema {
            Some(schema) => {
                let call = j.structured_json(system, &prompt, &ctx, schema).await;
                (call.result, call.execution)
            }
            None => {
                let call = j.text(system, &prompt, &ctx).await;
                (call.result.map(Value::String), call.execution)
            }
        };
        for w in &execution.warnings {
            self.result.warnings.push(format!("{step}: {w}"));
        }
        // a prompt score's record holds the number, as Mastra's (`output: 0.9`)
        if step == "generateScore" {
            if let Some(out) = execution.output.as_mut() {
                let n = out["score"].take();
                *out = n;
            }
        }
        self.result
            .judge
            .entry(step.to_string())
            .or_default()
            .executions
            .push(execution);
        let value = value.map_err(|e| self.fail(step, e))?;
        match step {
            "generateScore" => {
                let score = self.score_of(step, &value["score"])?;
                self.result.score = Some(score);
                self.result.generate_score_prompt = Some(prompt);
                self.keep(step, json!(score));
            }
            "generateReason" => {
                self.result.reason = self.reason_of(step, value.clone())?;
                self.result.generate_reason_prompt = Some(prompt);
                self.keep(step, value);
            }
            "preprocess" => {
                self.result.preprocess_prompt = Some(prompt);
                self.keep(step, value);
            }
            _ => {
                self.result.analyze_prompt = Some(prompt);
                self.keep(step, value);
            }
        }
        Ok(())
    }
}

impl CustomScorer {
    async fn run_inner(&self, run: RunInput, ctx: RunContext) -> Result<ScoreResult, RunError> {
        if !self.steps.iter().any(|s| s.name == "generateScore") {
            return Err(RunError::Invalid(InvalidArgument::options(
                "Cannot execute pipeline without generateScore() step",
            )));
        }
        let mut r = CustomRun {
            scorer: self,
            ctx: &ctx,
            result: ScoreResult {
                run_id: run.run_id,
                ..Default::default()
            },
            completed: Vec::new(),
            results: Map::new(),
        };
        for (i, s) in self.steps.iter().enumerate() {
            match &s.kind {
                StepKind::Function => {
                    if !r.function_step(i, s.name).await? {
                        break;
                    }
                }
                StepKind::Prompt { schema } => {
                    r.prompt_step(i, s.name, schema.clone(), s.judge.unwrap_or(0))
                        .await?
                }
            }
            r.completed.push(s.name.to_string());
            r.result.share_repeats();
        }
        let mut result = r.result;
        for j in self.judges.iter().filter_map(|j| j.judge.as_ref()) {
            scrub_result(j.redactor(), &mut result);
        }
        Ok(result)
    }
}

impl Scorer for CustomScorer {
    fn meta(&self) -> &ScorerMeta {
        &self.meta
    }

    fn meta_mut(&mut self) -> &mut ScorerMeta {
        &mut self.meta
    }

    fn judge(&self) -> Option<&Judge> {
        self.judges.iter().find_map(|j| j.judge.as_ref())
    }

    fn run<'a>(
        &'a self,
        run: RunInput,
        ctx: RunContext,
    ) -> BoxFuture<'a, Result<ScoreResult, RunError>> {
        let ctx = ctx.for_scorer(&self.meta.id, &run);
        Box::pin(self.run_inner(run, ctx))
    }
}

#[cfg(test)]
mod tests;
