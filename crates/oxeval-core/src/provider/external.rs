//! A judge the host process supplies (in Node: an AI SDK `LanguageModel` object or a plain
//! async function, called through a threadsafe function). The core sees one provider like
//! any other: the engine's retries, fallback, limits and cache apply unchanged.

use super::{CallError, CallOptions, ChatRequest, ChatResponse, Provider, Usage};
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

tokio::task_local! {
    /// The host's key of the run a call belongs to (set by the host around a run: its run
    /// option `runKey`, else the run's id), so a host-supplied model or function can find
    /// what the host kept of that run (its `requestContext`, its signal, the run object).
    pub static RUN_KEY: std::sync::Arc<str>;
}

/// What the host's model is asked: the messages, the step's JSON schema when the step is
/// structured, the sampling settings and the run it belongs to.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExternalRequest<'a> {
    pub system: &'a str,
    pub prompt: &'a str,
    /// `{ name, schema }` for a structured step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schema: Option<ExternalSchema<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u32>,
    /// The call's time budget: the host should abort its call after this long.
    pub timeout_ms: u64,
    /// The host's key of the run ([`RUN_KEY`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_key: Option<String>,
    /// Which of the scorer's host models answers (a custom scorer's steps may each have
    /// their own judge); absent for the first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judge: Option<usize>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ExternalSchema<'a> {
    pub name: &'a str,
    pub schema: &'a Value,
}

/// The host's answer, or why it has none.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ExternalReply {
    pub ok: bool,
    pub text: String,
    pub reasoning: Option<String>,
    pub refusal: Option<String>,
    pub finish_reason: Option<String>,
    pub usage: Option<ExternalUsage>,
    /// When `ok` is false: the error the host's model raised.
    pub error: Option<ExternalError>,
}

/// Token counts as the host's model reported them: any JSON value, normalised by
/// [`ExternalUsage::normalize`] (models that estimate usage send `12.5`, `-1` or `1e20`;
/// a bad count never costs the answer).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ExternalUsage {
    pub input_tokens: Option<Value>,
    pub output_tokens: Option<Value>,
    pub total_tokens: Option<Value>,
    pub reasoning_tokens: Option<Value>,
    pub cached_input_tokens: Option<Value>,
}

/// Largest token count kept (JavaScript's `Number.MAX_SAFE_INTEGER`); larger ones are capped.
pub const MAX_TOKEN_COUNT: u64 = 9_007_199_254_740_991;

/// One reported count as a token count, and what was done to it when it was odd: a
/// fraction is rounded, a count above [`MAX_TOKEN_COUNT`] capped, a negative, non-finite
/// or non-numeric one dropped. A numeric string counts as its number.
fn token_count(v: &Value) -> (Option<u64>, Option<&'static str>) {
    let n = match v {
        Value::Null => return (None, None),
        Value::Number(n) => match n.as_u64() {
            Some(u) if u <= MAX_TOKEN_COUNT => return (Some(u), None),
            Some(_) => {
                return (
                    Some(MAX_TOKEN_COUNT),
                    Some("capped at Number.MAX_SAFE_INTEGER"),
                )
            }
            None => n.as_f64(),
        },
        Value::String(s) => s.trim().parse::<f64>().ok(),
        _ => None,
    };
    let text = matches!(v, Value::String(_));
    match n {
        Some(f) if f.is_finite() && f >= 0.0 => {
            let r = f.round();
            if r > MAX_TOKEN_COUNT as f64 {
                (
                    Some(MAX_TOKEN_COUNT),
                    Some("capped at Number.MAX_SAFE_INTEGER"),
                )
            } else if text {
                (Some(r as u64), Some("read from a string"))
            } else {
                (Some(r as u64), Some("rounded to an integer"))
            }
        }
        Some(f) if f.is_finite() => (None, Some("dropped (negative)")),
        Some(_) => (None, Some("dropped (not finite)")),
        None => (None, Some("dropped (not a number)")),
    }
}

