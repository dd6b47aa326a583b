//! Providers turn one chat request into one HTTP call in their wire format. They know
//! nothing about scorers, retries or parsing: that is the engine's job.
//!
//! [`for_model`] picks the provider of a model: [`openai`] (OpenAI chat completions and
//! Azure OpenAI), [`anthropic`] (Messages), [`google`] (Gemini `generateContent`). The HTTP
//! road they share (redirect policy, bounded bodies, error bodies, retry hints) is
//! [`post`]. [`external`] is the host's model (an AI SDK object or a function).

pub mod anthropic;
pub mod embed;
pub mod external;
pub mod google;
pub mod openai;

use crate::model::{ModelConfig, Secret, Wire};
use crate::redact::{display_url, Redactor};
use futures::future::BoxFuture;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, LOCATION};
use serde::Serialize;
use serde_json::Value;
use std::fmt;
use std::sync::{Arc, LazyLock};
use std::time::{Duration, SystemTime};

/// Default for [`ChatRequest::max_response_bytes`]: 8 MiB (a judge's answer is a few KB).
pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 8 * 1024 * 1024;

/// At most this much of an error body is read or kept: a non-2xx body, or the body of a
/// 2xx answer that is not a usable chat completion ([`CallError::BadResponse`]).
pub const MAX_ERROR_BODY_BYTES: usize = 64 * 1024;

/// Same-origin redirects followed per request before giving up ([`CallError::Redirect`]).
pub const MAX_REDIRECTS: usize = 5;

/// One judge request, provider-neutral.
#[derive(Debug, Clone)]
pub struct ChatRequest {
    pub system: String,
    pub user: String,
    /// Native structured output: (schema name, strict JSON schema).
    pub schema: Option<(&'static str, Arc<Value>)>,
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
    /// Largest 2xx response body accepted, in bytes (normally
    /// [`DEFAULT_MAX_RESPONSE_BYTES`]). A larger body, or a larger announced
    /// `Content-Length`, fails with [`CallError::TooLarge`]; 0 rejects any non-empty body.
    pub max_response_bytes: usize,
    /// Ask for the answer's token log-probabilities (OpenAI `logprobs` / `top_logprobs`,
    /// Gemini `responseLogprobs` / `logprobs`); providers without them ignore it.
    pub logprobs: bool,
}

/// How many alternatives per token are asked for when `logprobs` is set.
pub const TOP_LOGPROBS: u32 = 20;

/// One token of the answer with its log-probability and the most likely alternatives at its
/// position (token text, log-probability), as the provider returned them.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenLogprob {
    pub token: String,
    pub logprob: f64,
    pub top: Vec<(String, f64)>,
}

/// `modelSettings.reasoningEffort`: how much a reasoning model may think.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReasoningEffort {
    Minimal,
    Low,
    Medium,
    High,
}

impl ReasoningEffort {
    /// Every value, in order (the option's accepted strings).
    pub const ALL: [ReasoningEffort; 4] = [
        ReasoningEffort::Minimal,
        ReasoningEffort::Low,
        ReasoningEffort::Medium,
        ReasoningEffort::High,
    ];

    /// The option value, also OpenAI's `reasoning_effort` value.
    pub fn as_str(self) -> &'static str {
        match self {
            ReasoningEffort::Minimal => "minimal",
            ReasoningEffort::Low => "low",
            ReasoningEffort::Medium => "medium",
            ReasoningEffort::High => "high",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.as_str() == s)
    }
}

/// A judge's options that some wire formats carry beside the request (from
/// `modelSettings`). Providers that have no use for them ignore them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CallOptions {
    /// OpenAI `reasoning_effort`; Gemini `thinkingConfig.thinkingBudget`; not sent to
    /// Anthropic (its extended thinking cannot be combined with the forced tool call).
    pub reasoning_effort: Option<ReasoningEffort>,
}

impl CallOptions {
    /// No options (the judge's settings name none).
    pub const NONE: CallOptions = CallOptions {
        reasoning_effort: None,
    };
}

/// The first line of the schema description the engine puts in the system message when
/// the schema does not travel natively (prompt style, JSON mode, and every fallback
/// attempt), followed by the schema's name. A request whose system message has a line
/// starting with it asks for JSON.
pub const SCHEMA_PROMPT_MARKER: &str = "Output schema name: ";

