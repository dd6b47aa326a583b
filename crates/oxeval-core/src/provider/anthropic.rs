//! Anthropic Messages wire format (`POST {base}/messages`, `x-api-key`, `anthropic-version`).
//!
//! A native schema travels as ONE tool whose `input_schema` is the step's schema, and
//! `tool_choice` forces the judge to call it: the `tool_use` block's `input` is the answer
//! (given to the engine as JSON text). `max_tokens` is required by the API: the request's
//! budget, else [`DEFAULT_MAX_TOKENS`]. `stop_reason: 'max_tokens'` is finish reason
//! `length`; `'refusal'` is a refusal.

use super::{
    custom_headers, error_instead, non_empty_str, not_json, secret_header, CallError, CallOptions,
    ChatRequest, ChatResponse, HttpTarget, Provider, Usage,
};
use crate::model::{ModelConfig, Secret, ANTHROPIC_VERSION};
use crate::redact::{endpoint_url, split_query, strip_userinfo};
use futures::future::BoxFuture;
use reqwest::header::{HeaderMap, HeaderValue};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::time::Duration;

/// `max_tokens` when the judge's settings give no budget (`modelSettings.maxOutputTokens`).
pub const DEFAULT_MAX_TOKENS: u32 = 4096;

pub struct AnthropicProvider {
    /// `{base}/messages` (a base URL without a path gets `/v1`: both
    /// `https://api.anthropic.com` and `https://api.anthropic.com/v1` work); headers:
    /// `anthropic-version`, then the model's custom headers (which may replace it), then
    /// `x-api-key`.
    http: HttpTarget,
}

impl AnthropicProvider {
    /// `api_key` must already be resolved (a missing key is reported before this point).
    pub fn new(model: &ModelConfig, api_key: Option<Secret>) -> Self {
        let mut headers = HeaderMap::new();
        headers.insert(
            "anthropic-version",
            HeaderValue::from_static(ANTHROPIC_VERSION),
        );
        headers.extend(custom_headers(model));
        if let Some(v) = api_key.as_ref().and_then(secret_header) {
            headers.insert("x-api-key", v);
        }
        let base = strip_userinfo(&model.base_url).into_owned();
        let has_path = split_query(&base)
            .0
            .split_once("://")
            .is_some_and(|(_, rest)| rest.contains('/'));
        let endpoint = if has_path {
            endpoint_url(&base, "/messages")
        } else {
            endpoint_url(&base, "/v1/messages")
        };
        AnthropicProvider {
            http: HttpTarget::new(model, api_key.as_ref(), endpoint, headers),
        }
    }

    /// The URL requests go to (no credentials in it).
    pub fn endpoint(&self) -> &str {
        &self.http.endpoint
    }
    /// The HTTP target (endpoint, headers with the key, secrets) the batch transport shares.
    pub(crate) fn http(&self) -> &HttpTarget {
        &self.http
    }
}

#[derive(Serialize)]
struct WireMessage<'a> {
    role: &'static str,
    content: &'a str,
}

#[derive(Serialize)]
struct WireTool<'a> {
    name: String,
    description: &'static str,
    input_schema: &'a Value,
}

#[derive(Serialize)]
struct WireToolChoice {
    #[serde(rename = "type")]
    kind: &'static str,
    name: String,
}

#[derive(Serialize)]
struct WireRequest<'a> {
    model: &'a str,
    max_tokens: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    system: Option<&'a str>,
    messages: Vec<WireMessage<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tools: Option<Vec<WireTool<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<WireToolChoice>,
}

/// A tool name Anthropic accepts (`^[a-zA-Z0-9_-]{1,64}$`) from a schema name.
pub fn tool_name(schema_name: &str) -> String {
    let name: String = schema_name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if name.is_empty() {
        "answer".into()
    } else {
        name
    }
}

