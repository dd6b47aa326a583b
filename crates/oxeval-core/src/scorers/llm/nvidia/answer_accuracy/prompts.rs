//! AnswerAccuracy's prompts: Ragas 0.4.3's decision rules in oxeval's own wording, with oxeval's
//! own examples on the same side of each boundary as Ragas's (each returns `{"rating": integer}`).
//! The two judges are independent: different wording, different examples, different field names,
//! and judge 2 swaps the roles of the response and the reference.

use crate::prompt::task;
use serde_json::json;

pub const INSTRUCTIONS: &str = "You compare an answer to a question with a reference answer \
and give the rating the task asks for, in the requested JSON format.";

// Ragas 0.4.3's decision rules in oxeval's words (docs/decision-tables/answer-accuracy.md):
// 4 only when the answer is contained in the reference and equivalent in every term, topic,
// number, date and unit; lost precision is 2; anything inaccurate or not answering is 0.
const JUDGE_1: &str = "Task: rate the candidate answer to the question against the reference answer, which answers the question completely.
- 4: the candidate answer is fully contained in the reference answer and equivalent to it in every term, topic, number, measure, date and unit.
- 2: the candidate answer is partly contained in the reference answer and nearly equivalent to it in those respects.
- 0: the candidate answer is not contained in the reference answer, is not accurate in every term, topic, number, measure, date and unit, or does not answer the question.
Do not explain the rating. Return JSON with the rating only: {\"rating\": 0 | 2 | 4}";

const JUDGE_1_EXAMPLES: &str = r#"Example
DATA: {"question":"When did the Berlin Wall fall?","candidate_answer":"The Berlin Wall fell in 1989.","reference_answer":"The Berlin Wall fell on 9 November 1989."}
Answer: {"rating":2}

Example
DATA: {"question":"What is the chemical symbol for gold?","candidate_answer":"Gold's symbol is Au.","reference_answer":"The chemical symbol for gold is Au."}
Answer: {"rating":4}

Example
DATA: {"question":"Which planet is closest to the Sun?","candidate_answer":"Jupiter has dozens of moons.","reference_answer":"Mercury is the planet closest to the Sun."}
Answer: {"rating":0}"#;

// Judge 2 reads the roles swapped (the reference as `proposed_answer`, the response as
// `ground_truth`), so it states no side as correct: it rates how well the two match.
const JUDGE_2: &str = "Task: compare the proposed answer to a question with the ground truth answer and rate how well they match.
4 = exact match: the proposed answer and the ground truth say the same thing, alike in every aspect, topic, number, measure, date and unit (when either one gives details the other lacks, it is a partial match);
2 = partial match: the proposed answer mostly agrees with the ground truth, with minor differences in places;
0 = no match: the proposed answer is inaccurate, incomplete or unrelated to the ground truth, or does not address the question.
Give the rating without any explanation. Return JSON and nothing else: {\"rating\": 0 | 2 | 4}";

const JUDGE_2_EXAMPLES: &str = r#"Example
DATA: {"question":"When and where did Apollo 11 land?","proposed_answer":"It landed on the Moon in 1969.","ground_truth":"Apollo 11 landed in the Moon's Sea of Tranquility on 20 July 1969."}
Answer: {"rating":2}

Example
DATA: {"question":"What is the largest ocean on Earth?","proposed_answer":"The Pacific is the largest ocean on Earth.","ground_truth":"Earth's largest ocean is the Pacific."}
Answer: {"rating":4}

Example
DATA: {"question":"How long is a marathon?","proposed_answer":"Running shoes should be replaced regularly.","ground_truth":"A marathon is 42.195 kilometres long."}
Answer: {"rating":0}"#;

/// AnswerAccuracy judge 1: the response rated against the reference.
pub fn judge_1(question: &str, response: &str, reference: &str) -> String {
    task(
        JUDGE_1,
        JUDGE_1_EXAMPLES,
        &[
            ("question", json!(question)),
            ("candidate_answer", json!(response)),
            ("reference_answer", json!(reference)),
        ],
    )
}

/// AnswerAccuracy judge 2, roles swapped: the reference is rated as the answer and the
/// response serves as the ground truth.
pub fn judge_2(question: &str, response: &str, reference: &str) -> String {
    task(
        JUDGE_2,
        JUDGE_2_EXAMPLES,
        &[
            ("question", json!(question)),
            ("proposed_answer", json!(reference)),
            ("ground_truth", json!(response)),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scorers::llm::nvidia::pin::{QUESTION, REFERENCE, RESPONSE};

    /// The rendered prompts, byte for byte: a changed rule, example or data rule changes a
    /// digest, and the failure prints the new text and digest for review.
    #[test]
    fn rendered_prompts_are_pinned() {
        crate::prompt::assert_pinned(&[
            (
                "instructions",
                INSTRUCTIONS.to_string(),
                "96d643f8528a8774613e0305edac4b7eeb466f197a28685866cbd47fb91ef476",
            ),
            (
                "judge 1",
                judge_1(QUESTION, RESPONSE, REFERENCE),
                "52ca09f21c73a14bcd9c75a5add4fe5eac5b36a6ed37091f11a0f887584e9c7d",
            ),
            (
                "judge 2",
                judge_2(QUESTION, RESPONSE, REFERENCE),
                "fffd3bdc0f33c54008a2e539cf98245724b311b5a0ca852742dbfdd4e8e1f4f4",
            ),
        ]);
    }

    /// System message + template (empty data) stay within the length of the prompt Ragas
    /// 0.4.3 renders for the same judge with empty inputs.
    #[test]
    fn no_longer_than_ragas() {
        for (name, text, ragas) in [
            ("judge 1", judge_1("", "", ""), 2107),
            ("judge 2", judge_2("", "", ""), 2171),
        ] {
            let len = INSTRUCTIONS.chars().count() + text.chars().count();
            println!("{name}: {len} chars (Ragas {ragas})");
            assert!(len <= ragas, "{name}: {len} > {ragas}");
        }
    }

    /// Issue 23: judge 2's 4 is an exact match (Ragas's wording), not a "full match".
    #[test]
    fn decision_rules_issue_23() {
        let p = judge_2("q", "a", "r");
        assert!(p.contains("4 = exact match"));
        assert!(!p.contains("full match"));
        assert!(p.contains("when either one gives details the other lacks, it is a partial match"));
    }
}
