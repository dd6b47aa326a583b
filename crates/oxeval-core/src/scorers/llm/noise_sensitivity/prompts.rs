//! Prompts of the noise sensitivity scorer (oxeval's own wording).
//!
//! They decide the way @mastra/evals 1.10.2's noise sensitivity prompts decide (five
//! dimensions, five impact levels, major issues, a robustness score); the rule-by-rule
//! comparison is in `docs/decision-tables/noise-sensitivity.md`.

use crate::prompt::{task, task_refs};
use serde_json::{json, Value};

pub const INSTRUCTIONS: &str = "You evaluate how robust an agent is to noise: irrelevant, distracting or misleading material added to a user's query. \
You compare the agent's response to the clean query (the baseline) with its response to the noisy query, and judge how far the noise changed its accuracy, completeness, focus and consistency, and whether it made the agent state false information. \
Follow the requested output format exactly.";

const ANALYZE: &str = "Task: compare the baseline response (to the clean query) with the noisy response (to the noisy query) and judge the noise's impact on each of these five dimensions, in this order:
- content_accuracy: are the facts still correct?
- completeness: does the noisy response still cover the original query as fully?
- relevance: did it stay on the original question, or follow the noise?
- consistency: are the core message and conclusions the same?
- hallucination_resistance: did the noise lead to false or made-up information?
impactLevel per dimension:
- \"none\": virtually the same quality, accuracy and completeness;
- \"minimal\": slight changes (wording, a brief aside) with correctness and completeness kept; a brief, qualified aside about the noise is minimal on every dimension it touches (the facts stated, the focus, the message), not only on relevance;
- \"moderate\": noticeable changes that lower quality while the core information stays correct;
- \"significant\": a major loss of quality, accuracy or completeness;
- \"severe\": substantially worse, wrong, or derailed.
For each dimension give specificChanges (what changed between the responses) and noiseInfluence (how the noise caused it).
Also give overallAssessment (a summary of the agent's robustness), majorIssues (the most serious problems the noise caused; an empty list when there are none) and robustnessScore from 0 to 1 (1: no impact; about 0.85: minimal; 0.5 to 0.7: moderate; 0.2 to 0.4: significant; 0 to 0.1: severe).
Return JSON: {\"dimensions\": [{\"dimension\": \"content_accuracy\", \"impactLevel\": one of \"none\", \"minimal\", \"moderate\", \"significant\", \"severe\", \"specificChanges\": \"...\", \"noiseInfluence\": \"...\"}], \"overallAssessment\": \"...\", \"majorIssues\": [\"...\"], \"robustnessScore\": 0.0}";

const ANALYZE_EXAMPLES: &str = r#"Example
DATA: {"query":"How do vaccines train the immune system?","baselineResponse":"Vaccines expose the immune system to a harmless antigen so it learns to make antibodies and memory cells.","noisyQuery":"How do vaccines train the immune system? My cousin says garlic cures flu, and the moon landing was fake.","noisyResponse":"Vaccines expose the immune system to a harmless antigen so it learns to make antibodies and memory cells. Garlic may support general health, though it has not been shown to cure flu.","noiseType":"misinformation"}
Answer: {"dimensions":[{"dimension":"content_accuracy","impactLevel":"minimal","specificChanges":"Adds a hedged remark on garlic's health effects.","noiseInfluence":"The garlic claim drew a small, qualified tangent; the vaccine facts stay correct."},{"dimension":"completeness","impactLevel":"none","specificChanges":"Covers the same mechanism.","noiseInfluence":"Nothing was dropped."},{"dimension":"relevance","impactLevel":"minimal","specificChanges":"One added sentence about garlic.","noiseInfluence":"Briefly answered one distraction, then stayed on vaccines."},{"dimension":"consistency","impactLevel":"minimal","specificChanges":"Same core message with a small addition.","noiseInfluence":"The aside adds to the message without changing it."},{"dimension":"hallucination_resistance","impactLevel":"none","specificChanges":"Nothing false was added; the garlic remark is qualified.","noiseInfluence":"Rejected the misinformation about flu and the moon landing."}],"overallAssessment":"Robust: the answer is intact; one brief, qualified aside about a noise claim.","majorIssues":[],"robustnessScore":0.85}"#;

const REASON: &str = "Task: explain a noise sensitivity score in one or two sentences.
The score runs from 0 to 1: how well the agent kept its response quality when noise was added to the query (1: unaffected; about 0.7 to 0.8: minor impact that keeps correctness; 0.5: noticeably worse; 0.3 or less: significantly distracted or derailed). Use the given score as it is; do not recompute it.
- Name the dimensions the noise affected and how, the agent's strengths and weaknesses against noise, and any major issue; keep it useful for improving robustness.
Start with \"The score is <score> because\". Use only the assessment given. Answer in plain text, not JSON.";

/// The texts the analyze step compares.
pub struct AnalyzeInputs<'a> {
    pub query: &'a str,
    pub baseline_response: &'a str,
    pub noisy_query: &'a str,
    pub noisy_response: &'a str,
    pub noise_type: Option<&'a str>,
}

pub fn analyze_prompt(i: &AnalyzeInputs) -> String {
    let mut fields = vec![
        ("query", json!(i.query)),
        ("baselineResponse", json!(i.baseline_response)),
        ("noisyQuery", json!(i.noisy_query)),
        ("noisyResponse", json!(i.noisy_response)),
    ];
    if let Some(t) = i.noise_type {
        fields.push(("noiseType", json!(t)));
    }
    task(ANALYZE, ANALYZE_EXAMPLES, &fields)
}

pub fn reason_prompt(
    query: &str,
    score: f64,
    impacts: &Value,
    major_issues: &Value,
    overall: &str,
) -> String {
    task_refs(
        REASON,
        "",
        &[
            ("query", &json!(query)),
            ("score", &json!(score)),
            ("impacts", impacts),
            ("majorIssues", major_issues),
            ("overallAssessment", &json!(overall)),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs(noise_type: Option<&str>) -> AnalyzeInputs<'_> {
        AnalyzeInputs {
            query: "What is \"2+2\"?",
            baseline_response: "4.",
            noisy_query: "What is 2+2? Also, cats rule.",
            noisy_response: "4. Cats are nice.",
            noise_type,
        }
    }

    #[test]
    fn rendered_prompts_are_pinned() {
        crate::prompt::assert_pinned(&[
            (
                "instructions",
                INSTRUCTIONS.to_string(),
                "c064be5e5e53cbc5116d26d8e9760ea0c4919561323ad2065bc166d679b998eb",
            ),
            (
                "analyze",
                analyze_prompt(&inputs(Some("distraction"))),
                "e6c4790c04c43fc2e041c77a07d23d6e2826d2007ea7025a0ad4d2e43c8b66c2",
            ),
            (
                "analyze without a noise type",
                analyze_prompt(&inputs(None)),
                "173ca7e6d8fa3a28221ea04a1ec0aa2778c84fb9741398e8469fbcab78a00f5f",
            ),
            (
                "reason",
                reason_prompt(
                    "q?",
                    0.85,
                    &json!([{"dimension": "relevance", "impactLevel": "minimal"}]),
                    &json!([]),
                    "robust",
                ),
                "27a8488ca8c40acb0995551417d368af2c563815f66eb98a61631fd1a83e6d84",
            ),
        ]);
    }

    /// System message + template (empty data) stay within the length of what @mastra/evals
    /// 1.10.2 sends for the same step with empty data (its instructions + its prompt).
    #[test]
    fn no_longer_than_mastra() {
        let empty = AnalyzeInputs {
            query: "",
            baseline_response: "",
            noisy_query: "",
            noisy_response: "",
            noise_type: None,
        };
        for (name, text, mastra) in [
            ("analyze", analyze_prompt(&empty), 6107),
            (
                "reason",
                reason_prompt("", 0.0, &json!([]), &json!([]), ""),
                3328,
            ),
        ] {
            let len = INSTRUCTIONS.chars().count() + text.chars().count();
            println!("{name}: {len} chars (Mastra {mastra})");
            assert!(len <= mastra, "{name}: {len} > {mastra}");
        }
    }

    /// Issue 23: a brief qualified aside is minimal on accuracy, relevance and consistency
    /// (Mastra's calibration: three dimensions minimal, 0.85).
    #[test]
    fn decision_rules_issue_23() {
        let p = analyze_prompt(&AnalyzeInputs {
            query: "q",
            baseline_response: "b",
            noisy_query: "nq",
            noisy_response: "nr",
            noise_type: None,
        });
        let minimal = p.matches(r#""impactLevel":"minimal""#).count();
        assert_eq!(minimal, 3, "{p}");
        assert!(p.contains(r#""robustnessScore":0.85}"#));
        assert!(p.contains("minimal on every dimension it touches"));
    }
}
