//! Providers turn one chat request into one HTTP call in their wire format. They know
//! nothing about scorers, retries or parsing: that is the engine's job.

pub mod external;
pub mod openai;

use crate::redact::Redactor;
use futures::future::BoxFuture;
use serde::Serialize;
use serde_json::Value;
use std::fmt;
use std::sync::{Arc, LazyLock};
use std::time::Duration;

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
}

/// Token usage as the provider reports it (Mastra's field names).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cached_input_tokens: Option<u64>,
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
    fn complete<'a>(
        &'a self,
        req: &'a ChatRequest,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<ChatResponse, CallError>>;
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
