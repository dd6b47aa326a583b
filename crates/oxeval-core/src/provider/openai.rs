//! OpenAI chat completions wire format (also spoken by groq, mistral, deepseek, openrouter,
//! together, xai, cerebras, deepinfra, fireworks, perplexity, lmstudio, ollama, any endpoint
//! given by `url`, and Azure OpenAI with its own URL and `api-key` header).
//!
//! What a model accepts comes from the capability table ([`crate::model::capabilities`]):
//! `temperature` or not, `max_tokens` or `max_completion_tokens`, JSON mode, a system
//! message. What the table does not know, the judge says: a 400 naming an unsupported
//! parameter makes [`OpenAiProvider::adapt`] drop (or rename) it for the endpoint and model,
//! process-wide, and the engine sends the request once more ([`Healed`]).

use super::{
    custom_headers, error_instead, non_empty_str, not_json, secret_header, wants_json, CallError,
    CallOptions, ChatRequest, ChatResponse, HttpTarget, Provider, Usage,
};
use crate::model::{Capabilities, ModelConfig, Secret, StructuredOutput, TokenParam, Wire};
use crate::redact::{endpoint_url, percent_decode, strip_userinfo, url_userinfo};
use futures::future::BoxFuture;
use reqwest::header::AUTHORIZATION;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};
use std::time::Duration;

/// How requests authenticate.
enum Auth {
    None,
    /// `Authorization: Bearer <api key>`.
    Bearer(Secret),
    /// `api-key: <api key>` (Azure OpenAI).
    ApiKeyHeader(Secret),
    /// `Authorization: Basic …` from the base URL's userinfo (percent-decoded).
    Basic {
        user: String,
        password: Option<Secret>,
    },
}

pub struct OpenAiProvider {
    /// `{base}/embeddings` (Azure: `{base}/deployments/{d}/embeddings?api-version=…`).
    embed_endpoint: String,
    /// `{base_url}/chat/completions` (Azure: `{base_url}/deployments/{deployment}/chat/completions?api-version=…`),
    /// never with the base URL's userinfo.
    http: HttpTarget,
    auth: Auth,
    /// The capability table's entry for the model.
    caps: Capabilities,
    /// How step schemas reach the judge (the model's resolved choice).
    structured: StructuredOutput,
    /// `endpoint#model`: where what the judge rejected is remembered ([`HEALED`]).
    heal_key: String,
}

/// The parameters a judge rejected, remembered per endpoint and model for the life of the
/// process: every later request to that model leaves them out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Healed {
    /// `temperature` was rejected (reasoning models accept only the default).
    pub no_temperature: bool,
    /// How often the output budget parameter was rejected: 1 = use the other name
    /// (`max_tokens` ↔ `max_completion_tokens`), 2 = send no budget.
    pub token_param_rejections: u8,
    /// `reasoning_effort` was rejected.
    pub no_reasoning_effort: bool,
    /// `response_format: { type: 'json_object' }` was rejected (the schema stays in the
    /// prompt).
    pub no_json_mode: bool,
}

static HEALED: LazyLock<Mutex<HashMap<String, Healed>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

fn healed(key: &str) -> Healed {
    HEALED
        .lock()
        .map(|m| m.get(key).copied().unwrap_or_default())
        .unwrap_or_default()
}

/// A request parameter the self-heal may drop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Param {
    Temperature,
    Token(TokenParam),
    ReasoningEffort,
    ResponseFormat,
}

impl Param {
    const ALL: [(&'static str, Param); 5] = [
        ("temperature", Param::Temperature),
        ("max_tokens", Param::Token(TokenParam::MaxTokens)),
        (
            "max_completion_tokens",
            Param::Token(TokenParam::MaxCompletionTokens),
        ),
        ("reasoning_effort", Param::ReasoningEffort),
        ("response_format", Param::ResponseFormat),
    ];

    fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, p)| *p == self)
            .map_or("", |(n, _)| n)
    }
}

/// The parameter a 400/422 body says is not supported: `error.param` (OpenAI), else the
/// first parameter named in a message about an unsupported, unrecognized or unknown
/// argument (Azure's "Unrecognized request argument supplied: reasoning_effort", vLLM,
/// Mistral's "Extra inputs are not permitted"). `None` for any other error, e.g. a value
/// out of range without such wording.
fn rejected_param(body: &str) -> Option<Param> {
    let v: Value = serde_json::from_str(body).ok()?;
    let err = v.get("error").unwrap_or(&v);
    let message = err
        .get("message")
        .and_then(Value::as_str)
        .or_else(|| v.get("detail").and_then(Value::as_str))
        .unwrap_or("")
        .to_ascii_lowercase();
    let code = err
        .get("code")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_ascii_lowercase();
    let unsupported = code.starts_with("unsupported")
        || [
            "unsupported",
            "not supported",
            "does not support",
            "unrecognized",
            "unknown parameter",
            "unknown field",
            "unknown argument",
            "not permitted",
            "not allowed",
        ]
        .iter()
        .any(|p| message.contains(p));
    if !unsupported {
        return None;
    }
    let by_name = |name: &str| {
        // `response_format.type`, `body.temperature`
        let name = name.trim();
        Param::ALL.iter().find_map(|(n, p)| {
            (name == *n || name.split(['.', '[']).any(|seg| seg == *n)).then_some(*p)
        })
    };
    if let Some(p) = err.get("param").and_then(Value::as_str).and_then(by_name) {
        return Some(p);
    }
    // the earliest mention as a whole word ("'max_tokens' is not supported … use
    // 'max_completion_tokens'" names max_tokens)
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    Param::ALL
        .iter()
        .filter_map(|(n, p)| {
            message
                .match_indices(n)
                .find(|(i, _)| {
                    let before = message.as_bytes().get(i.wrapping_sub(1)).copied();
                    let after = message.as_bytes().get(i + n.len()).copied();
                    !before.is_some_and(is_word) && !after.is_some_and(is_word)
                })
                .map(|(i, _)| (i, *p))
        })
        .min_by_key(|(i, _)| *i)
        .map(|(_, p)| p)
}

