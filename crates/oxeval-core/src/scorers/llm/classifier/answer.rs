//! An answer to one classifier question (Mastra 1.71's `ChoiceAnswer` / `ScoreAnswer` /
//! `BooleanAnswer`), its checks (the contract's: the type of its question, a known option,
//! a level in range, finite probabilities in [0, 1] that sum to 1 and agree with the answer,
//! within the rounding the answer declares), the score it projects to and the reason.

use super::question::{Question, QuestionKind};
use crate::agent::js::number_string;
use serde_json::{Map, Value};

/// Decimal places the answer's numbers were rounded to (`rounding`), which widens the
/// tolerance of the checks by half a unit in the last place per value.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Rounding {
    pub probability_decimals: Option<u32>,
    pub score_decimals: Option<u32>,
}

impl Rounding {
    fn tolerance(d: Option<u32>) -> f64 {
        d.map_or(1e-6, |d| 0.5 * 10f64.powi(-(d as i32)))
    }

    /// `rounding` as the result carries it, `None` when absent; an error says why it is bad.
    pub fn from_value(v: Option<&Value>) -> Result<Rounding, String> {
        let Some(v) = v.filter(|v| !v.is_null()) else {
            return Ok(Rounding::default());
        };
        let Value::Object(m) = v else {
            return Err(
                "rounding must be an object { probabilityDecimals?, scoreDecimals? }".into(),
            );
        };
        let mut r = Rounding::default();
        for (k, v) in m {
            let n = v.as_u64().filter(|n| *n <= 15).map(|n| n as u32);
            match (k.as_str(), n) {
                ("probabilityDecimals", Some(n)) => r.probability_decimals = Some(n),
                ("scoreDecimals", Some(n)) => r.score_decimals = Some(n),
                _ => {
                    return Err(format!(
                        "rounding.{k} must be probabilityDecimals or scoreDecimals, an integer 0 to 15; got {v}"
                    ))
                }
            }
        }
        Ok(r)
    }

    pub fn to_value(self) -> Option<Value> {
        let mut m = Map::new();
        if let Some(d) = self.probability_decimals {
            m.insert("probabilityDecimals".into(), d.into());
        }
        if let Some(d) = self.score_decimals {
            m.insert("scoreDecimals".into(), d.into());
        }
        (!m.is_empty()).then_some(Value::Object(m))
    }
}

fn probability(v: Option<&Value>, what: &str) -> Result<f64, String> {
    match v.and_then(Value::as_f64) {
        Some(p) if p.is_finite() && (0.0..=1.0).contains(&p) => Ok(p),
        _ => Err(format!(
            "{what} must be a finite number in [0, 1]; got {}",
            v.map_or("nothing".into(), |v| crate::engine::clip(
                &v.to_string(),
                40
            ))
        )),
    }
}

/// A complete distribution over `labels`: every label once, nothing else, each a finite
/// number in [0, 1], summing to 1 within `tol` per value.
fn distribution(v: &Value, labels: &[String], tol: f64, q: &str) -> Result<Vec<f64>, String> {
    let Value::Object(m) = v else {
        return Err(format!("answer '{q}': probabilities must be an object"));
    };
    if m.len() != labels.len() || m.keys().any(|k| !labels.contains(k)) {
        let keys: Vec<&str> = m.keys().map(String::as_str).collect();
        return Err(format!(
            "answer '{q}': probabilities must hold exactly the labels {} (got {})",
            labels.join(", "),
            keys.join(", ")
        ));
    }
    let ps = labels
        .iter()
        .map(|l| probability(m.get(l), &format!("answer '{q}': probability of '{l}'")))
        .collect::<Result<Vec<f64>, String>>()?;
    let sum: f64 = ps.iter().sum();
    if (sum - 1.0).abs() > 1e-6 + labels.len() as f64 * tol {
        return Err(format!(
            "answer '{q}': probabilities must sum to 1; they sum to {}",
            number_string(sum)
        ));
    }
    Ok(ps)
}

