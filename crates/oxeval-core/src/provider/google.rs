//! Google Gemini wire format (`POST {base}/models/{model}:generateContent`, the key in the
//! `x-goog-api-key` header — never in the URL).
//!
//! The system text is the `systemInstruction`; a request asking for JSON gets
//! `generationConfig.responseMimeType: 'application/json'`, and a native schema travels as
//! `responseJsonSchema` (JSON Schema, with the step's name as its `title`) — or, for the
//! Gemini 1.x and 2.0 models, as `responseSchema` in the OpenAPI subset those accept.
//! `finishReason: MAX_TOKENS` is finish reason `length`; a safety block is a refusal;
//! `usageMetadata.thoughtsTokenCount` is the reasoning tokens.

use super::{
    custom_headers, error_instead, non_empty_str, not_json, secret_header, wants_json, CallError,
    CallOptions, ChatRequest, ChatResponse, HttpTarget, Provider, ReasoningEffort, Usage,
};
use crate::model::{ModelConfig, Secret, StructuredOutput};
use crate::redact::{endpoint_url, strip_userinfo};
use futures::future::BoxFuture;
use serde_json::{json, Map, Value};
use std::time::Duration;

/// How a native schema is given to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemaDialect {
    /// `responseJsonSchema`: JSON Schema as oxeval builds it.
    JsonSchema,
    /// `responseSchema`: the OpenAPI 3.0 subset (Gemini 1.x, 2.0).
    OpenApi,
}

/// The dialect a Gemini model takes.
pub fn schema_dialect(model_id: &str) -> SchemaDialect {
    let m = model_id.to_ascii_lowercase();
    let m = m.rsplit('/').next().unwrap_or(&m);
    if m.starts_with("gemini-1") || m.starts_with("gemini-2.0") || m.starts_with("gemini-pro") {
        SchemaDialect::OpenApi
    } else {
        SchemaDialect::JsonSchema
    }
}

/// Gemini's `thinkingBudget` for a reasoning effort (in the range every thinking model
/// accepts).
pub fn thinking_budget(effort: ReasoningEffort) -> u32 {
    match effort {
        ReasoningEffort::Minimal => 512,
        ReasoningEffort::Low => 1024,
        ReasoningEffort::Medium => 8192,
        ReasoningEffort::High => 24576,
    }
}

/// How requests to one model look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GoogleCaps {
    /// JSON mode (`responseMimeType`) and native schemas: not for prompt-style models.
    pub structured: StructuredOutput,
    /// A `systemInstruction` is accepted (Gemma models take none: the system text goes
    /// before the user text).
    pub system_prompt: bool,
    pub dialect: SchemaDialect,
}

pub struct GoogleProvider {
    /// `{base}/models/{model}:batchEmbedContents`.
    embed_endpoint: String,
    /// `models/{model}` (what a `batchEmbedContents` request names).
    model_path: String,
    /// `{base}/models/{model}:generateContent` (`{base}/{model}:generateContent` for an id
    /// with a path such as `tunedModels/x`).
    http: HttpTarget,
    caps: GoogleCaps,
}

impl GoogleProvider {
    /// `api_key` must already be resolved (a missing key is reported before this point).
    pub fn new(model: &ModelConfig, api_key: Option<Secret>) -> Self {
        let mut headers = custom_headers(model);
        if let Some(v) = api_key.as_ref().and_then(secret_header) {
            headers.insert("x-goog-api-key", v);
        }
        let base = strip_userinfo(&model.base_url);
        let path = if model.model_id.contains('/') {
            model.model_id.clone()
        } else {
            format!("models/{}", model.model_id)
        };
        GoogleProvider {
            embed_endpoint: endpoint_url(&base, &format!("/{path}:batchEmbedContents")),
            model_path: path.clone(),
            http: HttpTarget::new(
                model,
                api_key.as_ref(),
                endpoint_url(&base, &format!("/{path}:generateContent")),
                headers,
            ),
            caps: GoogleCaps {
                structured: model.structured,
                system_prompt: model.capabilities().system_prompt,
                dialect: schema_dialect(&model.model_id),
            },
        }
    }

