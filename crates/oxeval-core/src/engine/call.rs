//! The one-request road: response-cache lookup (by the cache's mode: a `replay` miss is an
//! `OXEVAL_CACHE_MISS` error and nothing is sent), admission by the endpoint limiter, HTTP
//! attempts with retries and backoff, the per-attempt timeout, the run's deadline and
//! cancellation ([`RunContext`]), the self-heal (a request the judge rejected for a
//! parameter the model does not support is sent once more without it, see
//! [`Provider::adapt`](crate::provider::Provider::adapt)), the user-facing [`JudgeError`] a
//! failed call becomes (with the provider's own message read from the error body), and the
//! engine's one scrub of the judge's secrets from every reply and error ([`Judge::send`]).

use super::cache::{CacheMode, CacheSlot, KeyParts, Locator};
use super::context::RunContext;
use super::execution::Execution;
use super::retry::RetryPolicy;
use super::Judge;
use crate::error::{ErrorCode, JudgeError};
use crate::provider::{CallError, CallOptions, ChatRequest, ChatResponse};
use serde_json::Value;

/// Most resends of one request after the provider adapted to a rejection (one per
/// parameter the judge may reject: `temperature`, the output budget, `reasoning_effort`).
pub const MAX_ADAPTATIONS: u32 = 3;

impl Judge {
    /// Store a validated reply under the slot [`send`](Self::send) returned (caching on).
    pub(super) async fn remember(
        &self,
        slot: Option<&CacheSlot>,
        resp: &ChatResponse,
        ctx: &RunContext,
    ) {
        // every reply comes out of `send`, scrubbed: no secret reaches the disk
        if let (Some(cache), Some(slot)) = (&self.cache, slot) {
            cache.put(slot, resp, ctx).await;
        }
    }

    /// The cache slot of `req` sent as attempt `exec.attempt_count` of a call at `ctx.site`.
    fn cache_slot(&self, req: &ChatRequest, ctx: &RunContext, exec: &Execution) -> CacheSlot {
        let parts = KeyParts::new(
            &self.cache_scope,
            self.provider.model_id(),
            req,
            &trial_settings(
                format!("reasoning-effort={:?}", self.settings.reasoning_effort),
                ctx.site.trial,
            ),
        );
        CacheSlot::new(parts, Locator::new(&ctx.site, exec.attempt_count))
    }

    /// One logical request: cache lookup, then HTTP attempts with admission control, retries,
    /// timeouts, deadline and cancellation. Returns the response and, when caching is on and
    /// this was not a hit, the slot under which the caller stores it once it is validated.
    ///
    /// By the cache's mode: `record` never reads a hit; `replay` never sends: a miss is an
    /// `OXEVAL_CACHE_MISS` error saying why (before the API key is even looked at: a replay
    /// run needs none).
    ///
    /// This is where the engine scrubs: every reply (from the judge or from the cache) and
    /// every error leaves through here with the judge's secrets replaced by `[redacted]`. A
    /// judge or gateway may echo the request (its API key, header values) into the reply:
    /// scrubbed at once, it reaches neither the call's record, nor the next prompt, nor the
    /// cache, and a replay sees exactly what the recording run saw (a later prompt quoting
    /// this reply has the same key).
    pub(super) async fn send(
        &self,
        req: &ChatRequest,
        ctx: &RunContext,
        exec: &mut Execution,
    ) -> Result<(ChatResponse, Option<CacheSlot>), JudgeError> {
        let (mut resp, slot) = self
            .fetch(req, ctx, exec)
            .await
            .map_err(|e| self.scrub_error(e))?;
        scrub_reply(&self.redactor, &mut resp);
        exec.warnings.append(&mut resp.warnings);
        exec.usage.add(&resp.usage);
        exec.finish_reason = resp.finish_reason.clone();
        exec.raw_output = Some(resp.text.clone());
        exec.logprobs = resp.logprobs.take().map(std::sync::Arc::new);
        Ok((resp, slot))
    }

    /// The reply to `req`: a cache hit (no slot), else the judge's (with the slot to store
    /// it under when caching is on). Unscrubbed: [`send`](Self::send) scrubs.
    async fn fetch(
        &self,
        req: &ChatRequest,
        ctx: &RunContext,
        exec: &mut Execution,
    ) -> Result<(ChatResponse, Option<CacheSlot>), JudgeError> {
        let slot = self.cache.as_ref().map(|_| self.cache_slot(req, ctx, exec));
        if let (Some(cache), Some(slot)) = (&self.cache, &slot) {
            if cache.mode().reads() {
                if let Some(hit) = cache.get(&slot.key, ctx).await {
                    exec.cached = true;
                    return Ok((hit, None));
                }
            }
            if ctx.estimate.is_some() {
                return Ok((self.estimated(req, ctx, exec), None));
            }
            if cache.mode() == CacheMode::Replay {
                // a lookup cut short by the run is the run's failure, not a miss
                if ctx.cancel.is_cancelled() {
                    return Err(aborted());
                }
                if ctx.remaining().is_some_and(|r| r.is_zero()) {
                    return Err(deadline_error());
                }
                let message = cache.replay_miss(slot, ctx).await;
                return Err(JudgeError::new(ErrorCode::CacheMiss, message));
            }
        }
        if ctx.estimate.is_some() {
            return Ok((self.estimated(req, ctx, exec), None));
        }
        if let Err(missing) = &self.model.api_key {
            return Err(missing.clone());
        }
        // batch mode (the run belongs to a batch session, the judge can batch): the
        // request waits for its batch line instead of an HTTP call of its own
        if let (Some(run), Some(s)) = (&ctx.batch, &slot) {
            if let Some(target) = self.batch_target() {
                let resp = self
                    .send_batch(req, ctx, exec, run, &target, &s.key)
                    .await?;
                return Ok((resp, slot));
            }
        }
        self.send_http(req, ctx, exec).await.map(|r| (r, slot))
    }