/// What one request carries, after the capability table and what the judge rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WireCaps {
    pub temperature: bool,
    /// `None`: no output budget is sent.
    pub token_param: Option<TokenParam>,
    pub reasoning_effort: bool,
    /// `response_format: { type: 'json_object' }` on requests that ask for JSON without a
    /// native schema.
    pub json_mode: bool,
    pub system_prompt: bool,
}

impl WireCaps {
    /// The capability table's entry with what the judge rejected taken out.
    pub fn new(caps: &Capabilities, structured: StructuredOutput, healed: Healed) -> Self {
        let other = match caps.token_param {
            TokenParam::MaxTokens => TokenParam::MaxCompletionTokens,
            TokenParam::MaxCompletionTokens => TokenParam::MaxTokens,
        };
        WireCaps {
            temperature: caps.temperature && !healed.no_temperature,
            token_param: match healed.token_param_rejections {
                0 => Some(caps.token_param),
                1 => Some(other),
                _ => None,
            },
            reasoning_effort: !healed.no_reasoning_effort,
            json_mode: structured == StructuredOutput::JsonObject && !healed.no_json_mode,
            system_prompt: caps.system_prompt,
        }
    }

    /// The full capability of a plain OpenAI-compatible server: everything sent as asked,
    /// `max_tokens`.
    pub fn plain() -> Self {
        WireCaps {
            temperature: true,
            token_param: Some(TokenParam::MaxTokens),
            reasoning_effort: true,
            json_mode: false,
            system_prompt: true,
        }
    }
}

/// Characters kept as they are in a URL path segment.
fn path_segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

impl OpenAiProvider {
    /// `api_key` must already be resolved (a missing key is reported before this point).
    ///
    /// Credentials in the base URL (`http://user:password@host/v1`) are never part of the
    /// request URL (so no error text can show them). They become an
    /// `Authorization: Basic` header only when there is no API key and no custom
    /// `Authorization` header; otherwise they are dropped (the API key / the custom header
    /// is the one credential sent).
    ///
    /// An Azure model (`azure/<deployment>`) posts to
    /// `{base}/deployments/{deployment}/chat/completions?api-version={apiVersion}` with the
    /// key in an `api-key` header.
    pub fn new(model: &ModelConfig, api_key: Option<Secret>) -> Self {
        let headers = custom_headers(model);
        let azure = model.wire() == Wire::Azure;
        let userinfo = url_userinfo(&model.base_url)
            .filter(|info| !info.user.is_empty() || info.password.is_some());
        let auth = match (&api_key, userinfo) {
            (Some(key), _) if azure => Auth::ApiKeyHeader(key.clone()),
            (Some(key), _) => Auth::Bearer(key.clone()),
            (None, Some(info)) if !headers.contains_key(AUTHORIZATION) => Auth::Basic {
                user: percent_decode(info.user),
                password: info.password.map(|p| Secret::new(percent_decode(p))),
            },
            _ => Auth::None,
        };
        let base = strip_userinfo(&model.base_url);
        let endpoint = if azure {
            let version = model
                .api_version
                .as_deref()
                .unwrap_or(crate::model::AZURE_DEFAULT_API_VERSION);
            endpoint_url(
                &base,
                &format!(
                    "/deployments/{}/chat/completions?api-version={}",
                    path_segment(&model.model_id),
                    path_segment(version)
                ),
            )
        } else {
            endpoint_url(&base, "/chat/completions")
        };
        let embed_endpoint = embeddings_endpoint(&endpoint);
        OpenAiProvider {
            embed_endpoint,
            heal_key: format!("{endpoint}#{}", model.model_id),
            http: HttpTarget::new(model, api_key.as_ref(), endpoint, headers),
            auth,
            caps: model.capabilities(),
            structured: model.structured,
        }
    }

    /// The URL requests go to (no credentials in it).
    pub fn endpoint(&self) -> &str {
        &self.http.endpoint
    }

    /// What requests carry now: the capability table less what the judge rejected.
    pub fn wire_caps(&self) -> WireCaps {
        WireCaps::new(&self.caps, self.structured, healed(&self.heal_key))
    }

