//! The providers' batch APIs, one [`BatchApi`] per wire format: OpenAI (`/files` upload of
//! the JSONL, `/batches`, the output and error files; Azure OpenAI's global batch where it
//! differs: `?api-version`, line URL `/chat/completions`, the deployment as the model),
//! Anthropic Message Batches (`/messages/batches`, the results JSONL) and Gemini batch mode
//! (`models/{model}:batchGenerateContent` with inline requests, `batches/{id}` polling).
//!
//! A batch line's request body is the provider's own direct request body (the same
//! renderer: structured output, capability table, self-heal memory), and a line's answer
//! is parsed by the provider's own response parser: a batched call and a direct call see
//! the same [`ChatResponse`]. Every byte read is bounded (results are streamed line by
//! line, each line at most the judge's `maxResponseBytes` plus an envelope), and every
//! error is scrubbed of the secrets this target sends.

use crate::model::{ModelConfig, Secret, Wire};
use crate::provider::anthropic::{self, AnthropicProvider};
use crate::provider::google::{self, GoogleProvider};
use crate::provider::openai::{self, OpenAiProvider};
use crate::provider::{
    http_client, post, CallError, CallOptions, ChatRequest, ChatResponse, HttpTarget,
    MAX_ERROR_BODY_BYTES,
};
use crate::redact::{endpoint_url, strip_userinfo, Redactor};
use futures::future::BoxFuture;
use reqwest::RequestBuilder;
use serde_json::{json, Value};
use std::time::Duration;

mod list;

/// The most one status body (a batch object, a Gemini operation with inline answers) may
/// be.
pub const MAX_STATUS_BYTES: usize = 256 << 20;

/// An envelope around each answer of a results file (ids, status code, usage): a line is
/// at most the judge's `maxResponseBytes` plus this.
pub const LINE_ENVELOPE_BYTES: usize = 1 << 20;

/// How many requests and bytes one batch of a provider may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub requests: usize,
    pub bytes: usize,
}

/// A batch's state as oxeval reads the provider's word for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BatchState {
    /// Accepted, not finished (validating, queued, in progress, finalizing, cancelling).
    Running,
    /// Finished: results (possibly partial: expired or cancelled lines) can be read.
    Ended,
    /// The provider failed the whole batch (e.g. the input did not validate): no results.
    Failed(String),
}

/// What one retrieve of a batch said.
#[derive(Debug, Clone)]
pub struct BatchStatus {
    pub state: BatchState,
    /// The provider's own status word (`in_progress`, `ended`, `BATCH_STATE_RUNNING`…).
    pub status: String,
    /// Lines finished so far / failed so far, as the provider counts them (0 when it
    /// does not say).
    pub completed: u64,
    pub failed: u64,
    /// Where the results are: OpenAI's output and error file ids, Anthropic's results URL.
    pub(crate) outputs: Vec<String>,
    /// Gemini: the operation body holding the inline answers.
    pub(crate) inline: Option<Value>,
}

/// Why a batch line has no answer.
#[derive(Debug, Clone)]
pub enum LineFailure {
    /// The provider answered this line with an error (status and body as a direct call
    /// would have seen them).
    Call(CallError),
    /// The batch ended (expired, or reached its window) before this line ran.
    Expired,
    /// The batch was cancelled before this line ran.
    Canceled,
    /// The results hold nothing for this line.
    Missing,
}

impl LineFailure {
    /// A failure the next batch may fix (everything but a line the judge rejected for good).
    pub fn retryable(&self) -> bool {
        match self {
            LineFailure::Call(e) => crate::engine::retry::RetryPolicy::is_retryable(e),
            _ => true,
        }
    }

    pub fn describe(&self) -> String {
        match self {
            LineFailure::Call(e) => e.to_string(),
            LineFailure::Expired => "the batch expired before this request ran".into(),
            LineFailure::Canceled => "the batch was cancelled before this request ran".into(),
            LineFailure::Missing => "the batch's results hold no answer for this request".into(),
        }
    }
}

/// A batch API call that failed: the provider's message (scrubbed), its HTTP status, and
/// whether trying again later may help.
#[derive(Debug, Clone)]
pub struct BatchError {
    pub message: String,
    pub status: Option<u16>,
    pub retryable: bool,
    /// A create call that may have been processed (sent, and no refusal came back: a
    /// reset, a timeout, a 5xx, an answer that could not be read): the batch may exist.
    pub maybe_created: bool,
}

impl BatchError {
    /// This error as the answer to the create call itself: unless the provider refused it
    /// (4xx), the batch may exist.
    pub(crate) fn of_create(mut self) -> BatchError {
        self.maybe_created = !matches!(self.status, Some(400..=499));
        self
    }
}

/// One batch as the provider's list shows it (what [`lookup`](super::lookup) matches an
/// intent on).
#[derive(Debug, Clone, PartialEq)]
pub struct Listed {
    pub id: String,
    /// The tag oxeval gave it (OpenAI/Azure `metadata.oxeval`, Gemini `displayName`).
    pub tag: Option<String>,
    pub created_ms: Option<u64>,
    /// How many requests it holds.
    pub requests: Option<u64>,
}