impl ExternalUsage {
    /// The usage as token counts, and a warning naming every odd count and what became of
    /// it (`None` when all were plain non-negative integers).
    pub fn normalize(&self) -> (Usage, Option<String>) {
        let mut notes = Vec::new();
        let mut read = |name: &str, v: &Option<Value>| {
            let (n, note) = v.as_ref().map_or((None, None), token_count);
            if let Some(note) = note {
                let shown = v
                    .as_ref()
                    .map(|v| crate::engine::clip(&v.to_string(), 40))
                    .unwrap_or_default();
                notes.push(format!("{name} {shown} {note}"));
            }
            n
        };
        let input_tokens = read("inputTokens", &self.input_tokens);
        let output_tokens = read("outputTokens", &self.output_tokens);
        let total_tokens = read("totalTokens", &self.total_tokens);
        let reasoning_tokens = read("reasoningTokens", &self.reasoning_tokens);
        let cached_input_tokens = read("cachedInputTokens", &self.cached_input_tokens);
        let usage = Usage {
            total_tokens: total_tokens.or_else(|| {
                Some(
                    input_tokens?
                        .saturating_add(output_tokens?)
                        .min(MAX_TOKEN_COUNT),
                )
            }),
            input_tokens,
            output_tokens,
            reasoning_tokens,
            cached_input_tokens,
        };
        let warning = (!notes.is_empty()).then(|| {
            format!(
                "the judge model reported odd token usage ({}); the answer was kept",
                notes.join("; ")
            )
        });
        (usage, warning)
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ExternalError {
    pub name: String,
    pub message: String,
    /// HTTP status, when the model's error carries one (AI SDK `APICallError.statusCode`).
    pub status: Option<u16>,
    /// The model says the call may succeed if repeated (AI SDK `isRetryable`).
    pub retryable: bool,
}

/// What the core asks the host for: the kind of one [`Host::call`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostCall {
    /// A judge model the host supplies (request [`ExternalRequest`], reply [`ExternalReply`]).
    JudgeModel,
    /// A function-valued scorer option, e.g. `getContext` (see `scorers::llm::callbacks`).
    FunctionOption,
    /// A custom scorer's step defined in the host (`scorers::custom`): a function step, or
    /// a prompt step's `createPrompt`.
    CustomStep,
    /// The host's NLP library (npm `compromise`) for completeness's elements (see
    /// `scorers::code::completeness`).
    Nlp,
    /// An embedder given as a JS value (an AI SDK `EmbeddingModel` or a function of texts).
    Embed,
    /// An evaluation model (`doEvaluate`: AI SDK's `EvaluationModelV4`, what Mastra's
    /// `Classifier` wraps) given as the classifier scorer's `model`
    /// (`scorers::llm::classifier`).
    EvaluationModel,
}

impl HostCall {
    /// The kind's name on the wire (`judgeModel`, `functionOption`).
    pub fn name(self) -> &'static str {
        match self {
            HostCall::JudgeModel => "judgeModel",
            HostCall::FunctionOption => "functionOption",
            HostCall::CustomStep => "customStep",
            HostCall::Nlp => "nlp",
            HostCall::Embed => "embed",
            HostCall::EvaluationModel => "evaluationModel",
        }
    }
}

/// The host: ONE channel for every call the core makes into it (in Node: into JS). One
/// request of `kind` (JSON text) → one reply (JSON text). `Err` is a failure to call at all;
/// what the host's code raised is a reply (`ok: false`).
pub trait Host: Send + Sync {
    fn call(&self, kind: HostCall, request: String) -> BoxFuture<'static, Result<String, String>>;
}

/// A [`Provider`] over the host's judge model ([`HostCall::JudgeModel`] calls).
pub struct ExternalProvider {
    name: String,
    model_id: String,
    host: Arc<dyn Host>,
    slot: usize,
}

impl ExternalProvider {
    pub fn new(name: &str, model_id: &str, host: Arc<dyn Host>) -> Self {
        ExternalProvider {
            name: name.to_string(),
            model_id: model_id.to_string(),
            host,
            slot: 0,
        }
    }

    /// The host model number `slot` of the scorer (see [`ExternalRequest::judge`]).
    pub fn with_slot(mut self, slot: usize) -> Self {
        self.slot = slot;
        self
    }
}

/// Turn the host's reply into a completion or a call error. A reply longer than `limit`
/// bytes (the request's `max_response_bytes`, as for an HTTP body: 0 rejects any reply) is
/// [`CallError::TooLarge`], whatever it says.
pub fn reply_to_response_bounded(text: &str, limit: usize) -> Result<ChatResponse, CallError> {
    if text.len() > limit {
        return Err(CallError::TooLarge { limit });
    }
    reply_to_response(text)
}

/// Turn the host's reply into a completion or a call error (unbounded; see
/// [`reply_to_response_bounded`]).
pub fn reply_to_response(text: &str) -> Result<ChatResponse, CallError> {
    // JSON.stringify writes a lone surrogate of the model's text as `\udXXX`
    let (text, replaced) = crate::engine::json::repair_lone_surrogates_str(text);
    let mut resp = read_reply(&text)?;
    if replaced > 0 {
        resp.warnings
            .push(crate::engine::json::lone_surrogate_warning(
                replaced, "reply",
            ));
    }
    Ok(resp)
}

