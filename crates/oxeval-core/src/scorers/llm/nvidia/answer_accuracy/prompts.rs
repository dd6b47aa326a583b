//! AnswerAccuracy's prompts (oxeval's own wording; each returns `{"rating": integer}`). The
//! two judges are independent: different wording, different examples, different field
//! names, and judge 2 swaps the roles of the response and the reference.

use crate::prompt::task;
use serde_json::json;

pub const INSTRUCTIONS: &str = "You are a strict, consistent grader of answers. \
You compare an answer with a reference answer to the same question and rate how far they agree. \
Compare meaning, not wording, use only the material you are given, and follow the requested output format exactly.";

const JUDGE_1: &str = "Task: rate how well the candidate answer matches the reference answer to the question. The reference answer is correct and complete.
- 4: the candidate answer is equivalent to the reference answer: the same answer, with nothing essential missing or contradicted (extra correct detail is fine).
- 2: the candidate answer matches only partly: it gives part of the reference answer, or the right answer together with a wrong or contradicting part.
- 0: the candidate answer is wrong, contradicts the reference answer, does not answer the question, or is unrelated.
Return JSON with the rating only: {\"rating\": 0 | 2 | 4}";

const JUDGE_1_EXAMPLES: &str = r#"Example
DATA: {"question":"Which river flows through Vienna?","candidate_answer":"The Danube.","reference_answer":"Vienna lies on the Danube."}
Answer: {"rating":4}

Example
DATA: {"question":"Which two colours are mixed to make green paint?","candidate_answer":"Blue and red.","reference_answer":"Blue and yellow."}
Answer: {"rating":2}"#;

const JUDGE_2: &str = "Task: a question has been answered twice. The ground truth below is taken as correct. Decide whether the proposed answer says the same thing as the ground truth.
Rating scale:
0 = the proposed answer is incorrect, off-topic, or conflicts with the ground truth;
2 = the proposed answer overlaps the ground truth only partly (something essential is missing, or a correct part comes with an incorrect one);
4 = the proposed answer agrees with the ground truth in full.
Wording and length do not matter, only meaning. Return JSON and nothing else: {\"rating\": 0 | 2 | 4}";

const JUDGE_2_EXAMPLES: &str = r#"Example
DATA: {"question":"How many legs does a spider have?","proposed_answer":"Spiders have eight legs.","ground_truth":"8"}
Answer: {"rating":4}

Example
DATA: {"question":"What is the boiling point of water at sea level in Celsius?","proposed_answer":"50 degrees.","ground_truth":"100 °C"}
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
    use crate::scorers::llm::nvidia::pin::{digest, QUESTION, REFERENCE, RESPONSE};

    /// The rendered prompts, byte for byte.
    #[test]
    fn rendered_prompts_are_pinned() {
        for (name, text, want) in [
            (
                "instructions",
                INSTRUCTIONS.to_string(),
                "a46f16e8430e8363099b68ced1ccd4de95866509dfd440ed4d97f41cdc603733",
            ),
            (
                "judge 1",
                judge_1(QUESTION, RESPONSE, REFERENCE),
                "76ecbe3b3d086639d65b71503c900891a3ca3463869391fc218f051bc26e4d6a",
            ),
            (
                "judge 2",
                judge_2(QUESTION, RESPONSE, REFERENCE),
                "3468e49b72643f7b0b4df2087bdee3d2cf6b04b9d6a4722668e217f06a72d492",
            ),
        ] {
            assert_eq!(digest(&text), want, "{name} changed:\n{text}");
        }
    }
}
