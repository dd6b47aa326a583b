//! The judge engine: one road for every LLM call.
//! structured output (native schema or prompt-described) → provider call with retries,
//! timeouts and cancellation → lenient parse → schema validation → typed value, with ONE
//! fallback attempt (schema in the system message) on a format error. Every call leaves an
//! [`Execution`] record.

pub mod cache;
pub mod json;
pub mod limits;
pub mod retry;
pub mod schema;

use crate::error::{type_name, ErrorCode, InvalidArgument, JudgeError};
use crate::model::{ModelConfig, StructuredOutput};
use crate::provider::{
    openai::OpenAiProvider, CallError, ChatRequest, ChatResponse, Provider, Usage,
    DEFAULT_MAX_RESPONSE_BYTES,
};
use cache::ResponseCache;
use limits::{EndpointLimiter, LimitSettings};
use retry::RetryPolicy;
use schema::StepOutput;
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// Default per-call (per HTTP attempt) timeout.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// Mastra's `modelSettings` plus oxeval's reliability knobs.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelSettings {
    /// Sampling temperature; oxeval defaults to 0 for repeatable judgments.
    pub temperature: Option<f64>,
    pub max_output_tokens: Option<u32>,
    pub retry: RetryPolicy,
    /// Per HTTP attempt.
    pub timeout: Duration,
    /// Per-endpoint concurrency and rate budgets.
    pub limits: LimitSettings,
}

impl Default for ModelSettings {
    fn default() -> Self {
        ModelSettings {
            temperature: Some(0.0),
            max_output_tokens: None,
            retry: RetryPolicy::default(),
            timeout: DEFAULT_TIMEOUT,
            limits: LimitSettings::default(),
        }
    }
}

/// Read a non-negative number option; `None` when absent/null/undefined.
pub fn opt_number(obj: &Value, key: &str, path: &str) -> Result<Option<f64>, InvalidArgument> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => match n.as_f64() {
            Some(f) if f.is_finite() => Ok(Some(f)),
            _ => Err(InvalidArgument::options(format!(
                "{path}.{key} must be a finite number"
            ))),
        },
        Some(other) => Err(InvalidArgument::options(format!(
            "{path}.{key} must be a number; got {}",
            type_name(other)
        ))),
    }
}

/// Read a non-negative integer option.
pub fn opt_uint(obj: &Value, key: &str, path: &str) -> Result<Option<u64>, InvalidArgument> {
    match opt_number(obj, key, path)? {
        None => Ok(None),
        Some(f) if f >= 0.0 && f.fract() == 0.0 && f <= u32::MAX as f64 => Ok(Some(f as u64)),
        Some(f) => Err(InvalidArgument::options(format!(
            "{path}.{key} must be a non-negative integer; got {f}"
        ))),
    }
}

impl ModelSettings {
    /// Parse `modelSettings` (`{ temperature, maxOutputTokens, maxRetries, timeoutMs,
    /// retryDelayMs }`); absent keys keep the defaults.
    pub fn from_value(v: Option<&Value>) -> Result<Self, InvalidArgument> {
        let mut s = ModelSettings::default();
        let Some(v) = v.filter(|v| !v.is_null()) else {
            return Ok(s);
        };
        if !v.is_object() {
            return Err(InvalidArgument::options(format!(
                "options.modelSettings must be an object; got {}",
                type_name(v)
            )));
        }
        let path = "options.modelSettings";
        if let Some(t) = opt_number(v, "temperature", path)? {
            if !(0.0..=2.0).contains(&t) {
                return Err(InvalidArgument::options(format!(
                    "{path}.temperature must be between 0 and 2; got {t}"
                )));
            }
            s.temperature = Some(t);
        }
        if let Some(n) = opt_uint(v, "maxOutputTokens", path)? {
            if n == 0 {
                return Err(InvalidArgument::options(format!(
                    "{path}.maxOutputTokens must be at least 1"
                )));
            }
            s.max_output_tokens = Some(n as u32);
        }
        if let Some(n) = opt_uint(v, "maxRetries", path)? {
            s.retry.max_retries = n.min(100) as u32;
        }
        if let Some(ms) = opt_uint(v, "timeoutMs", path)? {
            if ms == 0 {
                return Err(InvalidArgument::options(format!(
                    "{path}.timeoutMs must be at least 1"
                )));
            }
            s.timeout = Duration::from_millis(ms);
        }
        if let Some(ms) = opt_uint(v, "retryDelayMs", path)? {
            s.retry.base_delay = Duration::from_millis(ms);
        }
        if let Some(n) = opt_uint(v, "maxConcurrency", path)? {
            if n == 0 {
                return Err(InvalidArgument::options(format!(
                    "{path}.maxConcurrency must be at least 1"
                )));
            }
            s.limits.max_concurrency = n as u32;
        }
        for (key, slot) in [("rpm", &mut s.limits.rpm), ("tpm", &mut s.limits.tpm)] {
            if let Some(n) = opt_uint(v, key, path)? {
                if n == 0 {
                    return Err(InvalidArgument::options(format!(
                        "{path}.{key} must be at least 1"
                    )));
                }
                *slot = Some(n as u32);
            }
        }
        Ok(s)
    }
}

