//! Prompts of the factual correctness scorer: Ragas 0.4.3's decision rules in oxeval's own
//! wording, with oxeval's own examples on the same side of each boundary as Ragas's, and
//! Ragas's JSON shapes (docs/decision-tables/factual-correctness.md).

use super::{Atomicity, Coverage};
use crate::prompt::task;
use serde_json::{json, Value};

pub const INSTRUCTIONS: &str =
    "You break texts into claims and check statements against a context, \
as each task describes, and follow the requested output format exactly.";

// Ragas states no granularity rule: its worked examples define it. The lines below say what
// those examples show, and oxeval's examples follow them (low atomicity: usually one claim per
// sentence, never fewer; high atomicity: each separate fact its own claim, shown by example,
// a single description kept whole; low coverage: minor details dropped, but every sentence keeps
// at least one claim; high coverage keeps all). Instructions and steps are claims like any
// statement; only greetings and questions give none (docs/decision-tables/factual-correctness.md).
const DECOMPOSE: &str = "Task: break each sentence of the text into one or more claims.
- A claim is a standalone statement that can be verified on its own: write names in place of pronouns.
- Take the claims only from the text. Instructions, steps and refusals are claims like any statement; only greetings and questions give none (a text of only those gives an empty list).";

const ATOMICITY_LOW: &str = "- Atomicity low: one or more claims per sentence, as few as it takes: a list or actions joined by \"and\" stay together in one claim.";
const ATOMICITY_HIGH: &str = "- Atomicity high: split every separate fact into its own claim, as the examples show; a single description (\"an American jazz singer\") stays one claim.";
const COVERAGE_LOW: &str =
    "- Coverage low: keep the main facts and leave out minor details, but every sentence keeps at least one claim.";
const COVERAGE_HIGH: &str = "- Coverage high: keep every fact and detail the text states.";

const DECOMPOSE_RETURN: &str = "Return JSON: {\"claims\": [\"...\"]}";

const EXAMPLE_LIST: &str = "Frida Kahlo was a Mexican painter, teacher and activist.";
const EXAMPLE_TWO: &str = "Nina Simone was an American jazz singer. She recorded dozens of albums and also campaigned for civil rights.";

/// The claims of `EXAMPLE_LIST` and `EXAMPLE_TWO` for each variant.
const CLAIMS_LOW_LOW: [&str; 2] = [
    r#"{"claims":["Frida Kahlo was a painter and teacher."]}"#,
    r#"{"claims":["Nina Simone was an American singer.","Nina Simone recorded dozens of albums and campaigned for civil rights."]}"#,
];
const CLAIMS_LOW_HIGH: [&str; 2] = [
    r#"{"claims":["Frida Kahlo was a Mexican painter, teacher and activist."]}"#,
    r#"{"claims":["Nina Simone was an American jazz singer.","Nina Simone recorded dozens of albums and also campaigned for civil rights."]}"#,
];
const CLAIMS_HIGH_LOW: [&str; 2] = [
    r#"{"claims":["Frida Kahlo was a painter.","Frida Kahlo was a teacher."]}"#,
    r#"{"claims":["Nina Simone was an American jazz singer.","Nina Simone recorded dozens of albums."]}"#,
];
const CLAIMS_HIGH_HIGH: [&str; 2] = [
    r#"{"claims":["Frida Kahlo was a painter.","Frida Kahlo was a teacher.","Frida Kahlo was an activist.","Frida Kahlo was Mexican."]}"#,
    r#"{"claims":["Nina Simone was an American jazz singer.","Nina Simone recorded dozens of albums.","Nina Simone campaigned for civil rights."]}"#,
];

/// oxeval's addition (Ragas has no such example): a greeting and a question give no claim;
/// a place and a date in one sentence are one claim at low atomicity, two at high.
const EXAMPLE_MIXED: &str = "Hello! Which recording? Nina Simone was born in Tryon in 1933.";
const CLAIMS_MIXED_LOW: &str = r#"{"claims":["Nina Simone was born in Tryon in 1933."]}"#;
const CLAIMS_MIXED_HIGH: &str =
    r#"{"claims":["Nina Simone was born in Tryon.","Nina Simone was born in 1933."]}"#;

