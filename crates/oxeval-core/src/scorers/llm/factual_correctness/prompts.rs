//! Prompts of the factual correctness scorer (oxeval's own wording, Ragas's JSON shapes).

use super::{Atomicity, Coverage};
use crate::prompt::task;
use serde_json::{json, Value};

pub const INSTRUCTIONS: &str = "You are a meticulous, consistent fact checker. \
You break texts into verifiable claims and decide whether claims follow from a given context. \
Judge only from the material you are given, never from outside knowledge about whether a claim is true, \
and follow the requested output format exactly.";

const DECOMPOSE: &str = "Task: decompose the text into claims.
- A claim is a standalone statement that can be checked as true or false on its own: replace pronouns and vague references (\"it\", \"the company\", \"she\") with the names they stand for.
- Use only what the text says: do not add, infer, correct or judge anything, and do not repeat a claim.
- If the text makes no factual statement (a greeting, a refusal, a question), return an empty list.";

const ATOMICITY_LOW: &str = "- Granularity LOW: keep related facts about the same subject together in one claim, as the text groups them; a claim may hold several facts. Do not split a sentence into single facts.";
const ATOMICITY_HIGH: &str = "- Granularity HIGH: split the text into atomic claims, each stating exactly ONE fact (one subject, one relation, one value).";
const COVERAGE_LOW: &str = "- Coverage LOW: keep only the central facts; leave out minor details such as secondary dates, origins, qualifiers, examples and asides.";
const COVERAGE_HIGH: &str = "- Coverage HIGH: keep every fact and detail the text states, including dates, numbers, names, origins, qualifiers and conditions.";

const DECOMPOSE_RETURN: &str = "Return JSON: {\"claims\": [\"...\"]}";

const EXAMPLE_TEXT: &str = "The Harbour Street bakery, which opened in 2009, sells sourdough bread and almond croissants. It is run by two sisters from Lyon and closes at 3 pm on Sundays.";

const CLAIMS_LOW_LOW: &str = r#"{"claims":["The Harbour Street bakery sells sourdough bread and almond croissants.","The Harbour Street bakery is run by two sisters."]}"#;
const CLAIMS_LOW_HIGH: &str = r#"{"claims":["The Harbour Street bakery, which opened in 2009, sells sourdough bread and almond croissants.","The Harbour Street bakery is run by two sisters from Lyon.","The Harbour Street bakery closes at 3 pm on Sundays."]}"#;
const CLAIMS_HIGH_LOW: &str = r#"{"claims":["The Harbour Street bakery sells sourdough bread.","The Harbour Street bakery sells almond croissants.","The Harbour Street bakery is run by two sisters."]}"#;
const CLAIMS_HIGH_HIGH: &str = r#"{"claims":["The Harbour Street bakery opened in 2009.","The Harbour Street bakery sells sourdough bread.","The Harbour Street bakery sells almond croissants.","The Harbour Street bakery is run by two sisters.","The two sisters who run the Harbour Street bakery are from Lyon.","The Harbour Street bakery closes at 3 pm on Sundays."]}"#;

const EXAMPLE_NO_CLAIMS: &str = r#"DATA: {"text":"Hello! How can I help you today?"}
Answer: {"claims":[]}"#;

const NLI: &str = "Task: for EACH statement, in order, decide whether it can be directly inferred from the context.
- verdict 1: the context states the statement, or the statement follows directly from what the context says.
- verdict 0: the context does not mention it, contradicts it, or supports only part of it.
- Use only the context, never outside knowledge, even when you know the statement to be true or false.
Give exactly one entry per statement, in the same order, copying the statement, with a short reason before the verdict.
Return JSON: {\"statements\": [{\"statement\": \"...\", \"reason\": \"...\", \"verdict\": 0 | 1}]}";

const NLI_EXAMPLES: &str = r#"Example
DATA: {"context":"The Harbour Street bakery opened in 2009 and sells sourdough bread. It closes early on Sundays.","statements":["The Harbour Street bakery sells sourdough bread.","The Harbour Street bakery opened in 2012.","The Harbour Street bakery is run by two sisters."]}
Answer: {"statements":[{"statement":"The Harbour Street bakery sells sourdough bread.","reason":"The context says the bakery sells sourdough bread.","verdict":1},{"statement":"The Harbour Street bakery opened in 2012.","reason":"The context gives 2009 as the opening year.","verdict":0},{"statement":"The Harbour Street bakery is run by two sisters.","reason":"The context does not say who runs the bakery.","verdict":0}]}"#;

const REASON: &str = "Task: explain a factual correctness score in one or two sentences.
The response's claims were checked against the reference (precision) and, unless the mode is precision, the reference's claims against the response (recall); the score is the requested measure (precision, recall or F-beta), between 0 and 1.
Start with \"The score is <score> because\" and name the claims that made it higher or lower. Use only the verdicts given. Answer in plain text, not JSON.";

/// The instruction and worked example for one atomicity × coverage variant.
fn variant(atomicity: Atomicity, coverage: Coverage) -> (&'static str, &'static str, &'static str) {
    match (atomicity, coverage) {
        (Atomicity::Low, Coverage::Low) => (ATOMICITY_LOW, COVERAGE_LOW, CLAIMS_LOW_LOW),
        (Atomicity::Low, Coverage::High) => (ATOMICITY_LOW, COVERAGE_HIGH, CLAIMS_LOW_HIGH),
        (Atomicity::High, Coverage::Low) => (ATOMICITY_HIGH, COVERAGE_LOW, CLAIMS_HIGH_LOW),
        (Atomicity::High, Coverage::High) => (ATOMICITY_HIGH, COVERAGE_HIGH, CLAIMS_HIGH_HIGH),
    }
}

/// Decompose `text` into claims at the given atomicity and coverage.
pub fn decompose_prompt(text: &str, atomicity: Atomicity, coverage: Coverage) -> String {
    let (granularity, detail, answer) = variant(atomicity, coverage);
    let instructions = format!("{DECOMPOSE}\n{granularity}\n{detail}\n{DECOMPOSE_RETURN}");
    let examples = format!(
        "Example\nDATA: {}\nAnswer: {answer}\n\nExample\n{EXAMPLE_NO_CLAIMS}",
        json!({ "text": EXAMPLE_TEXT })
    );
    task(&instructions, &examples, &[("text", json!(text))])
}

/// Which `statements` can be inferred from `context`.
pub fn nli_prompt(context: &str, statements: &[String]) -> String {
    task(
        NLI,
        NLI_EXAMPLES,
        &[
            ("context", json!(context)),
            ("statements", json!(statements)),
        ],
    )
}

/// The optional LLM reason (`llmReason: true`).
pub fn reason_prompt(response: &str, reference: &str, score: f64, analysis: &Value) -> String {
    task(
        REASON,
        "",
        &[
            ("response", json!(response)),
            ("reference", json!(reference)),
            ("score", json!(score)),
            ("analysis", analysis.clone()),
        ],
    )
}
