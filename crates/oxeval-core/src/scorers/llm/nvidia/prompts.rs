//! Prompts of the NVIDIA dual-judge scorers (oxeval's own wording; each returns
//! `{"rating": integer}`). The two judges of a metric are independent: different wording,
//! different examples, different field names.

use crate::prompt::task;
use serde_json::json;

pub const ACCURACY_INSTRUCTIONS: &str = "You are a strict, consistent grader of answers. \
You compare an answer with a reference answer to the same question and rate how far they agree. \
Compare meaning, not wording, use only the material you are given, and follow the requested output format exactly.";

pub const RELEVANCE_INSTRUCTIONS: &str =
    "You are a strict, consistent judge of retrieval quality. \
You rate how relevant retrieved context is to a user's question. \
Use only the material you are given and follow the requested output format exactly.";

pub const GROUNDEDNESS_INSTRUCTIONS: &str = "You are a strict, consistent judge of groundedness. \
You rate how far a response is supported by retrieved context. \
Use only the material you are given, never outside knowledge, and follow the requested output format exactly.";

const ACCURACY_1: &str = "Task: rate how well the candidate answer matches the reference answer to the question. The reference answer is correct and complete.
- 4: the candidate answer is equivalent to the reference answer: the same answer, with nothing essential missing or contradicted (extra correct detail is fine).
- 2: the candidate answer matches only partly: it gives part of the reference answer, or the right answer together with a wrong or contradicting part.
- 0: the candidate answer is wrong, contradicts the reference answer, does not answer the question, or is unrelated.
Return JSON with the rating only: {\"rating\": 0 | 2 | 4}";

const ACCURACY_1_EXAMPLES: &str = r#"Example
DATA: {"question":"Which river flows through Vienna?","candidate_answer":"The Danube.","reference_answer":"Vienna lies on the Danube."}
Answer: {"rating":4}

Example
DATA: {"question":"Which two colours are mixed to make green paint?","candidate_answer":"Blue and red.","reference_answer":"Blue and yellow."}
Answer: {"rating":2}"#;

const ACCURACY_2: &str = "Task: a question has been answered twice. The ground truth below is taken as correct. Decide whether the proposed answer says the same thing as the ground truth.
Rating scale:
0 = the proposed answer is incorrect, off-topic, or conflicts with the ground truth;
2 = the proposed answer overlaps the ground truth only partly (something essential is missing, or a correct part comes with an incorrect one);
4 = the proposed answer agrees with the ground truth in full.
Wording and length do not matter, only meaning. Return JSON and nothing else: {\"rating\": 0 | 2 | 4}";

const ACCURACY_2_EXAMPLES: &str = r#"Example
DATA: {"question":"How many legs does a spider have?","proposed_answer":"Spiders have eight legs.","ground_truth":"8"}
Answer: {"rating":4}

Example
DATA: {"question":"What is the boiling point of water at sea level in Celsius?","proposed_answer":"50 degrees.","ground_truth":"100 °C"}
Answer: {"rating":0}"#;

const RELEVANCE_1: &str = "Task: rate how relevant the retrieved context is to the question.
- 2: the context contains the information needed to answer the question (fully relevant).
- 1: the context is on the question's topic or answers part of it, but not all of it (partially relevant).
- 0: the context contains nothing that helps answer the question (not relevant).
Do not answer the question yourself: rate only the context. Return JSON with the rating only: {\"rating\": 0 | 1 | 2}";

const RELEVANCE_1_EXAMPLES: &str = r#"Example
DATA: {"question":"When does the city library open on Saturdays?","context":"The city library is open Monday to Friday 9:00-18:00 and Saturday 10:00-14:00."}
Answer: {"rating":2}

Example
DATA: {"question":"When does the city library open on Saturdays?","context":"The city library was founded in 1903 and holds 200,000 books."}
Answer: {"rating":1}"#;

const RELEVANCE_2: &str = "Task: you are given a user's question and a passage retrieved to help answer it. How useful is the passage for answering the question?
Score 0 if the passage is unrelated or useless for the question, 1 if it is related or helps with only part of the question, 2 if it provides what a complete answer needs.
Judge the passage, not the question. Return JSON and nothing else: {\"rating\": 0 | 1 | 2}";

const RELEVANCE_2_EXAMPLES: &str = r#"Example
DATA: {"question":"What is the capital of Australia?","passage":"Sheep farming is an important industry in New Zealand."}
Answer: {"rating":0}

Example
DATA: {"question":"What is the capital of Australia?","passage":"Canberra was chosen as Australia's capital in 1908 as a compromise between Sydney and Melbourne."}
Answer: {"rating":2}"#;

const GROUNDEDNESS_1: &str = "Task: rate how well the response is supported by the context.
- 2: every claim of the response is supported by the context (fully grounded).
- 1: some claims of the response are supported by the context, others are not found in it (partially grounded).
- 0: no claim of the response is supported by the context, or the response contradicts it (not grounded).
Use only the context, never outside knowledge. Return JSON with the rating only: {\"rating\": 0 | 1 | 2}";

const GROUNDEDNESS_1_EXAMPLES: &str = r#"Example
DATA: {"response":"The museum is closed on Mondays and entry is free.","context":"The museum opens Tuesday to Sunday. Admission: 12 euros."}
Answer: {"rating":1}

Example
DATA: {"response":"The museum opens Tuesday to Sunday.","context":"The museum opens Tuesday to Sunday. Admission: 12 euros."}
Answer: {"rating":2}"#;

const GROUNDEDNESS_2: &str = "Task: check an assistant's reply against the source passages. Can the statements of the reply be verified from the passages alone?
Score 2 if every statement can be verified from the passages, 1 if only some of them can, 0 if none can or the reply conflicts with the passages.
Ignore whether the reply is true in the world: only the passages count. Return JSON and nothing else: {\"rating\": 0 | 1 | 2}";

const GROUNDEDNESS_2_EXAMPLES: &str = r#"Example
DATA: {"reply":"Mount Kilimanjaro is the highest mountain in Africa.","passages":"The ferry to the island leaves every hour."}
Answer: {"rating":0}

Example
DATA: {"reply":"The ferry leaves every hour and the trip takes 40 minutes.","passages":"The ferry to the island leaves every hour. The crossing takes 40 minutes."}
Answer: {"rating":2}"#;

/// AnswerAccuracy judge 1: the response rated against the reference.
pub fn accuracy_1(question: &str, response: &str, reference: &str) -> String {
    task(
        ACCURACY_1,
        ACCURACY_1_EXAMPLES,
        &[
            ("question", json!(question)),
            ("candidate_answer", json!(response)),
            ("reference_answer", json!(reference)),
        ],
    )
}

/// AnswerAccuracy judge 2, roles swapped: the reference is rated as the answer and the
/// response serves as the ground truth.
pub fn accuracy_2(question: &str, response: &str, reference: &str) -> String {
    task(
        ACCURACY_2,
        ACCURACY_2_EXAMPLES,
        &[
            ("question", json!(question)),
            ("proposed_answer", json!(reference)),
            ("ground_truth", json!(response)),
        ],
    )
}

pub fn relevance_1(question: &str, context: &str) -> String {
    task(
        RELEVANCE_1,
        RELEVANCE_1_EXAMPLES,
        &[("question", json!(question)), ("context", json!(context))],
    )
}

pub fn relevance_2(question: &str, context: &str) -> String {
    task(
        RELEVANCE_2,
        RELEVANCE_2_EXAMPLES,
        &[("question", json!(question)), ("passage", json!(context))],
    )
}

pub fn groundedness_1(response: &str, context: &str) -> String {
    task(
        GROUNDEDNESS_1,
        GROUNDEDNESS_1_EXAMPLES,
        &[("response", json!(response)), ("context", json!(context))],
    )
}

pub fn groundedness_2(response: &str, context: &str) -> String {
    task(
        GROUNDEDNESS_2,
        GROUNDEDNESS_2_EXAMPLES,
        &[("reply", json!(response)), ("passages", json!(context))],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::{Digest, Sha256};

    fn digest(text: &str) -> String {
        Sha256::digest(text.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// The rendered prompts, byte for byte (SHA-256 of the text): a change of wording must
    /// be deliberate. The inputs carry quotes, newlines and non-ASCII text to pin escaping.
    #[test]
    fn rendered_prompts_are_pinned() {
        let (q, r, f, c) = (
            "Who wrote \"Hamlet\"?\nAnswer briefly.",
            "Shakespeare — in 1600.",
            "William Shakespeare",
            "Hamlet is a tragedy.\nIt was written by Shakespeare.",
        );
        let rendered = [
            (
                "accuracy instructions",
                ACCURACY_INSTRUCTIONS.to_string(),
                "a46f16e8430e8363099b68ced1ccd4de95866509dfd440ed4d97f41cdc603733",
            ),
            (
                "accuracy_1",
                accuracy_1(q, r, f),
                "76ecbe3b3d086639d65b71503c900891a3ca3463869391fc218f051bc26e4d6a",
            ),
            (
                "accuracy_2",
                accuracy_2(q, r, f),
                "3468e49b72643f7b0b4df2087bdee3d2cf6b04b9d6a4722668e217f06a72d492",
            ),
            (
                "relevance instructions",
                RELEVANCE_INSTRUCTIONS.to_string(),
                "44016899af05ae670db0a19f5165c4589e108f4b88354146dd5f31143f48fc20",
            ),
            (
                "relevance_1",
                relevance_1(q, c),
                "6c8f433f92c9dd544125bd4f77772cddd39763523bb031dff0a090ed3f062b76",
            ),
            (
                "relevance_2",
                relevance_2(q, c),
                "8b5d3462232ffac025ddde733949bdb461ccf7c3b1070077f25e87829a7c9ed3",
            ),
            (
                "groundedness instructions",
                GROUNDEDNESS_INSTRUCTIONS.to_string(),
                "f149d975e79bfdd17ca4c2f4d76f980a6485e6af3bc1c4a7b897b4fee333ee14",
            ),
            (
                "groundedness_1",
                groundedness_1(r, c),
                "6fbde3a503a8f32b9de7dd40057fb8e887041866852102dfb4a117509bd128a1",
            ),
            (
                "groundedness_2",
                groundedness_2(r, c),
                "cc4586a2c52895a384cbe067a0e970c946e92df6bbb5129f81b1c0876ff50c23",
            ),
        ];
        for (name, text, want) in rendered {
            assert_eq!(digest(&text), want, "{name} changed:\n{text}");
        }
    }
}
