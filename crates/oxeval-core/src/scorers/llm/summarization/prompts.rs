//! Prompts of the summarization scorer (oxeval's own wording).
//!
//! They decide the way @mastra/evals 1.10.2's summarization prompts decide (alignment of the
//! summary's claims with the source, yes-questions drawn from the source alone, coverage
//! judged from the summary alone); the rule-by-rule comparison is in
//! `docs/decision-tables/summarization.md`.

use crate::prompt::{task, task_refs};
use serde_json::json;

pub const INSTRUCTIONS: &str = "You evaluate summaries strictly: whether a summary is faithful to its source text and whether it keeps the information the source states. \
Judge only against the texts you are given, never against prior knowledge. \
Call a claim supported only if the source says it outright or it follows at once from what the source says; rewording is fine, but rounding or blurring a precise fact is not. \
Judge each claim and each question on its own. Follow the requested output format exactly.";

const MATCHING: &str = "- Dates, numbers, proper nouns and domain terms must match exactly (\"in 2019\" is not \"around 2019\"; \"Acme Inc\" is not \"Acme Group\").
- Other wording may differ if the meaning holds: \"grew quickly\" matches \"expanded fast\", \"set up in Lyon\" matches \"based in Lyon\", and a general wording of the same work matches (\"worked on new engine designs\" matches \"made advances in engines\"); a weaker or stronger claim does not match (\"sold well\" is not \"led the market\").";