/// One page of the provider's batches, newest first, and the next page's token.
#[derive(Debug, Clone, Default)]
pub struct ListPage {
    pub batches: Vec<Listed>,
    pub next: Option<String>,
}

/// One result line: the custom id and its answer or failure.
pub type LineResult = (String, Result<ChatResponse, LineFailure>);

/// A provider's batch API.
pub trait BatchApi: Send + Sync {
    /// `openai`, `azure`, `anthropic`, `google`.
    fn provider(&self) -> &'static str;
    fn limits(&self) -> Limits;
    /// One request as the provider's batch input takes it (a JSONL line, or an element of
    /// the inline request list), without a newline.
    fn line(&self, custom_id: &str, req: &ChatRequest, opts: &CallOptions) -> Vec<u8>;
    /// Submit `lines` as one batch; its id. `tag` names it where the provider keeps a name.
    fn create<'a>(
        &'a self,
        lines: &'a [&'a [u8]],
        tag: &'a str,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<String, BatchError>>;
    fn retrieve<'a>(
        &'a self,
        id: &'a str,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<BatchStatus, BatchError>>;
    /// Read an ended batch's results, giving each line to `sink` as it is read (streamed).
    /// `order` is the custom ids in submission order (Gemini answers inline in that order).
    fn results<'a>(
        &'a self,
        status: &'a BatchStatus,
        order: &'a [String],
        line_limit: usize,
        timeout: Duration,
        sink: &'a mut (dyn FnMut(LineResult) + Send),
    ) -> BoxFuture<'a, Result<(), BatchError>>;
    fn cancel<'a>(
        &'a self,
        id: &'a str,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<(), BatchError>>;
    /// One page of the batches this key sees, newest first (`page`: the previous page's
    /// `next`).
    fn list<'a>(
        &'a self,
        page: Option<&'a str>,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<ListPage, BatchError>>;
    /// Whether the batches carry the tag given at create (else they are matched by
    /// creation time and request count).
    fn keeps_tag(&self) -> bool {
        true
    }
}

/// The batch API of `model`, or `None` for a wire format without one.
pub fn api_for(model: &ModelConfig, api_key: Option<Secret>) -> Option<Box<dyn BatchApi>> {
    Some(match model.wire() {
        Wire::OpenAi | Wire::Azure => Box::new(OpenAiBatch::new(model, api_key)),
        Wire::Anthropic => Box::new(AnthropicBatch {
            p: AnthropicProvider::new(model, api_key),
        }),
        Wire::Google => Box::new(GoogleBatch::new(model, api_key)),
    })
}

/// The provider's message from an error body (`{error: {message}}`, `{error: {error:
/// {message}}}`, `{message}`), else the start of the body.
fn provider_message(body: &str) -> String {
    let v: Option<Value> = serde_json::from_str(body).ok();
    let msg = v.as_ref().and_then(|v| {
        [
            "/error/message",
            "/error/error/message",
            "/message",
            "/errors/data/0/message",
        ]
        .iter()
        .find_map(|p| v.pointer(p).and_then(Value::as_str).map(str::to_owned))
        .or_else(|| v.get("error").and_then(Value::as_str).map(str::to_owned))
    });
    let text = msg.unwrap_or_else(|| body.trim().to_string());
    let text = if text.is_empty() {
        "(empty body)".to_string()
    } else {
        text
    };
    crate::engine::clip(&text, 500)
}

/// A failed HTTP call of the batch API as a [`BatchError`] saying what was asked.
fn batch_error(what: &str, e: CallError, redactor: &Redactor) -> BatchError {
    let e = e.scrub(redactor);
    match e {
        CallError::Http { status, body, .. } => BatchError {
            message: format!("{what}: HTTP {status}: {}", provider_message(&body)),
            status: Some(status),
            retryable: matches!(status, 408 | 409 | 429) || status >= 500,
            maybe_created: false,
        },
        CallError::Network(_) | CallError::Timeout(_) => BatchError {
            message: format!("{what}: {e}"),
            status: None,
            retryable: true,
            maybe_created: false,
        },
        other => BatchError {
            message: format!("{what}: {other}"),
            status: None,
            retryable: false,
            maybe_created: false,
        },
    }
}

fn not_understood(what: &str, body: &[u8]) -> BatchError {
    BatchError {
        message: format!(
            "{what}: the answer is not what the batch API sends: {}",
            String::from_utf8_lossy(&body[..body.len().min(300)])
        ),
        status: None,
        retryable: false,
        maybe_created: false,
    }
}

fn parse_json(what: &str, body: &[u8]) -> Result<Value, BatchError> {
    serde_json::from_slice(body).map_err(|_| not_understood(what, body))
}

/// Send `builder` (its credentials already on it), read at most `limit` bytes.
async fn send(
    builder: RequestBuilder,
    what: &str,
    timeout: Duration,
    limit: usize,
    redactor: &Redactor,
) -> Result<Vec<u8>, BatchError> {
    post(builder, timeout, limit)
        .await
        .map_err(|e| batch_error(what, e, redactor))
}

