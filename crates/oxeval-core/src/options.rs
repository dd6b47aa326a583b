//! Reading the factory options a JS caller passes: the one place that checks their types
//! and ranges. Every error is an [`InvalidArgument::options`] (a `TypeError` in JS) whose
//! message names the option by its full path: `options.x`, `options.options.x` (Mastra's
//! nested form), `options.modelSettings.x`, `options.cache.x`, `options.model.x`.
//!
//! Two families:
//! - `opt_*(obj, key, path)`: the key `key` of the object found at `path`; `None` when the
//!   key is absent or null.
//! - `scorer_*(options, key, …)`: a scorer option accepted top-level (as Mastra's docs
//!   show) or under `options` (as Mastra's code reads it); top-level wins; absent in both
//!   places → the default.

use crate::error::{type_name, InvalidArgument};
use serde_json::Value;

/// `{path} must be {what}; got {type}`: the error for a value of the wrong JSON type.
pub fn wrong_type(path: &str, what: &str, got: &Value) -> InvalidArgument {
    InvalidArgument::options(format!("{path} must be {what}; got {}", type_name(got)))
}

/// `obj[key]` unless absent or null.
fn present<'a>(obj: &'a Value, key: &str) -> Option<&'a Value> {
    obj.get(key).filter(|v| !v.is_null())
}

/// The value at `path` as a finite number.
fn number_at(value: &Value, path: &str) -> Result<f64, InvalidArgument> {
    match value {
        Value::Number(n) => match n.as_f64() {
            Some(f) if f.is_finite() => Ok(f),
            _ => Err(InvalidArgument::options(format!(
                "{path} must be a finite number"
            ))),
        },
        other => Err(wrong_type(path, "a number", other)),
    }
}

/// Factory options must be an object (with a `model`).
pub fn options_object(v: &Value, factory: &str) -> Result<(), InvalidArgument> {
    match v {
        Value::Object(_) => Ok(()),
        other => Err(InvalidArgument::options(format!(
            "{factory}() expects an options object like {{ model: 'openai/gpt-4o-mini' }}; got {}",
            type_name(other)
        ))),
    }
}

/// A number option; `None` when absent or null.
pub fn opt_number(obj: &Value, key: &str, path: &str) -> Result<Option<f64>, InvalidArgument> {
    present(obj, key)
        .map(|v| number_at(v, &format!("{path}.{key}")))
        .transpose()
}

/// An integer option within `min..=max`; the message names the path and the range.
pub fn opt_uint_in(
    obj: &Value,
    key: &str,
    path: &str,
    min: u64,
    max: u64,
) -> Result<Option<u64>, InvalidArgument> {
    match opt_number(obj, key, path)? {
        None => Ok(None),
        Some(f) if f.fract() == 0.0 && f >= min as f64 && f <= max as f64 => Ok(Some(f as u64)),
        Some(f) => Err(InvalidArgument::options(format!(
            "{path}.{key} must be an integer from {min} to {max}; got {}",
            fmt_number(f)
        ))),
    }
}

/// A string option; `None` when absent or null.
pub fn opt_string<'a>(
    obj: &'a Value,
    key: &str,
    path: &str,
) -> Result<Option<&'a str>, InvalidArgument> {
    match present(obj, key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(wrong_type(&format!("{path}.{key}"), "a string", other)),
    }
}

/// A boolean option; `None` when absent or null.
pub fn opt_bool(obj: &Value, key: &str, path: &str) -> Result<Option<bool>, InvalidArgument> {
    match present(obj, key) {
        None => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(other) => Err(wrong_type(&format!("{path}.{key}"), "a boolean", other)),
    }
}

/// A scorer option and its path (`options.key` or `options.options.key`); `None` when
/// absent or null in both places.
pub fn scorer_value<'a>(
    v: &'a Value,
    key: &str,
) -> Result<Option<(&'a Value, String)>, InvalidArgument> {
    if let Some(found) = present(v, key) {
        return Ok(Some((found, format!("options.{key}"))));
    }
    match v.get("options") {
        None | Some(Value::Null) => Ok(None),
        Some(inner @ Value::Object(_)) => {
            Ok(present(inner, key).map(|found| (found, format!("options.options.{key}"))))
        }
        Some(other) => Err(wrong_type("options.options", "an object", other)),
    }
}

/// A numeric scorer option; absent → `default`.
pub fn scorer_number(v: &Value, key: &str, default: f64) -> Result<f64, InvalidArgument> {
    match scorer_value(v, key)? {
        None => Ok(default),
        Some((value, path)) => number_at(value, &path),
    }
}

