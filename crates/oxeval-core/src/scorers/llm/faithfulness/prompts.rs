//! Prompts of the faithfulness scorer (oxeval's own wording).
//!
//! They decide the way @mastra/evals 1.10.2's faithfulness prompts decide (same rules, same
//! JSON shapes); the rule-by-rule comparison is in `docs/decision-tables/faithfulness-scorer.md`.

use crate::scorers::llm::claims::prompts as family;
use crate::scorers::llm::claims::prompts::REASON_FROM_VERDICTS;
use std::sync::LazyLock;

pub const INSTRUCTIONS: &str = "You are a careful faithfulness evaluator. \
You check whether what an output claims is backed by the context you are given, and by nothing else: never use your own knowledge. \
A claim the context states is supported; a claim it directly contradicts is contradicted; a claim it does not mention, or a speculative claim, cannot be verified. \
Follow the requested output format exactly.";

const FRAMING: &str = "- Drop only the speaker's framing (\"I think\", \"I believe\", \"in my view\") and keep the claim it frames: \"I think X is Y\" gives \"X is Y\".";

static EXTRACT: LazyLock<String> = LazyLock::new(|| family::output_extract_rules(&[FRAMING]));

const EXTRACT_EXAMPLES: &str = r#"Example
DATA: {"output":"The Danube is about 2,850 km long and flows through ten countries. I think it flows into the Black Sea, and it might be Europe's most important river. Have you seen it?"}
Answer: {"claims":["The Danube is about 2,850 km long.","The Danube flows through ten countries.","The Danube flows into the Black Sea.","The Danube might be Europe's most important river."]}"#;

static JUDGE: LazyLock<String> = LazyLock::new(|| {
    family::judge_rules(
        "whether the context supports it",
        &[
            "- \"yes\": the context states it (other wording is fine).",
            "- \"no\": the context directly contradicts it.",
            "- \"unsure\": the context does not mention it, or it cannot be verified from the context. A speculative claim (\"may\", \"might\", \"possibly\") is always \"unsure\".",
        ],
        ". Copy the claim word for word into each verdict, then a short reason naming what in the context decides it.",
        "{\"claim\": \"...\", \"verdict\": \"yes\" | \"no\" | \"unsure\", \"reason\": \"...\"}",
    )
});

const JUDGE_EXAMPLES: &str = r#"Example
DATA: {"context":["The Danube is about 2,850 km long.","It flows through ten countries, more than any other river."],"claims":["The Danube flows through ten countries.","The Danube is about 3,500 km long.","The Danube might be Europe's most important river.","The Danube freezes every winter."]}
Answer: {"verdicts":[{"claim":"The Danube flows through ten countries.","verdict":"yes","reason":"The context says it flows through ten countries."},{"claim":"The Danube is about 3,500 km long.","verdict":"no","reason":"The context gives about 2,850 km."},{"claim":"The Danube might be Europe's most important river.","verdict":"unsure","reason":"Speculative, and not in the context."},{"claim":"The Danube freezes every winter.","verdict":"unsure","reason":"The context does not mention freezing."}]}"#;

pub static REASON: LazyLock<String> = LazyLock::new(|| {
    family::reason_rules(
        "faithfulness",
        "to the given scale: the share of the output's claims that the context supports",
        &[
            "- Name what the context supports and what it contradicts or does not mention; for a mix, say how they balance.",
            REASON_FROM_VERDICTS,
        ],
        "the output made no claim",
    )
});

pub fn extract_prompt(output: &str) -> String {
    family::extract_prompt(&EXTRACT, EXTRACT_EXAMPLES, "output", output)
}

pub fn judge_prompt(context: &[String], claims: &[String]) -> String {
    family::judge_prompt(&JUDGE, JUDGE_EXAMPLES, context, claims)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn context() -> Vec<String> {
        vec!["Paris is the capital of \"France\".".into()]
    }
    fn claims() -> Vec<String> {
        vec![
            "Paris is the capital of France.".into(),
            "Paris has 9 million people.".into(),
        ]
    }

    /// The rendered prompts, byte for byte (a changed rule or example changes a digest).
    #[test]
    fn rendered_prompts_are_pinned() {
        crate::prompt::assert_pinned(&[
            (
                "instructions",
                INSTRUCTIONS.to_string(),
                "c4c0c5dc43f9a095a4b3f6ead2b41d6b29bbe1b03c7516cc7e1169a9dfb1b43b",
            ),
            (
                "extract",
                extract_prompt("Paris is the capital.\nIt is big."),
                "8f3e82a0ac944028d2c726a7def2e491338657d0986846d87cf963e6eba4bd97",
            ),
            (
                "judge",
                judge_prompt(&context(), &claims()),
                "6f91c68f3e199b7e7776f043edee986809889256857700c0c4389c775d510208",
            ),
            (
                "reason",
                family::output_reason_prompt(
                    &REASON,
                    &family::texts("Capital?", "Paris is the capital."),
                    &context(),
                    &family::Outcome {
                        score: 0.5,
                        scale: 1.0,
                        verdicts: &json!([{"verdict": "yes", "reason": "a"}, {"verdict": "unsure", "reason": "b"}]),
                    },
                ),
                "a3011e257b4030e0c47a53057cf59c9fc054154c70bdae3c987416b3eb07baab",
            ),
        ]);
    }

    /// Issue 23: "I think" is framing, dropped (Mastra's example); each verdict repeats its
    /// claim.
    #[test]
    fn decision_rules_issue_23() {
        let e = extract_prompt("x");
        assert!(e.contains("Drop only the speaker's framing"));
        assert!(!e.contains("\"could\", \"I think\") with their hedge"));
        assert!(e.contains(r#""The Danube flows into the Black Sea.""#));
        let j = judge_prompt(&[], &[]);
        assert!(j.contains("Copy the claim word for word into each verdict"));
        assert!(j.contains(r#"{"claim":"The Danube flows through ten countries.","verdict":"yes""#));
    }
}
