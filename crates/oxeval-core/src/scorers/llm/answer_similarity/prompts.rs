//! Prompts of the answer similarity scorer (oxeval's own wording).
//!
//! They decide the way @mastra/evals 1.10.2's answer similarity prompts decide (semantic
//! units, four match types, contradictions, extra information); the rule-by-rule comparison
//! is in `docs/decision-tables/answer-similarity.md`.

use crate::prompt::{task, task_refs};
use serde_json::{json, Value};

pub const INSTRUCTIONS: &str = "You compare an agent's answer with a ground-truth answer, as a strict but fair test of consistency. \
Judge meaning, not wording: different phrasings can state the same fact. Notice missing information and contradictions, and give partial credit for partial matches. \
Follow the requested output format exactly.";

const EXTRACT: &str = "Task: break each text (the agent output and the ground truth) into semantic units: its facts, claims, key concepts and entities, relationships, quantities and qualities.
- Keep the meaning, not just keywords; write equivalent phrasings the same way.
- Keep a number with its unit, and keep related information together: a compound concept (a thing with its count, size and names) is one unit, not one unit per detail.
- An empty text gives an empty list.
Return JSON: {\"outputUnits\": [\"...\"], \"groundTruthUnits\": [\"...\"]}";

const EXTRACT_EXAMPLES: &str = r#"Example
DATA: {"output":"Mars has two moons.","groundTruth":"Mars has two small moons, Phobos and Deimos. Its red colour comes from iron oxide."}
Answer: {"outputUnits":["Mars has two moons"],"groundTruthUnits":["Mars has two small moons, Phobos and Deimos","Mars is red because of iron oxide"]}"#;

const ANALYZE: &str = "Task: for EACH ground-truth unit, in order, find the output unit that matches it and rate the match.
- \"exact\": the same information, worded identically or nearly so;
- \"semantic\": the same fact or concept, expressed differently with equivalent meaning;
- \"partial\": overlaps, but misses important details or context;
- \"missing\": nothing in the output corresponds (outputUnit null).
- A factually wrong output unit (a wrong name or fact, the opposite claim) is no match (\"missing\") and goes in contradictions, even when no ground-truth unit covers it (groundTruthUnit \"\").
Give exactly one match per ground-truth unit. List in extraInOutput the output units with information the ground truth does not have.
Return JSON: {\"matches\": [{\"groundTruthUnit\": \"...\", \"outputUnit\": \"...\" | null, \"matchType\": \"exact\" | \"semantic\" | \"partial\" | \"missing\", \"explanation\": \"...\"}], \"extraInOutput\": [\"...\"], \"contradictions\": [{\"outputUnit\": \"...\", \"groundTruthUnit\": \"...\", \"explanation\": \"...\"}]}";

const ANALYZE_EXAMPLES: &str = r#"Example
DATA: {"outputUnits":["Mars has two moons","the moons are Phobos and Titan","Mars is red","Mars is the largest planet"],"groundTruthUnits":["Mars has two moons","the moons are small","the moons are Phobos and Deimos"]}
Answer: {"matches":[{"groundTruthUnit":"Mars has two moons","outputUnit":"Mars has two moons","matchType":"exact","explanation":"Same fact."},{"groundTruthUnit":"the moons are small","outputUnit":null,"matchType":"missing","explanation":"Size not mentioned."},{"groundTruthUnit":"the moons are Phobos and Deimos","outputUnit":null,"matchType":"missing","explanation":"Titan is wrong."}],"extraInOutput":["Mars is red"],"contradictions":[{"outputUnit":"the moons are Phobos and Titan","groundTruthUnit":"the moons are Phobos and Deimos","explanation":"Titan is not a moon of Mars."},{"outputUnit":"Mars is the largest planet","groundTruthUnit":"","explanation":"Jupiter is larger."}]}"#;

const REASON: &str = "Task: explain an answer similarity score in at most three sentences.
The score runs from 0 to the given scale: how well the output's units match the ground truth's (exact, semantic, partial), lowered for missing units, contradictions and extra information. Use the given score as it is; do not recompute it.
- Say how similar the answer is overall (high, moderate or low), what it got right, and what is missing or wrong; suggest an improvement unless the score is perfect.
Start with \"The score is <score>/<scale> because\". Use only the analysis given. Answer in plain text, not JSON.";

pub fn extract_prompt(output: &str, ground_truth: &str) -> String {
    task(
        EXTRACT,
        EXTRACT_EXAMPLES,
        &[
            ("output", json!(output)),
            ("groundTruth", json!(ground_truth)),
        ],
    )
}

pub fn analyze_prompt(output_units: &[String], ground_truth_units: &[String]) -> String {
    task(
        ANALYZE,
        ANALYZE_EXAMPLES,
        &[
            ("outputUnits", json!(output_units)),
            ("groundTruthUnits", json!(ground_truth_units)),
        ],
    )
}

pub fn reason_prompt(
    output: &str,
    ground_truth: &str,
    score: f64,
    scale: f64,
    analysis: &Value,
) -> String {
    task_refs(
        REASON,
        "",
        &[
            ("output", &json!(output)),
            ("groundTruth", &json!(ground_truth)),
            ("score", &json!(score)),
            ("scale", &json!(scale)),
            ("analysis", analysis),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rendered_prompts_are_pinned() {
        crate::prompt::assert_pinned(&[
            (
                "instructions",
                INSTRUCTIONS.to_string(),
                "27ab130c07cc4491f91cd1bae4456beeed5c07a3338433780fe8763f0515e994",
            ),
            (
                "extract",
                extract_prompt("Paris is the \"capital\".", "Paris."),
                "cfabc930e31285840c4e13304a72b8b75116dac9ecc57af328edba1cc03f8963",
            ),
            (
                "analyze",
                analyze_prompt(&["Paris".into()], &["Paris".into(), "France".into()]),
                "69e24e2884cbe0e939fcf7f578bf6aa14577e3b5348cd8cd3463f2b04a9827af",
            ),
            (
                "reason",
                reason_prompt(
                    "Paris.",
                    "Paris, France.",
                    0.33,
                    1.0,
                    &json!({"matches": [], "extraInOutput": [], "contradictions": []}),
                ),
                "3c65cc58bc303cf15b40fb22f8084f05dcc6a5536a140efe70396e102e8aec39",
            ),
        ]);
    }

    /// System message + template (empty data) stay within the length of what @mastra/evals
    /// 1.10.2 sends for the same step with empty data (its instructions + its prompt).
    #[test]
    fn no_longer_than_mastra() {
        for (name, text, mastra) in [
            ("extract", extract_prompt("", ""), 1530),
            ("analyze", analyze_prompt(&[], &[]), 2466),
            ("reason", reason_prompt("", "", 0.0, 1.0, &json!({})), 1875),
        ] {
            let len = INSTRUCTIONS.chars().count() + text.chars().count();
            println!("{name}: {len} chars (Mastra {mastra})");
            assert!(len <= mastra, "{name}: {len} > {mastra}");
        }
    }

    /// Issue 23: a compound concept is one unit (Mastra groups related information).
    #[test]
    fn decision_rules_issue_23() {
        let p = extract_prompt("o", "g");
        assert!(p.contains(r#""groundTruthUnits":["Mars has two small moons, Phobos and Deimos","Mars is red because of iron oxide"]"#));
        assert!(!p.contains(r#""groundTruthUnits":["Mars has two moons","the moons are small""#));
    }

    /// Issue 37: every wrong fact of the output is a contradiction, also one no ground-truth
    /// unit covers (Mastra's "CRITICAL" rule).
    #[test]
    fn decision_rules_issue_37() {
        let p = analyze_prompt(&[], &[]);
        assert!(p.contains("goes in contradictions, even when no ground-truth unit covers it"));
        assert!(p.contains(r#"{"outputUnit":"Mars is the largest planet","groundTruthUnit":"","#));
        assert!(
            !p.contains("AND add the pair to contradictions"),
            "the old rule tied it to a unit"
        );
    }
}
