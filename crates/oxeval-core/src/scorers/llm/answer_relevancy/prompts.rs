//! Prompts of the answer relevancy scorer (oxeval's own wording).

use crate::prompt::{task, task_refs};
use serde_json::{json, Value};

pub const INSTRUCTIONS: &str = "You are a careful, consistent evaluator of answer relevancy. \
You decide whether the parts of an assistant's answer address what the user asked. \
Judge only from the material you are given, never from outside knowledge about whether a statement is true, \
and follow the requested output format exactly.";

const EXTRACT: &str = "Task: break the assistant output into statements.
- A statement is one self-contained claim, fact, suggestion, question or remark made by the output.
- Split compound sentences when they make separate points; keep a sentence whole when it makes one point.
- Keep the output's own wording as far as possible; resolve pronouns only when needed for the statement to stand alone.
- Include greetings, filler, opinions and off-topic remarks too: they are statements to be judged later.
- Do not add, infer or correct anything. If the output has no content, return an empty list.
Return JSON: {\"statements\": [\"...\"]}";

const EXTRACT_EXAMPLES: &str = r#"Example
DATA: {"output":"Tokyo is the capital of Japan, and it hosted the 2021 Olympics. Let me know if you need anything else!"}
Answer: {"statements":["Tokyo is the capital of Japan.","Tokyo hosted the 2021 Olympics.","Let me know if you need anything else!"]}"#;

const JUDGE: &str = "Task: for EACH statement, in order, decide whether it is relevant to the user's input.
- \"yes\": the statement directly answers the input or gives information the user needs for it.
- \"unsure\": the statement is related to the topic but only partly helpful, too vague to tell, or supporting background.
- \"no\": the statement does not address the input (off-topic, filler, or about something else).
Give exactly one verdict per statement, in the same order as the statements, each with a short reason.
Return JSON: {\"results\": [{\"result\": \"yes\" | \"unsure\" | \"no\", \"reason\": \"...\"}]}";

const JUDGE_EXAMPLES: &str = r#"Example
DATA: {"input":"How do I boil an egg?","statements":["Place the egg in boiling water for 9 minutes.","Eggs are a good source of protein.","My favourite colour is blue."]}
Answer: {"results":[{"result":"yes","reason":"Gives the boiling method the user asked for."},{"result":"unsure","reason":"About eggs but not about boiling them."},{"result":"no","reason":"Unrelated to boiling an egg."}]}"#;

const REASON: &str = "Task: explain an answer relevancy score in one or two sentences.
The score is the share of the output's statements that are relevant to the input (\"unsure\" verdicts count partly), scaled to the given scale.
Start with \"The score is <score> because\" and mention what made it higher or lower. Use only the verdicts given. Answer in plain text, not JSON.";

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