/// A numeric scorer option within `lo..=hi` (absent → `default`). `lo_open` excludes `lo`
/// itself. The message names the option's path and its range, so every score computed
/// from the option stays finite by construction.
pub fn scorer_number_in(
    v: &Value,
    key: &str,
    (lo, lo_open): (f64, bool),
    hi: f64,
    default: f64,
) -> Result<f64, InvalidArgument> {
    let Some((value, path)) = scorer_value(v, key)? else {
        return Ok(default);
    };
    let n = number_at(value, &path)?;
    let ok = if lo_open { n > lo } else { n >= lo } && n <= hi;
    if ok {
        return Ok(n);
    }
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

/// A string scorer option restricted to `allowed`; absent → `default`.
pub fn scorer_choice(
    v: &Value,
    key: &str,
    allowed: &[&'static str],
    default: &'static str,
) -> Result<&'static str, InvalidArgument> {
    let quoted = allowed
        .iter()
        .map(|a| format!("'{a}'"))
        .collect::<Vec<_>>()
        .join(" | ");
    match scorer_value(v, key)? {
        None => Ok(default),
        Some((Value::String(s), path)) => allowed
            .iter()
            .find(|a| **a == s.as_str())
            .copied()
            .ok_or_else(|| InvalidArgument::options(format!("{path} must be {quoted}; got '{s}'"))),
        Some((other, path)) => Err(wrong_type(&path, &quoted, other)),
    }
}

/// A boolean scorer option; absent → `default`.
pub fn scorer_bool(v: &Value, key: &str, default: bool) -> Result<bool, InvalidArgument> {
    match scorer_value(v, key)? {
        None => Ok(default),
        Some((Value::Bool(b), _)) => Ok(*b),
        Some((other, path)) => Err(wrong_type(&path, "a boolean", other)),
    }
}

/// An integer scorer option in `min..=max`; absent → `default`.
pub fn scorer_int_in(
    v: &Value,
    key: &str,
    min: u32,
    max: u32,
    default: u32,
) -> Result<u32, InvalidArgument> {
    let what = format!("an integer from {min} to {max}");
    match scorer_value(v, key)? {
        None => Ok(default),
        Some((Value::Number(n), path)) => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f >= min as f64 && f <= max as f64 => Ok(f as u32),
            _ => Err(InvalidArgument::options(format!(
                "{path} must be {what}; got {n}"
            ))),
        },
        Some((other, path)) => Err(wrong_type(&path, &what, other)),
    }
}

/// An object-valued scorer option (`penalties: { … }`), top-level or under `options`:
/// the object and its path; `None` when absent or null in both places.
pub fn scorer_object<'a>(
    v: &'a Value,
    key: &str,
) -> Result<Option<(&'a Value, String)>, InvalidArgument> {
    match scorer_value(v, key)? {
        None => Ok(None),
        Some((found @ Value::Object(_), path)) => Ok(Some((found, path))),
        Some((other, path)) => Err(wrong_type(&path, "an object", other)),
    }
}

/// An object inside an object option (`obj` found at `path`): the object and its path;
/// `None` when absent or null.
pub fn opt_object<'a>(
    obj: &'a Value,
    key: &str,
    path: &str,
) -> Result<Option<(&'a Value, String)>, InvalidArgument> {
    let p = format!("{path}.{key}");
    match present(obj, key) {
        None => Ok(None),
        Some(found @ Value::Object(_)) => Ok(Some((found, p))),
        Some(other) => Err(wrong_type(&p, "an object", other)),
    }
}

