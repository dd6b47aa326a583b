//! OpenAI chat completions wire format (also spoken by groq, mistral, deepseek, openrouter,
//! together, xai, cerebras, deepinfra, fireworks, perplexity, lmstudio, ollama, and any
//! endpoint given by `url`).

use super::{
    http_client, parse_reset_duration, parse_retry_after, CallError, ChatRequest, ChatResponse,
    Provider, Usage, MAX_ERROR_BODY_BYTES,
};
use crate::model::{ModelConfig, Secret};
use crate::redact::{display_url, percent_decode, strip_userinfo, url_userinfo, Redactor};
use futures::future::BoxFuture;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, AUTHORIZATION, LOCATION};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::time::{Duration, SystemTime};

/// How requests authenticate.
enum Auth {
    None,
    /// `Authorization: Bearer <api key>`.
    Bearer(Secret),
    /// `Authorization: Basic …` from the base URL's userinfo (percent-decoded).
    Basic {
        user: String,
        password: Option<Secret>,
    },
}

pub struct OpenAiProvider {
    provider_id: String,
    model_id: String,
    /// `{base_url}/chat/completions`, never with the base URL's userinfo.
    endpoint: String,
    auth: Auth,
    headers: HeaderMap,
    /// Every secret of the model; scrubbed from every error this provider returns.
    redactor: Redactor,
}

impl OpenAiProvider {
    /// `api_key` must already be resolved (a missing key is reported before this point).
    ///
    /// Credentials in the base URL (`http://user:password@host/v1`) are never part of the
    /// request URL (so no error text can show them). They become an
    /// `Authorization: Basic` header only when there is no API key and no custom
    /// `Authorization` header; otherwise they are dropped (the API key / the custom header
    /// is the one credential sent).
    pub fn new(model: &ModelConfig, api_key: Option<Secret>) -> Self {
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
        let userinfo = url_userinfo(&model.base_url)
            .filter(|info| !info.user.is_empty() || info.password.is_some());
        let auth = match (&api_key, userinfo) {
            (Some(key), _) => Auth::Bearer(key.clone()),
            (None, Some(info)) if !headers.contains_key(AUTHORIZATION) => Auth::Basic {
                user: percent_decode(info.user),
                password: info.password.map(|p| Secret::new(percent_decode(p))),
            },
            _ => Auth::None,
        };
        let mut redactor = Redactor::from_model(model);
        if let Some(key) = &api_key {
            redactor = redactor.with_secret(key.expose());
        }
        OpenAiProvider {
            provider_id: model.provider_id.clone(),
            model_id: model.model_id.clone(),
            endpoint: format!("{}/chat/completions", strip_userinfo(&model.base_url)),
            auth,
            headers,
            redactor,
        }
    }

    /// The URL requests go to (no credentials in it).
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    async fn call(&self, req: &ChatRequest, timeout: Duration) -> Result<ChatResponse, CallError> {
        let body = wire_request(&self.model_id, req);
        let mut builder = http_client()
            .post(&self.endpoint)
            .headers(self.headers.clone())
            .timeout(timeout)
            .json(&body);
        builder = match &self.auth {
            Auth::None => builder,
            Auth::Bearer(key) => builder.bearer_auth(key.expose()),
            Auth::Basic { user, password } => {
                builder.basic_auth(user, password.as_ref().map(Secret::expose))
            }
        };
        let map_err = |e: reqwest::Error| {
            if e.is_timeout() {
                CallError::Timeout(timeout)
            } else {
                // reqwest errors never include headers; the URL has no userinfo; the
                // caller scrubs the text anyway.
                CallError::Network(error_chain(&e))
            }
        };
        let mut resp = builder.send().await.map_err(map_err)?;
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
        let limit = req.max_response_bytes;
        if resp
            .content_length()
            .is_some_and(|n| n > u64::try_from(limit).unwrap_or(u64::MAX))
        {
            return Err(CallError::TooLarge { limit });
        }
        match read_capped(&mut resp, limit).await {
            Ok((bytes, false)) => parse_response(&bytes),
            Ok((_, true)) => Err(CallError::TooLarge { limit }),
            Err((_, e)) => Err(map_err(e)),
        }
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

#[derive(Serialize)]
struct WireMessage<'a> {
    role: &'static str,
    content: &'a str,
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
    response_format: Option<WireResponseFormat<'a>>,
}

/// The request body for `req` (pure; snapshot-tested).
/// The request body for `req` as a typed wire value (serialized straight into the HTTP body).
fn wire_request<'a>(model_id: &'a str, req: &'a ChatRequest) -> WireRequest<'a> {
    let mut messages = Vec::with_capacity(2);
    if !req.system.is_empty() {
        messages.push(WireMessage {
            role: "system",
            content: &req.system,
        });
    }
    messages.push(WireMessage {
        role: "user",
        content: &req.user,
    });
    WireRequest {
        model: model_id,
        messages,
        temperature: req.temperature,
        max_tokens: req.max_tokens,
        response_format: req
            .schema
            .as_ref()
            .map(|(name, schema)| WireResponseFormat::JsonSchema {
                json_schema: WireSchema {
                    name,
                    strict: true,
                    schema,
                },
            }),
    }
}

/// The request body for `req` as JSON (pure; snapshot-tested).
pub fn request_body(model_id: &str, req: &ChatRequest) -> Value {
    serde_json::to_value(wire_request(model_id, req)).unwrap_or(Value::Null)
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

/// A non-empty string, else `None`.
fn non_empty_str(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
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
pub fn parse_response(body: &[u8]) -> Result<ChatResponse, CallError> {
    let wire: WireResponse = serde_json::from_slice(body).map_err(|e| {
        CallError::bad_response(
            format!(
                "the judge's response is not a chat completion ({e}): {}",
                String::from_utf8_lossy(&body[..body.len().min(500)])
            ),
            body,
        )
    })?;
    let Some(choice) = wire.choices.and_then(|c| c.into_iter().next()) else {
        if let Some(err) = wire.error.as_ref().filter(|e| !e.is_null()) {
            let detail = err
                .get("message")
                .and_then(Value::as_str)
                .or_else(|| err.as_str())
                .unwrap_or("no message");
            let detail: String = detail.chars().take(300).collect();
            return Err(CallError::bad_response(
                format!("the judge answered with an error instead of a completion: {detail}"),
                body,
            ));
        }
        return Err(CallError::bad_response(
            "the judge's response has no choices",
            body,
        ));
    };
    let finish_reason = non_empty_str(choice.finish_reason.as_ref());
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
        text,
        refusal,
        reasoning,
        finish_reason,
        usage,
    })
}

/// The wait the server asked for, only where it means "retry after this": `Retry-After` /
/// `retry-after-ms` on 429 and 503, and on a 429 without them the soonest of OpenAI's
/// `x-ratelimit-reset-*` (a token bucket's full-refill time is not a wait for one request).
fn retry_hint(status: u16, headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    if !matches!(status, 429 | 503) {
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

impl Provider for OpenAiProvider {
    fn name(&self) -> &str {
        &self.provider_id
    }

    fn model_id(&self) -> &str {
        &self.model_id
    }

    fn complete<'a>(
        &'a self,
        req: &'a ChatRequest,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<ChatResponse, CallError>> {
        Box::pin(async move {
            self.call(req, timeout)
                .await
                .map_err(|e| e.scrub(&self.redactor))
        })
    }
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
        };
        assert_eq!(
            request_body("llama3.2", &req),
            json!({"model": "llama3.2", "messages": [{"role": "user", "content": "Judge this."}]})
        );
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