/// Per-run control: cancellation and an optional overall deadline.
#[derive(Debug, Clone, Default)]
pub struct RunContext {
    pub cancel: CancellationToken,
    pub deadline: Option<tokio::time::Instant>,
}

impl RunContext {
    /// Resolves when the deadline passes; never without one.
    async fn deadline_passed(&self) {
        match self.deadline {
            Some(d) => tokio::time::sleep_until(d).await,
            None => std::future::pending().await,
        }
    }

    fn remaining(&self) -> Option<Duration> {
        self.deadline
            .map(|d| d.saturating_duration_since(tokio::time::Instant::now()))
    }
}

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
    /// The judge's raw text, kept on failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw_output: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ExecutionError>,
    /// True when the answer came from the response cache (no HTTP call, no tokens).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cached: bool,
}

/// A validated structured output: the typed value and the JSON as the judge sent it
/// (extra keys kept).
#[derive(Debug, Clone)]
pub struct Structured<T> {
    pub value: T,
    pub json: Value,
}

/// The outcome of one judge call plus its record.
pub struct Call<T> {
    pub result: Result<T, JudgeError>,
    pub execution: Execution,
}

/// A resolved judge: provider + model + settings. Built once per scorer.
pub struct Judge {
    provider: Arc<dyn Provider>,
    model: ModelConfig,
    settings: ModelSettings,
    limiter: Arc<EndpointLimiter>,
    cache: Option<ResponseCache>,
    /// Where requests go (provider, base URL, custom headers): part of every cache key.
    cache_scope: String,
}

impl Judge {
    pub fn new(model: ModelConfig, settings: ModelSettings) -> Judge {
        let key = model.api_key.clone().ok().flatten();
        let provider = Arc::new(OpenAiProvider::new(&model, key));
        Self::with_provider(provider, model, settings)
    }

    /// A judge over any provider (tests, JS model objects).
    pub fn with_provider(
        provider: Arc<dyn Provider>,
        model: ModelConfig,
        settings: ModelSettings,
    ) -> Judge {
        let endpoint = format!("{}#{}", model.base_url, model.model_id);
        let limiter = EndpointLimiter::shared(&endpoint, settings.limits);
        let cache_scope = ResponseCache::scope(&model.provider_id, &model.base_url, &model.headers);
        Judge {
            provider,
            model,
            settings,
            limiter,
            cache: None,
            cache_scope,
        }
    }

    /// Enable (or disable) the response cache for this judge.
    pub fn with_cache(mut self, cache: Option<ResponseCache>) -> Judge {
        self.cache = cache;
        self
    }

    /// The endpoint limiter this judge shares with others (diagnostics/tests).
    pub fn limiter(&self) -> &Arc<EndpointLimiter> {
        &self.limiter
    }

    /// `provider/model` as configured (shown as `scorer.judge.model`).
    pub fn model_ref(&self) -> &str {
        &self.model.id
    }

    pub fn settings(&self) -> &ModelSettings {
        &self.settings
    }

    fn new_execution(&self, prompt: &str) -> Execution {
        Execution {
            status: "failed",
            prompt: prompt.to_string(),
            output: None,
            judge_model_id: self.provider.model_id().to_string(),
            judge_provider: self.provider.name().to_string(),
            usage: Usage::default(),
            attempt_count: 0,
            model_call_count: 0,
            duration_ms: 0,
            finish_reason: None,
            raw_output: None,
            error: None,
            cached: false,
        }
    }

