//! The embeddings road of a [`Judge`]: the chat road's machinery for a request of texts
//! instead of a prompt — admission by the endpoint limiter, the per-attempt timeout, retries
//! and backoff, the deadline and cancellation ([`Judge::attempts`]), the secrets scrubbed
//! from every error, the vectors checked, and the response cache with one entry per
//! (endpoint, model, text) in every mode (`auto`, `record`, `replay`). The coalescing of
//! texts from many runs into one request is [`crate::embed`]'s.

use super::cache::{CacheMode, CacheSlot, KeyParts, Locator};
use super::call::{aborted, deadline_error};
use super::context::RunContext;
use super::execution::Execution;
use super::Judge;
use crate::error::{ErrorCode, JudgeError};
use crate::provider::embed::{check_vectors, EmbedResponse};
use crate::provider::{ChatRequest, ChatResponse};

/// The system part of an embeddings cache key: no chat request has it.
const EMBED_KEY: &str = "oxeval:embeddings";

impl Judge {
    /// Most texts one embeddings request of this judge's provider may carry.
    pub fn max_embed_inputs(&self) -> usize {
        self.provider.max_embed_inputs().max(1)
    }

    /// The cache slot of `text` embedded by this judge's model, located at `ctx.site`.
    pub(crate) fn embed_slot(&self, text: &str, ctx: &RunContext) -> CacheSlot {
        let req = ChatRequest {
            system: EMBED_KEY.into(),
            user: text.into(),
            schema: None,
            temperature: None,
            max_tokens: None,
            max_response_bytes: 0,
            logprobs: false,
        };
        let parts = KeyParts::new(&self.cache_scope, self.provider.model_id(), &req, "embed");
        CacheSlot::new(parts, Locator::new(&ctx.site, 1))
    }

    /// The cached vector of `slot` (memory, then disk); `Ok(None)` on a miss or without a
    /// cache, and in `record` mode. A `replay` miss is `OXEVAL_CACHE_MISS` (nothing sent).
    pub(crate) async fn embed_cached(
        &self,
        slot: &CacheSlot,
        ctx: &RunContext,
    ) -> Result<Option<Vec<f64>>, JudgeError> {
        let Some(cache) = &self.cache else {
            return Ok(None);
        };
        if cache.mode().reads() {
            if let Some(hit) = cache.get(&slot.key, ctx).await {
                // an entry that is not a vector (damaged by hand) is a miss
                if let Ok(v) = serde_json::from_str::<Vec<f64>>(&hit.text) {
                    if check_vectors(std::slice::from_ref(&v), 1).is_ok() {
                        return Ok(Some(v));
                    }
                }
            }
        }
        if cache.mode() == CacheMode::Replay {
            if ctx.cancel.is_cancelled() {
                return Err(aborted());
            }
            if ctx.remaining().is_some_and(|r| r.is_zero()) {
                return Err(deadline_error());
            }
            let message = cache.replay_miss(slot, ctx).await;
            return Err(JudgeError::new(ErrorCode::CacheMiss, message));
        }
        Ok(None)
    }

    /// Store a checked vector under `slot` (caching on; never in `replay`).
    pub(crate) async fn embed_remember(&self, slot: &CacheSlot, vector: &[f64], ctx: &RunContext) {
        if let Some(cache) = &self.cache {
            let resp = ChatResponse {
                text: serde_json::to_string(vector).unwrap_or_default(),
                ..ChatResponse::default()
            };
            cache.put(slot, &resp, ctx).await;
        }
    }

    /// One embeddings request for `texts` on the engine's road; the reply's vectors checked
    /// (one per text, finite, one dimension: else `OXEVAL_EMBED_OUTPUT`). `exec` counts the
    /// HTTP attempts. Every error leaves scrubbed of this judge's secrets.
    pub(crate) async fn embed_request(
        &self,
        texts: &[String],
        ctx: &RunContext,
        exec: &mut Execution,
    ) -> Result<EmbedResponse, JudgeError> {
        if let Err(missing) = &self.model.api_key {
            return Err(missing.clone());
        }
        let chars: usize = texts.iter().map(String::len).sum();
        let est_tokens = u32::try_from(chars / 4 + texts.len()).unwrap_or(u32::MAX);
        let resp = self
            .attempts(
                est_tokens,
                ctx,
                exec,
                |t| self.provider.embed(texts, t),
                |_| false,
            )
            .await
            .map_err(|e| self.scrub_error(e))?;
        check_vectors(&resp.vectors, texts.len()).map_err(|why| {
            JudgeError::new(
                ErrorCode::EmbedOutput,
                format!("embedder {}: {why}", self.model.id),
            )
        })?;
        Ok(resp)
    }
}
