//! Helpers shared by the LLM scorers that are not option reading (that lives in
//! [`crate::options`]): the judge built from the factory options, the reference text of a
//! run, joining a step's prompts, and scores in reason texts.

use crate::engine::cache::{CacheEnv, ResponseCache};
use crate::engine::{Judge, ModelSettings};
use crate::error::InvalidArgument;
use crate::model::ModelConfig;
use crate::options::options_object;
use crate::provider::external::ExternalProvider;
use crate::scorers::spec::BuildContext;
use serde_json::Value;
use std::sync::Arc;

/// Build the judge from `options.model` and `options.modelSettings` (once per scorer).
pub fn judge_from_options(
    v: &Value,
    factory: &str,
    cx: &BuildContext,
) -> Result<Judge, InvalidArgument> {
    options_object(v, factory)?;
    let settings = ModelSettings::from_value(v.get("modelSettings"))?;
    let cache = ResponseCache::from_options(v.get("cache"), CacheEnv::from_process())?;
    let batch = crate::engine::batch::BatchOptions::from_value(v.get("batch"), "options.batch")?;
    let batchable = |judge: Judge| -> Result<Judge, InvalidArgument> {
        if batch.is_some() {
            judge.batch_ready().map_err(|why| {
                InvalidArgument::options(format!("{factory}: options.batch cannot be used: {why}"))
            })?;
        }
        Ok(judge.with_batch(batch.clone()))
    };
    if let (Some(host), Some(m)) = (&cx.host, &cx.model) {
        let model = ModelConfig::external(&m.provider_id, &m.model_id);
        let provider = Arc::new(
            ExternalProvider::new(&model.provider_id, &model.model_id, host.clone())
                .with_slot(m.slot),
        );
        return batchable(Judge::with_provider(provider, model, settings).with_cache(cache));
    }
    let model = ModelConfig::from_value(v.get("model").unwrap_or(&Value::Null))?;
    batchable(Judge::new(model, settings).with_cache(cache))
}

/// The reference text of `run.groundTruth`: a string is itself; a message or an array of
/// messages gives its (last) assistant text, else the text of the message. `Err` names the
/// JSON type for values that cannot carry text (numbers, booleans).
pub fn reference_text(v: &Value) -> Result<Option<String>, &'static str> {
    let text = match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        Value::Array(items) => crate::text::assistant_text(v)
            .filter(|t| !t.is_empty())
            .or_else(|| items.iter().rev().find_map(crate::text::message_text)),
        Value::Object(_) => crate::text::assistant_text(v)
            .filter(|t| !t.is_empty())
            .or_else(|| crate::text::message_text(v)),
        // a number or boolean reference is its JSON text
        other => Some(other.to_string()),
    };
    // a structured reference that is not a message (`{ answer: 'Paris' }`): its JSON text
    Ok(text.or_else(|| match v {
        Value::Object(m) if !m.is_empty() => Some(crate::text::stable_json(v)),
        _ => None,
    }))
}

/// Separator between the prompts of one step that made several judge calls
/// (`preprocessPrompt`, `analyzePrompt`).
pub const PROMPT_SEPARATOR: &str = "\n\n-----\n\n";

/// The prompts of one step joined with [`PROMPT_SEPARATOR`]; `None` when there are none.
pub fn join_prompts(prompts: &[String]) -> Option<String> {
    (!prompts.is_empty()).then(|| prompts.join(PROMPT_SEPARATOR))
}

/// A score for a reason text: `0.67`, `0.5`, and `1.0` / `0.0` for whole numbers.
pub fn fmt_score(n: f64) -> String {
    if n.fract() == 0.0 && n.is_finite() {
        format!("{n:.1}")
    } else {
        format!("{n}")
    }
}

/// The judge's JSON of `step`'s last call as it answered (the engine moves it into the
/// execution record; extra keys and labels as written), for the step result Mastra records.
pub fn judge_json(p: &crate::pipeline::Pipeline<'_>, step: &str) -> Option<Value> {
    p.result
        .judge
        .get(step)
        .and_then(|j| j.executions.last())
        .and_then(|e| e.output.clone())
}