    fn finish<T>(
        &self,
        mut exec: Execution,
        started: Instant,
        result: Result<T, JudgeError>,
    ) -> Call<T> {
        exec.duration_ms = started.elapsed().as_millis() as u64;
        match &result {
            Ok(_) => exec.status = "success",
            Err(e) => {
                exec.status = "failed";
                // the error's own raw text (e.g. the failing fallback's HTTP body) wins over
                // an earlier attempt's reply
                if e.raw_output.is_some() {
                    exec.raw_output = e.raw_output.clone();
                }
                exec.error = Some(ExecutionError {
                    name: e.name.to_string(),
                    message: e.message.clone(),
                    code: e.code.as_str().to_string(),
                });
            }
        }
        Call {
            result,
            execution: exec,
        }
    }

    /// Ask for a `T`; see the module docs for the attempt sequence.
    pub async fn structured<T: StepOutput>(
        &self,
        system: &str,
        prompt: &str,
        ctx: &RunContext,
    ) -> Call<Structured<T>> {
        let started = Instant::now();
        let mut exec = self.new_execution(prompt);
        let result = self
            .structured_inner::<T>(system, prompt, ctx, &mut exec)
            .await;
        if let Ok(s) = &result {
            exec.output = Some(s.json.clone());
        }
        self.finish(exec, started, result)
    }

    async fn structured_inner<T: StepOutput>(
        &self,
        system: &str,
        prompt: &str,
        ctx: &RunContext,
        exec: &mut Execution,
    ) -> Result<Structured<T>, JudgeError> {
        let schema = T::schema();
        let schema_text = &schema.prompt_text;
        let native = self.model.structured == StructuredOutput::JsonSchema;
        let first = ChatRequest {
            system: if native {
                system.to_string()
            } else {
                format!("{system}\n\n{schema_text}")
            },
            user: prompt.to_string(),
            schema: native.then(|| (schema.name, schema.wire.clone())),
            temperature: self.settings.temperature,
            max_tokens: self.settings.max_output_tokens,
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
        };
        exec.attempt_count = 1;
        let (resp, key) = self.send(&first, ctx, exec).await?;
        // Output cut off by the token budget is never accepted, even when the lenient parser
        // could "repair" it: a repaired list would silently drop items.
        let truncated = is_truncated(&resp);
        let problem = if truncated {
            "it was cut off before it ended (finish_reason 'length')".to_string()
        } else {
            match decode::<T>(&resp.text) {
                Ok(s) => {
                    self.remember(key, &resp).await;
                    return Ok(s);
                }
                Err(problem) => problem,
            }
        };
        // The one fallback: schema in the system message, no native response_format, the
        // reason for the rejection stated, and twice the output budget if we were cut off.
        let fallback = ChatRequest {
            system: format!("{system}\n\n{schema_text}"),
            user: format!(
                "{prompt}\n\nA previous answer to this request was rejected ({problem}). Reply again with the JSON value only."
            ),
            schema: None,
            temperature: self.settings.temperature,
            max_tokens: if truncated {
                Some(self.settings.max_output_tokens.map_or(4096, |n| n.saturating_mul(2)))
            } else {
                self.settings.max_output_tokens
            },
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
        };
        exec.attempt_count = 2;
        let (resp2, key2) = self.send(&fallback, ctx, exec).await?;
        if is_truncated(&resp2) {
            return Err(JudgeError::new(
                ErrorCode::JudgeTruncated,
                format!(
                    "the judge's output was truncated (finish_reason 'length'){}; raise modelSettings.maxOutputTokens",
                    if truncated { " twice, the second time with twice the output budget" } else { " on the fallback attempt" }
                ),
            )
            .with_raw(resp2.text.clone()));
        }
        match decode::<T>(&resp2.text) {
            Ok(s) => {
                self.remember(key2, &resp2).await;
                Ok(s)
            }
            Err(problem2) => Err(JudgeError::new(
                ErrorCode::JudgeOutput,
                format!(
                    "the judge's output does not match the schema '{}' (first attempt: {problem}; fallback attempt: {problem2})",
                    schema.name
                ),
            )
            .with_raw(resp2.text.clone())),
        }
    }