fn wire_request<'a>(model_id: &'a str, req: &'a ChatRequest) -> WireRequest<'a> {
    let tool = req.schema.as_ref().map(|(name, schema)| {
        (
            WireTool {
                name: tool_name(name),
                description: "Record your answer. Its input is the answer, as the schema says.",
                input_schema: schema,
            },
            WireToolChoice {
                kind: "tool",
                name: tool_name(name),
            },
        )
    });
    let (tools, tool_choice) = match tool {
        Some((t, c)) => (Some(vec![t]), Some(c)),
        None => (None, None),
    };
    WireRequest {
        model: model_id,
        max_tokens: req.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
        system: Some(req.system.as_str()).filter(|s| !s.is_empty()),
        messages: vec![WireMessage {
            role: "user",
            content: &req.user,
        }],
        // Anthropic accepts 0..=1
        temperature: req.temperature.map(|t| t.clamp(0.0, 1.0)),
        tools,
        tool_choice,
    }
}

/// The request body for `req` (pure; snapshot-tested).
pub fn request_body(model_id: &str, req: &ChatRequest) -> Value {
    serde_json::to_value(wire_request(model_id, req)).unwrap_or(Value::Null)
}

#[derive(Deserialize)]
struct WireResponse {
    #[serde(default, rename = "type")]
    kind: Option<Value>,
    #[serde(default)]
    content: Option<Vec<Value>>,
    #[serde(default)]
    stop_reason: Option<Value>,
    #[serde(default)]
    usage: Option<Value>,
    #[serde(default)]
    error: Option<Value>,
}

fn usage_of(u: &Value) -> Usage {
    let n = |key: &str| u.get(key).and_then(Value::as_u64);
    let (input, output) = (n("input_tokens"), n("output_tokens"));
    Usage {
        input_tokens: input,
        output_tokens: output,
        total_tokens: input.zip(output).map(|(i, o)| i + o),
        reasoning_tokens: None,
        cached_input_tokens: n("cache_read_input_tokens"),
    }
}

/// Parse a Messages response body (pure).
///
/// - `text` is the first `tool_use` block's `input` as JSON text when there is one (the
///   forced tool call), else the concatenated `text` blocks.
/// - `thinking` blocks are the reasoning, never the text.
/// - `stop_reason`: `max_tokens` (and `model_context_window_exceeded`) → finish reason
///   `length`; `refusal` → [`ChatResponse::refusal`] (the text so far, or a note), empty
///   text, finish reason `content_filter`; `end_turn`, `stop_sequence`, `tool_use` → `stop`.
/// - [`CallError::BadResponse`] when the body is not a message or is an error.
///
/// A lone UTF-16 surrogate escape anywhere in the body's strings is replaced by U+FFFD
/// first, with a warning on the response ([`parse_body`](super::parse_body)).
pub fn parse_response(body: &[u8]) -> Result<ChatResponse, CallError> {
    super::parse_body(body, parse_wire)
}

