//! The judge road: one of oxeval's judges answers the scorer's question (one structured
//! call), stating a label and its probability for every label. The stated distribution is
//! turned into the contract's answer (`choice` + `probabilities`, `score` = the
//! probability-weighted level, `boolean` = P(true)), rounded to the two decimals asked for.

use super::answer::Rounding;
use super::question::{Question, QuestionKind};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One label's stated probability.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct LabelProbability {
    pub label: String,
    pub probability: f64,
}

/// The judge's reply: the label it picks and a probability per label.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Stated {
    pub answer: String,
    pub probabilities: Vec<LabelProbability>,
}
crate::step_output!(Stated, "classifier_answer");

/// The rounding the judge is asked for (two decimals): the tolerance of the checks.
pub const STATED_ROUNDING: Rounding = Rounding {
    probability_decimals: Some(2),
    score_decimals: None,
};

/// A soft expectation for the re-ask: the labels the judge must use.
pub fn expectation(q: &Question, s: &Stated) -> Option<String> {
    let labels = q.labels();
    if !labels.contains(&s.answer) {
        return Some(format!(
            "\"answer\" must be one of the labels {}; got {:?}",
            labels.join(", "),
            s.answer
        ));
    }
    let mut given: Vec<&str> = s.probabilities.iter().map(|p| p.label.as_str()).collect();
    given.sort_unstable();
    let mut want: Vec<&str> = labels.iter().map(String::as_str).collect();
    want.sort_unstable();
    (given != want).then(|| {
        format!(
            "\"probabilities\" must hold each of the labels {} exactly once",
            labels.join(", ")
        )
    })
}

/// The contract's answer from the judge's statement; `Err` says what is wrong with it (a
/// label that does not exist, a label given twice). The result is then checked like any
/// model's answer.
pub fn answer_of(q: &Question, s: &Stated) -> Result<Value, String> {
    let labels = q.labels();
    if !labels.contains(&s.answer) {
        return Err(format!(
            "the judge answered {:?}, which is not a label of question '{}' ({})",
            crate::engine::clip(&s.answer, 60),
            q.id,
            labels.join(", ")
        ));
    }
    let mut dist = Map::new();
    for p in &s.probabilities {
        let n = serde_json::Number::from_f64(p.probability).map(Value::Number);
        if dist
            .insert(p.label.clone(), n.unwrap_or(Value::Null))
            .is_some()
        {
            return Err(format!(
                "the judge gave label {:?} two probabilities",
                crate::engine::clip(&p.label, 60)
            ));
        }
    }
    // in the labels' order (a complete distribution is checked afterwards)
    let mut ordered = Map::new();
    for l in &labels {
        if let Some(v) = dist.remove(l) {
            ordered.insert(l.clone(), v);
        }
    }
    ordered.extend(dist);
    let p = |l: &str| ordered.get(l).and_then(Value::as_f64).unwrap_or(f64::NAN);
    let answered = p(&s.answer);
    if let Some(better) = labels.iter().find(|l| p(l) > answered + 0.005) {
        return Err(format!(
            "the judge answered {:?} but stated a larger probability for {:?}",
            s.answer, better
        ));
    }
    Ok(contract_answer(q, &s.answer, ordered))
}

/// The contract's answer for `answer` with the distribution `dist` (label → probability, in
/// the labels' order): a choice with it, a score as the weighted level, a boolean as P(true).
pub fn contract_answer(q: &Question, answer: &str, dist: Map<String, Value>) -> Value {
    let p = |l: &str| dist.get(l).and_then(Value::as_f64).unwrap_or(f64::NAN);
    match &q.kind {
        QuestionKind::Choice(_) => serde_json::json!({
            "type": "choice", "choice": answer, "probabilities": dist,
        }),
        QuestionKind::Score(_) => {
            let labels = q.labels();
            let mean: f64 = labels
                .iter()
                .enumerate()
                .map(|(i, l)| i as f64 * p(l))
                .sum();
            serde_json::json!({"type": "score", "score": mean, "probabilities": dist})
        }
        QuestionKind::Boolean => serde_json::json!({"type": "boolean", "probability": p("true")}),
    }
}

#[cfg(test)]
mod tests {
    use super::super::answer::check;
    use super::super::question::parse_questions;
    use super::*;
    use serde_json::json;

    fn stated(answer: &str, ps: &[(&str, f64)]) -> Stated {
        Stated {
            answer: answer.into(),
            probabilities: ps
                .iter()
                .map(|(l, p)| LabelProbability {
                    label: (*l).into(),
                    probability: *p,
                })
                .collect(),
        }
    }

    #[test]
    fn statements_become_contract_answers() {
        let q = parse_questions(
            &json!({
                "tone": {"type": "choice", "criteria": {"calm": null, "angry": null}},
                "level": {"type": "score", "criteria": ["a", "b", "c"]},
                "safe": {"type": "boolean"}
            }),
            "q",
        )
        .unwrap();
        let a = answer_of(&q[0], &stated("angry", &[("angry", 0.7), ("calm", 0.3)])).unwrap();
        assert_eq!(
            a,
            json!({"type": "choice", "choice": "angry", "probabilities": {"calm": 0.3, "angry": 0.7}})
        );
        assert_eq!(check(&q[0], &a, STATED_ROUNDING), Ok(()));
        let a = answer_of(&q[1], &stated("2", &[("0", 0.0), ("1", 0.25), ("2", 0.75)])).unwrap();
        assert_eq!(a["score"], json!(1.75));
        assert_eq!(check(&q[1], &a, STATED_ROUNDING), Ok(()));
        let a = answer_of(&q[2], &stated("false", &[("true", 0.2), ("false", 0.8)])).unwrap();
        assert_eq!(a, json!({"type": "boolean", "probability": 0.2}));

        let e = answer_of(&q[0], &stated("furious", &[("calm", 1.0), ("angry", 0.0)])).unwrap_err();
        assert!(
            e.contains("not a label of question 'tone' (calm, angry)"),
            "{e}"
        );
        let e = answer_of(&q[0], &stated("calm", &[("calm", 0.2), ("angry", 0.8)])).unwrap_err();
        assert!(e.contains("larger probability for \"angry\""), "{e}");
        let e = answer_of(&q[0], &stated("calm", &[("calm", 0.5), ("calm", 0.5)])).unwrap_err();
        assert!(e.contains("two probabilities"), "{e}");
        // a missing label or a bad sum passes here and fails the contract's check
        let a = answer_of(&q[0], &stated("calm", &[("calm", 0.9)])).unwrap();
        assert!(check(&q[0], &a, STATED_ROUNDING)
            .unwrap_err()
            .contains("exactly the labels"));
        let a = answer_of(&q[0], &stated("calm", &[("calm", 0.6), ("angry", 0.2)])).unwrap();
        assert!(check(&q[0], &a, STATED_ROUNDING)
            .unwrap_err()
            .contains("sum to 1"));
        assert_eq!(
            expectation(&q[0], &stated("calm", &[("angry", 0.4), ("calm", 0.6)])),
            None
        );
        assert!(expectation(&q[0], &stated("calm", &[("calm", 1.0)])).is_some());
    }
}
