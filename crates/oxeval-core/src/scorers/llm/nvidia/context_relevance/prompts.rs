//! ContextRelevance's prompts (oxeval's own wording; each returns `{"rating": integer}`).
//! The two judges are independent: different wording, different examples, different field
//! names.

use crate::prompt::task;
use serde_json::json;

pub const INSTRUCTIONS: &str = "You are a strict, consistent judge of retrieval quality. \
You rate how relevant retrieved context is to a user's question. \
Use only the material you are given and follow the requested output format exactly.";

const JUDGE_1: &str = "Task: rate how relevant the retrieved context is to the question.
- 2: the context contains the information needed to answer the question (fully relevant).
- 1: the context is on the question's topic or answers part of it, but not all of it (partially relevant).
- 0: the context contains nothing that helps answer the question (not relevant).
Do not answer the question yourself: rate only the context. Return JSON with the rating only: {\"rating\": 0 | 1 | 2}";

const JUDGE_1_EXAMPLES: &str = r#"Example
DATA: {"question":"When does the city library open on Saturdays?","context":"The city library is open Monday to Friday 9:00-18:00 and Saturday 10:00-14:00."}
Answer: {"rating":2}

Example
DATA: {"question":"When does the city library open on Saturdays?","context":"The city library was founded in 1903 and holds 200,000 books."}
Answer: {"rating":1}"#;

const JUDGE_2: &str = "Task: you are given a user's question and a passage retrieved to help answer it. How useful is the passage for answering the question?
Score 0 if the passage is unrelated or useless for the question, 1 if it is related or helps with only part of the question, 2 if it provides what a complete answer needs.
Judge the passage, not the question. Return JSON and nothing else: {\"rating\": 0 | 1 | 2}";

const JUDGE_2_EXAMPLES: &str = r#"Example
DATA: {"question":"What is the capital of Australia?","passage":"Sheep farming is an important industry in New Zealand."}
Answer: {"rating":0}

Example
DATA: {"question":"What is the capital of Australia?","passage":"Canberra was chosen as Australia's capital in 1908 as a compromise between Sydney and Melbourne."}
Answer: {"rating":2}"#;

/// ContextRelevance judge 1: the joined contexts as `context`.
pub fn judge_1(question: &str, context: &str) -> String {
    task(
        JUDGE_1,
        JUDGE_1_EXAMPLES,
        &[("question", json!(question)), ("context", json!(context))],
    )
}

/// ContextRelevance judge 2: the joined contexts as `passage`.
pub fn judge_2(question: &str, context: &str) -> String {
    task(
        JUDGE_2,
        JUDGE_2_EXAMPLES,
        &[("question", json!(question)), ("passage", json!(context))],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scorers::llm::nvidia::pin::{digest, CONTEXT, QUESTION};

    /// The rendered prompts, byte for byte.
    #[test]
    fn rendered_prompts_are_pinned() {
        for (name, text, want) in [
            (
                "instructions",
                INSTRUCTIONS.to_string(),
                "44016899af05ae670db0a19f5165c4589e108f4b88354146dd5f31143f48fc20",
            ),
            (
                "judge 1",
                judge_1(QUESTION, CONTEXT),
                "6c8f433f92c9dd544125bd4f77772cddd39763523bb031dff0a090ed3f062b76",
            ),
            (
                "judge 2",
                judge_2(QUESTION, CONTEXT),
                "8b5d3462232ffac025ddde733949bdb461ccf7c3b1070077f25e87829a7c9ed3",
            ),
        ] {
            assert_eq!(digest(&text), want, "{name} changed:\n{text}");
        }
    }
}
