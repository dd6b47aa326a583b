//! Prompts of the LLM context relevance scorer (oxeval's own wording).
//!
//! They decide the way @mastra/evals 1.10.2's context relevance prompts decide (four
//! relevance levels, usage, missing context); the rule-by-rule comparison is in
//! `docs/decision-tables/context-relevance-llm.md`.

use crate::prompt::{task, task_refs};
use serde_json::{json, Value};

pub const INSTRUCTIONS: &str = "You evaluate retrieved context for a question-answering agent: \
how relevant each piece of context is to the user's query, whether the agent's response actually used it, \
and what information was missing. Judge each piece on its own, fairly and precisely. \
Follow the requested output format exactly.";

const ANALYZE: &str = "Task: evaluate EACH context piece, in order, against the user's query and the agent's response.
- relevanceLevel:
  - \"high\": directly answers or supports the query, or gives information essential to answering it;
  - \"medium\": helpful supporting or background information for the query;
  - \"low\": tangentially related to the query, of little help;
  - \"none\": unrelated to the query.
- Quality counts too: a piece on the query's topic that is false or untrustworthy does not help answer it: rate it \"low\" and say why in reasoning.
- wasUsed: true when the response clearly incorporates or reflects the piece's information; false when it does not appear in the response.
- reasoning: a short explanation of both judgements.
- context_index: the piece's position in the list (0-based); contextPiece: the piece's text.
Give exactly one evaluation per context piece, as many as there are pieces, in the same order.
Also list in missingContext the information that was not provided but would have helped answer the query better: an empty list when the context already answers the query fully (list nothing merely to fill it), and sum up the context's quality and use in overallAssessment.
Return JSON: {\"evaluations\": [{\"context_index\": 0, \"contextPiece\": \"...\", \"relevanceLevel\": \"high\" | \"medium\" | \"low\" | \"none\", \"wasUsed\": true | false, \"reasoning\": \"...\"}], \"missingContext\": [\"...\"], \"overallAssessment\": \"...\"}";

const ANALYZE_EXAMPLES: &str = r#"Example
DATA: {"query":"Why do leaves change colour in autumn?","response":"Leaves turn yellow in autumn because trees stop producing chlorophyll, which uncovers yellow pigments already in the leaf.","context":["Trees stop making chlorophyll in autumn, revealing yellow pigments.","Leaves change colour because the cold freezes their sap.","Maple syrup is made from the sap of maple trees."]}
Answer: {"evaluations":[{"context_index":0,"contextPiece":"Trees stop making chlorophyll in autumn, revealing yellow pigments.","relevanceLevel":"high","wasUsed":true,"reasoning":"Directly explains the colour change, and the response relies on it."},{"context_index":1,"contextPiece":"Leaves change colour because the cold freezes their sap.","relevanceLevel":"low","wasUsed":false,"reasoning":"On the topic, but false: freezing sap does not colour leaves, so it does not help the answer."},{"context_index":2,"contextPiece":"Maple syrup is made from the sap of maple trees.","relevanceLevel":"none","wasUsed":false,"reasoning":"About syrup, not leaf colour."}],"missingContext":[],"overallAssessment":"The one accurate, relevant piece fully answers the query and was used; one on-topic piece is false and one is irrelevant."}"#;

const REASON: &str = "Task: explain a context relevance score in one or two sentences.
The score runs from 0 to the given scale: the mean relevance of the context pieces (high 1, medium 0.7, low 0.3, none 0), minus a penalty for each highly relevant piece the response did not use and a capped penalty for missing information. Use the given score as it is; do not recompute it.
- Say which pieces were relevant and used, and name the penalties that applied (unused relevant context, missing information).
- Keep it concise and useful for improving the choice of context.
Start with \"The score is <score> because\". Use only the evaluations given. Answer in plain text, not JSON.";

pub fn analyze_prompt(query: &str, response: &str, contexts: &[String]) -> String {
    task(
        ANALYZE,
        ANALYZE_EXAMPLES,
        &[
            ("query", json!(query)),
            ("response", json!(response)),
            ("context", json!(contexts)),
        ],
    )
}

pub fn reason_prompt(
    query: &str,
    score: f64,
    scale: f64,
    evaluations: &Value,
    missing: &Value,
) -> String {
    task_refs(
        REASON,
        "",
        &[
            ("query", &json!(query)),
            ("score", &json!(score)),
            ("scale", &json!(scale)),
            ("evaluations", evaluations),
            ("missingContext", missing),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rendered prompts, byte for byte (a changed rule, example or data rule changes a
    /// digest; the failure prints the new text and digest for review).
    #[test]
    fn rendered_prompts_are_pinned() {
        crate::prompt::assert_pinned(&[
            (
                "instructions",
                INSTRUCTIONS.to_string(),
                "3fd7b801cf24c92e3a338b80f9981a2156b3febdb45c420d798c99e8d358a164",
            ),
            (
                "analyze",
                analyze_prompt(
                    "What is the capital of \"France\"?",
                    "Paris.",
                    &["Paris is the capital of France.".into(), "Bread.".into()],
                ),
                "582aa82be66149477c866f90d1a53e87412f06c86978faa55f624525b895edff",
            ),
            (
                "reason",
                reason_prompt(
                    "q?",
                    0.55,
                    1.0,
                    &json!([{"context_index": 0, "relevanceLevel": "high", "wasUsed": false}]),
                    &json!(["x"]),
                ),
                "2735e1c0a46b623ba9f68b73f631c0e91ff347d4c90e8a549bd698d1ddc8dfb8",
            ),
        ]);
    }

    /// System message + template (empty data) stay within the length of what @mastra/evals
    /// 1.10.2 sends for the same step with empty data (its instructions + its prompt).
    #[test]
    fn no_longer_than_mastra() {
        for (name, text, mastra) in [
            ("analyze", analyze_prompt("", "", &[]), 3887),
            (
                "reason",
                reason_prompt("", 0.0, 1.0, &json!([]), &json!([])),
                2525,
            ),
        ] {
            let len = INSTRUCTIONS.chars().count() + text.chars().count();
            println!("{name}: {len} chars (Mastra {mastra})");
            assert!(len <= mastra, "{name}: {len} > {mastra}");
        }
    }

    /// Issue 23: the worked example has an empty missingContext, and a false on-topic piece
    /// is rated low (Mastra's quality criterion).
    #[test]
    fn decision_rules_issue_23() {
        let p = analyze_prompt("q", "r", &[]);
        assert!(p.contains(r#""missingContext":[]"#));
        assert!(!p.contains("What produces the red pigments"));
        assert!(p.contains("false or untrustworthy"));
        assert!(p.contains(
            r#""relevanceLevel":"low","wasUsed":false,"reasoning":"On the topic, but false"#
        ));
    }
}