    /// Ask for free text (e.g. a reason). Empty text gets one more attempt; text cut off by
    /// the output budget (`finish_reason: length`) gets one more attempt with twice the budget.
    pub async fn text(&self, system: &str, prompt: &str, ctx: &RunContext) -> Call<String> {
        let started = Instant::now();
        let mut exec = self.new_execution(prompt);
        let mut req = ChatRequest {
            system: system.to_string(),
            user: prompt.to_string(),
            schema: None,
            temperature: self.settings.temperature,
            max_tokens: self.settings.max_output_tokens,
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
        };
        let mut result = Err(JudgeError::new(
            ErrorCode::JudgeOutput,
            "no attempt was made",
        ));
        let mut problems: Vec<&str> = Vec::new();
        for attempt in 1..=2 {
            exec.attempt_count = attempt;
            match self.send(&req, ctx, &mut exec).await {
                Ok((resp, _)) if is_truncated(&resp) => {
                    req.max_tokens = Some(req.max_tokens.map_or(4096, |n| n.saturating_mul(2)));
                    problems.push("truncated (finish_reason 'length')");
                    let code = if problems.iter().all(|p| p.starts_with("truncated")) {
                        ErrorCode::JudgeTruncated
                    } else {
                        ErrorCode::JudgeOutput
                    };
                    result =
                        Err(JudgeError::new(code, text_problem(&problems)).with_raw(resp.text));
                }
                Ok((resp, key)) if !resp.text.trim().is_empty() => {
                    let text = resp.text.trim().to_string();
                    self.remember(key, &resp).await;
                    exec.output = Some(Value::String(text.clone()));
                    result = Ok(text);
                    break;
                }
                Ok(_) => {
                    problems.push("empty");
                    result = Err(JudgeError::new(
                        ErrorCode::JudgeOutput,
                        text_problem(&problems),
                    ));
                }
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        self.finish(exec, started, result)
    }

    async fn remember(&self, key: Option<String>, resp: &ChatResponse) {
        if let (Some(cache), Some(key)) = (&self.cache, key) {
            cache.put(&key, resp).await;
        }
    }

    /// One logical request: cache lookup, then HTTP attempts with admission control, retries,
    /// timeouts, deadline and cancellation. Returns the response and, when caching is on and
    /// this was not a hit, the key under which the caller stores it once it is validated.
    async fn send(
        &self,
        req: &ChatRequest,
        ctx: &RunContext,
        exec: &mut Execution,
    ) -> Result<(ChatResponse, Option<String>), JudgeError> {
        let key = self
            .cache
            .as_ref()
            .map(|_| ResponseCache::key(&self.cache_scope, self.provider.model_id(), req));
        if let (Some(cache), Some(k)) = (&self.cache, &key) {
            if let Some(hit) = cache.get(k).await {
                exec.cached = true;
                exec.usage.add(&hit.usage);
                exec.finish_reason = hit.finish_reason.clone();
                exec.raw_output = Some(hit.text.clone());
                return Ok((hit, None));
            }
        }
        if let Err(missing) = &self.model.api_key {
            return Err(missing.clone());
        }
        self.send_http(req, ctx, exec).await.map(|r| (r, key))
    }

    async fn send_http(
        &self,
        req: &ChatRequest,
        ctx: &RunContext,
        exec: &mut Execution,
    ) -> Result<ChatResponse, JudgeError> {
        let prompt_tokens =
            u32::try_from((req.system.len() + req.user.len()) / 4).unwrap_or(u32::MAX);
        let est_tokens =
            prompt_tokens.saturating_add(self.settings.max_output_tokens.unwrap_or(256));
        let policy = self.settings.retry;
        let mut retry = 0u32;
        loop {
            if ctx.cancel.is_cancelled() {
                return Err(aborted());
            }
            let mut timeout = self.settings.timeout;
            if let Some(rem) = ctx.remaining() {
                if rem.is_zero() {
                    return Err(deadline_error());
                }
                timeout = timeout.min(rem);
            }
            let permit = tokio::select! {
                p = self.limiter.acquire(est_tokens) => p,
                _ = ctx.cancel.cancelled() => return Err(aborted()),
                _ = ctx.deadline_passed() => return Err(deadline_error()),
            };
            // time spent queueing counts against the deadline, not the attempt timeout
            if let Some(rem) = ctx.remaining() {
                if rem.is_zero() {
                    return Err(deadline_error());
                }
                timeout = timeout.min(rem);
            }
            exec.model_call_count += 1;
            let outcome = tokio::select! {
                r = self.provider.complete(req, timeout) => r,
                _ = ctx.cancel.cancelled() => return Err(aborted()),
            };
            drop(permit);
            match &outcome {
                Ok(_) => self.limiter.on_success(),
                Err(CallError::Http { status: 429, .. }) => self.limiter.on_rate_limited(),
                Err(_) => {}
            }
            match outcome {
                Ok(resp) => {
                    exec.usage.add(&resp.usage);
                    exec.finish_reason = resp.finish_reason.clone();
                    exec.raw_output = Some(resp.text.clone());
                    return Ok(resp);
                }
                Err(err) => {
                    let hint = match &err {
                        CallError::Http { retry_after, .. } => *retry_after,
                        _ => None,
                    };
                    // Out of time: say so (a timed-out attempt clamped by the deadline is
                    // the deadline's doing, not the judge's).
                    if ctx.remaining().is_some_and(|r| r.is_zero()) {
                        return Err(deadline_error());
                    }
                    if retry < policy.max_retries && RetryPolicy::is_retryable(&err) {
                        let wait = policy.delay(retry, hint);
                        if ctx.remaining().is_some_and(|rem| rem <= wait) {
                            let cause = self.call_error(err, retry + 1);
                            return Err(JudgeError::new(
                                ErrorCode::Deadline,
                                format!(
                                    "the run's deadline leaves no time to retry after: {}",
                                    cause.message
                                ),
                            ));
                        }
                        tokio::select! {
                            _ = tokio::time::sleep(wait) => {}
                            _ = ctx.cancel.cancelled() => return Err(aborted()),
                        }
                        retry += 1;
                        continue;
                    }
                    return Err(self.call_error(err, retry + 1));
                }
            }
        }
    }

    /// A user-facing error for a failed call (never contains the API key).
    fn call_error(&self, err: CallError, attempts: u32) -> JudgeError {
        let model = &self.model.id;
        let tries = if attempts == 1 {
            "1 attempt".to_string()
        } else {
            format!("{attempts} attempts")
        };
        let e = match err {
            CallError::Http { status, body, .. } => {
                let detail = error_detail(&body);
                let what = match status {
                    400 => "rejected the request as invalid (HTTP 400)",
                    401 => "rejected the API key (HTTP 401): check the key for this provider",
                    403 => "refused access (HTTP 403): the key lacks permission for this model",
                    404 => "does not know this model or URL (HTTP 404): check the model id and base URL",
                    408 => "timed out the request (HTTP 408)",
                    429 => "is rate limiting (HTTP 429)",
                    s if s >= 500 => "failed with a server error",
                    _ => "answered with an error",
                };
                let msg = if status >= 500 || !what.contains("HTTP") {
                    format!("judge {model} {what} (HTTP {status}) after {tries}: {detail}")
                } else {
                    format!("judge {model} {what} after {tries}: {detail}")
                };
                JudgeError::new(ErrorCode::JudgeHttp, msg).with_status(status).with_raw(body)
            }
            CallError::Network(m) => JudgeError::new(
                ErrorCode::JudgeNetwork,
                format!("could not reach judge {model} at {} after {tries}: {m}", self.model.base_url),
            ),
            CallError::Timeout(t) => JudgeError::new(
                ErrorCode::JudgeTimeout,
                format!("judge {model} did not answer within {} ms (modelSettings.timeoutMs) after {tries}", t.as_millis()),
            ),
            CallError::BadResponse { message, body } => JudgeError::new(ErrorCode::JudgeOutput, format!("judge {model}: {message} (after {tries})")).with_raw(body),
            e @ CallError::TooLarge { .. } => JudgeError::new(ErrorCode::JudgeOutput, format!("judge {model}: {e} (after {tries})")),
            e @ CallError::Redirect { status, .. } => JudgeError::new(ErrorCode::JudgeHttp, format!("judge {model}: {e} (after {tries})")).with_status(status),
        };
        redact(
            e,
            self.model
                .api_key
                .as_ref()
                .ok()
                .and_then(|k| k.as_ref())
                .map(|k| k.expose()),
        )
    }
}

/// "the judge's text was truncated (…) on attempt 1 and empty on attempt 2; …".
fn text_problem(problems: &[&str]) -> String {
    let parts: Vec<String> = problems
        .iter()
        .enumerate()
        .map(|(i, p)| format!("{p} on attempt {}", i + 1))
        .collect();
    let hint = if problems.iter().any(|p| p.starts_with("truncated")) {
        "; the second attempt had twice the output budget: raise modelSettings.maxOutputTokens"
    } else {
        ""
    };
    format!("the judge's text was {}{hint}", parts.join(" and "))
}

fn is_truncated(resp: &ChatResponse) -> bool {
    resp.finish_reason.as_deref() == Some("length")
}

fn aborted() -> JudgeError {
    JudgeError::new(ErrorCode::Aborted, "the run was aborted")
}

fn deadline_error() -> JudgeError {
    JudgeError::new(
        ErrorCode::Deadline,
        "the run's deadline passed before the judge answered",
    )
}

/// Strip any occurrence of the key from messages/bodies a provider echoed back.
fn redact(mut e: JudgeError, key: Option<&str>) -> JudgeError {
    if let Some(key) = key.filter(|k| k.len() >= 4) {
        e.message = e.message.replace(key, "***");
        e.raw_output = e.raw_output.map(|r| r.replace(key, "***"));
    }
    e
}

/// The provider's error message from an error body (`{error: {message}}`), else the body.
fn error_detail(body: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let msg = parsed.as_ref().and_then(|v| {
        v.pointer("/error/message")
            .or_else(|| v.get("message"))
            .or_else(|| v.get("error"))
            .and_then(Value::as_str)
            .map(str::to_owned)
    });
    let text = msg.unwrap_or_else(|| body.trim().to_string());
    if text.is_empty() {
        "(empty body)".into()
    } else if text.chars().count() > 300 {
        format!("{}…", text.chars().take(300).collect::<String>())
    } else {
        text
    }
}

/// Lenient parse → schema validation → typed value.
pub fn decode<T: StepOutput>(text: &str) -> Result<Structured<T>, String> {
    let json = json::extract_json(text).ok_or_else(|| {
        if text.trim().is_empty() {
            "the output was empty".to_string()
        } else {
            "no JSON object found in the output".to_string()
        }
    })?;
    T::schema().validate(&json)?;
    let value = serde_json::from_value::<T>(json.clone()).map_err(|e| e.to_string())?;
    value.check()?;
    Ok(Structured { value, json })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn settings_parse() {
        assert_eq!(
            ModelSettings::from_value(None).unwrap(),
            ModelSettings::default()
        );
        let s = ModelSettings::from_value(Some(&json!({"temperature": 0.5, "maxOutputTokens": 256, "maxRetries": 0, "timeoutMs": 1500}))).unwrap();
        assert_eq!(s.temperature, Some(0.5));
        assert_eq!(s.max_output_tokens, Some(256));
        assert_eq!(s.retry.max_retries, 0);
        assert_eq!(s.timeout, Duration::from_millis(1500));
        for (bad, want) in [
            (json!(5), "must be an object"),
            (
                json!({"temperature": "hot"}),
                "temperature must be a number",
            ),
            (json!({"temperature": 3}), "between 0 and 2"),
            (json!({"maxRetries": -1}), "non-negative integer"),
            (json!({"maxRetries": 1.5}), "non-negative integer"),
            (json!({"timeoutMs": 0}), "at least 1"),
        ] {
            let e = ModelSettings::from_value(Some(&bad)).unwrap_err();
            assert!(e.message.contains(want), "{bad}: {}", e.message);
        }
    }

    #[test]
    fn error_details() {
        assert_eq!(
            error_detail(r#"{"error":{"message":"Invalid key","type":"x"}}"#),
            "Invalid key"
        );
        assert_eq!(error_detail("plain failure"), "plain failure");
        assert_eq!(error_detail(""), "(empty body)");
        let e = redact(
            JudgeError::new(ErrorCode::JudgeHttp, "bad key sk-secret-123")
                .with_raw("{\"key\":\"sk-secret-123\"}"),
            Some("sk-secret-123"),
        );
        assert!(
            !e.message.contains("sk-secret-123")
                && !e.raw_output.unwrap().contains("sk-secret-123")
        );
    }
}
