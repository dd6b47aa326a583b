//! Option handling shared by LLM scorers.

use crate::engine::cache::ResponseCache;
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
    let cache =
        ResponseCache::from_options(v.get("cache"), std::env::var("OXEVAL_CACHE_DIR").ok())?;
    Ok(Judge::new(model, settings).with_cache(cache))
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

/// A scorer option accepted top-level or under `options` (top-level wins), with the path
/// to name in error messages (`options.key` or `options.options.key`). `None` when absent
/// or null in both places.
pub fn scorer_value<'a>(
    v: &'a Value,
    key: &str,
) -> Result<Option<(&'a Value, String)>, InvalidArgument> {
    if let Some(found) = v.get(key).filter(|x| !x.is_null()) {
        return Ok(Some((found, format!("options.{key}"))));
    }
    match v.get("options") {
        None | Some(Value::Null) => Ok(None),
        Some(inner @ Value::Object(_)) => Ok(inner
            .get(key)
            .filter(|x| !x.is_null())
            .map(|found| (found, format!("options.options.{key}")))),
        Some(other) => Err(InvalidArgument::options(format!(
            "options.options must be an object; got {}",
            type_name(other)
        ))),
    }
}

/// A string option restricted to `allowed` (top-level or under `options`); absent →
/// `default`.
pub fn scorer_choice(
    v: &Value,
    key: &str,
    allowed: &[&'static str],
    default: &'static str,
) -> Result<&'static str, InvalidArgument> {
    let quoted = || {
        allowed
            .iter()
            .map(|a| format!("'{a}'"))
            .collect::<Vec<_>>()
            .join(" | ")
    };
    match scorer_value(v, key)? {
        None => Ok(default),
        Some((Value::String(s), path)) => allowed
            .iter()
            .find(|a| **a == s.as_str())
            .copied()
            .ok_or_else(|| {
                InvalidArgument::options(format!("{path} must be {}; got '{s}'", quoted()))
            }),
        Some((other, path)) => Err(InvalidArgument::options(format!(
            "{path} must be {}; got {}",
            quoted(),
            type_name(other)
        ))),
    }
}

/// A boolean option (top-level or under `options`); absent → `default`.
pub fn scorer_bool(v: &Value, key: &str, default: bool) -> Result<bool, InvalidArgument> {
    match scorer_value(v, key)? {
        None => Ok(default),
        Some((Value::Bool(b), _)) => Ok(*b),
        Some((other, path)) => Err(InvalidArgument::options(format!(
            "{path} must be a boolean; got {}",
            type_name(other)
        ))),
    }
}

/// An integer option in `min..=max` (top-level or under `options`); absent → `default`.
pub fn scorer_int_in(
    v: &Value,
    key: &str,
    min: u32,
    max: u32,
    default: u32,
) -> Result<u32, InvalidArgument> {
    match scorer_value(v, key)? {
        None => Ok(default),
        Some((Value::Number(n), path)) => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f >= min as f64 && f <= max as f64 => Ok(f as u32),
            _ => Err(InvalidArgument::options(format!(
                "{path} must be an integer from {min} to {max}; got {n}"
            ))),
        },
        Some((other, path)) => Err(InvalidArgument::options(format!(
            "{path} must be an integer from {min} to {max}; got {}",
            type_name(other)
        ))),
    }
}

/// A numeric option within `lo..=hi` (top-level or under `options`; absent → `default`).
/// `lo_open` excludes `lo` itself. The message names the option's path and its range, so
/// every score computed from the option stays finite by construction.
pub fn scorer_number_in(
    v: &Value,
    key: &str,
    (lo, lo_open): (f64, bool),
    hi: f64,
    default: f64,
) -> Result<f64, InvalidArgument> {
    let n = scorer_number(v, key, default)?;
    let ok = if lo_open { n > lo } else { n >= lo } && n <= hi;
    if ok {
        return Ok(n);
    }
    let path = scorer_value(v, key)?.map_or_else(|| format!("options.{key}"), |(_, p)| p);
    let lower = if lo_open {
        format!("greater than {lo}")
    } else {
        format!("at least {lo}")
    };
    Err(InvalidArgument::options(format!(
        "{path} must be a number {lower} and at most {hi}; got {}",
        fmt_number(n)
    )))
}

/// The reference text of `run.groundTruth`: a string is itself; a message or an array of
/// messages gives its (last) assistant text, else the text of the message. `Err` names the
/// JSON type for values that cannot carry text (numbers, booleans).
pub fn reference_text(v: &Value) -> Result<Option<String>, &'static str> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s.clone())),
        Value::Array(items) => Ok(crate::text::assistant_text(v)
            .or_else(|| items.iter().rev().find_map(crate::text::message_text))),
        Value::Object(_) => {
            Ok(crate::text::assistant_text(v).or_else(|| crate::text::message_text(v)))
        }
        other => Err(type_name(other)),
    }
}

/// Separator between the prompts of one step that made several judge calls
/// (`preprocessPrompt`, `analyzePrompt`).
pub const PROMPT_SEPARATOR: &str = "\n\n-----\n\n";

/// The prompts of one step joined with [`PROMPT_SEPARATOR`]; `None` when there are none.
pub fn join_prompts(prompts: &[String]) -> Option<String> {
    (!prompts.is_empty()).then(|| prompts.join(PROMPT_SEPARATOR))
}

/// A number for a message: plain when moderate, scientific (`1e307`) when huge or tiny.
pub fn fmt_number(n: f64) -> String {
    let a = n.abs();
    if a != 0.0 && !(1e-6..1e15).contains(&a) {
        format!("{n:e}")
    } else {
        format!("{n}")
    }
}

/// A score for a reason text: `0.67`, `0.5`, and `1.0` / `0.0` for whole numbers.
pub fn fmt_score(n: f64) -> String {
    if n.fract() == 0.0 && n.is_finite() {
        format!("{n:.1}")
    } else {
        format!("{n}")
    }
}