/// Whether `req` asks for a JSON value: a native schema, or the schema described in the
/// system message (see [`SCHEMA_PROMPT_MARKER`]). Free-text requests (reasons) do not.
pub fn wants_json(req: &ChatRequest) -> bool {
    req.schema.is_some()
        || req
            .system
            .lines()
            .any(|l| l.starts_with(SCHEMA_PROMPT_MARKER))
}

/// Token usage as the provider reports it (Mastra's field names).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
///
/// Counts serialize as JSON numbers a JavaScript host reads as `number` (see [`js_count`]).
pub struct Usage {
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "js_count")]
    pub input_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "js_count")]
    pub output_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "js_count")]
    pub total_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "js_count")]
    pub reasoning_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "js_count")]
    pub cached_input_tokens: Option<u64>,
}

/// A token count above `u32::MAX` as a float (exact up to `Number.MAX_SAFE_INTEGER`, the
/// largest count a host model's reply keeps): the N-API serializer turns a larger `u64`
/// into a `BigInt`, which `JSON.stringify` (and so every report) cannot write.
fn js_count<S: serde::Serializer>(v: &Option<u64>, s: S) -> Result<S::Ok, S::Error> {
    match *v {
        Some(n) if n > u64::from(u32::MAX) => s.serialize_f64(n as f64),
        Some(n) => s.serialize_u64(n),
        None => s.serialize_none(),
    }
}

impl Usage {
    /// Sum two usages field by field (a field stays `None` only if both are `None`).
    pub fn add(&mut self, other: &Usage) {
        fn add(a: &mut Option<u64>, b: Option<u64>) {
            if let Some(b) = b {
                *a = Some(a.unwrap_or(0) + b);
            }
        }
        add(&mut self.input_tokens, other.input_tokens);
        add(&mut self.output_tokens, other.output_tokens);
        add(&mut self.total_tokens, other.total_tokens);
        add(&mut self.reasoning_tokens, other.reasoning_tokens);
        add(&mut self.cached_input_tokens, other.cached_input_tokens);
    }
}

/// One successful completion.
#[derive(Debug, Clone, Default)]
pub struct ChatResponse {
    /// The answer. Empty when the judge refused (see `refusal`); never the reasoning.
    pub text: String,
    /// The judge's refusal message (OpenAI `message.refusal`, or `refusal` content parts).
    /// When set and `text` is empty, the judge declined to answer.
    pub refusal: Option<String>,
    /// The judge's reasoning, never its answer (`message.reasoning_content` as DeepSeek and
    /// vLLM send it, or `message.reasoning` as OpenRouter and Ollama send it).
    pub reasoning: Option<String>,
    pub finish_reason: Option<String>,
    pub usage: Usage,
    /// What was accepted despite a problem with the reply itself (a lone surrogate escape
    /// replaced, an odd usage count normalised); the engine adds them to the call's record
    /// (and so to the result's `warnings`).
    pub warnings: Vec<String>,
    /// The answer's tokens with their log-probabilities, when asked for and returned.
    pub logprobs: Option<Vec<TokenLogprob>>,
}

/// Why one HTTP call failed. The engine decides whether to retry.
#[derive(Debug, Clone)]
pub enum CallError {
    /// Non-2xx answer.
    Http {
        status: u16,
        body: String,
        /// Parsed `Retry-After` / rate-limit reset hint.
        retry_after: Option<Duration>,
    },
    /// Connect/reset/broken body.
    Network(String),
    /// The per-attempt timeout elapsed.
    Timeout(Duration),
    /// 2xx but not a usable chat completion (not the response shape, no choices, a tool
    /// call instead of text, ...). `message` says what happened; `body` is the response body
    /// (lossy UTF-8, at most [`MAX_ERROR_BODY_BYTES`]).
    BadResponse { message: String, body: String },
    /// The 2xx body, or its announced `Content-Length`, exceeded the request's
    /// `max_response_bytes` (`limit`). Reading stopped there; retrying would not help.
    TooLarge { limit: usize },
    /// A redirect that was not followed: to another origin (`cross_origin`; following it
    /// would send the credentials there), or one more same-origin hop after
    /// [`MAX_REDIRECTS`]. `location` is the absolute target without userinfo, query and
    /// fragment. Retrying would not help.
    Redirect {
        status: u16,
        location: String,
        cross_origin: bool,
    },
    /// A host-supplied model (an AI SDK model object or a function) threw or rejected.
    /// Retried only when the model says so (`isRetryable`).
    Model {
        name: String,
        message: String,
        retryable: bool,
    },
}