/// GET `builder` and give its body to `line` one line at a time (a line longer than
/// `line_limit` is skipped, its line left without an answer). Each chunk must arrive
/// within `timeout`; the whole body may take as long as it takes.
async fn stream_lines(
    builder: RequestBuilder,
    what: &str,
    timeout: Duration,
    line_limit: usize,
    redactor: &Redactor,
    line: &mut (dyn FnMut(&[u8]) + Send),
) -> Result<(), BatchError> {
    let network = |e: reqwest::Error| {
        batch_error(
            what,
            if e.is_timeout() {
                CallError::Timeout(timeout)
            } else {
                CallError::Network(e.to_string())
            },
            redactor,
        )
    };
    let mut resp = builder.timeout(timeout).send().await.map_err(network)?;
    let status = resp.status();
    if !status.is_success() {
        let mut body = Vec::new();
        while let Ok(Some(c)) = resp.chunk().await {
            body.extend_from_slice(&c[..c.len().min(MAX_ERROR_BODY_BYTES - body.len())]);
            if body.len() >= MAX_ERROR_BODY_BYTES {
                break;
            }
        }
        return Err(batch_error(
            what,
            CallError::Http {
                status: status.as_u16(),
                body: String::from_utf8_lossy(&body).into_owned(),
                retry_after: None,
            },
            redactor,
        ));
    }
    let mut buf: Vec<u8> = Vec::new();
    let mut skipping = false;
    loop {
        let chunk = match tokio::time::timeout(timeout, resp.chunk()).await {
            Err(_) => return Err(batch_error(what, CallError::Timeout(timeout), redactor)),
            Ok(Err(e)) => return Err(network(e)),
            Ok(Ok(None)) => break,
            Ok(Ok(Some(c))) => c,
        };
        let mut rest: &[u8] = &chunk;
        while !rest.is_empty() {
            match rest.iter().position(|b| *b == b'\n') {
                Some(i) => {
                    if !skipping && buf.len() + i <= line_limit {
                        buf.extend_from_slice(&rest[..i]);
                        line(&buf);
                    }
                    buf.clear();
                    skipping = false;
                    rest = &rest[i + 1..];
                }
                None => {
                    if !skipping {
                        if buf.len() + rest.len() > line_limit {
                            skipping = true;
                            buf.clear();
                        } else {
                            buf.extend_from_slice(rest);
                        }
                    }
                    rest = &[];
                }
            }
        }
    }
    if !skipping && !buf.is_empty() {
        line(&buf);
    }
    Ok(())
}

/// A line's answer body parsed by the provider's own parser; an answer body larger than
/// the judge's bound is `TooLarge` as a direct answer would be.
fn answer_of(
    body: &Value,
    limit: usize,
    parse: fn(&[u8]) -> Result<ChatResponse, CallError>,
) -> Result<ChatResponse, LineFailure> {
    let bytes = serde_json::to_vec(body).unwrap_or_default();
    if bytes.len() > limit {
        return Err(LineFailure::Call(CallError::TooLarge { limit }));
    }
    parse(&bytes).map_err(LineFailure::Call)
}

fn http_failure(status: u16, body: &Value) -> LineFailure {
    LineFailure::Call(CallError::Http {
        status,
        body: body.to_string(),
        retry_after: None,
    })
}

// ---- OpenAI (and Azure OpenAI) --------------------------------------------------------

pub struct OpenAiBatch {
    p: OpenAiProvider,
    azure: bool,
    /// `{base}/files`, `{base}/batches` (Azure: with `?api-version=…`).
    base: String,
    api_version: Option<String>,
    model_id: String,
}

impl OpenAiBatch {
    fn new(model: &ModelConfig, api_key: Option<Secret>) -> Self {
        let azure = model.wire() == Wire::Azure;
        OpenAiBatch {
            p: OpenAiProvider::new(model, api_key),
            azure,
            base: strip_userinfo(&model.base_url).into_owned(),
            api_version: azure.then(|| {
                model
                    .api_version
                    .clone()
                    .unwrap_or_else(|| crate::model::AZURE_DEFAULT_API_VERSION.to_string())
            }),
            model_id: model.model_id.clone(),
        }
    }

    fn url(&self, path: &str) -> String {
        match &self.api_version {
            Some(v) => endpoint_url(&self.base, &format!("{path}?api-version={v}")),
            None => endpoint_url(&self.base, path),
        }
    }

    fn http(&self) -> &HttpTarget {
        self.p.http()
    }

    fn request(&self, method: reqwest::Method, url: &str) -> RequestBuilder {
        self.p.authorize(
            http_client()
                .request(method, url)
                .headers(self.http().headers.clone()),
        )
    }

    /// The chat completions path a line names (and the batch's `endpoint`).
    fn line_url(&self) -> &'static str {
        if self.azure {
            "/chat/completions"
        } else {
            "/v1/chat/completions"
        }
    }
}

