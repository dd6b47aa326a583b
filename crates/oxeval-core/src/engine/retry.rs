//! The one retry policy of the engine: which failures are retried, and how long to wait.

use crate::provider::CallError;
use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (Mastra's default: 2).
    pub max_retries: u32,
    /// First backoff step; doubles per retry (full jitter).
    pub base_delay: Duration,
    /// Upper bound for one wait, including a server's `Retry-After`.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 2,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// 408/409/429/5xx, connection failures, timeouts and garbled 2xx bodies are retried;
    /// 400/401/403/404 and other 4xx fail at once.
    pub fn is_retryable(err: &CallError) -> bool {
        match err {
            CallError::Http { status, .. } => matches!(status, 408 | 409 | 429) || *status >= 500,
            CallError::Network(_) | CallError::Timeout(_) | CallError::BadResponse { .. } => true,
            CallError::TooLarge { .. } | CallError::Redirect { .. } => false,
            CallError::Model { retryable, .. } => *retryable,
        }
    }

    /// Wait before retry number `retry` (0-based): the server's hint if it gave one
    /// (capped), else exponential backoff with full jitter: uniform in [b/2, b] where
    /// b = base · 2^retry (capped).
    pub fn delay(&self, retry: u32, hint: Option<Duration>) -> Duration {
        if let Some(h) = hint {
            return h.min(self.max_delay);
        }
        let exp = self
            .base_delay
            .saturating_mul(1u32 << retry.min(16))
            .min(self.max_delay);
        let half = exp / 2;
        half + Duration::from_nanos(fastrand::u64(
            0..=half.as_nanos().min(u64::MAX as u128) as u64,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn http(status: u16) -> CallError {
        CallError::Http {
            status,
            body: String::new(),
            retry_after: None,
        }
    }

    #[test]
    fn retryable_table() {
        for (s, want) in [
            (400, false),
            (401, false),
            (403, false),
            (404, false),
            (422, false),
            (408, true),
            (409, true),
            (429, true),
            (500, true),
            (502, true),
            (503, true),
            (504, true),
        ] {
            assert_eq!(RetryPolicy::is_retryable(&http(s)), want, "status {s}");
        }
        assert!(RetryPolicy::is_retryable(&CallError::Network(
            "reset".into()
        )));
        assert!(RetryPolicy::is_retryable(&CallError::Timeout(
            Duration::from_secs(1)
        )));
    }

    #[test]
    fn delays() {
        let p = RetryPolicy {
            max_retries: 5,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_secs(1),
        };
        for retry in 0..8 {
            let b = (Duration::from_millis(100) * (1 << retry)).min(Duration::from_secs(1));
            for _ in 0..50 {
                let d = p.delay(retry, None);
                assert!(
                    d >= b / 2 && d <= b,
                    "retry {retry}: {d:?} not in [{:?}, {b:?}]",
                    b / 2
                );
            }
        }
        assert_eq!(
            p.delay(0, Some(Duration::from_millis(1234))),
            Duration::from_secs(1)
        );
        assert_eq!(
            p.delay(3, Some(Duration::from_millis(20))),
            Duration::from_millis(20)
        );
    }
}