/// Check `answer` against its question (the checks of Mastra's classifier); `Err` says why.
pub fn check(q: &Question, answer: &Value, r: Rounding) -> Result<(), String> {
    let id = &q.id;
    let Value::Object(a) = answer else {
        return Err(format!("answer '{id}' must be an object"));
    };
    if a.get("type").and_then(Value::as_str) != Some(q.type_name()) {
        return Err(format!(
            "answer '{id}' has type {}; its question is a {} question",
            a.get("type").map_or("undefined".into(), |t| t.to_string()),
            q.type_name()
        ));
    }
    let tol = Rounding::tolerance(r.probability_decimals);
    let labels = q.labels();
    match &q.kind {
        QuestionKind::Boolean => {
            probability(a.get("probability"), &format!("answer '{id}': probability")).map(|_| ())
        }
        QuestionKind::Choice(keys) => {
            let choice = a.get("choice").and_then(Value::as_str).unwrap_or_default();
            if !keys.iter().any(|k| k == choice) {
                return Err(format!(
                    "answer '{id}' chose {}, which is not one of its options ({})",
                    a.get("choice")
                        .map_or("nothing".into(), |c| crate::engine::clip(
                            &c.to_string(),
                            60
                        )),
                    keys.join(", ")
                ));
            }
            let Some(p) = a.get("probabilities").filter(|p| !p.is_null()) else {
                return Ok(());
            };
            let ps = distribution(p, &labels, tol, id)?;
            let max = ps.iter().cloned().fold(0.0, f64::max);
            let chosen = ps[keys.iter().position(|k| k == choice).unwrap_or(0)];
            if chosen < max - tol {
                return Err(format!(
                    "answer '{id}' chose '{choice}' (probability {}) but another option is more likely ({})",
                    number_string(chosen),
                    number_string(max)
                ));
            }
            Ok(())
        }
        QuestionKind::Score(n) => {
            let score = a
                .get("score")
                .and_then(Value::as_f64)
                .filter(|s| s.is_finite());
            let Some(score) = score.filter(|s| (0.0..=(*n - 1) as f64).contains(s)) else {
                return Err(format!(
                    "answer '{id}': score must be a finite number in [0, {}]; got {}",
                    n - 1,
                    a.get("score")
                        .map_or("nothing".into(), |s| crate::engine::clip(
                            &s.to_string(),
                            40
                        ))
                ));
            };
            let Some(p) = a.get("probabilities").filter(|p| !p.is_null()) else {
                return Ok(());
            };
            let ps = distribution(p, &labels, tol, id)?;
            let mean: f64 = ps.iter().enumerate().map(|(i, p)| i as f64 * p).sum();
            let stol = Rounding::tolerance(r.score_decimals) + *n as f64 * tol;
            if (mean - score).abs() > stol {
                return Err(format!(
                    "answer '{id}': score {} is not the probability-weighted mean of its levels ({})",
                    number_string(score),
                    number_string(mean)
                ));
            }
            Ok(())
        }
    }
}

/// The score of a checked answer (Mastra's projection): a choice's configured score, a
/// level over the top level, P(true).
pub fn score(q: &Question, answer: &Value, scores: Option<&[(String, f64)]>) -> f64 {
    match &q.kind {
        QuestionKind::Choice(_) => {
            let choice = answer["choice"].as_str().unwrap_or_default();
            scores
                .and_then(|s| s.iter().find(|(k, _)| k == choice))
                .map_or(f64::NAN, |(_, v)| *v)
        }
        QuestionKind::Score(n) => answer["score"].as_f64().unwrap_or(f64::NAN) / (*n - 1) as f64,
        QuestionKind::Boolean => answer["probability"].as_f64().unwrap_or(f64::NAN),
    }
}

