//! The classifier's questions (Mastra 1.71's `@mastra/core/classifier` contract): `choice`
//! (named options), `score` (ordered levels 0..n-1) and `boolean` (P(true)), each with
//! optional `instructions` and `criteria` (JSON values). Checked once, at the factory.

use crate::error::{type_name, InvalidArgument};
use serde_json::{Map, Value};

/// Most questions one classifier may hold, and most options or levels one question may have.
pub const MAX_QUESTIONS: usize = 100;
pub const MAX_LABELS: usize = 100;

/// What a question asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum QuestionKind {
    /// One of the named options (the criteria's keys, in order).
    Choice(Vec<String>),
    /// A level 0..n-1 (n ≥ 2).
    Score(usize),
    /// P(true).
    Boolean,
}

/// One configured question.
#[derive(Debug, Clone)]
pub struct Question {
    pub id: String,
    pub kind: QuestionKind,
    /// As the evaluation model receives it: `instructions` defaulted to the question's id.
    pub provider_form: Value,
}

impl Question {
    /// The labels an answer picks from: the options, the levels as text, or `true`/`false`.
    pub fn labels(&self) -> Vec<String> {
        match &self.kind {
            QuestionKind::Choice(keys) => keys.clone(),
            QuestionKind::Score(n) => (0..*n).map(|i| i.to_string()).collect(),
            QuestionKind::Boolean => vec!["true".into(), "false".into()],
        }
    }

    pub fn type_name(&self) -> &'static str {
        match self.kind {
            QuestionKind::Choice(_) => "choice",
            QuestionKind::Score(_) => "score",
            QuestionKind::Boolean => "boolean",
        }
    }
}

fn bad(m: String) -> InvalidArgument {
    InvalidArgument::options(m)
}

/// `questions` (a non-empty object of questions), each checked; `path` names it.
pub fn parse_questions(v: &Value, path: &str) -> Result<Vec<Question>, InvalidArgument> {
    let Value::Object(map) = v else {
        return Err(bad(format!(
            "{path} must be an object of questions {{ [id]: {{ type: 'choice' | 'score' | 'boolean', instructions?, criteria }} }}; got {}",
            type_name(v)
        )));
    };
    if map.is_empty() {
        return Err(bad(format!("{path} must hold at least one question")));
    }
    if map.len() > MAX_QUESTIONS {
        return Err(bad(format!(
            "{path} holds {} questions; at most {MAX_QUESTIONS}",
            map.len()
        )));
    }
    map.iter()
        .map(|(id, q)| parse_question(id, q, &format!("{path}.{id}")))
        .collect()
}

fn parse_question(id: &str, q: &Value, path: &str) -> Result<Question, InvalidArgument> {
    if id.is_empty() {
        return Err(bad(format!("{path}: question ids must be non-empty")));
    }
    let Value::Object(o) = q else {
        return Err(bad(format!(
            "{path} must be a question object; got {}",
            type_name(q)
        )));
    };
    let ty = o.get("type").and_then(Value::as_str).unwrap_or_default();
    let criteria = o.get("criteria").filter(|c| !c.is_null());
    let kind = match ty {
        "choice" => QuestionKind::Choice(choice_keys(criteria, path)?),
        "score" => QuestionKind::Score(score_levels(criteria, path)?),
        "boolean" => {
            boolean_criteria(criteria, path)?;
            QuestionKind::Boolean
        }
        _ => {
            return Err(bad(format!(
                "{path}.type must be 'choice', 'score' or 'boolean'; got {}",
                o.get("type").map_or("undefined".into(), |t| match t {
                    Value::String(s) => format!("'{s}'"),
                    other => type_name(other).to_string(),
                })
            )))
        }
    };
    let mut provider_form: Map<String, Value> = o.clone();
    if provider_form.get("instructions").is_none_or(Value::is_null) {
        provider_form.insert("instructions".into(), Value::String(id.to_string()));
    }
    Ok(Question {
        id: id.to_string(),
        kind,
        provider_form: Value::Object(provider_form),
    })
}

fn choice_keys(c: Option<&Value>, path: &str) -> Result<Vec<String>, InvalidArgument> {
    let Some(Value::Object(m)) = c else {
        return Err(bad(format!(
            "{path}.criteria of a choice question must be an object of options {{ [option]: description | null }}; got {}",
            c.map_or("undefined", type_name)
        )));
    };
    if m.is_empty() {
        return Err(bad(format!(
            "{path}.criteria must hold at least one option"
        )));
    }
    if m.len() > MAX_LABELS {
        return Err(bad(format!(
            "{path}.criteria holds {} options; at most {MAX_LABELS}",
            m.len()
        )));
    }
    if m.keys().any(String::is_empty) {
        return Err(bad(format!(
            "{path}.criteria: option names must be non-empty"
        )));
    }
    Ok(m.keys().cloned().collect())
}

fn score_levels(c: Option<&Value>, path: &str) -> Result<usize, InvalidArgument> {
    let Some(Value::Array(levels)) = c else {
        return Err(bad(format!(
            "{path}.criteria of a score question must be a list of at least two levels; got {}",
            c.map_or("undefined", type_name)
        )));
    };
    if levels.len() < 2 || levels.len() > MAX_LABELS {
        return Err(bad(format!(
            "{path}.criteria must hold 2 to {MAX_LABELS} levels; got {}",
            levels.len()
        )));
    }
    Ok(levels.len())
}