impl CallError {
    /// A [`CallError::BadResponse`] keeping at most [`MAX_ERROR_BODY_BYTES`] of `body`.
    pub fn bad_response(message: impl Into<String>, body: &[u8]) -> Self {
        CallError::BadResponse {
            message: message.into(),
            body: lossy_prefix(body, MAX_ERROR_BODY_BYTES),
        }
    }

    /// The same error with every secret of `redactor` replaced in its texts.
    pub fn scrub(mut self, redactor: &Redactor) -> Self {
        if redactor.is_empty() {
            return self;
        }
        match &mut self {
            CallError::Http { body, .. } => redactor.scrub_string(body),
            CallError::Network(m) => redactor.scrub_string(m),
            CallError::BadResponse { message, body } => {
                redactor.scrub_string(message);
                redactor.scrub_string(body);
            }
            CallError::Redirect { location, .. } => redactor.scrub_string(location),
            CallError::Model { message, .. } => redactor.scrub_string(message),
            CallError::Timeout(_) | CallError::TooLarge { .. } => {}
        }
        self
    }
}

/// A one-line description (HTTP bodies are not included).
impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::Http { status, .. } => write!(f, "the judge answered HTTP {status}"),
            CallError::Network(m) => f.write_str(m),
            CallError::Timeout(t) => {
                write!(f, "the judge did not answer within {} ms", t.as_millis())
            }
            CallError::BadResponse { message, .. } => f.write_str(message),
            CallError::TooLarge { limit } => write!(
                f,
                "the judge's response is larger than {limit} bytes (modelSettings.maxResponseBytes); oxeval stopped reading it"
            ),
            CallError::Redirect {
                status,
                location,
                cross_origin: true,
            } => write!(
                f,
                "the judge redirected (HTTP {status}) to another origin ({location}); oxeval does not follow cross-origin redirects because they would carry credentials"
            ),
            CallError::Redirect {
                status, location, ..
            } => write!(
                f,
                "the judge redirected (HTTP {status}) to {location} after {MAX_REDIRECTS} redirects already; oxeval follows at most {MAX_REDIRECTS}"
            ),
            CallError::Model { name, message, .. } => {
                write!(f, "the judge model threw {name}: {message}")
            }
        }
    }
}

/// The first `max` bytes of `bytes` as text (invalid UTF-8 replaced).
pub(crate) fn lossy_prefix(bytes: &[u8], max: usize) -> String {
    String::from_utf8_lossy(&bytes[..bytes.len().min(max)]).into_owned()
}

/// A judge backend.
pub trait Provider: Send + Sync {
    /// Provider id as shown in `judgeProvider` (e.g. `openai`).
    fn name(&self) -> &str;
    /// The model id sent on the wire (e.g. `gpt-4o-mini`).
    fn model_id(&self) -> &str;
    /// Send `req` once, with the judge's [`CallOptions`] where the wire format carries them
    /// (a provider without a use for them ignores them), waiting at most `timeout`. An
    /// error never carries a secret this provider sends (its API key, custom header values,
    /// URL userinfo and query values: the HTTP providers scrub them in [`HttpTarget`]'s one
    /// road).
    fn complete<'a>(
        &'a self,
        req: &'a ChatRequest,
        opts: &'a CallOptions,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<ChatResponse, CallError>>;

    /// Learn from a rejected request: `true` when the provider now sends `req` differently
    /// so that sending it again at once may succeed (e.g. the judge named a parameter it
    /// does not support, and the provider dropped it for this endpoint and model). The
    /// engine then resends without counting a retry (each resend is one more model call,
    /// admitted by the limiter and bounded by the run's deadline like any other). The
    /// default learns nothing.
    fn adapt(&self, req: &ChatRequest, opts: &CallOptions, err: &CallError) -> bool {
        let _ = (req, opts, err);
        false
    }