    /// The estimating judge's answer (engine/estimate.rs): counted as one call, never sent.
    fn estimated(&self, req: &ChatRequest, ctx: &RunContext, exec: &mut Execution) -> ChatResponse {
        exec.model_call_count += 1;
        let mode = ctx
            .estimate
            .unwrap_or(super::estimate::EstimateMode::Minimal);
        super::estimate::reply(
            req,
            ctx.estimate_schema.as_ref(),
            mode,
            self.provider.name(),
            self.provider.model_id(),
        )
    }

    pub(super) async fn send_http(
        &self,
        req: &ChatRequest,
        ctx: &RunContext,
        exec: &mut Execution,
    ) -> Result<ChatResponse, JudgeError> {
        let prompt_tokens =
            u32::try_from((req.system.len() + req.user.len()) / 4).unwrap_or(u32::MAX);
        let est_tokens =
            prompt_tokens.saturating_add(self.settings.max_output_tokens.unwrap_or(256));
        let opts = CallOptions {
            reasoning_effort: self.settings.reasoning_effort,
        };
        self.attempts(
            est_tokens,
            ctx,
            exec,
            |timeout| self.provider.complete(req, &opts, timeout),
            |err| self.provider.adapt(req, &opts, err),
        )
        .await
    }

    /// The HTTP attempts of one request, whatever it asks (a chat completion, embeddings):
    /// admission by the endpoint limiter (`est_tokens`), `attempt` with the per-attempt
    /// timeout clamped by the run's deadline, the self-heal resend when `adapt` says the
    /// provider changed its request, retries with backoff, cancellation; a failed call
    /// becomes a [`JudgeError`] ([`call_error`](Self::call_error)).
    pub(super) async fn attempts<'a, T>(
        &'a self,
        est_tokens: u32,
        ctx: &RunContext,
        exec: &mut Execution,
        mut attempt: impl FnMut(
            std::time::Duration,
        ) -> futures::future::BoxFuture<'a, Result<T, CallError>>,
        adapt: impl Fn(&CallError) -> bool,
    ) -> Result<T, JudgeError> {
        let policy = self.settings.retry;
        let mut retry = 0u32;
        let mut adapted = 0u32;
        loop {
            if ctx.cancel.is_cancelled() {
                return Err(aborted());
            }
            let mut timeout = self.settings.timeout;
            if let Some(rem) = ctx.remaining() {
                if rem.is_zero() {
                    return Err(deadline_error());
                }
                timeout = timeout.min(rem);
            }
            let permit = tokio::select! {
                p = self.limiter.acquire(est_tokens) => p,
                _ = ctx.cancel.cancelled() => return Err(aborted()),
                _ = ctx.deadline_passed() => return Err(deadline_error()),
            };
            // time spent queueing counts against the deadline, not the attempt timeout
            if let Some(rem) = ctx.remaining() {
                if rem.is_zero() {
                    return Err(deadline_error());
                }
                timeout = timeout.min(rem);
            }
            exec.model_call_count += 1;
            let outcome = tokio::select! {
                // an abort wins over a reply that came with it (a host model's request
                // fails when the run's signal cancels it)
                biased;
                _ = ctx.cancel.cancelled() => return Err(aborted()),
                r = attempt(timeout) => r,
            };
            drop(permit);
            match &outcome {
                Ok(_) => self.limiter.on_success(),
                Err(CallError::Http { status: 429, .. }) => self.limiter.on_rate_limited(),
                Err(_) => {}
            }
            match outcome {
                Ok(resp) => return Ok(resp),
                Err(err) => {
                    let hint = match &err {
                        CallError::Http { retry_after, .. } => *retry_after,
                        _ => None,
                    };
                    // Out of time: say so (a timed-out attempt clamped by the deadline is
                    // the deadline's doing, not the judge's).
                    if ctx.remaining().is_some_and(|r| r.is_zero()) {
                        return Err(deadline_error());
                    }
                    // The judge rejected a parameter this model does not support and the
                    // provider now leaves it out: send again at once (not a retry).
                    if adapted < MAX_ADAPTATIONS && adapt(&err) {
                        adapted += 1;
                        continue;
                    }
                    if retry < policy.max_retries && RetryPolicy::is_retryable(&err) {
                        let wait = policy.delay(retry, hint);
                        if ctx.remaining().is_some_and(|rem| rem <= wait) {
                            let cause = self.call_error(err, retry + 1);
                            return Err(JudgeError::new(
                                ErrorCode::Deadline,
                                format!(
                                    "the run's deadline leaves no time to retry after: {}",
                                    cause.message
                                ),
                            ));
                        }
                        tokio::select! {
                            _ = tokio::time::sleep(wait) => {}
                            _ = ctx.cancel.cancelled() => return Err(aborted()),
                        }
                        retry += 1;
                        continue;
                    }
                    return Err(self.call_error(err, retry + 1));
                }
            }
        }
    }

    /// A user-facing error for a failed call ([`send`](Self::send) scrubs it).
    pub(super) fn call_error(&self, err: CallError, attempts: u32) -> JudgeError {
        let model = &self.model.id;
        let tries = if attempts == 1 {
            "1 attempt".to_string()
        } else {
            format!("{attempts} attempts")
        };
        match err {
            CallError::Http { status, body, .. } => {
                let detail = error_detail(&body);
                let what = match status {
                    400 => "rejected the request as invalid (HTTP 400)",
                    401 => "rejected the API key (HTTP 401): check the key for this provider",
                    403 => "refused access (HTTP 403): the key lacks permission for this model",
                    404 => "does not know this model or URL (HTTP 404): check the model id and base URL",
                    408 => "timed out the request (HTTP 408)",
                    429 => "is rate limiting (HTTP 429)",
                    s if s >= 500 => "failed with a server error",
                    _ => "answered with an error",
                };
                let msg = if status >= 500 || !what.contains("HTTP") {
                    format!("judge {model} {what} (HTTP {status}) after {tries}: {detail}")
                } else {
                    format!("judge {model} {what} after {tries}: {detail}")
                };
                JudgeError::new(ErrorCode::JudgeHttp, msg).with_status(status).with_raw(body)
            }
            CallError::Network(m) => JudgeError::new(
                ErrorCode::JudgeNetwork,
                format!("could not reach judge {model} at {} after {tries}: {m}", crate::redact::display_url(&self.model.base_url)),
            ),
            CallError::Timeout(t) => JudgeError::new(
                ErrorCode::JudgeTimeout,
                format!("judge {model} did not answer within {} ms (modelSettings.timeoutMs) after {tries}", t.as_millis()),
            ),
            CallError::BadResponse { message, body } => JudgeError::new(ErrorCode::JudgeOutput, format!("judge {model}: {message} (after {tries})")).with_raw(body),
            e @ CallError::TooLarge { .. } => JudgeError::new(ErrorCode::JudgeTooLarge, format!("judge {model}: {e} (after {tries})")),
            e @ CallError::Redirect { status, .. } => JudgeError::new(ErrorCode::JudgeHttp, format!("judge {model}: {e} (after {tries})")).with_status(status),
            CallError::Model { name, message, .. } => {
                let mut e = JudgeError::new(ErrorCode::JudgeModel, format!("judge {model} threw {name}: {message} (after {tries})"));
                e.name = name.chars().take(100).collect::<String>().into();
                e
            }
        }
    }
}