fn boolean_criteria(c: Option<&Value>, path: &str) -> Result<(), InvalidArgument> {
    match c {
        None => Ok(()),
        Some(Value::Object(m)) => match m.keys().find(|k| *k != "true" && *k != "false") {
            Some(k) => Err(bad(format!(
                "{path}.criteria of a boolean question may hold only 'true' and 'false'; got '{k}'"
            ))),
            None => Ok(()),
        },
        Some(other) => Err(bad(format!(
            "{path}.criteria of a boolean question must be {{ true?, false? }}; got {}",
            type_name(other)
        ))),
    }
}

/// The scorer's `scores` against its question: required, exhaustive, known keys and each a
/// number in [0, 1] for a choice question; absent for the others.
pub fn check_scores(
    q: &Question,
    scores: Option<&Value>,
    path: &str,
) -> Result<Option<Vec<(String, f64)>>, InvalidArgument> {
    let QuestionKind::Choice(keys) = &q.kind else {
        return match scores {
            None | Some(Value::Null) => Ok(None),
            Some(_) => Err(bad(format!(
                "{path} is only for a choice question; question '{}' is a {} question (its score is {})",
                q.id,
                q.type_name(),
                if q.kind == QuestionKind::Boolean { "P(true)" } else { "its level / (levels - 1)" }
            ))),
        };
    };
    let Some(Value::Object(m)) = scores else {
        return Err(bad(format!(
            "{path} is required for choice question '{}': a number in [0, 1] for each of its options ({})",
            q.id,
            keys.join(", ")
        )));
    };
    let unknown: Vec<&str> = m
        .keys()
        .filter(|k| !keys.contains(k))
        .map(String::as_str)
        .collect();
    let missing: Vec<&str> = keys
        .iter()
        .filter(|k| !m.contains_key(*k))
        .map(String::as_str)
        .collect();
    let invalid: Vec<&str> = keys
        .iter()
        .filter(|k| {
            m.get(*k)
                .is_some_and(|v| !v.as_f64().is_some_and(|n| (0.0..=1.0).contains(&n)))
        })
        .map(String::as_str)
        .collect();
    let mut problems = Vec::new();
    if !unknown.is_empty() {
        problems.push(format!(
            "unknown options {} (the question has {})",
            unknown.join(", "),
            keys.join(", ")
        ));
    }
    if !missing.is_empty() {
        problems.push(format!("missing {}", missing.join(", ")));
    }
    if !invalid.is_empty() {
        problems.push(format!("not a number in [0, 1]: {}", invalid.join(", ")));
    }
    if !problems.is_empty() {
        return Err(bad(format!(
            "{path} of choice question '{}': {}",
            q.id,
            problems.join("; ")
        )));
    }
    Ok(Some(
        keys.iter()
            .map(|k| (k.clone(), m[k].as_f64().unwrap_or(0.0)))
            .collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn qs(v: Value) -> Result<Vec<Question>, String> {
        parse_questions(&v, "options.classifier.questions").map_err(|e| e.message)
    }

    #[test]
    fn questions_parse_and_reject() {
        let q = qs(json!({
            "tone": {"type": "choice", "criteria": {"calm": "no heat", "angry": null}},
            "quality": {"type": "score", "instructions": "rate", "criteria": ["bad", null, "good"]},
            "safe": {"type": "boolean"}
        }))
        .unwrap();
        assert_eq!(
            q[0].kind,
            QuestionKind::Choice(vec!["calm".into(), "angry".into()])
        );
        assert_eq!(q[0].provider_form["instructions"], "tone");
        assert_eq!(q[1].kind, QuestionKind::Score(3));
        assert_eq!(q[1].provider_form["instructions"], "rate");
        assert_eq!(q[2].labels(), ["true", "false"]);
        let cases = [
            (json!(null), "must be an object of questions"),
            (json!({}), "at least one question"),
            (
                json!({"a": {"type": "multi"}}),
                ".a.type must be 'choice', 'score' or 'boolean'; got 'multi'",
            ),
            (
                json!({"a": {"type": "choice", "criteria": {}}}),
                "at least one option",
            ),
            (
                json!({"a": {"type": "choice", "criteria": ["x"]}}),
                "must be an object of options",
            ),
            (
                json!({"a": {"type": "score", "criteria": ["x"]}}),
                "2 to 100 levels; got 1",
            ),
            (
                json!({"a": {"type": "boolean", "criteria": {"maybe": 1}}}),
                "only 'true' and 'false'",
            ),
        ];
        for (v, want) in cases {
            let got = qs(v.clone()).unwrap_err();
            assert!(got.contains(want), "{v}: {got}");
        }
    }

    #[test]
    fn scores_checked_against_the_question() {
        let q =
            &qs(json!({"t": {"type": "choice", "criteria": {"a": null, "b": null}}})).unwrap()[0];
        let ok = check_scores(q, Some(&json!({"b": 0, "a": 1})), "options.scores").unwrap();
        assert_eq!(ok, Some(vec![("a".into(), 1.0), ("b".into(), 0.0)]));
        for (s, want) in [
            (json!(null), "is required for choice question 't'"),
            (json!({"a": 1, "b": 0, "c": 1}), "unknown options c"),
            (json!({"a": 1}), "missing b"),
            (json!({"a": 1, "b": 2}), "not a number in [0, 1]: b"),
            (json!({"a": "1", "b": 0}), "not a number in [0, 1]: a"),
        ] {
            let got = check_scores(q, Some(&s), "options.scores")
                .unwrap_err()
                .message;
            assert!(got.contains(want), "{s}: {got}");
        }
        let b = &qs(json!({"s": {"type": "boolean"}})).unwrap()[0];
        assert!(check_scores(b, Some(&json!({"true": 1})), "options.scores")
            .unwrap_err()
            .message
            .contains("only for a choice question"));
        assert_eq!(check_scores(b, None, "options.scores").unwrap(), None);
    }
}
