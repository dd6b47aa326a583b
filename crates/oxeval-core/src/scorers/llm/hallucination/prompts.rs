//! Prompts of the hallucination scorer (oxeval's own wording).
//!
//! They decide the way @mastra/evals 1.10.2's hallucination prompts decide (same rules, same
//! JSON shapes); the rule-by-rule comparison is in `docs/decision-tables/hallucination-scorer.md`.

use crate::scorers::llm::claims::prompts as family;
use crate::scorers::llm::claims::prompts::REASON_FROM_VERDICTS;
use std::sync::LazyLock;

pub const INSTRUCTIONS: &str = "You are a careful hallucination evaluator. \
You check whether an output says things that the context you are given contradicts or does not support, using only that context, never your own knowledge. \
Less precise dates, reasonable approximations and left-out details are not hallucinations; unsupported subjective praise and speculation about things the context does not cover are. \
An empty output has no hallucinations. Follow the requested output format exactly.";

static EXTRACT: LazyLock<String> = LazyLock::new(|| family::output_extract_rules(&[]));

const EXTRACT_EXAMPLES: &str = r#"Example
DATA: {"output":"The museum opened in 1998 and is the city's leading attraction. It may expand next year. Would you like opening hours?"}
Answer: {"claims":["The museum opened in 1998.","The museum is the city's leading attraction.","The museum may expand next year."]}"#;

static JUDGE: LazyLock<String> = LazyLock::new(|| {
    family::judge_rules(
        "whether it is a hallucination with respect to the context",
        &[
            "- \"yes\" (hallucination): the claim contradicts the context, or asserts something the context does not support. This includes speculation about facts the context does not cover, and subjective judgements (\"leading\", \"pioneering\", \"made history\") the context does not state.",
            "- \"no\" (not a hallucination): the context supports the claim. A less precise date (the year where the context gives the month), a reasonable approximation or paraphrase of a figure, a claim that leaves out details, and speculative wording about a fact the context states are all supported.",
        ],
        "; copy the claim as \"statement\" and give a short reason saying what the context does or does not support.",
        "{\"statement\": \"...\", \"verdict\": \"yes\" | \"no\", \"reason\": \"...\"}",
    )
});

const JUDGE_EXAMPLES: &str = r#"Example
DATA: {"context":["The museum opened in March 1998.","It receives about 1.2 million visitors a year."],"claims":["The museum opened in 1998.","The museum is the city's leading attraction.","The museum gets over a million visitors a year.","The museum may expand next year.","The museum opened in 2001."]}
Answer: {"verdicts":[{"statement":"The museum opened in 1998.","verdict":"no","reason":"A less precise form of March 1998."},{"statement":"The museum is the city's leading attraction.","verdict":"yes","reason":"The context does not call it the leading attraction."},{"statement":"The museum gets over a million visitors a year.","verdict":"no","reason":"A fair approximation of about 1.2 million."},{"statement":"The museum may expand next year.","verdict":"yes","reason":"Speculation about plans the context does not mention."},{"statement":"The museum opened in 2001.","verdict":"yes","reason":"The context says 1998."}]}"#;

pub static REASON: LazyLock<String> = LazyLock::new(|| {
    family::reason_rules(
        "hallucination",
        "(no claim is a hallucination) to the given scale (every claim is): the share of the output's claims that the context contradicts or does not support",
        &[
            "- Name the claims that are hallucinated and those the context supports; for a mix, say how they balance.",
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
            "Paris is the world's leading city.".into(),
        ]
    }

    /// The rendered prompts, byte for byte (a changed rule or example changes a digest).
    #[test]
    fn rendered_prompts_are_pinned() {
        crate::prompt::assert_pinned(&[
            (
                "instructions",
                INSTRUCTIONS.to_string(),
                "e77b65913d335dd298cd7b034a1671808bce806ca00a13feb0412320843a00fa",
            ),
            (
                "extract",
                extract_prompt("Paris is the capital.\nIt leads the world."),
                "c797973d9636f7050db30ed91610a9bf0ee99a78fe74276e99f4aebc6317e1c2",
            ),
            (
                "judge",
                judge_prompt(&context(), &claims()),
                "156ad38d220f6ff614f45c05cd019c8d19ea34d4bdd0e36fc310bf23f493dfa0",
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
                        verdicts: &json!([{"statement": "a", "verdict": "no", "reason": "a"}, {"statement": "b", "verdict": "yes", "reason": "b"}]),
                    },
                ),
                "e5c0c2c0e1ed6b6ec36ea0978d17de2a345a58b5f3041e59ad8757b3ef95c483",
            ),
        ]);
    }
}