fn openai_status(v: &Value) -> BatchStatus {
    let status = v
        .get("status")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let count = |k: &str| {
        v.pointer(&format!("/request_counts/{k}"))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    let outputs = ["output_file_id", "error_file_id"]
        .iter()
        .filter_map(|k| v.get(*k).and_then(Value::as_str))
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect();
    let state = match status.as_str() {
        "completed" | "expired" | "cancelled" => BatchState::Ended,
        "failed" => BatchState::Failed(
            v.pointer("/errors/data/0/message")
                .and_then(Value::as_str)
                .map(|m| crate::engine::clip(m, 500))
                .unwrap_or_else(|| "the batch failed (no message)".into()),
        ),
        _ => BatchState::Running,
    };
    BatchStatus {
        state,
        status,
        completed: count("completed"),
        failed: count("failed"),
        outputs,
        inline: None,
    }
}

/// One line of an OpenAI output or error file.
fn openai_line(line: &[u8], limit: usize) -> Option<LineResult> {
    let v: Value = serde_json::from_slice(line).ok()?;
    let id = v.get("custom_id")?.as_str()?.to_string();
    let resp = v.get("response").filter(|r| !r.is_null());
    let status = resp
        .and_then(|r| r.get("status_code"))
        .and_then(Value::as_u64)
        .map(|s| s.min(999) as u16);
    let body = resp.and_then(|r| r.get("body"));
    let outcome = match (status, body) {
        (Some(200..=299), Some(b)) => answer_of(b, limit, openai::parse_response),
        (Some(s), Some(b)) => Err(http_failure(s, b)),
        _ => {
            let code = v
                .pointer("/error/code")
                .and_then(Value::as_str)
                .unwrap_or("");
            Err(match code {
                "batch_expired" => LineFailure::Expired,
                "batch_cancelled" => LineFailure::Canceled,
                _ => LineFailure::Call(CallError::BadResponse {
                    message: format!(
                        "the batch failed this request: {}",
                        v.pointer("/error/message")
                            .and_then(Value::as_str)
                            .unwrap_or(code)
                    ),
                    body: String::new(),
                }),
            })
        }
    };
    Some((id, outcome))
}

impl BatchApi for OpenAiBatch {
    fn provider(&self) -> &'static str {
        if self.azure {
            "azure"
        } else {
            "openai"
        }
    }

    fn limits(&self) -> Limits {
        Limits {
            requests: if self.azure { 100_000 } else { 50_000 },
            bytes: 190_000_000,
        }
    }

    fn line(&self, custom_id: &str, req: &ChatRequest, opts: &CallOptions) -> Vec<u8> {
        let body = openai::request_body_with(&self.model_id, req, opts, &self.p.wire_caps());
        serde_json::to_vec(&json!({
            "custom_id": custom_id,
            "method": "POST",
            "url": self.line_url(),
            "body": body,
        }))
        .unwrap_or_default()
    }

    fn create<'a>(
        &'a self,
        lines: &'a [&'a [u8]],
        tag: &'a str,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<String, BatchError>> {
        Box::pin(async move {
            let redactor = self.http().redactor();
            let mut jsonl = Vec::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
            for l in lines {
                jsonl.extend_from_slice(l);
                jsonl.push(b'\n');
            }
            let part = reqwest::multipart::Part::bytes(jsonl)
                .file_name(format!("{tag}.jsonl"))
                .mime_str("application/jsonl")
                .map_err(|e| BatchError {
                    message: e.to_string(),
                    status: None,
                    retryable: false,
                    maybe_created: false,
                })?;
            let form = reqwest::multipart::Form::new()
                .text("purpose", "batch")
                .part("file", part);
            let upload = send(
                self.request(reqwest::Method::POST, &self.url("/files"))
                    .multipart(form),
                "uploading the batch input file",
                timeout,
                MAX_ERROR_BODY_BYTES,
                redactor,
            )
            .await?;
            let file = parse_json("uploading the batch input file", &upload)?;
            let Some(file_id) = file.get("id").and_then(Value::as_str) else {
                return Err(not_understood("uploading the batch input file", &upload));
            };
            let created = send(
                self.request(reqwest::Method::POST, &self.url("/batches"))
                    .json(&json!({
                        "input_file_id": file_id,
                        "endpoint": self.line_url(),
                        "completion_window": "24h",
                        "metadata": {"oxeval": tag},
                    })),
                "creating the batch",
                timeout,
                MAX_ERROR_BODY_BYTES,
                redactor,
            )
            .await
            .map_err(BatchError::of_create)?;
            let batch =
                parse_json("creating the batch", &created).map_err(BatchError::of_create)?;
            match batch.get("id").and_then(Value::as_str) {
                Some(id) if !id.is_empty() => Ok(id.to_string()),
                _ => Err(not_understood("creating the batch", &created).of_create()),
            }
        })
    }

    fn retrieve<'a>(
        &'a self,
        id: &'a str,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<BatchStatus, BatchError>> {
        Box::pin(async move {
            let what = format!("retrieving batch {id}");
            let body = send(
                self.request(
                    reqwest::Method::GET,
                    &self.url(&format!("/batches/{}", path_id(id))),
                ),
                &what,
                timeout,
                MAX_STATUS_BYTES,
                self.http().redactor(),
            )
            .await?;
            Ok(openai_status(&parse_json(&what, &body)?))
        })
    }

    fn results<'a>(
        &'a self,
        status: &'a BatchStatus,
        _order: &'a [String],
        line_limit: usize,
        timeout: Duration,
        sink: &'a mut (dyn FnMut(LineResult) + Send),
    ) -> BoxFuture<'a, Result<(), BatchError>> {
        Box::pin(async move {
            for file in &status.outputs {
                let answer_limit = line_limit.saturating_sub(LINE_ENVELOPE_BYTES);
                stream_lines(
                    self.request(
                        reqwest::Method::GET,
                        &self.url(&format!("/files/{}/content", path_id(file))),
                    ),
                    &format!("reading the batch results file {file}"),
                    timeout,
                    line_limit,
                    self.http().redactor(),
                    &mut |line| {
                        if let Some(r) = openai_line(line, answer_limit) {
                            sink(r);
                        }
                    },
                )
                .await?;
            }
            Ok(())
        })
    }

    fn list<'a>(
        &'a self,
        page: Option<&'a str>,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<ListPage, BatchError>> {
        Box::pin(self.list_page(page, timeout))
    }

    fn cancel<'a>(
        &'a self,
        id: &'a str,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<(), BatchError>> {
        Box::pin(async move {
            send(
                self.request(
                    reqwest::Method::POST,
                    &self.url(&format!("/batches/{}/cancel", path_id(id))),
                ),
                &format!("cancelling batch {id}"),
                timeout,
                MAX_ERROR_BODY_BYTES,
                self.http().redactor(),
            )
            .await
            .map(|_| ())
        })
    }
}

