//! The one error model of the core. Every failure a user can see is one of these; the
//! binding converts them to JS (TypeError / ScorerRunError) in exactly one place.

use serde::Serialize;

/// Stable machine-readable codes (exposed to JS as `error.code`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ErrorCode {
    /// Wrong argument types or missing required run fields (a TypeError in JS).
    #[serde(rename = "OXEVAL_INVALID_INPUT")]
    InvalidInput,
    /// Invalid factory options (a TypeError in JS).
    #[serde(rename = "OXEVAL_INVALID_OPTIONS")]
    InvalidOptions,
    /// The provider's API key is not configured; no request was sent.
    #[serde(rename = "OXEVAL_MISSING_API_KEY")]
    MissingApiKey,
    /// The judge answered with a non-success HTTP status.
    #[serde(rename = "OXEVAL_JUDGE_HTTP")]
    JudgeHttp,
    /// The judge could not be reached or the connection broke.
    #[serde(rename = "OXEVAL_JUDGE_NETWORK")]
    JudgeNetwork,
    /// A judge call exceeded its timeout.
    #[serde(rename = "OXEVAL_JUDGE_TIMEOUT")]
    JudgeTimeout,
    /// The judge answered, but its output could not be parsed/validated (after the fallback).
    #[serde(rename = "OXEVAL_JUDGE_OUTPUT")]
    JudgeOutput,
    /// The judge's output was cut off (`finish_reason = length`).
    #[serde(rename = "OXEVAL_JUDGE_TRUNCATED")]
    JudgeTruncated,
    /// The judge refused to answer (a `refusal` instead of content), after the fallback.
    #[serde(rename = "OXEVAL_JUDGE_REFUSAL")]
    JudgeRefusal,
    /// The judge's response body was larger than `modelSettings.maxResponseBytes`.
    #[serde(rename = "OXEVAL_JUDGE_RESPONSE_TOO_LARGE")]
    JudgeTooLarge,
    /// A judge model supplied as a JS object or function threw or rejected.
    #[serde(rename = "OXEVAL_JUDGE_MODEL")]
    JudgeModel,
    /// The `contextExtractor` callback threw or rejected.
    #[serde(rename = "OXEVAL_CONTEXT_EXTRACTOR")]
    ContextExtractor,
    /// A custom scorer's step (a function step, or a prompt step's `createPrompt`) threw,
    /// did not settle within the callback bound, or returned what the step cannot use (a
    /// score that is not a finite number, a prompt that is not a string).
    #[serde(rename = "OXEVAL_CUSTOM_STEP")]
    CustomStep,
    /// The run was cancelled by the caller.
    #[serde(rename = "OXEVAL_ABORTED")]
    Aborted,
    /// The run's overall deadline passed.
    #[serde(rename = "OXEVAL_DEADLINE")]
    Deadline,
    /// runEvals: an item's target did not settle within `targetTimeoutMs` (a target error of
    /// that item; its signal was aborted).
    #[serde(rename = "OXEVAL_TARGET_TIMEOUT")]
    TargetTimeout,
    /// runEvals: an `onItemComplete` call did not settle within `callbackTimeoutMs` (the run
    /// rejects). A scorer callback past it (contextExtractor, getContext) is
    /// `OXEVAL_CONTEXT_EXTRACTOR`, a failure of its step.
    #[serde(rename = "OXEVAL_CALLBACK_TIMEOUT")]
    CallbackTimeout,
    /// The judge's valid answers did not allow a score (e.g. no valid rating from any judge).
    #[serde(rename = "OXEVAL_NO_VALID_JUDGMENT")]
    NoValidJudgment,
    /// `cache.mode` is `replay` and no reply is recorded for a judge request; none was
    /// sent. The message names the call (scorer, step, item) and why its key differs.
    #[serde(rename = "OXEVAL_CACHE_MISS")]
    CacheMiss,
    /// runEvals stopped before it ran this item: the first runs of a scorer all failed the
    /// same persistent way (no API key, no judge at that address, a rejected key or an
    /// unknown model), which retrying cannot change.
    #[serde(rename = "OXEVAL_RUN_STOPPED")]
    RunStopped,
    /// runEvals did not run this item: the run's judge spend (priced from usage as billed,
    /// batch discount included) would have passed `maxCost` / `--max-cost` had it started.
    #[serde(rename = "OXEVAL_BUDGET_EXHAUSTED")]
    BudgetExhausted,
    /// Batch mode: a provider's batch API refused or failed a batch (create, retrieve,
    /// results), the whole batch failed, or a line stayed without an answer after its
    /// retries. The message carries the provider's own.
    #[serde(rename = "OXEVAL_BATCH_FAILED")]
    BatchFailed,
    /// Batch mode: the batch did not end within `batch.maxWaitMs`. It stays recorded in
    /// `<cache dir>/batches/`; a rerun with the same cache continues polling it.
    #[serde(rename = "OXEVAL_BATCH_TIMEOUT")]
    BatchTimeout,
    /// Batch mode with `detach`: the request was submitted (or is still running) in a
    /// recorded batch and the run did not wait; a rerun with the same cache collects it.
    #[serde(rename = "OXEVAL_BATCH_PENDING")]
    BatchPending,
    /// A `matches` check's pattern did not finish within its budget on a run's output
    /// (catastrophic backtracking; `OXEVAL_PATTERN_BUDGET_MS`, default 1 s), or earlier
    /// such tests still hold every pattern worker. The run fails at `preprocess`.
    #[serde(rename = "OXEVAL_PATTERN_BUDGET")]
    PatternBudget,
    /// An embedder's reply is not one finite vector of one dimension per text.
    #[serde(rename = "OXEVAL_EMBED_OUTPUT")]
    EmbedOutput,
    /// A bug in oxeval (a caught panic). Please report it.
    #[serde(rename = "OXEVAL_INTERNAL")]
    Internal,
}