    /// Embed `texts` in one request (a vector per text, in order), waiting at most
    /// `timeout`; the same scrubbing promise as [`complete`](Self::complete). The default:
    /// this provider has no embeddings API.
    fn embed<'a>(
        &'a self,
        texts: &'a [String],
        timeout: Duration,
    ) -> BoxFuture<'a, Result<embed::EmbedResponse, CallError>> {
        let _ = (texts, timeout);
        let name = self.name().to_string();
        Box::pin(async move {
            Err(CallError::bad_response(
                format!("provider {name} has no embeddings API"),
                b"",
            ))
        })
    }

    /// Most texts one embeddings request may carry.
    fn max_embed_inputs(&self) -> usize {
        embed::OPENAI_MAX_INPUTS
    }
}

/// Where an HTTP provider sends: its provider and model ids, the endpoint URL (never with
/// credentials), the headers every request carries, and the secrets it sends.
pub(crate) struct HttpTarget {
    pub(crate) provider_id: String,
    pub(crate) model_id: String,
    pub(crate) endpoint: String,
    pub(crate) headers: HeaderMap,
    /// The model's secrets (API key, custom header values, URL userinfo and query values)
    /// and the resolved API key.
    redactor: Redactor,
}

impl HttpTarget {
    /// The target of `model` at `endpoint` with `headers`; `api_key` is the resolved key.
    pub(crate) fn new(
        model: &ModelConfig,
        api_key: Option<&Secret>,
        endpoint: String,
        headers: HeaderMap,
    ) -> Self {
        let redactor = Redactor::from_model(model);
        HttpTarget {
            provider_id: model.provider_id.clone(),
            model_id: model.model_id.clone(),
            endpoint,
            headers,
            redactor: match api_key {
                Some(key) => redactor.with_secret(key.expose()),
                None => redactor,
            },
        }
    }

    /// The secrets this target sends (the batch transport scrubs its errors with them).
    pub(crate) fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// The one road of the HTTP providers: POST `body` as JSON (`auth` adds the request's
    /// credentials), read the bounded reply ([`post`]) and `parse` it. Every error is
    /// scrubbed of the secrets sent here, so that no caller of [`Provider::complete`] sees
    /// one (the engine scrubs replies and errors once more on its road, with the judge's own
    /// redactor).
    pub(crate) async fn send<B: Serialize>(
        &self,
        body: &B,
        auth: impl FnOnce(reqwest::RequestBuilder) -> reqwest::RequestBuilder,
        req: &ChatRequest,
        timeout: Duration,
        parse: fn(&[u8]) -> Result<ChatResponse, CallError>,
    ) -> Result<ChatResponse, CallError> {
        self.post_to(
            &self.endpoint,
            body,
            auth,
            req.max_response_bytes,
            timeout,
            parse,
        )
        .await
    }

    /// [`send`](Self::send) to another endpoint of the same target (the embeddings one),
    /// with its own body bound and reply type: the same credentials, bounds and scrubbing.
    pub(crate) async fn post_to<B: Serialize, T>(
        &self,
        endpoint: &str,
        body: &B,
        auth: impl FnOnce(reqwest::RequestBuilder) -> reqwest::RequestBuilder,
        limit: usize,
        timeout: Duration,
        parse: fn(&[u8]) -> Result<T, CallError>,
    ) -> Result<T, CallError> {
        let builder = auth(
            http_client()
                .post(endpoint)
                .headers(self.headers.clone())
                .json(body),
        );
        let reply = match post(builder, timeout, limit).await {
            Ok(bytes) => parse(&bytes),
            Err(e) => Err(e),
        };
        reply.map_err(|e| e.scrub(&self.redactor))
    }
}

/// The provider of `model` by its wire format ([`ModelConfig::wire`]). `api_key` must
/// already be resolved (a missing key is reported before any request).
pub fn for_model(model: &ModelConfig, api_key: Option<Secret>) -> Arc<dyn Provider> {
    match model.wire() {
        Wire::OpenAi | Wire::Azure => Arc::new(openai::OpenAiProvider::new(model, api_key)),
        Wire::Anthropic => Arc::new(anthropic::AnthropicProvider::new(model, api_key)),
        Wire::Google => Arc::new(google::GoogleProvider::new(model, api_key)),
    }
}