/// An id from the provider as one URL path segment (ids are `[A-Za-z0-9_-]`; anything
/// else is escaped so an odd id cannot change the path).
fn path_id(id: &str) -> String {
    let mut out = String::with_capacity(id.len());
    for b in id.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

// ---- Anthropic Message Batches -----------------------------------------------------------

pub struct AnthropicBatch {
    p: AnthropicProvider,
}

impl AnthropicBatch {
    fn http(&self) -> &HttpTarget {
        self.p.http()
    }

    fn request(&self, method: reqwest::Method, url: &str) -> RequestBuilder {
        http_client()
            .request(method, url)
            .headers(self.http().headers.clone())
    }

    /// `{base}/messages/batches[/…]`.
    fn url(&self, rest: &str) -> String {
        let (head, query) = crate::redact::split_query(&self.http().endpoint);
        let url = format!("{head}/batches{rest}");
        match query {
            Some(q) => format!("{url}?{q}"),
            None => url,
        }
    }
}

fn anthropic_status(v: &Value) -> BatchStatus {
    let status = v
        .get("processing_status")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let count = |k: &str| {
        v.pointer(&format!("/request_counts/{k}"))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    BatchStatus {
        state: if status == "ended" {
            BatchState::Ended
        } else {
            BatchState::Running
        },
        completed: count("succeeded"),
        failed: count("errored") + count("canceled") + count("expired"),
        outputs: v
            .get("results_url")
            .and_then(Value::as_str)
            .map(|u| vec![u.to_string()])
            .unwrap_or_default(),
        status,
        inline: None,
    }
}

/// The HTTP status a direct call would have had for an Anthropic error type.
fn anthropic_error_status(kind: &str) -> u16 {
    match kind {
        "invalid_request_error" => 400,
        "authentication_error" => 401,
        "billing_error" => 402,
        "permission_error" => 403,
        "not_found_error" => 404,
        "request_too_large" => 413,
        "rate_limit_error" => 429,
        "timeout_error" => 504,
        "overloaded_error" => 529,
        _ => 500,
    }
}

fn anthropic_line(line: &[u8], limit: usize) -> Option<LineResult> {
    let v: Value = serde_json::from_slice(line).ok()?;
    let id = v.get("custom_id")?.as_str()?.to_string();
    let result = v.get("result");
    let kind = result
        .and_then(|r| r.get("type"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let outcome = match (kind, result) {
        ("succeeded", Some(r)) => match r.get("message") {
            Some(m) => answer_of(m, limit, anthropic::parse_response),
            None => Err(LineFailure::Missing),
        },
        ("errored", Some(r)) => {
            let err = r.get("error").cloned().unwrap_or(Value::Null);
            let kind = err
                .pointer("/error/type")
                .or_else(|| err.get("type"))
                .and_then(Value::as_str)
                .unwrap_or("api_error");
            Err(http_failure(anthropic_error_status(kind), &err))
        }
        ("expired", _) => Err(LineFailure::Expired),
        ("canceled", _) => Err(LineFailure::Canceled),
        _ => Err(LineFailure::Missing),
    };
    Some((id, outcome))
}

impl BatchApi for AnthropicBatch {
    fn provider(&self) -> &'static str {
        "anthropic"
    }

    fn keeps_tag(&self) -> bool {
        false
    }

    fn limits(&self) -> Limits {
        Limits {
            requests: 100_000,
            bytes: 250_000_000,
        }
    }

    fn line(&self, custom_id: &str, req: &ChatRequest, _opts: &CallOptions) -> Vec<u8> {
        serde_json::to_vec(&json!({
            "custom_id": custom_id,
            "params": anthropic::request_body(&self.http().model_id, req),
        }))
        .unwrap_or_default()
    }

    fn create<'a>(
        &'a self,
        lines: &'a [&'a [u8]],
        _tag: &'a str,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<String, BatchError>> {
        Box::pin(async move {
            let mut body =
                Vec::with_capacity(lines.iter().map(|l| l.len() + 1).sum::<usize>() + 16);
            body.extend_from_slice(b"{\"requests\":[");
            for (i, l) in lines.iter().enumerate() {
                if i > 0 {
                    body.push(b',');
                }
                body.extend_from_slice(l);
            }
            body.extend_from_slice(b"]}");
            let what = "creating the message batch";
            let created = send(
                self.request(reqwest::Method::POST, &self.url(""))
                    .header(reqwest::header::CONTENT_TYPE, "application/json")
                    .body(body),
                what,
                timeout,
                MAX_ERROR_BODY_BYTES,
                self.http().redactor(),
            )
            .await
            .map_err(BatchError::of_create)?;
            let v = parse_json(what, &created).map_err(BatchError::of_create)?;
            match v.get("id").and_then(Value::as_str) {
                Some(id) if !id.is_empty() => Ok(id.to_string()),
                _ => Err(not_understood(what, &created).of_create()),
            }
        })
    }

    fn retrieve<'a>(
        &'a self,
        id: &'a str,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<BatchStatus, BatchError>> {
        Box::pin(async move {
            let what = format!("retrieving message batch {id}");
            let body = send(
                self.request(
                    reqwest::Method::GET,
                    &self.url(&format!("/{}", path_id(id))),
                ),
                &what,
                timeout,
                MAX_STATUS_BYTES,
                self.http().redactor(),
            )
            .await?;
            Ok(anthropic_status(&parse_json(&what, &body)?))
        })
    }

    fn results<'a>(
        &'a self,
        status: &'a BatchStatus,
        _order: &'a [String],
        line_limit: usize,
        timeout: Duration,
        sink: &'a mut (dyn FnMut(LineResult) + Send),
    ) -> BoxFuture<'a, Result<(), BatchError>> {
        Box::pin(async move {
            let Some(url) = status.outputs.first() else {
                return Err(BatchError {
                    message: "the ended message batch has no results_url".into(),
                    status: None,
                    retryable: true,
                    maybe_created: false,
                });
            };
            // the results URL must be the API's own origin: it gets the key
            let same_origin = |a: &str, b: &str| {
                let origin = |u: &str| -> Option<String> {
                    let url = reqwest::Url::parse(u).ok()?;
                    Some(url.origin().ascii_serialization())
                };
                origin(a).is_some() && origin(a) == origin(b)
            };
            if !same_origin(url, &self.http().endpoint) {
                return Err(BatchError {
                    message: format!(
                        "the message batch's results_url ({}) is not on the API's origin; oxeval does not send the key there",
                        crate::redact::display_url(url)
                    ),
                    status: None,
                    retryable: false,
                    maybe_created: false,
                });
            }
            let answer_limit = line_limit.saturating_sub(LINE_ENVELOPE_BYTES);
            stream_lines(
                self.request(reqwest::Method::GET, url),
                "reading the message batch results",
                timeout,
                line_limit,
                self.http().redactor(),
                &mut |line| {
                    if let Some(r) = anthropic_line(line, answer_limit) {
                        sink(r);
                    }
                },
            )
            .await
        })
    }

    fn list<'a>(
        &'a self,
        page: Option<&'a str>,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<ListPage, BatchError>> {
        Box::pin(self.list_page(page, timeout))
    }

    fn cancel<'a>(
        &'a self,
        id: &'a str,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<(), BatchError>> {
        Box::pin(async move {
            send(
                self.request(
                    reqwest::Method::POST,
                    &self.url(&format!("/{}/cancel", path_id(id))),
                ),
                &format!("cancelling message batch {id}"),
                timeout,
                MAX_ERROR_BODY_BYTES,
                self.http().redactor(),
            )
            .await
            .map(|_| ())
        })
    }
}

