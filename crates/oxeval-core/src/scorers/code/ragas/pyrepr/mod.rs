//! Python's `str(value)` of a JSON value as `json.loads` gives it (what Ragas's tool-call
//! argument comparison and sort key use): a string is itself; anything else is its `repr`:
//! `None`, `True`/`False`, integers, floats in `repr`'s shortest form (`1.0`, `1e+16`,
//! `1e-05`), lists `[a, b]`, dicts `{'k': v}` in insertion order, strings inside quoted and
//! escaped as `repr` does (the quote choice, `\n`, `\xNN`, `\uNNNN` for non-printable code
//! points of Unicode 14.0, Python 3.11's table in `nonprintable.rs`).

mod nonprintable;

use serde_json::{Number, Value};
use std::fmt::Write;

/// `str(value)`.
pub fn py_str(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => {
            let mut out = String::new();
            repr(other, &mut out);
            out
        }
    }
}

/// `repr(value)` appended to `out`.
pub fn repr(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("None"),
        Value::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
        Value::Number(n) => number(n, out),
        Value::String(s) => str_repr(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                repr(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                str_repr(k, out);
                out.push_str(": ");
                repr(item, out);
            }
            out.push('}');
        }
    }
}

fn number(n: &Number, out: &mut String) {
    if let Some(i) = n.as_i64() {
        let _ = write!(out, "{i}");
    } else if let Some(u) = n.as_u64() {
        let _ = write!(out, "{u}");
    } else {
        out.push_str(&float_repr(n.as_f64().unwrap_or(f64::NAN)));
    }
}

/// `repr(x)` of a float: the shortest round-trip digits, fixed notation when the decimal
/// exponent is in -4..16, else `d.ddde±XX`.
pub fn float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    let sci = format!("{:e}", x.abs()); // "1.2345e-5": shortest round-trip digits
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if x.is_sign_negative() { "-" } else { "" };
    let decpt = exp + 1; // value = 0.digits × 10^decpt
    let n = digits.len() as i32;
    if !(-4..16).contains(&exp) {
        let rest = &digits[1..];
        let dot = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let es = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{}{dot}e{es}{:02}", &digits[..1], exp.abs());
    }
    if decpt <= 0 {
        format!("{sign}0.{}{digits}", "0".repeat((-decpt) as usize))
    } else if decpt >= n {
        format!("{sign}{digits}{}.0", "0".repeat((decpt - n) as usize))
    } else {
        let (a, b) = digits.split_at(decpt as usize);
        format!("{sign}{a}.{b}")
    }
}

fn printable(c: char) -> bool {
    let u = c as u32;
    if u < 0x80 {
        return (0x20..0x7f).contains(&u);
    }
    let table = nonprintable::NONPRINTABLE;
    let i = table.partition_point(|&(_, hi)| hi < u);
    table.get(i).is_none_or(|&(lo, _)| lo > u)
}

/// `repr(s)`: single quotes unless `s` holds `'` and no `"`.
fn str_repr(s: &str, out: &mut String) {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if printable(c) => out.push(c),
            c if (c as u32) <= 0xff => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if (c as u32) <= 0xffff => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\U{:08x}", c as u32);
            }
        }
    }
    out.push(quote);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn python_str_of_json_values() {
        // each expectation is Python 3.11's str(json.loads(text))
        for (v, want) in [
            (json!(null), "None"),
            (json!(true), "True"),
            (json!(12), "12"),
            (json!(-3), "-3"),
            (json!(1.5), "1.5"),
            (json!(1e16), "1e+16"),
            (json!(1e15), "1000000000000000.0"),
            (json!(0.0001), "0.0001"),
            (json!(0.00001), "1e-05"),
            (json!(1.234e-7), "1.234e-07"),
            (json!(-0.0), "-0.0"),
            (json!(1e300), "1e+300"),
            (json!("a'b"), "a'b"),
            (
                json!(["a'b", "x\"y'", 1, 2.0, null]),
                r#"["a'b", 'x"y\'', 1, 2.0, None]"#,
            ),
            (
                json!({"b": 1, "a": [true, {}]}),
                "{'b': 1, 'a': [True, {}]}",
            ),
            (
                json!(["\u{a0}é\u{200b}\u{7f}\n\\", "😀\u{e0001}"]),
                r"['\xa0é\u200b\x7f\n\\', '😀\U000e0001']",
            ),
        ] {
            assert_eq!(py_str(&v), want, "{v}");
        }
    }
}