const JUDGE_SOURCE: &str = "Task: two independent parts.
Part 1, alignment: list the atomic claims the summary makes (one piece of information each; split compound sentences, but an event stays one claim with its place and date: \"opened in Porto in 1930\"; keep numbers, dates and quantities; skip questions, commands and style) and decide for each whether the source supports it: supported is true only when the source states or directly implies it, false when the source contradicts it or does not say it. No claims gives an empty list.
Part 2, questions: write at most maxQuestions closed questions that the source alone answers with \"yes\", most important facts first; each specific and checkable, never answerable with \"maybe\" or \"partly\". Choose them from the source only: ignore what the summary kept or left out. An empty source gives an empty list.
Matching rules for Part 1:
";

const JUDGE_SOURCE_TAIL: &str = "Return JSON: {\"alignment\": [{\"claim\": \"...\", \"supported\": true | false, \"reason\": \"...\"}], \"questions\": [\"...\"]}";

const JUDGE_SOURCE_EXAMPLES: &str = r#"Example
DATA: {"source":"The bridge opened in Porto in 1932 and is 503 m long. It carries a railway.","summary":"The 503 m bridge opened in Porto in 1930.","maxQuestions":3}
Answer: {"alignment":[{"claim":"The bridge is 503 m long","supported":true,"reason":"Stated."},{"claim":"The bridge opened in Porto in 1930","supported":false,"reason":"The source says 1932."}],"questions":["Did the bridge open in Porto in 1932?","Is the bridge 503 m long?","Does the bridge carry a railway?"]}"#;

const COVERAGE: &str = "Task: for EACH question, in order, decide from the summary alone whether it can be answered. The summary is your only evidence; do not use prior knowledge.
answered is true only when the summary holds the information the question needs; false when the summary leaves it out or contradicts it.
";

const COVERAGE_TAIL: &str = "Give exactly one verdict per question, as many as there are questions.
Return JSON: {\"coverage\": [{\"question\": \"...\", \"answered\": true | false, \"reason\": \"...\"}]}";

const COVERAGE_EXAMPLES: &str = r#"Example
DATA: {"summary":"The 503 m bridge opened in Porto in 1930.","questions":["Did the bridge open in Porto in 1932?","Is the bridge 503 m long?","Does the bridge carry a railway?"]}
Answer: {"coverage":[{"question":"Did the bridge open in Porto in 1932?","answered":false,"reason":"The summary says 1930."},{"question":"Is the bridge 503 m long?","answered":true,"reason":"Stated."},{"question":"Does the bridge carry a railway?","answered":false,"reason":"Not mentioned."}]}"#;

const REASON: &str = "Task: explain a summarization score in one sentence.
The score is the lower of two axes times the scale: alignment (supported claims / claims) and coverage (answered questions / questions), so the weaker axis decides it. Use the given scores as they are; do not recompute them.
- Name the axis that produced the score and point at the claims or questions behind it; keep it short and concrete.
Start with \"The score is <score> because\". Answer in plain text, not JSON.";

pub fn judge_source_prompt(source: &str, summary: &str, max_questions: u32) -> String {
    let rules = format!("{JUDGE_SOURCE}{MATCHING}\n{JUDGE_SOURCE_TAIL}");
    task(
        &rules,
        JUDGE_SOURCE_EXAMPLES,
        &[
            ("source", json!(source)),
            ("summary", json!(summary)),
            ("maxQuestions", json!(max_questions)),
        ],
    )
}

pub fn coverage_prompt(summary: &str, questions: &[String]) -> String {
    let rules = format!("{COVERAGE}{MATCHING}\n{COVERAGE_TAIL}");
    task(
        &rules,
        COVERAGE_EXAMPLES,
        &[("summary", json!(summary)), ("questions", json!(questions))],
    )
}

/// The reason prompt's inputs.
pub struct ReasonInputs<'a> {
    pub source: &'a str,
    pub summary: &'a str,
    pub score: f64,
    pub scale: f64,
    pub alignment_score: f64,
    pub coverage_score: f64,
    pub unsupported_claims: &'a [String],
    pub missing_questions: &'a [String],
}

pub fn reason_prompt(r: &ReasonInputs) -> String {
    task_refs(
        REASON,
        "",
        &[
            ("source", &json!(r.source)),
            ("summary", &json!(r.summary)),
            ("score", &json!(r.score)),
            ("scale", &json!(r.scale)),
            ("alignmentScore", &json!(r.alignment_score)),
            ("coverageScore", &json!(r.coverage_score)),
            ("unsupportedClaims", &json!(r.unsupported_claims)),
            ("missingQuestions", &json!(r.missing_questions)),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reason_inputs<'a>(c: &'a [String], q: &'a [String]) -> ReasonInputs<'a> {
        ReasonInputs {
            source: "",
            summary: "",
            score: 0.0,
            scale: 1.0,
            alignment_score: 0.0,
            coverage_score: 0.0,
            unsupported_claims: c,
            missing_questions: q,
        }
    }

    #[test]
    fn rendered_prompts_are_pinned() {
        let claims = vec!["c".to_string()];
        let questions = vec!["q?".to_string()];
        let mut r = reason_inputs(&claims, &questions);
        r.source = "Source \"text\".";
        r.summary = "Summary.";
        r.score = 0.5;
        r.alignment_score = 1.0;
        r.coverage_score = 0.5;
        crate::prompt::assert_pinned(&[
            (
                "instructions",
                INSTRUCTIONS.to_string(),
                "dcbc88bd5855bf8722236288196d59c0a43b9221f2ca7f80778e103bfa5afa7c",
            ),
            (
                "judge source",
                judge_source_prompt("Source \"text\".", "Summary.", 10),
                "3b55edf450974d7f572fd285db3c64bc6cc06fe2955b598e57124a9eae46aeb4",
            ),
            (
                "coverage",
                coverage_prompt("Summary.", &questions),
                "4f84d3a366079dbb9a2a14f16413a397f189e80684cc4ed60a20fdb300f8df0f",
            ),
            (
                "reason",
                reason_prompt(&r),
                "d2cc37b3c9cc829b540fed63a308c3988e2e284225e452f7712d19247eb67444",
            ),
        ]);
    }

    /// System message + template (empty data) stay within the length of what @mastra/evals
    /// 1.10.2 sends for the same step with empty data (its instructions + its prompt).
    #[test]
    fn no_longer_than_mastra() {
        for (name, text, mastra) in [
            ("judge source", judge_source_prompt("", "", 10), 3506),
            ("coverage", coverage_prompt("", &[]), 2697),
            ("reason", reason_prompt(&reason_inputs(&[], &[])), 1873),
        ] {
            let len = INSTRUCTIONS.chars().count() + text.chars().count();
            println!("{name}: {len} chars (Mastra {mastra})");
            assert!(len <= mastra, "{name}: {len} > {mastra}");
        }
    }

    /// Issue 23: founded/based and a general wording of the same work match (Mastra's rule
    /// and example).
    #[test]
    fn decision_rules_issue_23() {
        let p = judge_source_prompt("s", "m", 3);
        assert!(p.contains("\"set up in Lyon\" matches \"based in Lyon\""));
        assert!(p.contains("\"worked on new engine designs\" matches \"made advances in engines\""));
    }

    /// Issue 37: an event stays one claim with its place and date (Mastra's example: "founded
    /// in Boston in 2015" is one claim).
    #[test]
    fn decision_rules_issue_37() {
        let p = judge_source_prompt("s", "m", 3);
        assert!(p.contains("an event stays one claim with its place and date"));
        assert!(p.contains(r#"{"claim":"The bridge opened in Porto in 1930","supported":false"#));
    }
}