/// The model's custom headers (`headers`), marked sensitive; invalid names or values are
/// skipped.
pub(crate) fn custom_headers(model: &ModelConfig) -> HeaderMap {
    let mut headers = HeaderMap::new();
    for (k, v) in &model.headers {
        if let (Ok(name), Ok(mut value)) = (
            HeaderName::from_bytes(k.as_bytes()),
            HeaderValue::from_str(v),
        ) {
            value.set_sensitive(true);
            headers.insert(name, value);
        }
    }
    headers
}

/// A secret as a sensitive header value (`None` if it cannot be one).
pub(crate) fn secret_header(secret: &Secret) -> Option<HeaderValue> {
    let mut v = HeaderValue::from_str(secret.expose()).ok()?;
    v.set_sensitive(true);
    Some(v)
}

/// Send a prepared POST and read its 2xx body, at most `limit` bytes. Every wire format
/// shares this road: a redirect that was not followed is [`CallError::Redirect`]; a non-2xx
/// answer is [`CallError::Http`] with at most [`MAX_ERROR_BODY_BYTES`] of its body and the
/// retry hint ([`retry_hint`]); a body (or announced `Content-Length`) over `limit` is
/// [`CallError::TooLarge`]; a timeout is [`CallError::Timeout`], anything else on the way
/// [`CallError::Network`].
pub(crate) async fn post(
    builder: reqwest::RequestBuilder,
    timeout: Duration,
    limit: usize,
) -> Result<Vec<u8>, CallError> {
    let map_err = |e: reqwest::Error| {
        if e.is_timeout() {
            CallError::Timeout(timeout)
        } else {
            // reqwest errors never include headers; request URLs carry no userinfo and no
            // key; the caller scrubs the text anyway.
            CallError::Network(error_chain(&e))
        }
    };
    let mut resp = builder.timeout(timeout).send().await.map_err(map_err)?;
    let status = resp.status();
    // The client follows same-origin redirects only (see `http_client`): one that comes
    // back here was not followed.
    if matches!(status.as_u16(), 301 | 302 | 303 | 307 | 308) {
        if let Some(location) = resp.headers().get(LOCATION) {
            return Err(redirect_error(status.as_u16(), resp.url(), location));
        }
    }
    if !status.is_success() {
        let retry_after = retry_hint(status.as_u16(), resp.headers());
        // A broken connection while reading an error body keeps what was read: the
        // status is the news.
        let (bytes, _) = read_capped(&mut resp, MAX_ERROR_BODY_BYTES)
            .await
            .unwrap_or_else(|(partial, _)| (partial, false));
        return Err(CallError::Http {
            status: status.as_u16(),
            body: String::from_utf8_lossy(&bytes).into_owned(),
            retry_after,
        });
    }
    if resp
        .content_length()
        .is_some_and(|n| n > u64::try_from(limit).unwrap_or(u64::MAX))
    {
        return Err(CallError::TooLarge { limit });
    }
    match read_capped(&mut resp, limit).await {
        Ok((bytes, false)) => Ok(bytes),
        Ok((_, true)) => Err(CallError::TooLarge { limit }),
        Err((_, e)) => Err(map_err(e)),
    }
}

/// Read `resp`'s body chunk by chunk, keeping at most `limit` bytes. `true` when the body
/// was longer (reading stopped there; the rest is never read). On a read error, the bytes
/// read so far and the error.
async fn read_capped(
    resp: &mut reqwest::Response,
    limit: usize,
) -> Result<(Vec<u8>, bool), (Vec<u8>, reqwest::Error)> {
    // Content-Length is only a hint for the first allocation (it may lie).
    let hint = resp
        .content_length()
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or(0);
    let mut buf = Vec::with_capacity(hint.min(limit).min(1 << 20));
    loop {
        match resp.chunk().await {
            Ok(Some(chunk)) => {
                let room = limit - buf.len();
                if chunk.len() > room {
                    buf.extend_from_slice(&chunk[..room]);
                    return Ok((buf, true));
                }
                buf.extend_from_slice(&chunk);
            }
            Ok(None) => return Ok((buf, false)),
            Err(e) => return Err((buf, e)),
        }
    }
}