impl ErrorCode {
    /// Every code (the TypeScript `OxevalErrorCode` union is generated from this).
    pub const ALL: &'static [ErrorCode] = &[
        ErrorCode::InvalidInput,
        ErrorCode::InvalidOptions,
        ErrorCode::MissingApiKey,
        ErrorCode::JudgeHttp,
        ErrorCode::JudgeNetwork,
        ErrorCode::JudgeTimeout,
        ErrorCode::JudgeOutput,
        ErrorCode::JudgeTruncated,
        ErrorCode::JudgeRefusal,
        ErrorCode::JudgeTooLarge,
        ErrorCode::JudgeModel,
        ErrorCode::ContextExtractor,
        ErrorCode::CustomStep,
        ErrorCode::Aborted,
        ErrorCode::Deadline,
        ErrorCode::TargetTimeout,
        ErrorCode::CallbackTimeout,
        ErrorCode::NoValidJudgment,
        ErrorCode::CacheMiss,
        ErrorCode::RunStopped,
        ErrorCode::BudgetExhausted,
        ErrorCode::BatchFailed,
        ErrorCode::BatchTimeout,
        ErrorCode::BatchPending,
        ErrorCode::PatternBudget,
        ErrorCode::EmbedOutput,
        ErrorCode::Internal,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidInput => "OXEVAL_INVALID_INPUT",
            ErrorCode::InvalidOptions => "OXEVAL_INVALID_OPTIONS",
            ErrorCode::MissingApiKey => "OXEVAL_MISSING_API_KEY",
            ErrorCode::JudgeHttp => "OXEVAL_JUDGE_HTTP",
            ErrorCode::JudgeNetwork => "OXEVAL_JUDGE_NETWORK",
            ErrorCode::JudgeTimeout => "OXEVAL_JUDGE_TIMEOUT",
            ErrorCode::JudgeOutput => "OXEVAL_JUDGE_OUTPUT",
            ErrorCode::JudgeTruncated => "OXEVAL_JUDGE_TRUNCATED",
            ErrorCode::JudgeRefusal => "OXEVAL_JUDGE_REFUSAL",
            ErrorCode::JudgeTooLarge => "OXEVAL_JUDGE_RESPONSE_TOO_LARGE",
            ErrorCode::JudgeModel => "OXEVAL_JUDGE_MODEL",
            ErrorCode::ContextExtractor => "OXEVAL_CONTEXT_EXTRACTOR",
            ErrorCode::CustomStep => "OXEVAL_CUSTOM_STEP",
            ErrorCode::Aborted => "OXEVAL_ABORTED",
            ErrorCode::Deadline => "OXEVAL_DEADLINE",
            ErrorCode::TargetTimeout => "OXEVAL_TARGET_TIMEOUT",
            ErrorCode::CallbackTimeout => "OXEVAL_CALLBACK_TIMEOUT",
            ErrorCode::NoValidJudgment => "OXEVAL_NO_VALID_JUDGMENT",
            ErrorCode::CacheMiss => "OXEVAL_CACHE_MISS",
            ErrorCode::RunStopped => "OXEVAL_RUN_STOPPED",
            ErrorCode::BudgetExhausted => "OXEVAL_BUDGET_EXHAUSTED",
            ErrorCode::BatchFailed => "OXEVAL_BATCH_FAILED",
            ErrorCode::BatchTimeout => "OXEVAL_BATCH_TIMEOUT",
            ErrorCode::BatchPending => "OXEVAL_BATCH_PENDING",
            ErrorCode::PatternBudget => "OXEVAL_PATTERN_BUDGET",
            ErrorCode::EmbedOutput => "OXEVAL_EMBED_OUTPUT",
            ErrorCode::Internal => "OXEVAL_INTERNAL",
        }
    }

    /// The code of its string form.
    pub fn parse(s: &str) -> Option<ErrorCode> {
        Self::ALL.iter().copied().find(|c| c.as_str() == s)
    }

    /// Errors that are the caller's fault and surface as a JS `TypeError`.
    pub fn is_type_error(self) -> bool {
        matches!(self, ErrorCode::InvalidInput | ErrorCode::InvalidOptions)
    }
}

