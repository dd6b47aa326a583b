//! JavaScript's value semantics over `serde_json::Value` (`None` is `undefined`).

use serde_json::Value;

/// `Boolean(v)`.
pub fn truthy(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0),
        Some(Value::String(s)) => !s.is_empty(),
        Some(_) => true,
    }
}

/// `a === b` for values read from JSON (objects and arrays are distinct references, so
/// never equal; `undefined === undefined`).
pub fn strict_eq(a: Option<&Value>, b: Option<&Value>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(Value::Null), Some(Value::Null)) => true,
        (Some(Value::Bool(x)), Some(Value::Bool(y))) => x == y,
        (Some(Value::Number(x)), Some(Value::Number(y))) => x.as_f64() == y.as_f64(),
        (Some(Value::String(x)), Some(Value::String(y))) => x == y,
        _ => false,
    }
}

/// `JSON.stringify(v)` (`None` for `undefined`): the key order of the value.
pub fn stringify(v: Option<&Value>) -> Option<String> {
    v.map(|v| v.to_string())
}

/// `typeof v === 'number' && Number.isFinite(v) && v >= 0`.
pub fn is_measurement(v: Option<&Value>) -> bool {
    v.and_then(Value::as_f64)
        .is_some_and(|f| f.is_finite() && f >= 0.0)
}

/// `v ?? fallback`: `null` and `undefined` fall back.
pub fn nullish(v: Option<&Value>) -> Option<&Value> {
    v.filter(|v| !v.is_null())
}

/// `String(n)` for a JS number (integers without a fraction, as JS prints them).
pub fn number_string(n: f64) -> String {
    if n == n.trunc() && n.abs() < 1e21 {
        format!("{}", n as i128)
    } else {
        format!("{n}")
    }
}

/// `` `${v}` `` for a value a template prints (strings as they are, numbers as JS).
pub fn template(v: Option<&Value>) -> String {
    match v {
        None => "undefined".into(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => number_string(n.as_f64().unwrap_or(0.0)),
        Some(Value::Null) => "null".into(),
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| match x {
                Value::Null => String::new(),
                other => template(Some(other)),
            })
            .collect::<Vec<_>>()
            .join(","),
        Some(Value::Object(_)) => "[object Object]".into(),
    }
}

/// A JS number as JSON: integers as integers (`1`, not `1.0`).
pub fn num(n: f64) -> Value {
    if n == n.trunc() && n.abs() < 9.0e15 {
        Value::from(n as i64)
    } else {
        serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number)
    }
}

/// `Math.round(n)`: the nearest integer, halves toward +∞.
pub fn math_round(n: f64) -> f64 {
    let f = n.floor();
    if n - f >= 0.5 {
        f + 1.0
    } else {
        f
    }
}

/// Mastra's `roundToTwoDecimals`: `Math.round((n + Number.EPSILON) * 100) / 100`.
pub fn round_to_two_decimals(n: f64) -> f64 {
    math_round((n + f64::EPSILON) * 100.0) / 100.0
}

/// `Math.round(n * 100) / 100` (the trajectory scorer's rounding: no epsilon).
pub fn round2_plain(n: f64) -> f64 {
    math_round(n * 100.0) / 100.0
}

/// JavaScript's `\s` (WhiteSpace and LineTerminator): what `trim()` and `/\s/` remove.
pub fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\u{9}'..='\u{d}'
            | ' '
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
            | '\u{feff}'
    )
}

/// `s.trim()`.
pub fn trim(s: &str) -> &str {
    s.trim_matches(is_js_space)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn js_semantics() {
        for (v, t) in [
            (json!(0), false),
            (json!(""), false),
            (json!(null), false),
            (json!(false), false),
            (json!("0"), true),
            (json!([]), true),
            (json!({}), true),
            (json!(-1.5), true),
        ] {
            assert_eq!(truthy(Some(&v)), t, "{v}");
        }
        assert!(!truthy(None));
        assert!(strict_eq(None, None));
        assert!(!strict_eq(None, Some(&Value::Null)));
        assert!(strict_eq(Some(&json!(1)), Some(&json!(1.0))));
        assert!(!strict_eq(Some(&json!({})), Some(&json!({}))));
        assert_eq!(number_string(0.79), "0.79");
        assert_eq!(number_string(3.0), "3");
        assert_eq!(number_string(-0.0), "0");
        assert_eq!(math_round(2.5), 3.0);
        assert_eq!(math_round(-2.5), -2.0);
        assert_eq!(math_round(-2.6), -3.0);
        assert_eq!(math_round(0.49999999999999994), 0.0);
        assert_eq!(round_to_two_decimals(1.005), 1.01);
        assert_eq!(round2_plain(0.785), 0.79);
        assert_eq!(round2_plain(1.0 / 3.0), 0.33);
        assert_eq!(template(Some(&json!(["a", null, 2]))), "a,,2");
    }
}