/// The error for a redirect the client did not follow. `location` is resolved against the
/// URL that answered and shown without userinfo, query and fragment.
fn redirect_error(status: u16, from: &reqwest::Url, location: &HeaderValue) -> CallError {
    let raw = String::from_utf8_lossy(location.as_bytes());
    let (location, cross_origin) = match from.join(&raw) {
        Ok(mut to) => {
            let cross_origin = to.origin() != from.origin();
            let _ = to.set_username("");
            let _ = to.set_password(None);
            to.set_query(None);
            to.set_fragment(None);
            (to.to_string(), cross_origin)
        }
        Err(_) => (display_url(&raw), true),
    };
    CallError::Redirect {
        status,
        location,
        cross_origin,
    }
}

/// The wait the server asked for, only where it means "retry after this": `Retry-After` /
/// `retry-after-ms` on 429, 503 and 529 (Anthropic's "overloaded"), and on a 429 without
/// them the soonest of OpenAI's `x-ratelimit-reset-*` (a token bucket's full-refill time
/// is not a wait for one request).
pub(crate) fn retry_hint(status: u16, headers: &HeaderMap) -> Option<Duration> {
    if !matches!(status, 429 | 503 | 529) {
        return None;
    }
    let get = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    if let Some(d) = get("retry-after-ms")
        .and_then(|v| v.trim().parse::<f64>().ok())
        .and_then(|ms| Duration::try_from_secs_f64(ms / 1000.0).ok())
    {
        return Some(d);
    }
    if let Some(d) = get("retry-after").and_then(|v| parse_retry_after(v, SystemTime::now())) {
        return Some(d);
    }
    if status != 429 {
        return None;
    }
    [
        "x-ratelimit-reset-requests",
        "x-ratelimit-reset-tokens",
        "x-ratelimit-reset",
    ]
    .iter()
    .filter_map(|h| get(h).and_then(parse_reset_duration))
    .min()
}

/// `reqwest::Error` with its sources ("error sending request: connection refused").
fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(inner) = src {
        let msg = inner.to_string();
        if !s.contains(&msg) {
            s.push_str(": ");
            s.push_str(&msg);
        }
        src = inner.source();
    }
    s
}

/// Parse a 2xx body with `parse` (a wire format's parser) after replacing every lone UTF-16
/// surrogate escape inside its JSON strings by `\uFFFD`
/// ([`repair_lone_surrogates`](crate::engine::json::repair_lone_surrogates)): serde_json
/// rejects the whole body for one `"\ud83d"`, and a judge (or a gateway cutting an emoji
/// in half) does send them. A repaired body adds a warning to the response.
pub(crate) fn parse_body(
    body: &[u8],
    parse: impl FnOnce(&[u8]) -> Result<ChatResponse, CallError>,
) -> Result<ChatResponse, CallError> {
    let (fixed, replaced) = crate::engine::json::repair_lone_surrogates(body);
    let mut resp = parse(&fixed)?;
    if replaced > 0 {
        resp.warnings
            .push(crate::engine::json::lone_surrogate_warning(
                replaced,
                "response body",
            ));
    }
    Ok(resp)
}