    async fn call(
        &self,
        req: &ChatRequest,
        opts: &CallOptions,
        timeout: Duration,
    ) -> Result<ChatResponse, CallError> {
        let body = wire_request(&self.http.model_id, req, opts, &self.wire_caps());
        self.http
            .send(&body, |b| self.authorize(b), req, timeout, parse_response)
            .await
    }

    /// `builder` with this provider's credentials (the batch transport's requests too).
    pub(crate) fn authorize(&self, builder: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match &self.auth {
            Auth::None => builder,
            Auth::Bearer(key) => builder.bearer_auth(key.expose()),
            Auth::ApiKeyHeader(key) => match secret_header(key) {
                Some(v) => builder.header("api-key", v),
                None => builder,
            },
            Auth::Basic { user, password } => {
                builder.basic_auth(user, password.as_ref().map(Secret::expose))
            }
        }
    }

    /// The HTTP target (endpoint, headers, secrets) the batch transport shares.
    pub(crate) fn http(&self) -> &HttpTarget {
        &self.http
    }

    /// See [`Provider::adapt`]: a 400/422 naming a parameter the request carried that the
    /// model does not support ([`rejected_param`]) is remembered for this endpoint and
    /// model; `true` when the request no longer carries it.
    fn learn(&self, req: &ChatRequest, opts: &CallOptions, err: &CallError) -> bool {
        let CallError::Http {
            status: 400 | 422,
            body,
            ..
        } = err
        else {
            return false;
        };
        let Some(param) = rejected_param(body) else {
            return false;
        };
        let Ok(mut map) = HEALED.lock() else {
            return false;
        };
        let h = map.entry(self.heal_key.clone()).or_default();
        let now = WireCaps::new(&self.caps, self.structured, *h);
        match param {
            Param::Temperature => h.no_temperature = true,
            Param::Token(named) if now.token_param == Some(named) => {
                h.token_param_rejections = h.token_param_rejections.saturating_add(1).min(2);
            }
            Param::Token(_) => {}
            Param::ReasoningEffort => h.no_reasoning_effort = true,
            // JSON mode can go (the schema is in the prompt); a native schema cannot
            Param::ResponseFormat if req.schema.is_none() => h.no_json_mode = true,
            Param::ResponseFormat => {}
        }
        let after = WireCaps::new(&self.caps, self.structured, *h);
        drop(map);
        let body = request_body_with(&self.http.model_id, req, opts, &after);
        body.get(param.name()).is_none()
    }
}

#[derive(Serialize)]
struct WireMessage<'a> {
    role: &'static str,
    content: std::borrow::Cow<'a, str>,
}

#[derive(Serialize)]
struct WireSchema<'a> {
    name: &'a str,
    strict: bool,
    schema: &'a Value,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum WireResponseFormat<'a> {
    JsonSchema { json_schema: WireSchema<'a> },
    JsonObject,
}

#[derive(Serialize)]
struct WireRequest<'a> {
    model: &'a str,
    messages: Vec<WireMessage<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_completion_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_effort: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    response_format: Option<WireResponseFormat<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    logprobs: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    top_logprobs: Option<u32>,
}

/// The request body for `req` as a typed wire value (serialized straight into the HTTP body).
fn wire_request<'a>(
    model_id: &'a str,
    req: &'a ChatRequest,
    opts: &CallOptions,
    caps: &WireCaps,
) -> WireRequest<'a> {
    let mut messages = Vec::with_capacity(2);
    let user = if req.system.is_empty() {
        std::borrow::Cow::Borrowed(req.user.as_str())
    } else if caps.system_prompt {
        messages.push(WireMessage {
            role: "system",
            content: std::borrow::Cow::Borrowed(&req.system),
        });
        std::borrow::Cow::Borrowed(req.user.as_str())
    } else {
        std::borrow::Cow::Owned(format!("{}\n\n{}", req.system, req.user))
    };
    messages.push(WireMessage {
        role: "user",
        content: user,
    });
    let budget = |p: TokenParam| req.max_tokens.filter(|_| caps.token_param == Some(p));
    let response_format = match &req.schema {
        Some((name, schema)) => Some(WireResponseFormat::JsonSchema {
            json_schema: WireSchema {
                name,
                strict: true,
                schema,
            },
        }),
        None if caps.json_mode && wants_json(req) => Some(WireResponseFormat::JsonObject),
        None => None,
    };
    WireRequest {
        model: model_id,
        messages,
        temperature: req.temperature.filter(|_| caps.temperature),
        max_tokens: budget(TokenParam::MaxTokens),
        max_completion_tokens: budget(TokenParam::MaxCompletionTokens),
        reasoning_effort: opts
            .reasoning_effort
            .filter(|_| caps.reasoning_effort)
            .map(|e| e.as_str()),
        response_format,
        // a model that takes no temperature (a reasoning model) rejects logprobs too
        logprobs: (req.logprobs && caps.temperature).then_some(true),
        top_logprobs: (req.logprobs && caps.temperature).then_some(super::TOP_LOGPROBS),
    }
}

/// The request body for `req` as a plain OpenAI-compatible server gets it (pure;
/// snapshot-tested).
pub fn request_body(model_id: &str, req: &ChatRequest) -> Value {
    request_body_with(model_id, req, &CallOptions::default(), &WireCaps::plain())
}