    /// The URL requests go to (no credentials in it, no key).
    pub fn endpoint(&self) -> &str {
        &self.http.endpoint
    }
    /// The HTTP target (endpoint, headers with the key, secrets) the batch transport shares.
    pub(crate) fn http(&self) -> &HttpTarget {
        &self.http
    }

    /// How requests to this model look (the batch transport renders its lines with it).
    pub fn caps(&self) -> &GoogleCaps {
        &self.caps
    }
}

/// `schema` in the OpenAPI subset of `responseSchema`: no `additionalProperties`, `const`
/// as a one-value `enum`, `type: [T, 'null']` as `type: T, nullable: true`, only the
/// keywords that subset has.
pub fn openapi_schema(schema: &Value) -> Value {
    const KEEP: &[&str] = &[
        "type",
        "format",
        "description",
        "nullable",
        "enum",
        "properties",
        "required",
        "items",
        "minItems",
        "maxItems",
        "minimum",
        "maximum",
        "anyOf",
        "propertyOrdering",
        "title",
    ];
    let Value::Object(map) = schema else {
        return schema.clone();
    };
    let mut out = Map::new();
    for (k, v) in map {
        match k.as_str() {
            "properties" => {
                let props = v
                    .as_object()
                    .map(|p| {
                        p.iter()
                            .map(|(name, s)| (name.clone(), openapi_schema(s)))
                            .collect::<Map<_, _>>()
                    })
                    .unwrap_or_default();
                out.insert(k.clone(), Value::Object(props));
            }
            "items" => {
                out.insert(k.clone(), openapi_schema(v));
            }
            "anyOf" => {
                let all = v
                    .as_array()
                    .map(|a| a.iter().map(openapi_schema).collect())
                    .unwrap_or_default();
                out.insert(k.clone(), Value::Array(all));
            }
            "type" => match v {
                Value::Array(types) => {
                    let non_null: Vec<&Value> = types
                        .iter()
                        .filter(|t| t.as_str() != Some("null"))
                        .collect();
                    if non_null.len() < types.len() {
                        out.insert("nullable".into(), Value::Bool(true));
                    }
                    if let Some(t) = non_null.first() {
                        out.insert(k.clone(), (*t).clone());
                    }
                }
                other => {
                    out.insert(k.clone(), other.clone());
                }
            },
            "const" => {
                out.insert("enum".into(), json!([v]));
            }
            _ if KEEP.contains(&k.as_str()) => {
                out.insert(k.clone(), v.clone());
            }
            _ => {}
        }
    }
    Value::Object(out)
}

/// The `generateContent` body for `req` (pure; snapshot-tested).
pub fn request_body(req: &ChatRequest, opts: &CallOptions, caps: &GoogleCaps) -> Value {
    let mut body = Map::new();
    let user = if req.system.is_empty() {
        req.user.clone()
    } else if caps.system_prompt {
        body.insert(
            "systemInstruction".into(),
            json!({"parts": [{"text": req.system}]}),
        );
        req.user.clone()
    } else {
        format!("{}\n\n{}", req.system, req.user)
    };
    body.insert(
        "contents".into(),
        json!([{"role": "user", "parts": [{"text": user}]}]),
    );
    let mut config = Map::new();
    if let Some(t) = req.temperature {
        config.insert("temperature".into(), json!(t));
    }
    if let Some(n) = req.max_tokens {
        config.insert("maxOutputTokens".into(), json!(n));
    }
    if caps.structured != StructuredOutput::Prompt && wants_json(req) {
        config.insert("responseMimeType".into(), json!("application/json"));
        if let Some((name, schema)) = &req.schema {
            let (key, mut schema) = match caps.dialect {
                SchemaDialect::JsonSchema => ("responseJsonSchema", (**schema).clone()),
                SchemaDialect::OpenApi => ("responseSchema", openapi_schema(schema)),
            };
            if let Value::Object(m) = &mut schema {
                m.insert("title".into(), json!(name));
            }
            config.insert(key.into(), schema);
        }
    }
    if req.logprobs {
        config.insert("responseLogprobs".into(), json!(true));
        config.insert("logprobs".into(), json!(super::TOP_LOGPROBS));
    }
    if let Some(effort) = opts.reasoning_effort {
        config.insert(
            "thinkingConfig".into(),
            json!({"thinkingBudget": thinking_budget(effort)}),
        );
    }
    if !config.is_empty() {
        body.insert("generationConfig".into(), Value::Object(config));
    }
    Value::Object(body)
}