fn read_reply(text: &str) -> Result<ChatResponse, CallError> {
    let reply: ExternalReply = serde_json::from_str(text).map_err(|e| {
        CallError::bad_response(
            format!("the judge model's reply could not be read ({e})"),
            text.as_bytes(),
        )
    })?;
    if !reply.ok {
        let e = reply.error.unwrap_or_default();
        return Err(match e.status {
            Some(status) => CallError::Http {
                status,
                body: e.message,
                retry_after: None,
            },
            None => CallError::Model {
                name: if e.name.is_empty() {
                    "Error".into()
                } else {
                    e.name
                },
                message: e.message,
                retryable: e.retryable,
            },
        });
    }
    let (usage, warning) = reply.usage.unwrap_or_default().normalize();
    Ok(ChatResponse {
        text: reply.text,
        refusal: reply.refusal,
        reasoning: reply.reasoning,
        finish_reason: reply.finish_reason,
        usage,
        warnings: warning.into_iter().collect(),
        logprobs: None,
    })
}

/// What the host's embedder is asked: the texts, the call's budget and the run.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct EmbedCall<'a> {
    texts: &'a [String],
    timeout_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    run_key: Option<String>,
}

/// The host embedder's answer: `{ ok: true, embeddings, usage? }` or `{ ok: false, error }`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct EmbedReply {
    ok: bool,
    embeddings: Option<Vec<Vec<Value>>>,
    usage: Option<ExternalUsage>,
    error: Option<ExternalError>,
}

/// The host embedder's reply text as vectors (at most `limit` bytes of it read).
pub fn read_embed_reply(
    text: &str,
    limit: usize,
) -> Result<super::embed::EmbedResponse, CallError> {
    if text.len() > limit {
        return Err(CallError::TooLarge { limit });
    }
    let reply: EmbedReply = serde_json::from_str(text).map_err(|e| {
        CallError::bad_response(
            format!("the embedder's reply could not be read ({e})"),
            text.as_bytes(),
        )
    })?;
    if !reply.ok {
        let e = reply.error.unwrap_or_default();
        return Err(CallError::Model {
            name: if e.name.is_empty() {
                "Error".into()
            } else {
                e.name
            },
            message: e.message,
            retryable: e.retryable,
        });
    }
    let Some(rows) = reply.embeddings else {
        return Err(CallError::bad_response(
            "the embedder returned no `embeddings` list",
            text.as_bytes(),
        ));
    };
    let mut vectors = Vec::with_capacity(rows.len());
    for (i, row) in rows.iter().enumerate() {
        // JSON has no NaN: the facade's `null` is a non-finite number, refused (not retried)
        // by the vector check with the other bad vectors
        let v = row
            .iter()
            .map(|x| match x {
                Value::Null => Some(f64::NAN),
                other => other.as_f64(),
            })
            .collect::<Option<Vec<f64>>>();
        vectors.push(v.ok_or_else(|| {
            CallError::bad_response(
                format!("vector {i} of the embedder's reply holds a value that is not a number"),
                b"",
            )
        })?);
    }
    Ok(super::embed::EmbedResponse {
        vectors,
        usage: reply.usage.unwrap_or_default().normalize().0,
    })
}

