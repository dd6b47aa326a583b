//! The `embedder` option: a `provider/model` string or a model object as a judge's
//! `model` takes (`{ id, url, apiKey, headers, apiVersion }`: OpenAI, Azure OpenAI, Gemini,
//! any OpenAI-compatible URL), or a JS embedder the host answers (`HostCall::Embed`: an AI
//! SDK `EmbeddingModel` or a function of texts). `modelSettings` (timeouts, retries,
//! limits) and `cache` apply to it as to a judge.

use super::Embedder;
use crate::engine::cache::{CacheEnv, ResponseCache};
use crate::engine::{Judge, ModelSettings};
use crate::error::InvalidArgument;
use crate::model::{ModelConfig, Wire};
use crate::provider::external::ExternalProvider;
use crate::scorers::spec::BuildContext;
use serde_json::Value;
use std::sync::Arc;

/// The embedder of `factory`'s options `v` (a TypeError when it is missing or cannot embed).
pub fn embedder_from_options(
    v: &Value,
    factory: &str,
    cx: &BuildContext,
) -> Result<Embedder, InvalidArgument> {
    let settings = ModelSettings::from_value(v.get("modelSettings"))?;
    let cache = ResponseCache::from_options(v.get("cache"), CacheEnv::from_process())?;
    if let (Some(host), Some(m)) = (&cx.host, &cx.embedder) {
        let model = ModelConfig::external(&m.provider_id, &m.model_id);
        let provider = Arc::new(ExternalProvider::new(
            &model.provider_id,
            &model.model_id,
            host.clone(),
        ));
        let judge = Judge::with_provider(provider, model, settings).with_cache(cache);
        return Ok(Embedder::host(judge));
    }
    let spec = match v.get("embedder") {
        None | Some(Value::Null) => {
            return Err(InvalidArgument::options(format!(
                "{factory}(): options.embedder is required: a model string such as 'openai/text-embedding-3-small', a model object {{ id, url, apiKey }}, an AI SDK embedding model or a function (texts) => number[][]"
            )))
        }
        Some(s) => s,
    };
    if !matches!(spec, Value::String(_) | Value::Object(_)) {
        return Err(InvalidArgument::options(format!(
            "{factory}(): options.embedder must be a model string, a model object, an AI SDK embedding model or a function; got {}",
            crate::error::type_name(spec)
        )));
    }
    let model = ModelConfig::from_value(spec).map_err(|e| {
        InvalidArgument::options(format!(
            "{factory}(): options.embedder: {}",
            e.message.replace("options.model", "options.embedder")
        ))
    })?;
    if model.wire() == Wire::Anthropic {
        return Err(InvalidArgument::options(format!(
            "{factory}(): options.embedder {}: Anthropic has no embeddings API; use an OpenAI, Azure OpenAI, Gemini or OpenAI-compatible embeddings model",
            model.id
        )));
    }
    Ok(Embedder::new(Judge::new(model, settings).with_cache(cache)))
}