fn parse_wire(body: &[u8]) -> Result<ChatResponse, CallError> {
    let wire: WireResponse =
        serde_json::from_slice(body).map_err(|e| not_json("an Anthropic message", &e, body))?;
    if let Some(err) = wire.error.as_ref().filter(|e| !e.is_null()) {
        return Err(error_instead(err, body));
    }
    let Some(content) = wire.content else {
        let what = non_empty_str(wire.kind.as_ref()).unwrap_or_else(|| "no type".into());
        return Err(CallError::bad_response(
            format!("the judge's response is not an Anthropic message (no content; {what})"),
            body,
        ));
    };
    let mut text = String::new();
    let mut tool_input: Option<String> = None;
    let mut reasoning = String::new();
    for block in &content {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => {
                if let Some(t) = block.get("text").and_then(Value::as_str) {
                    text.push_str(t);
                }
            }
            Some("tool_use") if tool_input.is_none() => {
                let input = block.get("input").cloned().unwrap_or(Value::Null);
                tool_input = Some(match input {
                    // some proxies send the input as JSON text
                    Value::String(s) => s,
                    other => other.to_string(),
                });
            }
            Some("thinking") => {
                if let Some(t) = block.get("thinking").and_then(Value::as_str) {
                    reasoning.push_str(t);
                }
            }
            _ => {}
        }
    }
    let usage = wire.usage.as_ref().map(usage_of).unwrap_or_default();
    let stop = non_empty_str(wire.stop_reason.as_ref());
    let reasoning = Some(reasoning).filter(|r| !r.trim().is_empty());
    if stop.as_deref() == Some("refusal") {
        let said = text.trim();
        let refusal = if said.is_empty() {
            "the judge declined to answer (stop_reason 'refusal')".to_string()
        } else {
            said.to_string()
        };
        return Ok(ChatResponse {
            warnings: Vec::new(),
            text: String::new(),
            refusal: Some(refusal),
            reasoning,
            finish_reason: Some("content_filter".into()),
            usage,
            logprobs: None,
        });
    }
    let finish_reason = stop.map(|s| match s.as_str() {
        "end_turn" | "stop_sequence" | "tool_use" => "stop".to_string(),
        "max_tokens" | "model_context_window_exceeded" => "length".to_string(),
        _ => s,
    });
    Ok(ChatResponse {
        warnings: Vec::new(),
        text: tool_input.unwrap_or(text),
        refusal: None,
        reasoning,
        finish_reason,
        usage,
        logprobs: None,
    })
}

impl Provider for AnthropicProvider {
    fn name(&self) -> &str {
        &self.http.provider_id
    }

    fn model_id(&self) -> &str {
        &self.http.model_id
    }