fn usage_of(u: &Value) -> Usage {
    let n = |key: &str| u.get(key).and_then(Value::as_u64);
    Usage {
        input_tokens: n("promptTokenCount"),
        output_tokens: n("candidatesTokenCount"),
        total_tokens: n("totalTokenCount"),
        reasoning_tokens: n("thoughtsTokenCount"),
        cached_input_tokens: n("cachedContentTokenCount"),
    }
}

/// Finish reasons that mean the answer was blocked.
const BLOCKED: &[&str] = &[
    "SAFETY",
    "RECITATION",
    "BLOCKLIST",
    "PROHIBITED_CONTENT",
    "SPII",
    "IMAGE_SAFETY",
    "LANGUAGE",
];

/// Parse a `generateContent` response body (pure).
///
/// - `text` is the first candidate's text parts, except thought parts (`thought: true`),
///   which are the reasoning.
/// - `finishReason`: `STOP` → `stop`, `MAX_TOKENS` → `length`, a block (`SAFETY`,
///   `RECITATION`, `PROHIBITED_CONTENT`, …) → a refusal with empty text and finish reason
///   `content_filter`; others in lowercase.
/// - No candidates with `promptFeedback.blockReason`: a refusal (the prompt was blocked).
/// - [`CallError::BadResponse`] when the body is not a response or is an error.
///
/// A lone UTF-16 surrogate escape anywhere in the body's strings is replaced by U+FFFD
/// first, with a warning on the response ([`parse_body`](super::parse_body)).
pub fn parse_response(body: &[u8]) -> Result<ChatResponse, CallError> {
    super::parse_body(body, parse_wire)
}

fn parse_wire(body: &[u8]) -> Result<ChatResponse, CallError> {
    let wire: Value =
        serde_json::from_slice(body).map_err(|e| not_json("a Gemini response", &e, body))?;
    let Some(obj) = wire.as_object() else {
        return Err(CallError::bad_response(
            format!(
                "the judge's response is a JSON {}, not a Gemini response",
                crate::error::type_name(&wire)
            ),
            body,
        ));
    };
    let usage = obj.get("usageMetadata").map(usage_of).unwrap_or_default();
    let candidate = obj
        .get("candidates")
        .and_then(Value::as_array)
        .and_then(|c| c.first());
    let Some(candidate) = candidate else {
        if let Some(reason) = non_empty_str(wire.pointer("/promptFeedback/blockReason")) {
            return Ok(ChatResponse {
                refusal: Some(format!(
                    "the judge blocked the prompt (promptFeedback.blockReason {reason})"
                )),
                finish_reason: Some("content_filter".into()),
                usage,
                ..Default::default()
            });
        }
        if let Some(err) = obj.get("error").filter(|e| !e.is_null()) {
            return Err(error_instead(err, body));
        }
        return Err(CallError::bad_response(
            "the judge's response has no candidates",
            body,
        ));
    };
    let mut text = String::new();
    let mut reasoning = String::new();
    if let Some(parts) = candidate
        .pointer("/content/parts")
        .and_then(Value::as_array)
    {
        for part in parts {
            let Some(t) = part.get("text").and_then(Value::as_str) else {
                continue;
            };
            if part.get("thought").and_then(Value::as_bool) == Some(true) {
                reasoning.push_str(t);
            } else {
                text.push_str(t);
            }
        }
    }
    let reasoning = Some(reasoning).filter(|r| !r.trim().is_empty());
    let reason = non_empty_str(candidate.get("finishReason"));
    if let Some(r) = reason.as_deref().filter(|r| BLOCKED.contains(r)) {
        return Ok(ChatResponse {
            warnings: Vec::new(),
            text: String::new(),
            refusal: Some(format!("the judge's answer was blocked (finishReason {r})")),
            reasoning,
            finish_reason: Some("content_filter".into()),
            usage,
            logprobs: None,
        });
    }
    let finish_reason = reason.map(|r| match r.as_str() {
        "STOP" => "stop".to_string(),
        "MAX_TOKENS" => "length".to_string(),
        _ => r.to_ascii_lowercase(),
    });
    Ok(ChatResponse {
        warnings: Vec::new(),
        text,
        refusal: None,
        reasoning,
        finish_reason,
        usage,
        logprobs: candidate.get("logprobsResult").and_then(logprobs_of),
    })
}