impl Provider for ExternalProvider {
    fn embed<'a>(
        &'a self,
        texts: &'a [String],
        timeout: Duration,
    ) -> BoxFuture<'a, Result<super::embed::EmbedResponse, CallError>> {
        let body = EmbedCall {
            texts,
            timeout_ms: timeout.as_millis().min(u64::MAX as u128) as u64,
            run_key: RUN_KEY.try_with(|id| id.to_string()).ok(),
        };
        let request = serde_json::to_string(&body).unwrap_or_default();
        let call = self.host.call(HostCall::Embed, request);
        Box::pin(async move {
            match tokio::time::timeout(timeout, call).await {
                Err(_) => Err(CallError::Timeout(timeout)),
                Ok(Err(host)) => Err(CallError::Model {
                    name: "Error".into(),
                    message: host,
                    retryable: false,
                }),
                Ok(Ok(reply)) => read_embed_reply(&reply, super::embed::MAX_EMBED_RESPONSE_BYTES),
            }
        })
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn model_id(&self) -> &str {
        &self.model_id
    }

    fn complete<'a>(
        &'a self,
        req: &'a ChatRequest,
        _opts: &'a CallOptions,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<ChatResponse, CallError>> {
        let body = ExternalRequest {
            system: &req.system,
            prompt: &req.user,
            schema: req.schema.as_ref().map(|(name, schema)| ExternalSchema {
                name,
                schema: schema.as_ref(),
            }),
            temperature: req.temperature,
            max_output_tokens: req.max_tokens,
            timeout_ms: timeout.as_millis().min(u64::MAX as u128) as u64,
            run_key: RUN_KEY.try_with(|id| id.to_string()).ok(),
            judge: (self.slot > 0).then_some(self.slot),
        };
        let text = serde_json::to_string(&body).unwrap_or_default();
        let call = self.host.call(HostCall::JudgeModel, text);
        let limit = req.max_response_bytes;
        Box::pin(async move {
            // a promise that never settles is bounded by the call timeout
            match tokio::time::timeout(timeout, call).await {
                Err(_) => Err(CallError::Timeout(timeout)),
                Ok(Err(host)) => Err(CallError::Model {
                    name: "Error".into(),
                    message: host,
                    retryable: false,
                }),
                Ok(Ok(reply)) => reply_to_response_bounded(&reply, limit),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies() {
        let ok = reply_to_response(
            r#"{"ok":true,"text":"{\"a\":1}","finishReason":"stop","usage":{"inputTokens":3,"outputTokens":2},"reasoning":"hm"}"#,
        )
        .unwrap();
        assert_eq!(ok.text, "{\"a\":1}");
        assert_eq!(ok.usage.total_tokens, Some(5));
        assert_eq!(ok.reasoning.as_deref(), Some("hm"));
        match reply_to_response(
            r#"{"ok":false,"error":{"name":"APICallError","message":"rate","status":429}}"#,
        ) {
            Err(CallError::Http {
                status: 429, body, ..
            }) => assert_eq!(body, "rate"),
            other => panic!("{other:?}"),
        }
        match reply_to_response(r#"{"ok":false,"error":{"name":"TypeError","message":"boom"}}"#) {
            Err(CallError::Model {
                name,
                message,
                retryable,
            }) => {
                assert_eq!(
                    (name.as_str(), message.as_str(), retryable),
                    ("TypeError", "boom", false)
                )
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            reply_to_response("not json"),
            Err(CallError::BadResponse { .. })
        ));
    }

    #[test]
    fn odd_usage_keeps_the_answer() {
        let ok = reply_to_response(
            r#"{"ok":true,"text":"{\"a\":1}","usage":{"inputTokens":12.5,"outputTokens":-1,"totalTokens":1e20,"reasoningTokens":"NaN","cachedInputTokens":"7"}}"#,
        )
        .unwrap();
        assert_eq!(ok.text, "{\"a\":1}");
        assert_eq!(
            ok.usage,
            Usage {
                input_tokens: Some(13),
                output_tokens: None,
                total_tokens: Some(MAX_TOKEN_COUNT),
                reasoning_tokens: None,
                cached_input_tokens: Some(7),
            }
        );
        assert_eq!(ok.warnings.len(), 1, "{:?}", ok.warnings);
        let w = &ok.warnings[0];
        for part in [
            "inputTokens 12.5 rounded",
            "outputTokens -1 dropped (negative)",
            "totalTokens 1e+20 capped",
            "reasoningTokens \"NaN\" dropped (not finite)",
            "cachedInputTokens \"7\" read from a string",
        ] {
            assert!(w.contains(part), "{part} not in {w}");
        }
        // u64 overflow as an integer, Infinity as text, an object: never the answer's loss
        let big = reply_to_response(
            r#"{"ok":true,"text":"t","usage":{"inputTokens":18446744073709551615,"outputTokens":"Infinity","totalTokens":{"x":1}}}"#,
        )
        .unwrap();
        assert_eq!(big.usage.input_tokens, Some(MAX_TOKEN_COUNT));
        assert_eq!(big.usage.output_tokens, None);
        assert_eq!(big.usage.total_tokens, None);
        // plain counts: no warning
        let plain = reply_to_response(
            r#"{"ok":true,"text":"t","usage":{"inputTokens":3,"outputTokens":2}}"#,
        )
        .unwrap();
        assert!(plain.warnings.is_empty());
        assert_eq!(plain.usage.total_tokens, Some(5));
    }

    #[test]
    fn replies_are_bounded_and_repaired() {
        let reply = r#"{"ok":true,"text":"0123456789"}"#;
        assert!(reply_to_response_bounded(reply, reply.len()).is_ok());
        assert!(matches!(
            reply_to_response_bounded(reply, reply.len() - 1),
            Err(CallError::TooLarge { limit }) if limit == reply.len() - 1
        ));
        let lone = reply_to_response(r#"{"ok":true,"text":"a\ud83d b"}"#).unwrap();
        assert_eq!(lone.text, "a\u{FFFD} b");
        assert_eq!(lone.warnings.len(), 1);
    }
}