    fn complete<'a>(
        &'a self,
        req: &'a ChatRequest,
        _opts: &'a CallOptions,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<ChatResponse, CallError>> {
        Box::pin(async move {
            let body = wire_request(&self.http.model_id, req);
            self.http
                .send(&body, |b| b, req, timeout, parse_response)
                .await
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::DEFAULT_MAX_RESPONSE_BYTES;
    use serde_json::json;
    use std::sync::Arc;

    fn req(schema: bool, max_tokens: Option<u32>, temperature: Option<f64>) -> ChatRequest {
        ChatRequest {
            system: "You are a judge.".into(),
            user: "Judge this.".into(),
            schema: schema.then(|| ("step_x", Arc::new(json!({"type": "object"})))),
            temperature,
            max_tokens,
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            logprobs: false,
        }
    }

    fn parse(v: Value) -> Result<ChatResponse, CallError> {
        parse_response(v.to_string().as_bytes())
    }

    #[test]
    fn body_forced_tool_call() {
        assert_eq!(
            request_body("claude-sonnet-4-5", &req(true, Some(512), Some(0.0))),
            json!({
                "model": "claude-sonnet-4-5",
                "max_tokens": 512,
                "system": "You are a judge.",
                "messages": [{"role": "user", "content": "Judge this."}],
                "temperature": 0.0,
                "tools": [{
                    "name": "step_x",
                    "description": "Record your answer. Its input is the answer, as the schema says.",
                    "input_schema": {"type": "object"}
                }],
                "tool_choice": {"type": "tool", "name": "step_x"}
            })
        );
    }

    #[test]
    fn body_text_default_budget_and_clamped_temperature() {
        let mut r = req(false, None, Some(1.5));
        r.system.clear();
        assert_eq!(
            request_body("claude-haiku-4-5", &r),
            json!({
                "model": "claude-haiku-4-5",
                "max_tokens": DEFAULT_MAX_TOKENS,
                "messages": [{"role": "user", "content": "Judge this."}],
                "temperature": 1.0
            })
        );
        assert_eq!(tool_name("a.b c"), "a_b_c");
        assert_eq!(tool_name(""), "answer");
        assert_eq!(tool_name(&"x".repeat(80)).len(), 64);
    }

    #[test]
    fn tool_use_input_is_the_answer() {
        let r = parse(json!({
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude",
            "content": [
                {"type": "thinking", "thinking": "let me see", "signature": "s"},
                {"type": "text", "text": "Here is my answer."},
                {"type": "tool_use", "id": "toolu_1", "name": "step_x", "input": {"statements": ["a"]}}
            ],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 10, "output_tokens": 4, "cache_read_input_tokens": 3}
        }))
        .unwrap();
        assert_eq!(r.text, r#"{"statements":["a"]}"#);
        assert_eq!(r.reasoning.as_deref(), Some("let me see"));
        assert_eq!(r.finish_reason.as_deref(), Some("stop"));
        assert_eq!(
            r.usage,
            Usage {
                input_tokens: Some(10),
                output_tokens: Some(4),
                total_tokens: Some(14),
                reasoning_tokens: None,
                cached_input_tokens: Some(3),
            }
        );
    }

    #[test]
    fn text_stop_reasons_and_refusals() {
        let r = parse(json!({"type": "message", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], "stop_reason": "end_turn"})).unwrap();
        assert_eq!(
            (r.text.as_str(), r.finish_reason.as_deref()),
            ("ab", Some("stop"))
        );
        let r = parse(json!({"type": "message", "content": [{"type": "text", "text": "{\"a\": [1,"}], "stop_reason": "max_tokens"})).unwrap();
        assert_eq!(r.finish_reason.as_deref(), Some("length"));
        assert_eq!(r.text, "{\"a\": [1,");

        let r = parse(json!({"type": "message", "content": [], "stop_reason": "refusal"})).unwrap();
        assert_eq!(r.text, "");
        assert_eq!(
            r.refusal.as_deref(),
            Some("the judge declined to answer (stop_reason 'refusal')")
        );
        assert_eq!(r.finish_reason.as_deref(), Some("content_filter"));
        let r = parse(json!({"type": "message", "content": [{"type": "text", "text": "I can't."}], "stop_reason": "refusal"})).unwrap();
        assert_eq!(
            (r.text.as_str(), r.refusal.as_deref()),
            ("", Some("I can't."))
        );
        let r =
            parse(json!({"type": "message", "content": [], "stop_reason": "pause_turn"})).unwrap();
        assert_eq!(r.finish_reason.as_deref(), Some("pause_turn"));
    }

    #[test]
    fn odd_bodies_are_bad_responses() {
        for (body, want) in [
            (
                json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
                "the judge answered with an error instead of a completion: Overloaded",
            ),
            (
                json!({"type": "completion"}),
                "the judge's response is not an Anthropic message (no content; completion)",
            ),
        ] {
            match parse(body) {
                Err(CallError::BadResponse { message, .. }) => assert_eq!(message, want),
                other => panic!("{other:?}"),
            }
        }
        assert!(matches!(
            parse_response(b"<html>"),
            Err(CallError::BadResponse { .. })
        ));
    }

    #[test]
    fn endpoint_and_headers() {
        let key = ["test", "anthropic", "1"].join("-");
        let m = ModelConfig::resolve(
            &json!({"id": "anthropic/claude-x", "url": "http://127.0.0.1:9", "apiKey": key, "headers": {"anthropic-beta": "b"}}),
            &|_| None,
        )
        .unwrap();
        let p = AnthropicProvider::new(&m, m.api_key.clone().unwrap());
        assert_eq!(p.endpoint(), "http://127.0.0.1:9/v1/messages");
        assert_eq!(p.http.headers["anthropic-version"], ANTHROPIC_VERSION);
        assert_eq!(p.http.headers["x-api-key"], key.as_str());
        assert!(p.http.headers["x-api-key"].is_sensitive());
        assert_eq!(p.http.headers["anthropic-beta"], "b");
        let m = ModelConfig::resolve(
            &json!({"id": "anthropic/claude-x", "url": "http://u:p@127.0.0.1:9/v1/"}),
            &|_| None,
        )
        .unwrap();
        assert_eq!(
            AnthropicProvider::new(&m, None).endpoint(),
            "http://127.0.0.1:9/v1/messages"
        );
    }
}