/// A non-empty string, else `None`.
pub(crate) fn non_empty_str(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// The body of a 2xx answer that is not JSON: a [`CallError::BadResponse`] naming `what`
/// the body should have been, with its start.
pub(crate) fn not_json(what: &str, e: &serde_json::Error, body: &[u8]) -> CallError {
    CallError::bad_response(
        format!(
            "the judge's response is not {what} ({e}): {}",
            String::from_utf8_lossy(&body[..body.len().min(500)])
        ),
        body,
    )
}

/// A 2xx body carrying `{error: {message}}` (or `{error: "…"}`) instead of an answer.
pub(crate) fn error_instead(err: &Value, body: &[u8]) -> CallError {
    let detail = err
        .get("message")
        .and_then(Value::as_str)
        .or_else(|| err.as_str())
        .unwrap_or("no message");
    let detail: String = detail.chars().take(300).collect();
    CallError::bad_response(
        format!("the judge answered with an error instead of a completion: {detail}"),
        body,
    )
}

/// Follow a redirect only within the origin (scheme, host, port) of the first request,
/// and at most [`MAX_REDIRECTS`] times. reqwest's default policy follows any redirect and
/// strips only `Authorization`/cookies across hosts: custom headers (`x-api-key`,
/// `api-key`) would reach the other origin. A redirect that is not followed comes back as
/// the 3xx response ([`CallError::Redirect`]).
fn same_origin_redirects(attempt: reqwest::redirect::Attempt<'_>) -> reqwest::redirect::Action {
    let previous = attempt.previous();
    let same_origin = previous
        .first()
        .is_some_and(|first| first.origin() == attempt.url().origin());
    if same_origin && previous.len() <= MAX_REDIRECTS {
        attempt.follow()
    } else {
        attempt.stop()
    }
}

/// The one HTTP client of the process: connection pools are shared by every scorer.
pub fn http_client() -> &'static reqwest::Client {
    static CLIENT: LazyLock<reqwest::Client> = LazyLock::new(|| {
        reqwest::Client::builder()
            .user_agent(concat!("oxeval/", env!("CARGO_PKG_VERSION")))
            .tcp_nodelay(true)
            .pool_idle_timeout(Duration::from_secs(90))
            .connect_timeout(Duration::from_secs(10))
            .redirect(reqwest::redirect::Policy::custom(same_origin_redirects))
            .build()
            .unwrap_or_else(|_| {
                // never fall back to a client with reqwest's default redirect policy
                reqwest::Client::builder()
                    .redirect(reqwest::redirect::Policy::none())
                    .build()
                    .unwrap_or_default()
            })
    });
    &CLIENT
}

