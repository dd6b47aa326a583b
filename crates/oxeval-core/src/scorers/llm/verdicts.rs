//! Verdict labels of the Mastra claim/verdict scorers (faithfulness, hallucination, context
//! precision, context recall): the judge writes a label as free text; oxeval trims and
//! lowercases it before validation, checks it against the scorer's set (a soft expectation:
//! the fallback is told, then a warning), and records it as one of the set.

use serde_json::Value;

/// Trim and lowercase the string `key` of every item of `json[list]` (`" Yes "` → `yes`).
pub fn normalize_labels(json: &mut Value, list: &str, key: &str) {
    let Some(items) = json.get_mut(list).and_then(Value::as_array_mut) else {
        return;
    };
    for item in items {
        if let Some(Value::String(label)) = item.get_mut(key) {
            let t = label.trim().to_lowercase();
            if t != *label {
                *label = t;
            }
        }
    }
}

/// "verdict 2 (\"maybe\") is not yes or no (counted as no)" for labels outside `allowed`;
/// `None` when every label is allowed. At most five are named.
pub fn label_problem<'a>(
    labels: impl Iterator<Item = &'a str>,
    allowed: &[&str],
    counted_as: &str,
) -> Option<String> {
    let odd: Vec<String> = labels
        .enumerate()
        .filter(|(_, l)| !allowed.contains(l))
        .map(|(i, l)| format!("{} ({})", i + 1, Value::String(l.to_string())))
        .take(5)
        .collect();
    if odd.is_empty() {
        return None;
    }
    let set = match allowed {
        [a, b] => format!("{a} or {b}"),
        _ => {
            let (last, rest) = allowed.split_last().unwrap_or((&"", &[]));
            format!("{}, or {last}", rest.join(", "))
        }
    };
    Some(format!(
        "verdict {} is not {set} (counted as {counted_as})",
        odd.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn labels_are_normalized_and_checked() {
        let mut v = json!({"verdicts": [{"verdict": " Yes "}, {"verdict": "NO"}, {"verdict": 3}]});
        normalize_labels(&mut v, "verdicts", "verdict");
        assert_eq!(
            v,
            json!({"verdicts": [{"verdict": "yes"}, {"verdict": "no"}, {"verdict": 3}]})
        );
        assert_eq!(
            label_problem(["yes", "no"].into_iter(), &["yes", "no"], "no"),
            None
        );
        assert_eq!(
            label_problem(["yes", "maybe"].into_iter(), &["yes", "no"], "no").unwrap(),
            "verdict 2 (\"maybe\") is not yes or no (counted as no)"
        );
        assert_eq!(
            label_problem(["x"].into_iter(), &["yes", "no", "unsure"], "unsure").unwrap(),
            "verdict 1 (\"x\") is not yes, no, or unsure (counted as unsure)"
        );
    }
}