/// A failure of one judge call (after retries and the format fallback).
#[derive(Debug, Clone, Serialize, thiserror::Error)]
#[serde(rename_all = "camelCase")]
#[error("{message}")]
pub struct JudgeError {
    /// Error class name shown in `judge[step].executions[].error.name`.
    pub name: std::borrow::Cow<'static, str>,
    pub code: ErrorCode,
    pub message: String,
    /// HTTP status when the judge answered with one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// The judge's raw text (or error body) when there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw_output: Option<String>,
}

impl JudgeError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        let name = match code {
            ErrorCode::JudgeHttp => "JudgeHttpError",
            ErrorCode::JudgeNetwork => "JudgeNetworkError",
            ErrorCode::JudgeTimeout => "JudgeTimeoutError",
            ErrorCode::JudgeOutput => "JudgeOutputError",
            ErrorCode::JudgeTruncated => "JudgeTruncatedError",
            ErrorCode::JudgeRefusal => "JudgeRefusalError",
            ErrorCode::JudgeTooLarge => "JudgeResponseTooLargeError",
            ErrorCode::MissingApiKey => "MissingApiKeyError",
            ErrorCode::Aborted => "AbortError",
            ErrorCode::Deadline => "DeadlineError",
            ErrorCode::NoValidJudgment => "NoValidJudgmentError",
            ErrorCode::CacheMiss => "CacheMissError",
            _ => "Error",
        };
        JudgeError {
            name: name.into(),
            code,
            message: message.into(),
            status: None,
            raw_output: None,
        }
    }

    pub fn with_status(mut self, status: u16) -> Self {
        self.status = Some(status);
        self
    }

    pub fn with_raw(mut self, raw: impl Into<String>) -> Self {
        self.raw_output = Some(raw.into());
        self
    }
}

/// A wrong argument (JS TypeError) detected before any judge call.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct InvalidArgument {
    pub code: ErrorCode,
    pub message: String,
}

impl InvalidArgument {
    pub fn input(message: impl Into<String>) -> Self {
        Self {
            code: ErrorCode::InvalidInput,
            message: message.into(),
        }
    }
    pub fn options(message: impl Into<String>) -> Self {
        Self {
            code: ErrorCode::InvalidOptions,
            message: message.into(),
        }
    }
}

/// A describing-name for a JSON value's type, for error messages ("got number").
pub fn type_name(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "boolean",
        serde_json::Value::Number(_) => "number",
        serde_json::Value::String(_) => "string",
        serde_json::Value::Array(_) => "array",
        serde_json::Value::Object(_) => "object",
    }
}