/// Every secret of `redactor` replaced in the texts of a reply.
fn scrub_reply(redactor: &crate::redact::Redactor, resp: &mut ChatResponse) {
    if redactor.is_empty() {
        return;
    }
    redactor.scrub_string(&mut resp.text);
    for field in [
        &mut resp.refusal,
        &mut resp.reasoning,
        &mut resp.finish_reason,
    ] {
        if let Some(s) = field.as_mut() {
            redactor.scrub_string(s);
        }
    }
}

pub(crate) fn aborted() -> JudgeError {
    JudgeError::new(ErrorCode::Aborted, "the run was aborted")
}

pub(crate) fn deadline_error() -> JudgeError {
    JudgeError::new(
        ErrorCode::Deadline,
        "the run's deadline passed before the judge answered",
    )
}

/// The provider's error message from an error body (`{error: {message}}`), else the body.
fn error_detail(body: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let msg = parsed.as_ref().and_then(|v| {
        v.pointer("/error/message")
            .or_else(|| v.get("message"))
            .or_else(|| v.get("error"))
            .and_then(Value::as_str)
            .map(str::to_owned)
    });
    let text = msg.unwrap_or_else(|| body.trim().to_string());
    if text.is_empty() {
        "(empty body)".into()
    } else if text.chars().count() > 300 {
        format!("{}…", text.chars().take(300).collect::<String>())
    } else {
        text
    }
}

/// The extra settings of a cache key: a later trial (2, 3, …) of an item is its own
/// request (the first keeps the key of a run without trials).
fn trial_settings(settings: String, trial: u32) -> String {
    if trial > 1 {
        format!("{settings}|trial={trial}")
    } else {
        settings
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_details() {
        assert_eq!(
            error_detail(r#"{"error":{"message":"Invalid key","type":"x"}}"#),
            "Invalid key"
        );
        assert_eq!(error_detail("plain failure"), "plain failure");
        assert_eq!(error_detail(""), "(empty body)");
    }
}
