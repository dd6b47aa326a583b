//! Ragas's `ToolCallF1`: the predicted and the reference calls as SETS of (name, arguments),
//! arguments compared as Python compares `make_hashable`'s frozensets: dicts without order
//! at every depth, lists in order, `1 == 1.0 == True`, `0 == False`; repeated calls count
//! once. Precision, recall and F1 of the set overlap (0 when either is 0, so no calls on
//! either side → 0), rounded to 4 decimals with Python's `round`.

use super::tool_calls::{calls, steps, Calls, RunFields, ToolCall, INPUTS};
use serde_json::Value;
use std::collections::BTreeSet;

super::optionless_metric!(
    ToolCallF1,
    "createToolCallF1Scorer",
    "ragas-tool-call-f1",
    "Tool Call F1 (Ragas)",
    "Ragas's ToolCallF1: F1 of the output's tool calls (name and arguments) against run.referenceToolCalls, as sets",
    "RagasToolCallF1",
    INPUTS,
    Some(crate::scorers::spec::schema_of::<RunFields>),
    Calls,
    steps("F1 of the predicted and reference tool call sets, rounded to 4 decimals"),
    |run| {
        let c = calls(SPEC.id, &run)?;
        let score = f1(&c.predicted, &c.reference);
        Ok(super::super::text_result::<_, ()>(run.run_id, score, &c, None))
    }
);

/// `make_hashable(value)` with Python's equality: numbers (and booleans) by exact value.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Hashable {
    None,
    /// An integer, a bool (0/1) or an integral float.
    Int(i128),
    /// A non-integral float, by its bits (equal values have equal bits).
    Float(u64),
    Str(String),
    Tuple(Vec<Hashable>),
    Set(BTreeSet<(String, Hashable)>),
}

fn hashable(v: &Value) -> Hashable {
    match v {
        Value::Null => Hashable::None,
        Value::Bool(b) => Hashable::Int(i128::from(*b)),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => Hashable::Int(i128::from(i)),
            (_, Some(u), _) => Hashable::Int(i128::from(u)),
            (_, _, Some(f)) if f.fract() == 0.0 && f.abs() < 1e38 => Hashable::Int(f as i128),
            (_, _, f) => Hashable::Float(f.unwrap_or(f64::NAN).to_bits()),
        },
        Value::String(s) => Hashable::Str(s.clone()),
        Value::Array(items) => Hashable::Tuple(items.iter().map(hashable).collect()),
        Value::Object(m) => {
            Hashable::Set(m.iter().map(|(k, v)| (k.clone(), hashable(v))).collect())
        }
    }
}

fn set(list: &[ToolCall]) -> BTreeSet<(String, Hashable)> {
    list.iter()
        .map(|c| {
            let args = c
                .args
                .iter()
                .map(|(k, v)| (k.clone(), hashable(v)))
                .collect();
            (c.name.clone(), Hashable::Set(args))
        })
        .collect()
}

/// Python's `round(x, 4)`: the exact binary value correctly rounded, ties to even.
pub fn round4(x: f64) -> f64 {
    format!("{x:.4}").parse().unwrap_or(x)
}

/// `calculate_f1_score` of the set overlap, rounded as Ragas rounds it.
pub fn f1(pred: &[ToolCall], reference: &[ToolCall]) -> f64 {
    let (actual, expected) = (set(pred), set(reference));
    let tp = actual.intersection(&expected).count() as f64;
    let fp = actual.difference(&expected).count() as f64;
    let fn_ = expected.difference(&actual).count() as f64;
    let precision = if tp + fp > 0.0 { tp / (tp + fp) } else { 0.0 };
    let recall = if tp + fn_ > 0.0 { tp / (tp + fn_) } else { 0.0 };
    let f = if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    };
    round4(f)
}

#[cfg(test)]
mod tests {
    use super::super::tool_calls::tc;
    use super::*;
    use serde_json::json;

    #[test]
    fn ragas_cases() {
        let w = tc("weather", json!({ "location": "Paris" }));
        let uv = tc("uv", json!({ "location": "Paris" }));
        assert_eq!(f1(&[w.clone(), uv], std::slice::from_ref(&w)), 0.6667);
        assert_eq!(f1(&[], &[]), 0.0);
        assert_eq!(f1(&[w.clone(), w.clone()], &[w]), 1.0);
        // nested dicts without order, 1 == 1.0 == true; lists keep their order
        let a = tc("a", json!({ "o": { "x": 1, "y": [1, 2] } }));
        let b = tc("a", json!({ "o": { "y": [true, 2.0], "x": 1.0 } }));
        assert_eq!(f1(std::slice::from_ref(&a), &[b]), 1.0);
        assert_eq!(
            f1(&[a], &[tc("a", json!({ "o": { "x": 1, "y": [2, 1] } }))]),
            0.0
        );
    }

    #[test]
    fn python_round() {
        assert_eq!(round4(0.03125), 0.0312);
        assert_eq!(round4(0.66666), 0.6667);
        assert_eq!(round4(0.00005), 0.0001); // 0.00005 is above the tie in binary
    }
}