/// Parse a `Retry-After` header value: delta-seconds or an HTTP-date.
pub fn parse_retry_after(value: &str, now: std::time::SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<f64>() {
        // try_from: an absurd value (1e20) is ignored instead of panicking
        return Duration::try_from_secs_f64(secs).ok();
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(when.duration_since(now).unwrap_or(Duration::ZERO))
}

/// Parse OpenAI-style rate-limit reset values such as `1s`, `6m0s`, `250ms`, `0.5s`.
pub fn parse_reset_duration(value: &str) -> Option<Duration> {
    let v = value.trim();
    if v.is_empty() {
        return None;
    }
    let mut total = 0f64;
    let mut num = String::new();
    let mut chars = v.chars().peekable();
    let mut any = false;
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() || c == '.' {
            num.push(c);
            continue;
        }
        let n: f64 = num.parse().ok()?;
        num.clear();
        let unit = match c {
            'h' => 3600.0,
            'm' if chars.peek() == Some(&'s') => {
                chars.next();
                0.001
            }
            'm' => 60.0,
            's' => 1.0,
            _ => return None,
        };
        total += n * unit;
        any = true;
    }
    if !num.is_empty() {
        total += num.parse::<f64>().ok()?;
        any = true;
    }
    if !any {
        return None;
    }
    Duration::try_from_secs_f64(total).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration as D, SystemTime, UNIX_EPOCH};

    #[test]
    fn retry_after_forms() {
        let now = UNIX_EPOCH + D::from_secs(1_700_000_000);
        assert_eq!(parse_retry_after("2", now), Some(D::from_secs(2)));
        assert_eq!(parse_retry_after(" 0.5 ", now), Some(D::from_millis(500)));
        assert_eq!(parse_retry_after("-1", now), None);
        let later = httpdate::fmt_http_date(now + D::from_secs(7));
        assert_eq!(parse_retry_after(&later, now), Some(D::from_secs(7)));
        let past = httpdate::fmt_http_date(now - D::from_secs(7));
        assert_eq!(parse_retry_after(&past, now), Some(D::ZERO));
        assert_eq!(parse_retry_after("soon", now), None);
        assert_eq!(parse_retry_after("1e20", now), None, "no panic on overflow");
        assert_eq!(parse_retry_after("NaN", now), None);
        let _ = SystemTime::now();
    }

    #[test]
    fn retry_hints_only_where_they_mean_retry() {
        use reqwest::header::{HeaderMap, HeaderValue};
        let mut h = HeaderMap::new();
        h.insert(
            "x-ratelimit-reset-requests",
            HeaderValue::from_static("120ms"),
        );
        h.insert("x-ratelimit-reset-tokens", HeaderValue::from_static("6m0s"));
        assert_eq!(
            retry_hint(429, &h),
            Some(Duration::from_millis(120)),
            "the soonest reset"
        );
        assert_eq!(
            retry_hint(503, &h),
            None,
            "reset headers are not a 503 hint"
        );
        assert_eq!(retry_hint(500, &h), None);
        h.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(retry_hint(503, &h), Some(Duration::from_secs(2)));
        assert_eq!(retry_hint(429, &h), Some(Duration::from_secs(2)));
        h.insert("retry-after-ms", HeaderValue::from_static("1e300"));
        assert_eq!(
            retry_hint(429, &h),
            Some(Duration::from_secs(2)),
            "overflow ignored, no panic"
        );
        assert_eq!(retry_hint(200, &h), None);
        assert_eq!(
            retry_hint(529, &h),
            Some(Duration::from_secs(2)),
            "Anthropic's overloaded"
        );
    }

    #[test]
    fn reset_durations() {
        assert_eq!(parse_reset_duration("1s"), Some(D::from_secs(1)));
        assert_eq!(parse_reset_duration("6m0s"), Some(D::from_secs(360)));
        assert_eq!(parse_reset_duration("250ms"), Some(D::from_millis(250)));
        assert_eq!(parse_reset_duration("1h2m3s"), Some(D::from_secs(3723)));
        assert_eq!(parse_reset_duration("3"), Some(D::from_secs(3)));
        assert_eq!(parse_reset_duration("x"), None);
        assert_eq!(parse_reset_duration(""), None);
        assert_eq!(
            parse_reset_duration("99999999999999999999h"),
            None,
            "no panic on overflow"
        );
    }

    #[test]
    fn the_schema_marker_is_the_engines() {
        use crate::engine::schema::StepSchema;
        #[derive(schemars::JsonSchema)]
        #[allow(dead_code)]
        struct Probe {
            a: u8,
        }
        let schema = StepSchema::build::<Probe>("probe_x");
        let req = |system: &str, native: bool| ChatRequest {
            system: system.into(),
            user: "u".into(),
            schema: native.then(|| ("probe_x", schema.wire.clone())),
            temperature: None,
            max_tokens: None,
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            logprobs: false,
        };
        assert!(schema.prompt_text.starts_with(SCHEMA_PROMPT_MARKER));
        assert!(wants_json(&req(
            &format!("Be fair.\n\n{}", schema.prompt_text),
            false
        )));
        assert!(wants_json(&req("Be fair.", true)));
        assert!(!wants_json(&req("Be fair.", false)));
        assert!(!wants_json(&req(
            "Mention Output schema name: inline",
            false
        )));
    }

    #[test]
    fn reasoning_effort_values() {
        for e in ReasoningEffort::ALL {
            assert_eq!(ReasoningEffort::parse(e.as_str()), Some(e));
        }
        assert_eq!(ReasoningEffort::parse("HIGH"), None);
    }

    #[test]
    fn large_usage_counts_serialize_as_plain_numbers() {
        let u = Usage {
            input_tokens: Some(7),
            total_tokens: Some(9_007_199_254_740_991),
            ..Default::default()
        };
        let v = serde_json::to_value(&u).unwrap();
        assert!(v["inputTokens"].is_u64());
        assert!(v["totalTokens"].is_f64());
        assert_eq!(v["totalTokens"].as_f64(), Some(9_007_199_254_740_991.0));
        assert!(v.get("outputTokens").is_none());
    }

    #[test]
    fn usage_add() {
        let mut u = Usage {
            input_tokens: Some(3),
            ..Default::default()
        };
        u.add(&Usage {
            input_tokens: Some(4),
            output_tokens: Some(1),
            ..Default::default()
        });
        assert_eq!(
            u,
            Usage {
                input_tokens: Some(7),
                output_tokens: Some(1),
                ..Default::default()
            }
        );
    }
}