/// The request body for `req` with `opts` and `caps` (pure; snapshot-tested).
pub fn request_body_with(
    model_id: &str,
    req: &ChatRequest,
    opts: &CallOptions,
    caps: &WireCaps,
) -> Value {
    serde_json::to_value(wire_request(model_id, req, opts, caps)).unwrap_or(Value::Null)
}

/// The parts of a chat completion oxeval reads. Everything past `choices` is read leniently
/// (as JSON values): an odd `usage` or `finish_reason` must not lose the answer.
#[derive(Deserialize)]
struct WireResponse {
    #[serde(default)]
    choices: Option<Vec<WireChoice>>,
    #[serde(default)]
    usage: Option<Value>,
    /// Some proxies answer 2xx with `{error: {message}}`.
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct WireChoice {
    #[serde(default)]
    message: Option<WireChoiceMessage>,
    /// `{ content: [{ token, logprob, top_logprobs: [{ token, logprob }] }] }` when asked.
    #[serde(default)]
    logprobs: Option<Value>,
    #[serde(default)]
    finish_reason: Option<Value>,
}

#[derive(Deserialize)]
struct WireChoiceMessage {
    #[serde(default)]
    content: Option<Value>,
    #[serde(default)]
    refusal: Option<Value>,
    /// DeepSeek, vLLM.
    #[serde(default)]
    reasoning_content: Option<Value>,
    /// OpenRouter, Ollama.
    #[serde(default)]
    reasoning: Option<Value>,
    #[serde(default)]
    tool_calls: Option<Value>,
    /// The legacy form of a tool call.
    #[serde(default)]
    function_call: Option<Value>,
}

/// Something present: not null, not an empty array/object/string.
fn present(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::Object(o)) => !o.is_empty(),
        Some(Value::String(s)) => !s.is_empty(),
        Some(_) => true,
    }
}

fn usage_of(u: &Value) -> Usage {
    let n = |ptr: &str| u.pointer(ptr).and_then(Value::as_u64);
    Usage {
        input_tokens: n("/prompt_tokens"),
        output_tokens: n("/completion_tokens"),
        total_tokens: n("/total_tokens"),
        reasoning_tokens: n("/completion_tokens_details/reasoning_tokens"),
        cached_input_tokens: n("/prompt_tokens_details/cached_tokens"),
    }
}

/// Parse a chat completion body (pure).
///
/// - `text` is the message `content`: a string, or the concatenated `text` of the content
///   parts of type `text`/`output_text` (or without a type); other parts (images, audio,
///   reasoning) are not the answer.
/// - `refusal` is `message.refusal` or the `refusal` parts; `text` stays as `content` was
///   (empty when it was null).
/// - `reasoning` is `message.reasoning_content`, else `message.reasoning`; never the text.
/// - [`CallError::BadResponse`] (with the body) when the body is not a chat completion, has
///   no choices, answers 2xx with an `error`, or the message is a tool call without text.
///
/// A lone UTF-16 surrogate escape anywhere in the body's strings is replaced by U+FFFD
/// first, with a warning on the response ([`parse_body`](super::parse_body)).
pub fn parse_response(body: &[u8]) -> Result<ChatResponse, CallError> {
    super::parse_body(body, parse_wire)
}

fn parse_wire(body: &[u8]) -> Result<ChatResponse, CallError> {
    let wire: WireResponse =
        serde_json::from_slice(body).map_err(|e| not_json("a chat completion", &e, body))?;
    let Some(choice) = wire.choices.and_then(|c| c.into_iter().next()) else {
        if let Some(err) = wire.error.as_ref().filter(|e| !e.is_null()) {
            return Err(error_instead(err, body));
        }
        return Err(CallError::bad_response(
            "the judge's response has no choices",
            body,
        ));
    };
    let finish_reason = non_empty_str(choice.finish_reason.as_ref());
    let logprobs = choice.logprobs.as_ref().and_then(logprobs_of);
    let usage = wire.usage.as_ref().map(usage_of).unwrap_or_default();
    let Some(message) = choice.message else {
        return Ok(ChatResponse {
            finish_reason,
            usage,
            ..Default::default()
        });
    };
    let mut refusal = non_empty_str(message.refusal.as_ref());
    let text = match message.content {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s,
        Some(Value::Array(parts)) => {
            let mut text = String::new();
            for part in &parts {
                match part.get("type").and_then(Value::as_str) {
                    Some("text" | "output_text") | None => {
                        if let Some(t) = part.get("text").and_then(Value::as_str) {
                            text.push_str(t);
                        }
                    }
                    Some("refusal") => {
                        if let Some(r) = non_empty_str(part.get("refusal")) {
                            match &mut refusal {
                                Some(all) => all.push_str(&r),
                                None => refusal = Some(r),
                            }
                        }
                    }
                    // images, audio, reasoning/thinking parts: not the answer
                    Some(_) => {}
                }
            }
            text
        }
        Some(other) => {
            return Err(CallError::bad_response(
                format!(
                    "the judge's message content is a JSON {}, not text",
                    crate::error::type_name(&other)
                ),
                body,
            ))
        }
    };
    if text.trim().is_empty()
        && refusal.is_none()
        && (present(message.tool_calls.as_ref()) || present(message.function_call.as_ref()))
    {
        return Err(CallError::bad_response(
            "the judge answered with a tool call instead of text",
            body,
        ));
    }
    let reasoning = non_empty_str(message.reasoning_content.as_ref())
        .or_else(|| non_empty_str(message.reasoning.as_ref()));
    Ok(ChatResponse {
        warnings: Vec::new(),
        text,
        refusal,
        reasoning,
        finish_reason,
        usage,
        logprobs,
    })
}

