//! A judge the host process supplies (in Node: an AI SDK `LanguageModel` object or a plain
//! async function, called through a threadsafe function). The core sees one provider like
//! any other: the engine's retries, fallback, limits and cache apply unchanged.

use super::{CallError, ChatRequest, ChatResponse, Provider, Usage};
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

tokio::task_local! {
    /// The run a judge call belongs to (set by the host around a run), so a host-supplied
    /// model can find what the host kept of that run (e.g. its `requestContext` object).
    pub static RUN_ID: std::sync::Arc<str>;
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
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

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ExternalUsage {
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub total_tokens: Option<u64>,
    pub reasoning_tokens: Option<u64>,
    pub cached_input_tokens: Option<u64>,
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

/// The host side: send one request (as JSON text), get one reply (as JSON text).
pub trait ExternalModel: Send + Sync {
    fn call(&self, request: String) -> BoxFuture<'static, Result<String, String>>;
}

/// A [`Provider`] over an [`ExternalModel`].
pub struct ExternalProvider {
    name: String,
    model_id: String,
    model: Arc<dyn ExternalModel>,
}

impl ExternalProvider {
    pub fn new(name: &str, model_id: &str, model: Arc<dyn ExternalModel>) -> Self {
        ExternalProvider {
            name: name.to_string(),
            model_id: model_id.to_string(),
            model,
        }
    }
}

/// Turn the host's reply into a completion or a call error.
pub fn reply_to_response(text: &str) -> Result<ChatResponse, CallError> {
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
    let u = reply.usage.unwrap_or_default();
    Ok(ChatResponse {
        text: reply.text,
        refusal: reply.refusal,
        reasoning: reply.reasoning,
        finish_reason: reply.finish_reason,
        usage: Usage {
            input_tokens: u.input_tokens,
            output_tokens: u.output_tokens,
            total_tokens: u
                .total_tokens
                .or_else(|| Some(u.input_tokens? + u.output_tokens?)),
            reasoning_tokens: u.reasoning_tokens,
            cached_input_tokens: u.cached_input_tokens,
        },
    })
}

impl Provider for ExternalProvider {
    fn name(&self) -> &str {
        &self.name
    }

    fn model_id(&self) -> &str {
        &self.model_id
    }

    fn complete<'a>(
        &'a self,
        req: &'a ChatRequest,
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
            run_id: RUN_ID.try_with(|id| id.to_string()).ok(),
        };
        let text = serde_json::to_string(&body).unwrap_or_default();
        let call = self.model.call(text);
        Box::pin(async move {
            // a promise that never settles is bounded by the call timeout
            match tokio::time::timeout(timeout, call).await {
                Err(_) => Err(CallError::Timeout(timeout)),
                Ok(Err(host)) => Err(CallError::Model {
                    name: "Error".into(),
                    message: host,
                    retryable: false,
                }),
                Ok(Ok(reply)) => reply_to_response(&reply),
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
}