// ---- Gemini batch mode ------------------------------------------------------------------

pub struct GoogleBatch {
    p: GoogleProvider,
    base: String,
    model_path: String,
}

impl GoogleBatch {
    fn new(model: &ModelConfig, api_key: Option<Secret>) -> Self {
        let model_path = if model.model_id.contains('/') {
            model.model_id.clone()
        } else {
            format!("models/{}", model.model_id)
        };
        GoogleBatch {
            p: GoogleProvider::new(model, api_key),
            base: strip_userinfo(&model.base_url).into_owned(),
            model_path,
        }
    }

    fn http(&self) -> &HttpTarget {
        self.p.http()
    }

    fn request(&self, method: reqwest::Method, url: &str) -> RequestBuilder {
        http_client()
            .request(method, url)
            .headers(self.http().headers.clone())
    }

    /// `batches/{id}` under the base URL (the name as the API gave it, segment by segment).
    fn name_url(&self, name: &str, suffix: &str) -> String {
        let path: Vec<String> = name.split('/').map(path_id).collect();
        endpoint_url(&self.base, &format!("/{}{suffix}", path.join("/")))
    }
}

/// The gRPC status code of a Gemini line error as the HTTP status a direct call would see.
fn grpc_status(code: i64) -> u16 {
    match code {
        3 | 9 | 11 => 400,
        16 => 401,
        7 => 403,
        5 => 404,
        8 => 429,
        4 => 504,
        14 => 503,
        c if (400..600).contains(&c) => c as u16,
        _ => 500,
    }
}