/// The embeddings URL beside a chat completions URL (the query, e.g. Azure's
/// `api-version`, kept).
fn embeddings_endpoint(chat: &str) -> String {
    match chat.rfind("/chat/completions") {
        Some(i) => format!(
            "{}/embeddings{}",
            &chat[..i],
            &chat[i + "/chat/completions".len()..]
        ),
        None => chat.to_string(),
    }
}

/// `choices[0].logprobs.content` as tokens; `None` when absent or not of that shape (a token
/// without a finite `logprob` ends the reading: a partial list would misplace the answer).
fn logprobs_of(v: &Value) -> Option<Vec<super::TokenLogprob>> {
    let pair = |t: &Value| -> Option<(String, f64)> {
        let lp = t.get("logprob")?.as_f64().filter(|x| x.is_finite())?;
        Some((t.get("token")?.as_str()?.to_string(), lp))
    };
    v.get("content")?
        .as_array()?
        .iter()
        .map(|t| {
            let (token, logprob) = pair(t)?;
            let top = t
                .get("top_logprobs")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(pair).collect())
                .unwrap_or_default();
            Some(super::TokenLogprob {
                token,
                logprob,
                top,
            })
        })
        .collect()
}

impl Provider for OpenAiProvider {
    fn embed<'a>(
        &'a self,
        texts: &'a [String],
        timeout: Duration,
    ) -> BoxFuture<'a, Result<super::embed::EmbedResponse, CallError>> {
        use super::embed::{openai_body, parse_openai, MAX_EMBED_RESPONSE_BYTES};
        Box::pin(async move {
            let body = openai_body(&self.http.model_id, texts);
            self.http
                .post_to(
                    &self.embed_endpoint,
                    &body,
                    |b| self.authorize(b),
                    MAX_EMBED_RESPONSE_BYTES,
                    timeout,
                    parse_openai,
                )
                .await
        })
    }

    fn name(&self) -> &str {
        &self.http.provider_id
    }

    fn model_id(&self) -> &str {
        &self.http.model_id
    }

    fn complete<'a>(
        &'a self,
        req: &'a ChatRequest,
        opts: &'a CallOptions,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<ChatResponse, CallError>> {
        Box::pin(self.call(req, opts, timeout))
    }

    fn adapt(&self, req: &ChatRequest, opts: &CallOptions, err: &CallError) -> bool {
        self.learn(req, opts, err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::sync::Arc;

    #[test]
    fn body_native_json_schema() {
        let req = ChatRequest {
            system: "You are a judge.".into(),
            user: "Judge this.".into(),
            schema: Some(("step_x", Arc::new(json!({"type": "object"})))),
            temperature: Some(0.0),
            max_tokens: Some(512),
            max_response_bytes: crate::provider::DEFAULT_MAX_RESPONSE_BYTES,
            logprobs: false,
        };
        assert_eq!(
            request_body("gpt-4o-mini", &req),
            json!({
                "model": "gpt-4o-mini",
                "messages": [
                    {"role": "system", "content": "You are a judge."},
                    {"role": "user", "content": "Judge this."}
                ],
                "temperature": 0.0,
                "max_tokens": 512,
                "response_format": {"type": "json_schema", "json_schema": {"name": "step_x", "strict": true, "schema": {"type": "object"}}}
            })
        );
    }

    #[test]
    fn body_prompt_style_has_no_response_format() {
        let req = ChatRequest {
            system: String::new(),
            user: "Judge this.".into(),
            schema: None,
            temperature: None,
            max_tokens: None,
            max_response_bytes: crate::provider::DEFAULT_MAX_RESPONSE_BYTES,
            logprobs: false,
        };
        assert_eq!(
            request_body("llama3.2", &req),
            json!({"model": "llama3.2", "messages": [{"role": "user", "content": "Judge this."}]})
        );
    }

    fn reasoning_caps(model: &str) -> WireCaps {
        let m = ModelConfig::resolve(&json!(format!("openai/{model}")), &|name| {
            (name == "OPENAI_API_KEY").then(|| "k".to_string())
        })
        .unwrap();
        WireCaps::new(&m.capabilities(), m.structured, Healed::default())
    }

    fn judge_request(schema: bool) -> ChatRequest {
        ChatRequest {
            system: "You are a judge.".into(),
            user: "Judge this.".into(),
            schema: schema.then(|| ("step_x", Arc::new(json!({"type": "object"})))),
            temperature: Some(0.0),
            max_tokens: Some(512),
            max_response_bytes: crate::provider::DEFAULT_MAX_RESPONSE_BYTES,
            logprobs: false,
        }
    }

    #[test]
    fn body_reasoning_model() {
        let opts = CallOptions {
            reasoning_effort: Some(crate::provider::ReasoningEffort::Low),
        };
        assert_eq!(
            request_body_with(
                "o3-mini",
                &judge_request(true),
                &opts,
                &reasoning_caps("o3-mini")
            ),
            json!({
                "model": "o3-mini",
                "messages": [
                    {"role": "system", "content": "You are a judge."},
                    {"role": "user", "content": "Judge this."}
                ],
                "max_completion_tokens": 512,
                "reasoning_effort": "low",
                "response_format": {"type": "json_schema", "json_schema": {"name": "step_x", "strict": true, "schema": {"type": "object"}}}
            })
        );
        // a chat model on OpenAI keeps temperature, with max_completion_tokens
        let body = request_body_with(
            "gpt-4o-mini",
            &judge_request(true),
            &CallOptions::default(),
            &reasoning_caps("gpt-4o-mini"),
        );
        assert_eq!(body["temperature"], json!(0.0));
        assert_eq!(body["max_completion_tokens"], json!(512));
        assert!(body.get("max_tokens").is_none());
        // o1-mini: no system message, no response_format (prompt style)
        let body = request_body_with(
            "o1-mini",
            &judge_request(false),
            &CallOptions::default(),
            &reasoning_caps("o1-mini"),
        );
        assert_eq!(
            body["messages"],
            json!([{"role": "user", "content": "You are a judge.\n\nJudge this."}])
        );
    }

    #[test]
    fn body_json_mode_only_for_json_requests() {
        let caps = WireCaps {
            json_mode: true,
            ..WireCaps::plain()
        };
        let mut structured = judge_request(false);
        structured.system = format!(
            "You are a judge.\n\n{}step_x\nRespond with ONE JSON value",
            crate::provider::SCHEMA_PROMPT_MARKER
        );
        let body = request_body_with("m", &structured, &CallOptions::default(), &caps);
        assert_eq!(body["response_format"], json!({"type": "json_object"}));
        assert_eq!(body["max_tokens"], json!(512));
        let text = judge_request(false);
        let body = request_body_with("m", &text, &CallOptions::default(), &caps);
        assert!(
            body.get("response_format").is_none(),
            "free text stays text"
        );
    }

    #[test]
    fn rejected_params_from_error_bodies() {
        let openai = |param: &str, code: &str, message: &str| {
            json!({"error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}}).to_string()
        };
        assert_eq!(
            rejected_param(&openai(
                "temperature",
                "unsupported_value",
                "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported."
            )),
            Some(Param::Temperature)
        );
        assert_eq!(
            rejected_param(&openai(
                "max_tokens",
                "unsupported_parameter",
                "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."
            )),
            Some(Param::Token(TokenParam::MaxTokens))
        );
        // no param: the first one the message names
        let no_param = |message: &str| json!({"error": {"message": message}}).to_string();
        assert_eq!(
            rejected_param(&no_param("Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.")),
            Some(Param::Token(TokenParam::MaxTokens))
        );
        assert_eq!(
            rejected_param(&no_param(
                "Unrecognized request argument supplied: reasoning_effort"
            )),
            Some(Param::ReasoningEffort)
        );
        // vLLM's shape: the error at the top level
        assert_eq!(
            rejected_param(&json!({"object": "error", "message": "temperature: Extra inputs are not permitted", "code": 400}).to_string()),
            Some(Param::Temperature)
        );
        assert_eq!(
            rejected_param(
                &json!({"detail": "response_format: Extra inputs are not permitted"}).to_string()
            ),
            Some(Param::ResponseFormat)
        );
        assert_eq!(
            rejected_param(&openai(
                "response_format.type",
                "unsupported_value",
                "Invalid value"
            )),
            Some(Param::ResponseFormat)
        );
        // not about support: a value out of range, other errors, non-JSON
        assert_eq!(
            rejected_param(&openai(
                "max_tokens",
                "",
                "max_tokens is too large: 100000."
            )),
            None
        );
        assert_eq!(
            rejected_param(&openai(
                "messages",
                "unsupported_value",
                "Unsupported value: 'messages[0].role'"
            )),
            None
        );
        assert_eq!(rejected_param("Bad Request"), None);
        assert_eq!(
            rejected_param(&no_param("Unsupported: my_temperature_x")),
            None,
            "whole words only"
        );
    }

    #[test]
    fn the_judge_teaches_what_it_rejects() {
        // a server unknown to the table: everything is sent until the judge says otherwise
        let url = format!("http://127.0.0.1:9/heal-{}", fastrand::u64(..));
        let m = ModelConfig::resolve(&json!({"id": "custom/r1", "url": url}), &|_| None).unwrap();
        let p = OpenAiProvider::new(&m, None);
        let opts = CallOptions {
            reasoning_effort: Some(crate::provider::ReasoningEffort::High),
        };
        let req = judge_request(false);
        let body = |p: &OpenAiProvider| request_body_with("r1", &req, &opts, &p.wire_caps());
        assert_eq!(body(&p)["temperature"], json!(0.0));
        let rejected = |param: &str| {
            CallError::Http {
            status: 400,
            body: json!({"error": {"message": format!("Unsupported parameter: '{param}'"), "param": param, "code": "unsupported_parameter"}}).to_string(),
            retry_after: None,
        }
        };
        assert!(p.adapt(&req, &opts, &rejected("temperature")));
        assert!(body(&p).get("temperature").is_none());
        // a second provider for the same endpoint and model knows it already
        let p2 = OpenAiProvider::new(&m, None);
        assert!(body(&p2).get("temperature").is_none());
        // the budget parameter: renamed once, then dropped
        assert!(p.adapt(&req, &opts, &rejected("max_tokens")));
        assert_eq!(body(&p)["max_completion_tokens"], json!(512));
        assert!(p.adapt(&req, &opts, &rejected("max_completion_tokens")));
        assert!(
            body(&p).get("max_completion_tokens").is_none() && body(&p).get("max_tokens").is_none()
        );
        assert!(p.adapt(&req, &opts, &rejected("reasoning_effort")));
        assert!(body(&p).get("reasoning_effort").is_none());
        // a native schema cannot be dropped; other statuses teach nothing
        assert!(!p.adapt(&judge_request(true), &opts, &rejected("response_format")));
        let mut server_error = rejected("temperature");
        if let CallError::Http { status, .. } = &mut server_error {
            *status = 500;
        }
        assert!(!p.adapt(&req, &opts, &server_error));
        assert!(!p.adapt(&req, &opts, &CallError::Network("reset".into())));
    }

    #[test]
    fn azure_endpoint_and_auth() {
        let key = ["test", "azure", "1"].join("-");
        let m = ModelConfig::resolve(&json!("azure/my gpt"), &|name| match name {
            "AZURE_RESOURCE_NAME" => Some("res-1".into()),
            "AZURE_API_KEY" => Some(key.clone()),
            _ => None,
        })
        .unwrap();
        let p = OpenAiProvider::new(&m, m.api_key.clone().unwrap());
        assert_eq!(
            p.endpoint(),
            format!(
                "https://res-1.openai.azure.com/openai/deployments/my%20gpt/chat/completions?api-version={}",
                crate::model::AZURE_DEFAULT_API_VERSION
            )
        );
        assert!(matches!(p.auth, Auth::ApiKeyHeader(_)));
    }

    #[test]
    fn parses_responses() {
        let body = json!({
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "{\"a\":1}"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15,
                      "prompt_tokens_details": {"cached_tokens": 2}, "completion_tokens_details": {"reasoning_tokens": 1}}
        });
        let r = parse_response(body.to_string().as_bytes()).unwrap();
        assert_eq!(r.text, "{\"a\":1}");
        assert_eq!(r.finish_reason.as_deref(), Some("stop"));
        assert_eq!(
            r.usage,
            Usage {
                input_tokens: Some(10),
                output_tokens: Some(5),
                total_tokens: Some(15),
                reasoning_tokens: Some(1),
                cached_input_tokens: Some(2)
            }
        );
        let parts = json!({"choices": [{"message": {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}}]});
        assert_eq!(
            parse_response(parts.to_string().as_bytes()).unwrap().text,
            "ab"
        );
        assert!(matches!(
            parse_response(b"<html>"),
            Err(CallError::BadResponse { .. })
        ));
        assert!(matches!(
            parse_response(b"{\"choices\":[]}"),
            Err(CallError::BadResponse { .. })
        ));
    }

    fn parse(v: Value) -> Result<ChatResponse, CallError> {
        parse_response(v.to_string().as_bytes())
    }

    #[test]
    fn logprobs_asked_for_and_read() {
        let mut req = judge_request(true);
        req.logprobs = true;
        let body = request_body("gpt-4o-mini", &req);
        assert_eq!(
            (body["logprobs"].clone(), body["top_logprobs"].clone()),
            (json!(true), json!(20))
        );
        assert!(request_body("gpt-4o-mini", &judge_request(true))
            .get("logprobs")
            .is_none());
        let r = parse(json!({"choices": [{"message": {"content": "ab"}, "logprobs": {"content": [
            {"token": "a", "logprob": -0.1, "top_logprobs": [{"token": "a", "logprob": -0.1}, {"token": "b", "logprob": -2.5}]},
            {"token": "b", "logprob": -0.2, "top_logprobs": []}
        ]}}]}))
        .unwrap();
        let lp = r.logprobs.unwrap();
        assert_eq!(lp.len(), 2);
        assert_eq!(
            lp[0].top,
            vec![("a".to_string(), -0.1), ("b".to_string(), -2.5)]
        );
        // absent, or a token without a number: none
        assert!(
            parse(json!({"choices": [{"message": {"content": "a"}, "logprobs": null}]}))
                .unwrap()
                .logprobs
                .is_none()
        );
        assert!(parse(json!({"choices": [{"message": {"content": "a"}, "logprobs": {"content": [{"token": "a"}]}}]})).unwrap().logprobs.is_none());
    }

    fn bad_message(r: Result<ChatResponse, CallError>) -> (String, String) {
        match r {
            Err(CallError::BadResponse { message, body }) => (message, body),
            other => panic!("expected BadResponse, got {other:?}"),
        }
    }

    #[test]
    fn refusal_is_not_the_text() {
        let r = parse(json!({"choices": [{"message": {"content": null, "refusal": "I'm sorry, I can't help with that."}, "finish_reason": "stop"}]})).unwrap();
        assert_eq!(r.text, "");
        assert_eq!(
            r.refusal.as_deref(),
            Some("I'm sorry, I can't help with that.")
        );
        // refusal content parts
        let r = parse(
            json!({"choices": [{"message": {"content": [{"type": "refusal", "refusal": "No."}]}}]}),
        )
        .unwrap();
        assert_eq!((r.text.as_str(), r.refusal.as_deref()), ("", Some("No.")));
        // an empty refusal is no refusal
        let r = parse(json!({"choices": [{"message": {"content": "ok", "refusal": ""}}]})).unwrap();
        assert_eq!((r.text.as_str(), r.refusal), ("ok", None));
    }

    #[test]
    fn reasoning_is_not_the_text() {
        let r = parse(
            json!({"choices": [{"message": {"content": "{}", "reasoning_content": "think"}}]}),
        )
        .unwrap();
        assert_eq!(
            (r.text.as_str(), r.reasoning.as_deref()),
            ("{}", Some("think"))
        );
        let r = parse(json!({"choices": [{"message": {"content": "", "reasoning": "hmm"}, "finish_reason": "length"}]})).unwrap();
        assert_eq!((r.text.as_str(), r.reasoning.as_deref()), ("", Some("hmm")));
        assert_eq!(r.finish_reason.as_deref(), Some("length"));
        let r = parse(json!({"choices": [{"message": {"content": "a", "reasoning_content": "first", "reasoning": "second"}}]})).unwrap();
        assert_eq!(r.reasoning.as_deref(), Some("first"));
        let r =
            parse(json!({"choices": [{"message": {"content": "a", "reasoning": null}}]})).unwrap();
        assert_eq!(r.reasoning, None);
    }

    #[test]
    fn only_text_parts_are_the_text() {
        let r = parse(json!({"choices": [{"message": {"content": [
            {"type": "thinking", "thinking": "no", "text": "not this"},
            {"type": "text", "text": "a"},
            {"type": "image_url", "image_url": {"url": "http://x"}},
            {"type": "output_text", "text": "b"},
            {"text": "c"},
            {"type": "text", "text": {"value": "not a string"}},
            "bare string"
        ]}}]}))
        .unwrap();
        assert_eq!(r.text, "abc");
    }

    #[test]
    fn odd_replies_are_typed_and_keep_the_body() {
        let empty = json!({"id": "x", "choices": []});
        let (m, body) = bad_message(parse(empty.clone()));
        assert_eq!(m, "the judge's response has no choices");
        assert_eq!(body, empty.to_string());
        let (m, _) = bad_message(parse(json!({"object": "list"})));
        assert_eq!(m, "the judge's response has no choices");

        let tool = json!({"choices": [{"message": {"content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}, "finish_reason": "tool_calls"}]});
        let (m, body) = bad_message(parse(tool.clone()));
        assert_eq!(m, "the judge answered with a tool call instead of text");
        assert_eq!(body, tool.to_string());
        let (m, _) = bad_message(parse(
            json!({"choices": [{"message": {"function_call": {"name": "f"}}}]}),
        ));
        assert!(m.contains("tool call"));
        // text next to a tool call is still the answer
        let r = parse(
            json!({"choices": [{"message": {"content": "{}", "tool_calls": [{"id": "c"}]}}]}),
        )
        .unwrap();
        assert_eq!(r.text, "{}");
        // an empty tool_calls list is no tool call
        let r =
            parse(json!({"choices": [{"message": {"content": "", "tool_calls": []}}]})).unwrap();
        assert_eq!(r.text, "");

        let (m, _) = bad_message(parse(json!({"error": {"message": "upstream overloaded"}})));
        assert_eq!(
            m,
            "the judge answered with an error instead of a completion: upstream overloaded"
        );
        let (m, _) = bad_message(parse(json!({"choices": [{"message": {"content": 5}}]})));
        assert_eq!(m, "the judge's message content is a JSON number, not text");

        // the kept body is bounded
        let huge = format!("<html>{}</html>", "x".repeat(200_000));
        let (m, body) = bad_message(parse_response(huge.as_bytes()));
        assert!(m.starts_with("the judge's response is not a chat completion"));
        assert!(m.len() < 1000);
        assert_eq!(body.len(), crate::provider::MAX_ERROR_BODY_BYTES);
    }

    #[test]
    fn odd_usage_does_not_lose_the_answer() {
        let r = parse(json!({"choices": [{"message": {"content": "ok"}, "finish_reason": null}], "usage": {"prompt_tokens": "many", "completion_tokens": 2}})).unwrap();
        assert_eq!(r.text, "ok");
        assert_eq!(r.usage.input_tokens, None);
        assert_eq!(r.usage.output_tokens, Some(2));
        assert_eq!(r.finish_reason, None);
        let r = parse(json!({"choices": [{"message": null}]})).unwrap();
        assert_eq!(r.text, "");
    }
}
