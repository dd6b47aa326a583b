//! What one judge call leaves behind: the [`Execution`] record
//! (`judge[step].executions[]`, Mastra's field names) and its [`ExecutionError`], the
//! [`Call`] outcome, and a validated [`Structured`] value. A record starts `failed`
//! (`Execution::pending`) and is closed once (`Execution::finish`).

use crate::error::JudgeError;
use crate::provider::Usage;
use serde::Serialize;
use serde_json::Value;
use std::time::Instant;

/// `executions[].error`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ExecutionError {
    pub name: String,
    pub message: String,
    pub code: String,
}

/// One judge call as recorded in `judge[step].executions[]` (Mastra's field names).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Execution {
    /// `success` | `failed`.
    pub status: &'static str,
    /// The user prompt sent to the judge.
    pub prompt: String,
    /// The parsed output (object for structured steps, string for text steps).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
    pub judge_model_id: String,
    pub judge_provider: String,
    pub usage: Usage,
    /// Format attempts: 1, or 2 when the fallback ran.
    pub attempt_count: u32,
    /// HTTP requests sent, retries included.
    pub model_call_count: u32,
    pub duration_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// The judge's raw text, kept on failure only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw_output: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ExecutionError>,
    /// True when the answer came from the response cache (no HTTP call, no tokens).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cached: bool,
    /// Batch mode: the provider batch that answered this call (its id); absent for a
    /// direct call and a cache hit.
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "batch_id")]
    pub batch: Option<std::sync::Arc<str>>,
    /// The judge's reasoning (a `<think>` block or a `reasoning_content` field), never
    /// parsed as the answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// What was accepted despite a problem (e.g. `1 verdict for 3 statements`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Transport only ([`ScoreResult::share_repeats`](crate::pipeline::ScoreResult::share_repeats)):
    /// `prompt` is the step's field of this name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_of: Option<&'static str>,
    /// Transport only: `output` is the step's field of this name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_of: Option<&'static str>,
    /// The last reply's token log-probabilities, when the judge asked for them and the
    /// provider returned them (not in the result: the scorer that asked reads them).
    #[serde(skip)]
    pub logprobs: Option<std::sync::Arc<Vec<crate::provider::TokenLogprob>>>,
}

fn batch_id<S: serde::Serializer>(
    v: &Option<std::sync::Arc<str>>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match v {
        Some(id) => s.serialize_str(id),
        None => s.serialize_none(),
    }
}

/// A validated structured output: the typed value and the JSON as the judge sent it
/// (extra keys kept). Through [`Judge::structured`](super::Judge::structured) the JSON
/// moves into the execution record (`output`) and `json` is left `Null`.
#[derive(Debug, Clone)]
pub struct Structured<T> {
    pub value: T,
    pub json: Value,
}

/// The outcome of one judge call plus its record.
pub struct Call<T> {
    pub result: Result<T, JudgeError>,
    pub execution: Execution,
    /// The judge's last raw text. The record keeps it only on failure (a success has its
    /// parsed `output`), so a large reply is not held twice.
    pub raw: Option<String>,
}

impl Execution {
    /// A record of a call not made yet: `failed` until [`finish`](Self::finish) says
    /// otherwise, nothing counted.
    pub(crate) fn pending(prompt: &str, judge_model_id: &str, judge_provider: &str) -> Execution {
        Execution {
            status: "failed",
            prompt: prompt.to_string(),
            output: None,
            judge_model_id: judge_model_id.to_string(),
            judge_provider: judge_provider.to_string(),
            usage: Usage::default(),
            attempt_count: 0,
            model_call_count: 0,
            duration_ms: 0,
            finish_reason: None,
            raw_output: None,
            error: None,
            cached: false,
            batch: None,
            reasoning: None,
            warnings: Vec::new(),
            prompt_of: None,
            output_of: None,
            logprobs: None,
        }
    }

    /// Close the record with the call's outcome: status, duration, the error if any, and
    /// the judge's raw text (kept on the record on failure only).
    pub(crate) fn finish<T>(mut self, started: Instant, result: Result<T, JudgeError>) -> Call<T> {
        self.duration_ms = started.elapsed().as_millis() as u64;
        let mut raw = None;
        match &result {
            Ok(_) => {
                self.status = "success";
                raw = self.raw_output.take();
            }
            Err(e) => {
                self.status = "failed";
                // the error's own raw text (e.g. the failing fallback's HTTP body) wins over
                // an earlier attempt's reply
                if e.raw_output.is_some() {
                    self.raw_output = e.raw_output.clone();
                }
                self.error = Some(ExecutionError {
                    name: e.name.to_string(),
                    message: e.message.clone(),
                    code: e.code.as_str().to_string(),
                });
            }
        }
        if raw.is_none() {
            raw = self.raw_output.clone();
        }
        Call {
            result,
            execution: self,
            raw,
        }
    }
}