fn google_status(v: &Value) -> BatchStatus {
    let meta = v.get("metadata").unwrap_or(v);
    let status = meta
        .get("state")
        .or_else(|| v.get("state"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let word = status
        .trim_start_matches("BATCH_STATE_")
        .trim_start_matches("JOB_STATE_");
    let stats = meta.get("batchStats");
    let n = |k: &str| {
        stats
            .and_then(|s| s.get(k))
            .and_then(|x| {
                x.as_u64()
                    .or_else(|| x.as_str().and_then(|s| s.parse().ok()))
            })
            .unwrap_or(0)
    };
    let state = match word {
        "SUCCEEDED" | "CANCELLED" | "EXPIRED" | "PARTIALLY_SUCCEEDED" => BatchState::Ended,
        "FAILED" => BatchState::Failed(
            v.pointer("/error/message")
                .and_then(Value::as_str)
                .map(|m| crate::engine::clip(m, 500))
                .unwrap_or_else(|| "the batch failed (no message)".into()),
        ),
        _ if v.get("done").and_then(Value::as_bool) == Some(true) => BatchState::Ended,
        _ => BatchState::Running,
    };
    BatchStatus {
        state,
        status,
        completed: n("successfulRequestCount"),
        failed: n("failedRequestCount"),
        outputs: Vec::new(),
        inline: Some(v.clone()),
    }
}

fn google_answer(item: &Value, limit: usize) -> Result<ChatResponse, LineFailure> {
    if let Some(r) = item.get("response") {
        return answer_of(r, limit, google::parse_response);
    }
    if let Some(e) = item.get("error") {
        let code = e.get("code").and_then(Value::as_i64).unwrap_or(13);
        return Err(http_failure(grpc_status(code), &json!({"error": e})));
    }
    Err(LineFailure::Missing)
}

impl BatchApi for GoogleBatch {
    fn provider(&self) -> &'static str {
        "google"
    }

    fn limits(&self) -> Limits {
        // inline requests: the whole create body stays under 20 MB
        Limits {
            requests: 50_000,
            bytes: 19_000_000,
        }
    }

    fn line(&self, custom_id: &str, req: &ChatRequest, opts: &CallOptions) -> Vec<u8> {
        serde_json::to_vec(&json!({
            "request": google::request_body(req, opts, self.p.caps()),
            "metadata": {"key": custom_id},
        }))
        .unwrap_or_default()
    }

    fn create<'a>(
        &'a self,
        lines: &'a [&'a [u8]],
        tag: &'a str,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<String, BatchError>> {
        Box::pin(async move {
            let head = json!({"displayName": tag}).to_string();
            let mut body =
                Vec::with_capacity(lines.iter().map(|l| l.len() + 1).sum::<usize>() + 128);
            body.extend_from_slice(b"{\"batch\":");
            // `{"displayName":…` without its closing brace, then the input config
            body.extend_from_slice(&head.as_bytes()[..head.len() - 1]);
            body.extend_from_slice(b",\"inputConfig\":{\"requests\":{\"requests\":[");
            for (i, l) in lines.iter().enumerate() {
                if i > 0 {
                    body.push(b',');
                }
                body.extend_from_slice(l);
            }
            body.extend_from_slice(b"]}}}}");
            let what = "creating the batch";
            let url = endpoint_url(
                &self.base,
                &format!("/{}:batchGenerateContent", self.model_path),
            );
            let created = send(
                self.request(reqwest::Method::POST, &url)
                    .header(reqwest::header::CONTENT_TYPE, "application/json")
                    .body(body),
                what,
                timeout,
                MAX_ERROR_BODY_BYTES,
                self.http().redactor(),
            )
            .await
            .map_err(BatchError::of_create)?;
            let v = parse_json(what, &created).map_err(BatchError::of_create)?;
            let name = v
                .get("name")
                .or_else(|| v.pointer("/metadata/name"))
                .and_then(Value::as_str);
            match name {
                Some(n) if n.starts_with("batches/") => Ok(n.to_string()),
                _ => Err(not_understood(what, &created).of_create()),
            }
        })
    }

    fn retrieve<'a>(
        &'a self,
        id: &'a str,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<BatchStatus, BatchError>> {
        Box::pin(async move {
            let what = format!("retrieving {id}");
            let body = send(
                self.request(reqwest::Method::GET, &self.name_url(id, "")),
                &what,
                timeout,
                MAX_STATUS_BYTES,
                self.http().redactor(),
            )
            .await?;
            Ok(google_status(&parse_json(&what, &body)?))
        })
    }

    fn results<'a>(
        &'a self,
        status: &'a BatchStatus,
        order: &'a [String],
        line_limit: usize,
        _timeout: Duration,
        sink: &'a mut (dyn FnMut(LineResult) + Send),
    ) -> BoxFuture<'a, Result<(), BatchError>> {
        Box::pin(async move {
            let limit = line_limit.saturating_sub(LINE_ENVELOPE_BYTES);
            let Some(op) = &status.inline else {
                return Ok(());
            };
            let list = [
                "/response/inlinedResponses/inlinedResponses",
                "/metadata/output/inlinedResponses/inlinedResponses",
                "/output/inlinedResponses/inlinedResponses",
            ]
            .iter()
            .find_map(|p| op.pointer(p).and_then(Value::as_array));
            let Some(list) = list else {
                return Ok(());
            };
            // answers come in request order; a `metadata.key` names its request when present
            for (i, item) in list.iter().enumerate() {
                let id = item
                    .pointer("/metadata/key")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .or_else(|| order.get(i).cloned());
                if let Some(id) = id {
                    sink((id, google_answer(item, limit)));
                }
            }
            Ok(())
        })
    }

    fn list<'a>(
        &'a self,
        page: Option<&'a str>,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<ListPage, BatchError>> {
        Box::pin(self.list_page(page, timeout))
    }

    fn cancel<'a>(
        &'a self,
        id: &'a str,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<(), BatchError>> {
        Box::pin(async move {
            send(
                self.request(reqwest::Method::POST, &self.name_url(id, ":cancel")),
                &format!("cancelling {id}"),
                timeout,
                MAX_ERROR_BODY_BYTES,
                self.http().redactor(),
            )
            .await
            .map(|_| ())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openai_lines_map_to_answers_and_failures() {
        let ok = br#"{"id":"r1","custom_id":"a","response":{"status_code":200,"body":{"choices":[{"message":{"content":"{\"x\":1}"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}},"error":null}"#;
        let (id, r) = openai_line(ok, 1 << 20).unwrap();
        assert_eq!(id, "a");
        let r = r.unwrap();
        assert_eq!(r.text, "{\"x\":1}");
        assert_eq!(r.usage.total_tokens, Some(5));
        let bad = br#"{"custom_id":"b","response":{"status_code":400,"body":{"error":{"message":"bad param"}}}}"#;
        let (_, r) = openai_line(bad, 1 << 20).unwrap();
        assert!(matches!(
            r,
            Err(LineFailure::Call(CallError::Http { status: 400, .. }))
        ));
        assert!(!r.unwrap_err().retryable());
        let expired =
            br#"{"custom_id":"c","response":null,"error":{"code":"batch_expired","message":"x"}}"#;
        assert!(matches!(
            openai_line(expired, 1 << 20).unwrap().1,
            Err(LineFailure::Expired)
        ));
        let big = br#"{"custom_id":"d","response":{"status_code":200,"body":{"choices":[{"message":{"content":"0123456789012345678901234567890123456789"}}]}}}"#;
        assert!(matches!(
            openai_line(big, 20).unwrap().1,
            Err(LineFailure::Call(CallError::TooLarge { .. }))
        ));
        assert!(openai_line(b"not json", 100).is_none());
    }

    #[test]
    fn anthropic_results_map_error_types_to_statuses() {
        let e = br#"{"custom_id":"a","result":{"type":"errored","error":{"type":"error","error":{"type":"overloaded_error","message":"busy"}}}}"#;
        let (_, r) = anthropic_line(e, 1 << 20).unwrap();
        let f = r.unwrap_err();
        assert!(matches!(
            f,
            LineFailure::Call(CallError::Http { status: 529, .. })
        ));
        assert!(f.retryable());
        let x = br#"{"custom_id":"b","result":{"type":"expired"}}"#;
        assert!(matches!(
            anthropic_line(x, 10).unwrap().1,
            Err(LineFailure::Expired)
        ));
    }

    #[test]
    fn statuses() {
        let s = openai_status(
            &json!({"status": "finalizing", "request_counts": {"total": 3, "completed": 2, "failed": 0}}),
        );
        assert_eq!(s.state, BatchState::Running);
        assert_eq!(s.completed, 2);
        let s = openai_status(
            &json!({"status": "failed", "errors": {"data": [{"message": "bad line 3"}]}}),
        );
        assert_eq!(s.state, BatchState::Failed("bad line 3".into()));
        let s = openai_status(
            &json!({"status": "expired", "output_file_id": "f1", "error_file_id": "f2"}),
        );
        assert_eq!((s.state, s.outputs.len()), (BatchState::Ended, 2));
        let s = google_status(
            &json!({"name": "batches/1", "metadata": {"state": "BATCH_STATE_RUNNING"}}),
        );
        assert_eq!(s.state, BatchState::Running);
        let s = google_status(
            &json!({"name": "batches/1", "metadata": {"state": "JOB_STATE_SUCCEEDED"}, "done": true}),
        );
        assert_eq!(s.state, BatchState::Ended);
        assert_eq!(grpc_status(8), 429);
    }

    #[test]
    fn provider_messages() {
        assert_eq!(
            provider_message(r#"{"error":{"message":"quota"}}"#),
            "quota"
        );
        assert_eq!(
            provider_message(r#"{"type":"error","error":{"type":"x","message":"too big"}}"#),
            "too big"
        );
        assert_eq!(provider_message(""), "(empty body)");
    }
}
