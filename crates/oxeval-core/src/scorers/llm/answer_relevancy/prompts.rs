//! Prompts of the answer relevancy scorer (oxeval's own wording).
//!
//! They decide the way @mastra/evals 1.10.2's answer relevancy prompts decide (same rules,
//! examples on the same sides of the same boundaries); the rule-by-rule comparison is in
//! `docs/decision-tables/answer-relevancy.md`.

use crate::prompt::{task, task_refs};
use serde_json::{json, Value};

pub const INSTRUCTIONS: &str = "You are a balanced evaluator of answer relevancy. \
You decide how far each part of an assistant's answer addresses what the user asked, and you recognise parts that are only partly relevant. \
You judge relevance, not truth: a part that addresses the question but gets it wrong is partly relevant, never irrelevant. \
Empty content and error messages are never relevant. Follow the requested output format exactly.";

const EXTRACT: &str = "Task: break the assistant output into statements, keeping context and relationships.
- Do not split too finely: a statement is one meaningful point that can be understood alone.
- Do split a sentence that joins points with \"and\", states several distinct facts or claims, or gives several descriptive details about its subject.
- Keep related information together: a fact stays with its own condition, time or place.
- A one-word answer (\"Seven.\") is one statement. An error message is one statement, however long.
- Exclamations, greetings, filler and off-topic remarks are statements too.
- Keep the output's wording; add, infer or correct nothing.
- Empty output gives an empty list.
Return JSON: {\"statements\": [\"...\"]}";

const EXTRACT_EXAMPLES: &str = r#"Example
DATA: {"output":"Wow! The Nile is about 6,650 km long and flows into the Mediterranean. Rivers are fascinating."}
Answer: {"statements":["Wow!","The Nile is about 6,650 km long.","The Nile flows into the Mediterranean.","Rivers are fascinating."]}"#;

const JUDGE: &str = "Task: for EACH statement, in order, decide whether it is relevant to the user's input. \
Relevant means it addresses what is asked: the asked kind of information (a place for \"where\", a person for \"who\", a quantity for \"how tall\" or \"how many\", ...) about the asked subject. Do not grade truth, except as the first \"unsure\" case says.
- \"yes\": the statement explicitly answers the question: it gives the asked kind of information about the asked subject, or states the asked relationship, correctly, and could stand alone as the answer.
- \"unsure\": partly relevant. The statement
  - answers the question directly but wrongly (a wrong city for a capital, a wrong figure);
  - meaningfully discusses the asked kind of information without answering for the asked subject: temperatures for a temperature question, a quantity or unit of measurement for a \"how much\" question, another entity of the same category as the answer;
  - points at the answer without stating it: its role or function, an indirect description, an importance word (\"main\", \"chief\") with a relevant term, the answer's name without the context that makes it an answer;
  - describes a property of the subject that bears on the asked attribute.
- \"no\": no meaningful connection to what is asked. The statement
  - gives general or descriptive facts about the subject that do not touch the asked attribute (its scenery or food when its capital is asked);
  - only mentions the subject or a word of the question, with nothing about the asked kind of information;
  - is about neither the subject nor the asked kind of information;
  - is empty, meaningless or filler, or is an error message.
- Precedence: the asked kind of information (quantities and units included) outweighs topic-only content; a mention of the subject alone never makes a statement relevant; merely naming the asked kind of information without discussing it is \"no\".
Give exactly one verdict per statement, as many as there are statements (none for none), in the same order, each with a short reason.
Return JSON: {\"results\": [{\"result\": \"yes\" | \"unsure\" | \"no\", \"reason\": \"...\"}]}";

const JUDGE_EXAMPLES: &str = r#"Example
DATA: {"input":"At what temperature does water boil at sea level?","statements":["Water boils at 100 °C at sea level.","Water boils at 90 °C at sea level.","Olive oil can be heated to about 200 °C.","On a high mountain, water boils at a lower temperature.","Water covers most of the Earth.","I enjoy cooking pasta.",""]}
Answer: {"results":[{"result":"yes","reason":"States the boiling temperature asked for."},{"result":"unsure","reason":"Answers the question directly, but with the wrong temperature."},{"result":"unsure","reason":"Discusses a cooking temperature, the asked kind of information, but not for water."},{"result":"unsure","reason":"Discusses water's boiling temperature, but not at sea level."},{"result":"no","reason":"A general fact about water, not its boiling temperature."},{"result":"no","reason":"About neither water nor temperatures."},{"result":"no","reason":"Empty."}]}"#;

const REASON: &str = "Task: explain an answer relevancy score in one or two sentences.
The score runs from 0 to the given scale: the share of the output's statements that address the input, \"yes\" counting fully and \"unsure\" partly. Use the given score as it is; do not recompute it.
- Name what raised it (direct answers) and what lowered it (partly relevant or unrelated statements); for a mix, say how they balance.
- Explain relevance; do not judge whether statements are true.
- With no verdicts, say why (there was nothing in the output to judge).
Start with \"The score is <score> because\". Use only the verdicts given. Answer in plain text, not JSON.";

pub fn extract_prompt(output: &str) -> String {
    task(EXTRACT, EXTRACT_EXAMPLES, &[("output", json!(output))])
}

pub fn judge_prompt(input: &str, statements: &[String]) -> String {
    task(
        JUDGE,
        JUDGE_EXAMPLES,
        &[("input", json!(input)), ("statements", json!(statements))],
    )
}

pub fn reason_prompt(
    input: &str,
    output: &str,
    score: f64,
    scale: f64,
    verdicts: &Value,
) -> String {
    task_refs(
        REASON,
        "",
        &[
            ("input", &json!(input)),
            ("output", &json!(output)),
            ("score", &json!(score)),
            ("scale", &json!(scale)),
            ("verdicts", verdicts),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const QUESTION: &str = "What is the capital of \"France\"?";
    const OUTPUT: &str = "Paris is the capital.\nFrance has great food.";

    fn statements() -> Vec<String> {
        vec![
            "Paris is the capital.".into(),
            "France has great food.".into(),
        ]
    }

    /// The rendered prompts, byte for byte: a changed rule, example or data rule changes a
    /// digest, and the failure prints the new text and digest for review.
    #[test]
    fn rendered_prompts_are_pinned() {
        crate::prompt::assert_pinned(&[
            (
                "instructions",
                INSTRUCTIONS.to_string(),
                "ad29113571d4a93500e477f2d599c6cb01f92f8482c8dd34ec71b1587a2ecf5c",
            ),
            (
                "extract",
                extract_prompt(OUTPUT),
                "7c3e92481ddd1eff57d761de187b394903fe236a28b9ddfa262ef8f073ab0fed",
            ),
            (
                "judge",
                judge_prompt(QUESTION, &statements()),
                "c6309bf33eaeef475d2a23a7cd9ef49dd0da6eed733463c803219825cd1ce7db",
            ),
            (
                "reason",
                reason_prompt(
                    QUESTION,
                    OUTPUT,
                    0.65,
                    1.0,
                    &json!([{"result": "yes", "reason": "a"}, {"result": "unsure", "reason": "b"}]),
                ),
                "d47cbbe7a4aaad14e5aef7e5bc40b573e38910f12e93f386504657804518632a",
            ),
        ]);
    }

    /// System message + template (empty data) stay within the length of what @mastra/evals
    /// 1.10.2 sends for the same step with empty data (its agent instructions + its prompt).
    #[test]
    fn no_longer_than_mastra() {
        for (name, text, mastra) in [
            ("extract", extract_prompt(""), 1592),
            ("judge", judge_prompt("", &[]), 7154),
            ("reason", reason_prompt("", "", 0.0, 1.0, &json!([])), 1594),
        ] {
            let len = INSTRUCTIONS.chars().count() + text.chars().count();
            println!("{name}: {len} chars (Mastra {mastra})");
            assert!(len <= mastra, "{name}: {len} > {mastra}");
        }
    }

    /// Issue 23: a general fact about the subject that does not touch the asked attribute is
    /// "no" (Mastra's written rule), not "unsure" (its worked example).
    #[test]
    fn decision_rules_issue_23() {
        let p = judge_prompt("q", &[]);
        assert!(p.contains("gives general or descriptive facts about the subject that do not touch the asked attribute"));
        assert!(p.contains(
            r#"{"result":"no","reason":"A general fact about water, not its boiling temperature."}"#
        ));
    }
}