/// `logprobsResult` (`chosenCandidates[i]` with `topCandidates[i].candidates`) as tokens;
/// `None` when absent or not of that shape.
fn logprobs_of(v: &Value) -> Option<Vec<super::TokenLogprob>> {
    let pair = |t: &Value| -> Option<(String, f64)> {
        let lp = t
            .get("logProbability")?
            .as_f64()
            .filter(|x| x.is_finite())?;
        Some((t.get("token")?.as_str()?.to_string(), lp))
    };
    let top = v.get("topCandidates").and_then(Value::as_array);
    v.get("chosenCandidates")?
        .as_array()?
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let (token, logprob) = pair(c)?;
            let top = top
                .and_then(|t| t.get(i))
                .and_then(|t| t.get("candidates"))
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

impl Provider for GoogleProvider {
    fn embed<'a>(
        &'a self,
        texts: &'a [String],
        timeout: Duration,
    ) -> BoxFuture<'a, Result<super::embed::EmbedResponse, CallError>> {
        use super::embed::{gemini_body, parse_gemini, MAX_EMBED_RESPONSE_BYTES};
        Box::pin(async move {
            let body = gemini_body(&self.model_path, texts);
            self.http
                .post_to(
                    &self.embed_endpoint,
                    &body,
                    |b| b,
                    MAX_EMBED_RESPONSE_BYTES,
                    timeout,
                    parse_gemini,
                )
                .await
        })
    }

    fn max_embed_inputs(&self) -> usize {
        super::embed::GEMINI_MAX_INPUTS
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
        Box::pin(async move {
            let body = request_body(req, opts, &self.caps);
            self.http
                .send(&body, |b| b, req, timeout, parse_response)
                .await
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::{DEFAULT_MAX_RESPONSE_BYTES, SCHEMA_PROMPT_MARKER};
    use std::sync::Arc;

    const NATIVE: GoogleCaps = GoogleCaps {
        structured: StructuredOutput::JsonSchema,
        system_prompt: true,
        dialect: SchemaDialect::JsonSchema,
    };

    fn schema() -> Value {
        json!({"type": "object", "properties": {"rating": {"type": "integer", "enum": [0, 1, 2]}, "note": {"type": ["string", "null"]}, "kind": {"const": "x"}}, "required": ["rating"], "additionalProperties": false})
    }

    fn req(native: bool) -> ChatRequest {
        ChatRequest {
            system: "You are a judge.".into(),
            user: "Judge this.".into(),
            schema: native.then(|| ("nv_rating_0_1_2", Arc::new(schema()))),
            temperature: Some(0.0),
            max_tokens: Some(256),
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            logprobs: false,
        }
    }

    fn parse(v: Value) -> Result<ChatResponse, CallError> {
        parse_response(v.to_string().as_bytes())
    }

    #[test]
    fn logprobs_asked_for_and_read() {
        let mut r = req(true);
        r.logprobs = true;
        let body = request_body(&r, &CallOptions::default(), &NATIVE);
        assert_eq!(body["generationConfig"]["responseLogprobs"], json!(true));
        assert_eq!(body["generationConfig"]["logprobs"], json!(20));
        let got = parse(json!({"candidates": [{"content": {"parts": [{"text": "ab"}]}, "finishReason": "STOP", "logprobsResult": {
            "topCandidates": [{"candidates": [{"token": "a", "logProbability": -0.1}, {"token": "c", "logProbability": -3.0}]}, {"candidates": []}],
            "chosenCandidates": [{"token": "a", "logProbability": -0.1}, {"token": "b", "logProbability": -0.2}]
        }}]}))
        .unwrap();
        let lp = got.logprobs.unwrap();
        assert_eq!((lp[1].token.as_str(), lp[1].logprob), ("b", -0.2));
        assert_eq!(
            lp[0].top,
            vec![("a".to_string(), -0.1), ("c".to_string(), -3.0)]
        );
        assert!(
            parse(json!({"candidates": [{"content": {"parts": [{"text": "a"}]}}]}))
                .unwrap()
                .logprobs
                .is_none()
        );
    }

    #[test]
    fn body_native_json_schema() {
        let mut want_schema = schema();
        want_schema["title"] = json!("nv_rating_0_1_2");
        assert_eq!(
            request_body(&req(true), &CallOptions::default(), &NATIVE),
            json!({
                "systemInstruction": {"parts": [{"text": "You are a judge."}]},
                "contents": [{"role": "user", "parts": [{"text": "Judge this."}]}],
                "generationConfig": {
                    "temperature": 0.0,
                    "maxOutputTokens": 256,
                    "responseMimeType": "application/json",
                    "responseJsonSchema": want_schema
                }
            })
        );
    }

    #[test]
    fn body_openapi_schema_thinking_and_prompt_styles() {
        let caps = GoogleCaps {
            dialect: SchemaDialect::OpenApi,
            ..NATIVE
        };
        let opts = CallOptions {
            reasoning_effort: Some(ReasoningEffort::Low),
        };
        let body = request_body(&req(true), &opts, &caps);
        assert_eq!(
            body["generationConfig"]["responseSchema"],
            json!({"type": "object", "properties": {"rating": {"type": "integer", "enum": [0, 1, 2]}, "note": {"type": "string", "nullable": true}, "kind": {"enum": ["x"]}}, "required": ["rating"], "title": "nv_rating_0_1_2"})
        );
        assert_eq!(
            body["generationConfig"]["thinkingConfig"],
            json!({"thinkingBudget": 1024})
        );

        // a fallback (schema in the system message) still asks for JSON; free text does not
        let mut fallback = req(false);
        fallback.system = format!("You are a judge.\n\n{SCHEMA_PROMPT_MARKER}x\nRespond…");
        let body = request_body(&fallback, &CallOptions::default(), &NATIVE);
        assert_eq!(
            body["generationConfig"]["responseMimeType"],
            "application/json"
        );
        assert!(body["generationConfig"].get("responseJsonSchema").is_none());
        let body = request_body(&req(false), &CallOptions::default(), &NATIVE);
        assert!(body["generationConfig"].get("responseMimeType").is_none());

        // Gemma: no system instruction, no JSON mode
        let gemma = GoogleCaps {
            structured: StructuredOutput::Prompt,
            system_prompt: false,
            dialect: SchemaDialect::JsonSchema,
        };
        let mut r = req(false);
        r.temperature = None;
        r.max_tokens = None;
        r.system = format!("Sys\n{SCHEMA_PROMPT_MARKER}x");
        assert_eq!(
            request_body(&r, &CallOptions::default(), &gemma),
            json!({"contents": [{"role": "user", "parts": [{"text": format!("Sys\n{SCHEMA_PROMPT_MARKER}x\n\nJudge this.")}]}]})
        );
        assert_eq!(schema_dialect("gemini-2.0-flash"), SchemaDialect::OpenApi);
        assert_eq!(schema_dialect("gemini-2.5-pro"), SchemaDialect::JsonSchema);
    }

    #[test]
    fn parses_text_thoughts_and_usage() {
        let r = parse(json!({
            "candidates": [{"content": {"role": "model", "parts": [
                {"text": "thinking...", "thought": true},
                {"text": "{\"rating\": "},
                {"text": "2}"}
            ]}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 12, "candidatesTokenCount": 5, "totalTokenCount": 40, "thoughtsTokenCount": 23, "cachedContentTokenCount": 4},
            "modelVersion": "gemini-2.5-flash"
        }))
        .unwrap();
        assert_eq!(r.text, "{\"rating\": 2}");
        assert_eq!(r.reasoning.as_deref(), Some("thinking..."));
        assert_eq!(r.finish_reason.as_deref(), Some("stop"));
        assert_eq!(
            r.usage,
            Usage {
                input_tokens: Some(12),
                output_tokens: Some(5),
                total_tokens: Some(40),
                reasoning_tokens: Some(23),
                cached_input_tokens: Some(4),
            }
        );
        let r = parse(json!({"candidates": [{"content": {"parts": [{"text": "{\"a\": ["}]}, "finishReason": "MAX_TOKENS"}]})).unwrap();
        assert_eq!(r.finish_reason.as_deref(), Some("length"));
        let r = parse(json!({"candidates": [{"content": {"parts": [{"text": "x"}]}, "finishReason": "OTHER"}]})).unwrap();
        assert_eq!(r.finish_reason.as_deref(), Some("other"));
    }

    #[test]
    fn blocks_are_refusals() {
        let r = parse(json!({"candidates": [{"finishReason": "SAFETY", "safetyRatings": []}], "usageMetadata": {"promptTokenCount": 3}})).unwrap();
        assert_eq!(r.text, "");
        assert_eq!(
            r.refusal.as_deref(),
            Some("the judge's answer was blocked (finishReason SAFETY)")
        );
        assert_eq!(r.finish_reason.as_deref(), Some("content_filter"));
        assert_eq!(r.usage.input_tokens, Some(3));
        let r = parse(json!({"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}})).unwrap();
        assert_eq!(
            r.refusal.as_deref(),
            Some("the judge blocked the prompt (promptFeedback.blockReason PROHIBITED_CONTENT)")
        );
    }

    #[test]
    fn odd_bodies_are_bad_responses() {
        for (body, want) in [
            (
                json!({"error": {"code": 500, "message": "Internal", "status": "INTERNAL"}}),
                "the judge answered with an error instead of a completion: Internal",
            ),
            (json!({}), "the judge's response has no candidates"),
            (
                json!([1]),
                "the judge's response is a JSON array, not a Gemini response",
            ),
        ] {
            match parse(body) {
                Err(CallError::BadResponse { message, .. }) => assert_eq!(message, want),
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn endpoint_and_key_header() {
        let key = ["test", "google", "1"].join("-");
        let m = ModelConfig::resolve(&json!("google/gemini-2.5-flash"), &|name| {
            (name == "GOOGLE_GENERATIVE_AI_API_KEY").then(|| key.clone())
        })
        .unwrap();
        let p = GoogleProvider::new(&m, m.api_key.clone().unwrap());
        assert_eq!(
            p.endpoint(),
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"
        );
        assert!(!p.endpoint().contains(&key));
        assert_eq!(p.http.headers["x-goog-api-key"], key.as_str());
        let m = ModelConfig::resolve(
            &json!({"id": "google/tunedModels/t1", "url": "http://127.0.0.1:9/v1beta"}),
            &|_| None,
        )
        .unwrap();
        assert_eq!(
            GoogleProvider::new(&m, None).endpoint(),
            "http://127.0.0.1:9/v1beta/tunedModels/t1:generateContent"
        );
    }
}