/// A number inside an object option (`obj` found at `path`) within `lo..=hi` (`lo_open`
/// excludes `lo`); absent or null → `default`. The message names `path.key` and the range.
pub fn nested_number_in(
    obj: &Value,
    key: &str,
    path: &str,
    (lo, lo_open): (f64, bool),
    hi: f64,
    default: f64,
) -> Result<f64, InvalidArgument> {
    let Some(n) = opt_number(obj, key, path)? else {
        return Ok(default);
    };
    let ok = if lo_open { n > lo } else { n >= lo } && n <= hi;
    if ok {
        return Ok(n);
    }
    let lower = if lo_open {
        format!("greater than {lo}")
    } else {
        format!("at least {lo}")
    };
    Err(InvalidArgument::options(format!(
        "{path}.{key} must be a number {lower} and at most {hi}; got {}",
        fmt_number(n)
    )))
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

/// The key of the facade's stand-in for a number JSON cannot carry: `{ "$nonFinite":
/// "Infinity" | "-Infinity" | "NaN" }` (lib/nonfinite.js). Only the scorers that take such
/// numbers as Mastra does receive it ([`crate::scorers::registry::takes_non_finite`]).
pub const NON_FINITE_KEY: &str = "$nonFinite";

/// The number a facade stand-in holds (`None`: `v` is not one).
pub fn non_finite(v: Option<&Value>) -> Option<f64> {
    let Some(Value::Object(m)) = v else {
        return None;
    };
    if m.len() != 1 {
        return None;
    }
    match m.get(NON_FINITE_KEY)?.as_str()? {
        "Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        "NaN" => Some(f64::NAN),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn message<T: std::fmt::Debug>(r: Result<T, InvalidArgument>) -> String {
        let e = r.unwrap_err();
        assert!(e.code.is_type_error());
        e.message
    }

    #[test]
    fn opt_readers_name_the_path() {
        let o = json!({"n": 2, "s": "x", "b": true, "nil": null});
        let p = "options.cache";
        assert_eq!(opt_number(&o, "n", p).unwrap(), Some(2.0));
        assert_eq!(opt_number(&o, "nil", p).unwrap(), None);
        assert_eq!(opt_number(&o, "absent", p).unwrap(), None);
        assert_eq!(
            message(opt_number(&o, "s", p)),
            "options.cache.s must be a number; got string"
        );
        assert_eq!(opt_uint_in(&o, "n", p, 1, 3).unwrap(), Some(2));
        assert_eq!(
            message(opt_uint_in(&o, "n", p, 3, 5)),
            "options.cache.n must be an integer from 3 to 5; got 2"
        );
        assert_eq!(opt_string(&o, "s", p).unwrap(), Some("x"));
        assert_eq!(
            message(opt_string(&o, "b", p)),
            "options.cache.b must be a string; got boolean"
        );
        assert_eq!(opt_bool(&o, "b", p).unwrap(), Some(true));
        assert_eq!(
            message(opt_bool(&o, "n", p)),
            "options.cache.n must be a boolean; got number"
        );
        assert_eq!(
            message(options_object(&json!([]), "createXScorer")),
            "createXScorer() expects an options object like { model: 'openai/gpt-4o-mini' }; got array"
        );
    }

    #[test]
    fn scorer_readers_take_either_form() {
        let top = json!({"k": 2, "options": {"k": 3}});
        let nested = json!({"options": {"k": 3}});
        assert_eq!(scorer_number(&top, "k", 1.0).unwrap(), 2.0);
        assert_eq!(scorer_number(&nested, "k", 1.0).unwrap(), 3.0);
        assert_eq!(scorer_number(&json!({}), "k", 1.0).unwrap(), 1.0);
        assert_eq!(scorer_int_in(&nested, "k", 1, 5, 1).unwrap(), 3);
        assert_eq!(
            message(scorer_int_in(&nested, "k", 4, 5, 4)),
            "options.options.k must be an integer from 4 to 5; got 3"
        );
        assert_eq!(
            message(scorer_number_in(&top, "k", (2.0, true), 9.0, 5.0)),
            "options.k must be a number greater than 2 and at most 9; got 2"
        );
        assert_eq!(
            message(scorer_bool(&nested, "k", false)),
            "options.options.k must be a boolean; got number"
        );
        assert_eq!(
            message(scorer_choice(&json!({"k": "c"}), "k", &["a", "b"], "a")),
            "options.k must be 'a' | 'b'; got 'c'"
        );
        assert_eq!(
            message(scorer_value(&json!({"options": 3}), "k")),
            "options.options must be an object; got number"
        );
    }

    #[test]
    fn object_options_and_nested_numbers() {
        let top = json!({"p": {"a": 0.5}, "options": {"p": {"a": 0.9}}});
        let (obj, path) = scorer_object(&top, "p").unwrap().unwrap();
        assert_eq!(path, "options.p");
        assert_eq!(
            nested_number_in(obj, "a", &path, (0.0, false), 1.0, 0.1).unwrap(),
            0.5
        );
        assert_eq!(
            nested_number_in(obj, "b", &path, (0.0, false), 1.0, 0.1).unwrap(),
            0.1
        );
        let nested = json!({"options": {"p": {"a": 2}}});
        let (obj, path) = scorer_object(&nested, "p").unwrap().unwrap();
        assert_eq!(
            message(nested_number_in(obj, "a", &path, (0.0, false), 1.0, 0.1)),
            "options.options.p.a must be a number at least 0 and at most 1; got 2"
        );
        assert_eq!(
            message(nested_number_in(
                &json!({"a": "x"}),
                "a",
                "options.p",
                (0.0, false),
                1.0,
                0.1
            )),
            "options.p.a must be a number; got string"
        );
        assert_eq!(
            message(scorer_object(&json!({"p": 3}), "p")),
            "options.p must be an object; got number"
        );
        assert!(scorer_object(&json!({}), "p").unwrap().is_none());
        let outer = json!({"w": {"a": 1}});
        let (inner, inner_path) = opt_object(&outer, "w", "options.s").unwrap().unwrap();
        assert_eq!(
            (inner["a"].clone(), inner_path.as_str()),
            (json!(1), "options.s.w")
        );
        assert_eq!(
            message(opt_object(&json!({"w": 1}), "w", "options.s")),
            "options.s.w must be an object; got number"
        );
    }

    #[test]
    fn numbers_in_messages() {
        assert_eq!(fmt_number(1.5), "1.5");
        assert_eq!(fmt_number(0.0), "0");
        assert_eq!(fmt_number(1e307), "1e307");
        assert_eq!(fmt_number(-2e-9), "-2e-9");
    }
}