// Ragas's rule: 1 when the statement can be directly inferred from the context, else 0; its
// one verdict-1 example is a soft inference (a near-synonym backed by the context).
const NLI: &str = "Task: judge each statement against the context: verdict 1 if it can be directly inferred from the context, 0 if it cannot.
Give one entry per statement, in order, copying the statement word for word, with a short reason before the verdict.
Return JSON: {\"statements\": [{\"statement\": \"...\", \"reason\": \"...\", \"verdict\": 0 | 1}]}";

const NLI_EXAMPLES: &str = r#"Example
DATA: {"context":"Maya is a nurse at the city hospital. She works three night shifts a week and is studying for a master's degree in public health. Her colleagues say she is always punctual and never misses a shift.","statements":["Maya works at a school.","Maya works on weekends.","Maya is a reliable colleague.","Maya owns a car."]}
Answer: {"statements":[{"statement":"Maya works at a school.","reason":"The context says Maya works at the city hospital, not at a school.","verdict":0},{"statement":"Maya works on weekends.","reason":"The context gives how many night shifts Maya works, not on which days.","verdict":0},{"statement":"Maya is a reliable colleague.","reason":"Her colleagues say she is always punctual and never misses a shift.","verdict":1},{"statement":"Maya owns a car.","reason":"The context says nothing about a car.","verdict":0}]}"#;

const REASON: &str = "Task: explain a factual correctness score in one or two sentences.
The response's claims were checked against the reference (precision) and, unless the mode is precision, the reference's claims against the response (recall); the score is the requested measure (precision, recall or F-beta), between 0 and 1.
Start with \"The score is <score> because\" and name the claims that made it higher or lower. Use only the verdicts given. Answer in plain text, not JSON.";

/// The instructions and worked examples for one atomicity × coverage variant.
fn variant(
    atomicity: Atomicity,
    coverage: Coverage,
) -> (&'static str, &'static str, [&'static str; 2]) {
    match (atomicity, coverage) {
        (Atomicity::Low, Coverage::Low) => (ATOMICITY_LOW, COVERAGE_LOW, CLAIMS_LOW_LOW),
        (Atomicity::Low, Coverage::High) => (ATOMICITY_LOW, COVERAGE_HIGH, CLAIMS_LOW_HIGH),
        (Atomicity::High, Coverage::Low) => (ATOMICITY_HIGH, COVERAGE_LOW, CLAIMS_HIGH_LOW),
        (Atomicity::High, Coverage::High) => (ATOMICITY_HIGH, COVERAGE_HIGH, CLAIMS_HIGH_HIGH),
    }
}

/// Decompose `text` into claims at the given atomicity and coverage.
pub fn decompose_prompt(text: &str, atomicity: Atomicity, coverage: Coverage) -> String {
    let (granularity, detail, [list, two]) = variant(atomicity, coverage);
    let instructions = format!("{DECOMPOSE}\n{granularity}\n{detail}\n{DECOMPOSE_RETURN}");
    let mixed = match atomicity {
        Atomicity::Low => CLAIMS_MIXED_LOW,
        Atomicity::High => CLAIMS_MIXED_HIGH,
    };
    let examples = format!(
        "Example\nDATA: {}\nAnswer: {list}\n\nExample\nDATA: {}\nAnswer: {two}\n\nExample\nDATA: {}\nAnswer: {mixed}",
        json!({ "text": EXAMPLE_LIST }),
        json!({ "text": EXAMPLE_TWO }),
        json!({ "text": EXAMPLE_MIXED })
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

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "Hamlet is a tragedy by \"Shakespeare\".\nIt was written around 1600.";
    const CONTEXT: &str = "Shakespeare wrote Hamlet.\nIt is a tragedy.";

    fn statements() -> Vec<String> {
        vec!["Hamlet is a tragedy.".into(), "Hamlet is a comedy.".into()]
    }

    /// The rendered prompts, byte for byte: a changed rule, example or data rule changes a
    /// digest, and the failure prints the new text and digest for review.
    #[test]
    fn rendered_prompts_are_pinned() {
        use Atomicity::{High, Low};
        crate::prompt::assert_pinned(&[
            (
                "instructions",
                INSTRUCTIONS.to_string(),
                "761bd832e99ed3989f29d76bebd0f0942b694379a2bea5afacec5ed9e13a5d30",
            ),
            (
                "decompose low/low",
                decompose_prompt(TEXT, Low, Coverage::Low),
                "488fecac7b1fa9e39d5f8b82d118ac34178548eea834df35f0befd1dcf42ea35",
            ),
            (
                "decompose low/high",
                decompose_prompt(TEXT, Low, Coverage::High),
                "9aa73fc8589c0d8c1a637603d66d278b528b41db3a9e1f05777e2839b972a529",
            ),
            (
                "decompose high/low",
                decompose_prompt(TEXT, High, Coverage::Low),
                "8f4280d196539316027203aa9f040846dabb253a91c8339a81b578099fce0a13",
            ),
            (
                "decompose high/high",
                decompose_prompt(TEXT, High, Coverage::High),
                "d4f4d5e0026e381e423e9f7f368dfa5d817d95dae634a81801a7a16a4084373d",
            ),
            (
                "nli",
                nli_prompt(CONTEXT, &statements()),
                "57fc80fe9fe7abb3fa57c2743b3c033a121889eb1309670e2571675d0d2cd995",
            ),
            (
                "reason",
                reason_prompt(TEXT, CONTEXT, 0.5, &json!({"tp": 1})),
                "84bab0ca7694882489e3cd9471010e5efa77a1315c22957b7e3fab301edc3db3",
            ),
        ]);
    }

    /// System message + template (empty data) stay within the length of the prompt Ragas
    /// 0.4.3 renders for the same step with empty inputs.
    #[test]
    fn no_longer_than_ragas() {
        use Atomicity::{High, Low};
        for (name, text, ragas) in [
            (
                "decompose low/low",
                decompose_prompt("", Low, Coverage::Low),
                1564,
            ),
            (
                "decompose low/high",
                decompose_prompt("", Low, Coverage::High),
                1638,
            ),
            (
                "decompose high/low",
                decompose_prompt("", High, Coverage::Low),
                1586,
            ),
            (
                "decompose high/high",
                decompose_prompt("", High, Coverage::High),
                1754,
            ),
            ("nli", nli_prompt("", &[]), 3053),
        ] {
            let len = INSTRUCTIONS.chars().count() + text.chars().count();
            println!("{name}: {len} chars (Ragas {ragas})");
            assert!(len <= ragas, "{name}: {len} > {ragas}");
        }
    }

    /// Issue 23: instructions are claims; one or more claims per sentence at low atomicity;
    /// a place and a date split at high atomicity (shown, not listed); low coverage keeps a
    /// claim per sentence.
    #[test]
    fn decision_rules_issue_23() {
        use Atomicity::{High, Low};
        let ll = decompose_prompt("x", Low, Coverage::Low);
        let hl = decompose_prompt("x", High, Coverage::Low);
        assert!(ll.contains("Instructions, steps and refusals are claims"));
        assert!(!ll.contains("If it states no fact (a greeting, a refusal, a question)"));
        assert!(ll.contains("one or more claims per sentence"));
        assert!(!ll.contains("Atomicity low: one claim per sentence"));
        assert!(ll.contains("every sentence keeps at least one claim"));
        assert!(ll.contains(r#"["Nina Simone was born in Tryon in 1933."]"#));
        assert!(
            hl.contains(r#"["Nina Simone was born in Tryon.","Nina Simone was born in 1933."]"#)
        );
        assert!(!hl.contains("one claim per listed item or joined action"));
        for p in [&ll, &hl] {
            assert!(!p.contains("Hello! How can I help you today?"));
        }
    }
}
