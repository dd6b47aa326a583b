//! `modelSettings`: a judge's sampling and reliability knobs, their defaults, the documented
//! range of every integer setting ([`SETTING_RANGES`]), and their parsing from
//! `options.modelSettings`.

use super::limits::LimitSettings;
use super::retry::RetryPolicy;
use crate::error::InvalidArgument;
use crate::options::{opt_number, opt_string, opt_uint_in, wrong_type};
use crate::provider::{ReasoningEffort, DEFAULT_MAX_RESPONSE_BYTES};
use serde_json::Value;
use std::time::Duration;

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
    /// Largest judge response body read (bytes); past it the call fails.
    pub max_response_bytes: usize,
    /// How much a reasoning model may think (`reasoning_effort` on the OpenAI wire, a
    /// thinking budget for Gemini); `None` leaves it to the model.
    pub reasoning_effort: Option<ReasoningEffort>,
    /// Ask for token log-probabilities (set by a scorer that reads them, e.g. the
    /// classifier; not a user option).
    pub logprobs: bool,
}

impl Default for ModelSettings {
    fn default() -> Self {
        ModelSettings {
            temperature: Some(0.0),
            max_output_tokens: None,
            retry: RetryPolicy::default(),
            timeout: DEFAULT_TIMEOUT,
            limits: LimitSettings::default(),
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            reasoning_effort: None,
            logprobs: false,
        }
    }
}

/// The documented range of every integer `modelSettings` option: (key, min, max).
pub const SETTING_RANGES: &[(&str, u64, u64)] = &[
    ("maxOutputTokens", 1, 1_000_000),
    ("maxRetries", 0, 20),
    ("timeoutMs", 1, 3_600_000),
    ("retryDelayMs", 0, 600_000),
    ("maxConcurrency", 1, 10_000),
    ("rpm", 1, u32::MAX as u64),
    ("tpm", 1, u32::MAX as u64),
    ("maxResponseBytes", 1024, 1 << 30),
];

fn setting(v: &Value, key: &str) -> Result<Option<u64>, InvalidArgument> {
    let (_, min, max) = SETTING_RANGES
        .iter()
        .find(|(k, _, _)| *k == key)
        .copied()
        .unwrap_or((key, 0, u64::MAX));
    opt_uint_in(v, key, "options.modelSettings", min, max)
}

impl ModelSettings {
    /// Parse `options.modelSettings` (`{ temperature, maxOutputTokens, maxRetries, timeoutMs,
    /// retryDelayMs, maxConcurrency, rpm, tpm, maxResponseBytes, reasoningEffort }`); absent
    /// keys keep the defaults.
    pub fn from_value(v: Option<&Value>) -> Result<Self, InvalidArgument> {
        let mut s = ModelSettings::default();
        let Some(v) = v.filter(|v| !v.is_null()) else {
            return Ok(s);
        };
        if !v.is_object() {
            return Err(wrong_type("options.modelSettings", "an object", v));
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
        if let Some(n) = setting(v, "maxOutputTokens")? {
            s.max_output_tokens = Some(n as u32);
        }
        if let Some(n) = setting(v, "maxRetries")? {
            s.retry.max_retries = n as u32;
        }
        if let Some(ms) = setting(v, "timeoutMs")? {
            s.timeout = Duration::from_millis(ms);
        }
        if let Some(ms) = setting(v, "retryDelayMs")? {
            s.retry.base_delay = Duration::from_millis(ms);
        }
        if let Some(n) = setting(v, "maxConcurrency")? {
            s.limits.max_concurrency = n as u32;
        }
        if let Some(n) = setting(v, "rpm")? {
            s.limits.rpm = Some(n as u32);
        }
        if let Some(n) = setting(v, "tpm")? {
            s.limits.tpm = Some(n as u32);
        }
        if let Some(n) = setting(v, "maxResponseBytes")? {
            s.max_response_bytes = n as usize;
        }
        if let Some(e) = opt_string(v, "reasoningEffort", path)? {
            let Some(effort) = ReasoningEffort::parse(e) else {
                let all: Vec<String> = ReasoningEffort::ALL
                    .iter()
                    .map(|e| format!("'{}'", e.as_str()))
                    .collect();
                return Err(InvalidArgument::options(format!(
                    "{path}.reasoningEffort must be one of {}; got '{e}'",
                    all.join(", ")
                )));
            };
            s.reasoning_effort = Some(effort);
        }
        Ok(s)
    }
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
        assert_eq!(s.reasoning_effort, None);
        for e in ReasoningEffort::ALL {
            let s =
                ModelSettings::from_value(Some(&json!({ "reasoningEffort": e.as_str() }))).unwrap();
            assert_eq!(s.reasoning_effort, Some(e));
        }
        for (bad, want) in [
            (json!(5), "must be an object"),
            (
                json!({"temperature": "hot"}),
                "temperature must be a number",
            ),
            (json!({"temperature": 3}), "between 0 and 2"),
            (json!({"maxRetries": -1}), "integer from 0 to 20"),
            (json!({"maxRetries": 1.5}), "integer from 0 to 20"),
            (json!({"maxRetries": 21}), "integer from 0 to 20"),
            (json!({"timeoutMs": 0}), "integer from 1 to 3600000"),
            (
                json!({"maxResponseBytes": 10}),
                "maxResponseBytes must be an integer from 1024",
            ),
            (
                json!({"reasoningEffort": "max"}),
                "reasoningEffort must be one of 'minimal', 'low', 'medium', 'high'; got 'max'",
            ),
            (
                json!({"reasoningEffort": 2}),
                "reasoningEffort must be a string; got number",
            ),
        ] {
            let e = ModelSettings::from_value(Some(&bad)).unwrap_err();
            assert!(e.message.contains(want), "{bad}: {}", e.message);
        }
    }
}