/// The reason: Mastra's sentence for the answer's type.
pub fn reason(question: &str, answer: &Value, score: f64) -> String {
    let n = |v: &Value| number_string(v.as_f64().unwrap_or(f64::NAN));
    match answer["type"].as_str() {
        Some("choice") => format!(
            "Classifier question '{question}' selected '{}' (score: {}).",
            answer["choice"].as_str().unwrap_or_default(),
            number_string(score)
        ),
        Some("score") => format!(
            "Classifier question '{question}' returned score {}.",
            n(&answer["score"])
        ),
        _ => format!(
            "Classifier question '{question}' returned P(true)={}.",
            n(&answer["probability"])
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::super::question::parse_questions;
    use super::*;
    use serde_json::json;

    fn questions() -> Vec<Question> {
        parse_questions(
            &json!({
                "tone": {"type": "choice", "criteria": {"calm": null, "angry": null, "mixed": null}},
                "quality": {"type": "score", "criteria": ["bad", "ok", "good"]},
                "safe": {"type": "boolean"}
            }),
            "q",
        )
        .unwrap()
    }

    #[test]
    fn answers_checked_as_the_contract_says() {
        let q = questions();
        let r0 = Rounding::default();
        let r2 = Rounding {
            probability_decimals: Some(2),
            score_decimals: None,
        };
        let ok = [
            (0, json!({"type": "choice", "choice": "calm"}), r0),
            (
                0,
                json!({"type": "choice", "choice": "calm", "probabilities": {"calm": 0.5, "angry": 0.25, "mixed": 0.25}}),
                r0,
            ),
            // a tie is allowed
            (
                0,
                json!({"type": "choice", "choice": "angry", "probabilities": {"calm": 0.5, "angry": 0.5, "mixed": 0}}),
                r0,
            ),
            // two decimals: 0.33 × 3 = 0.99 within 3 × 0.005
            (
                0,
                json!({"type": "choice", "choice": "calm", "probabilities": {"calm": 0.33, "angry": 0.33, "mixed": 0.33}}),
                r2,
            ),
            (
                1,
                json!({"type": "score", "score": 1.5, "probabilities": {"0": 0, "1": 0.5, "2": 0.5}}),
                r0,
            ),
            (1, json!({"type": "score", "score": 2}), r0),
            (2, json!({"type": "boolean", "probability": 0.9}), r0),
        ];
        for (i, a, r) in ok {
            assert_eq!(check(&q[i], &a, r), Ok(()), "{a}");
        }
        let bad = [
            (
                0,
                json!({"type": "score", "score": 1}),
                "has type \"score\"",
            ),
            (
                0,
                json!({"type": "choice", "choice": "furious"}),
                "not one of its options",
            ),
            (
                0,
                json!({"type": "choice", "choice": "calm", "probabilities": {"calm": 0.5, "angry": 0.5}}),
                "exactly the labels",
            ),
            (
                0,
                json!({"type": "choice", "choice": "calm", "probabilities": {"calm": 0.5, "angry": 0.3, "mixed": 0.1}}),
                "sum to 1; they sum to 0.9",
            ),
            (
                0,
                json!({"type": "choice", "choice": "calm", "probabilities": {"calm": 0.33, "angry": 0.33, "mixed": 0.33}}),
                "sum to 1",
            ),
            (
                0,
                json!({"type": "choice", "choice": "calm", "probabilities": {"calm": 0.2, "angry": 0.7, "mixed": 0.1}}),
                "more likely",
            ),
            (
                0,
                json!({"type": "choice", "choice": "calm", "probabilities": {"calm": "1", "angry": 0, "mixed": 0}}),
                "finite number in [0, 1]",
            ),
            (
                0,
                json!({"type": "choice", "choice": "calm", "probabilities": {"calm": 1.5, "angry": -0.5, "mixed": 0}}),
                "finite number in [0, 1]",
            ),
            (1, json!({"type": "score", "score": 3}), "in [0, 2]"),
            (
                1,
                json!({"type": "score", "score": 0.5, "probabilities": {"0": 0, "1": 0.5, "2": 0.5}}),
                "weighted mean",
            ),
            (
                2,
                json!({"type": "boolean", "probability": null}),
                "finite number",
            ),
            (
                2,
                json!({"type": "boolean", "probability": 1.01}),
                "finite number",
            ),
            (2, json!("yes"), "must be an object"),
        ];
        for (i, a, want) in bad {
            let got = check(&q[i], &a, if want == "sum to 1" { r0 } else { r2 }).unwrap_err();
            assert!(got.contains(want), "{a}: {got}");
        }
    }

    #[test]
    fn score_and_reason_project_as_mastra() {
        let q = questions();
        let scores = [
            ("calm".to_string(), 1.0),
            ("angry".to_string(), 0.0),
            ("mixed".to_string(), 0.5),
        ];
        let a = json!({"type": "choice", "choice": "mixed"});
        assert_eq!(score(&q[0], &a, Some(&scores)), 0.5);
        assert_eq!(
            reason("tone", &a, 0.5),
            "Classifier question 'tone' selected 'mixed' (score: 0.5)."
        );
        let a = json!({"type": "score", "score": 1.5});
        assert_eq!(score(&q[1], &a, None), 0.75);
        assert_eq!(
            reason("quality", &a, 0.75),
            "Classifier question 'quality' returned score 1.5."
        );
        let a = json!({"type": "boolean", "probability": 1});
        assert_eq!(score(&q[2], &a, None), 1.0);
        assert_eq!(
            reason("safe", &a, 1.0),
            "Classifier question 'safe' returned P(true)=1."
        );
    }

    #[test]
    fn rounding_read_and_refused() {
        assert_eq!(Rounding::from_value(None), Ok(Rounding::default()));
        let r = Rounding::from_value(Some(&json!({"probabilityDecimals": 2}))).unwrap();
        assert_eq!(r.probability_decimals, Some(2));
        assert!(Rounding::from_value(Some(&json!({"probabilityDecimals": -1}))).is_err());
        assert!(Rounding::from_value(Some(&json!({"digits": 2}))).is_err());
        assert!(Rounding::from_value(Some(&json!(3))).is_err());
    }
}
