//! Option handling shared by LLM scorers.

use crate::engine::{opt_number, Judge, ModelSettings};
use crate::error::{type_name, InvalidArgument};
use crate::model::ModelConfig;
use serde_json::Value;

/// Factory options must be an object with a `model`.
pub fn options_object(v: &Value, factory: &str) -> Result<(), InvalidArgument> {
    match v {
        Value::Object(_) => Ok(()),
        other => Err(InvalidArgument::options(format!(
            "{factory}() expects an options object like {{ model: 'openai/gpt-4o-mini' }}; got {}",
            type_name(other)
        ))),
    }
}

/// Build the judge from `options.model` and `options.modelSettings` (once per scorer).
pub fn judge_from_options(v: &Value, factory: &str) -> Result<Judge, InvalidArgument> {
    options_object(v, factory)?;
    let model = ModelConfig::from_value(v.get("model").unwrap_or(&Value::Null))?;
    let settings = ModelSettings::from_value(v.get("modelSettings"))?;
    Ok(Judge::new(model, settings))
}

/// A numeric scorer option accepted top-level (as Mastra's docs show) or under `options`
/// (as Mastra's code reads it); top-level wins; absent → `default`.
pub fn scorer_number(v: &Value, key: &str, default: f64) -> Result<f64, InvalidArgument> {
    if let Some(n) = opt_number(v, key, "options")? {
        return Ok(n);
    }
    match v.get("options") {
        None | Some(Value::Null) => Ok(default),
        Some(inner @ Value::Object(_)) => {
            Ok(opt_number(inner, key, "options.options")?.unwrap_or(default))
        }
        Some(other) => Err(InvalidArgument::options(format!(
            "options.options must be an object; got {}",
            type_name(other)
        ))),
    }
}
