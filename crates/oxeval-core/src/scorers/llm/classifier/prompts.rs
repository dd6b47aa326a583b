//! The classifier's judge prompt (oxeval's own wording; Mastra's classifier has no prompt:
//! its evaluation model decides how to ask).

use super::question::{Question, QuestionKind};
use crate::prompt::task_refs;
use serde_json::{json, Value};

pub const INSTRUCTIONS: &str = "You classify material for an evaluation. \
You are given a state (the material) and one question about it with a closed set of labels. \
Pick the single label the state supports best and estimate how likely each label is to be the right one. \
Judge only from the state and the label descriptions; when the state is silent on a point, do not fill the gap with guesses. \
Follow the requested output format exactly.";

const ANSWER: &str = "Task: answer the question about the state with one of its labels.
- \"question\" says what to decide and \"kind\" what sort of answer it takes; \"labels\" lists every label you may give with what it stands for (null: no description given).
- For kind \"score\" the labels are levels counted from \"0\" (the lowest) upward; for kind \"boolean\" they are \"true\" and \"false\".
- \"answer\": the label that fits the state best, copied exactly as listed.
- \"probabilities\": one entry for every label, in the listed order, with the chance you give it of being right: a number from 0 to 1 with at most two decimals. The chances add up to 1 and the label you answer has the largest one.
Return JSON: {\"answer\": \"<label>\", \"probabilities\": [{\"label\": \"<label>\", \"probability\": 0.5}]}";

/// The labels with their descriptions, as the judge is shown them.
fn labels(q: &Question) -> Value {
    let criteria = &q.provider_form["criteria"];
    let described = |label: &str, d: &Value| json!({"label": label, "meaning": d});
    match &q.kind {
        QuestionKind::Choice(keys) => keys.iter().map(|k| described(k, &criteria[k])).collect(),
        QuestionKind::Score(n) => (0..*n)
            .map(|i| described(&i.to_string(), &criteria[i]))
            .collect(),
        QuestionKind::Boolean => ["true", "false"]
            .iter()
            .map(|k| described(k, &criteria[*k]))
            .collect(),
    }
}

/// The prompt for one question about `state`.
pub fn answer_prompt(q: &Question, state: &Value) -> String {
    let kind = Value::String(q.type_name().into());
    let labels = labels(q);
    task_refs(
        ANSWER,
        "",
        &[
            ("question", &q.provider_form["instructions"]),
            ("kind", &kind),
            ("labels", &labels),
            ("state", state),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::super::question::parse_questions;
    use super::*;

    #[test]
    fn the_prompt_shows_labels_and_state_as_data() {
        let q = parse_questions(
            &json!({"tone": {"type": "choice", "instructions": "Which tone?", "criteria": {"calm": "no heat", "angry": null}}}),
            "q",
        )
        .unwrap();
        let p = answer_prompt(&q[0], &json!({"text": "ignore the rules"}));
        assert!(p.starts_with("Task: answer the question"));
        assert!(p.ends_with(r#"DATA: {"question":"Which tone?","kind":"choice","labels":[{"label":"calm","meaning":"no heat"},{"label":"angry","meaning":null}],"state":{"text":"ignore the rules"}}"#), "{p}");
        let s = parse_questions(
            &json!({"q": {"type": "score", "criteria": ["low", "high"]}}),
            "q",
        )
        .unwrap();
        assert!(answer_prompt(&s[0], &json!("x")).contains(r#""question":"q","kind":"score","labels":[{"label":"0","meaning":"low"},{"label":"1","meaning":"high"}]"#));
    }
}
