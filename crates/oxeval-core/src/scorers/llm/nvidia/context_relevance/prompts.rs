//! ContextRelevance's prompts: Ragas 0.4.3's decision rules in oxeval's own wording, with oxeval's
//! own examples on the same side of each boundary as Ragas's (each returns `{"rating": integer}`).
//! The two judges are independent: different wording, different examples, different field names.

use crate::prompt::task;
use serde_json::json;

pub const INSTRUCTIONS: &str = "You rate how relevant a retrieved context is to a question \
and give the rating the task asks for, in the requested JSON format.";

// Ragas 0.4.3's decision rules in oxeval's words (docs/decision-tables/context-relevance.md):
// 2 as soon as the context holds any relevant information; the examples show only 2 (the
// context answers) and 0 (unrelated context).
const JUDGE_1: &str = "Task: decide whether the context contains information for answering the question, and rate its relevance. Use only what the context and the question say, not your own knowledge of the subject.
- 0: the context contains no relevant information for answering the question.
- 1: the context partially contains relevant information for answering the question.
- 2: the context contains any relevant information for answering the question.
Do not explain the rating. Return JSON with the rating only: {\"rating\": 0 | 1 | 2}";

const JUDGE_1_EXAMPLES: &str = r#"Example
DATA: {"question":"When does the city library open on Saturdays?","context":"On Saturdays the city library opens at 10:00."}
Answer: {"rating":2}

Example
DATA: {"question":"What is a glacier?","context":"A glacier is a slowly moving mass of ice formed from compacted snow."}
Answer: {"rating":2}

Example
DATA: {"question":"How do vaccines work?","context":"The city library was founded in 1903."}
Answer: {"rating":0}"#;

const JUDGE_2: &str = "Task: a user's question and a passage retrieved for it. To what extent does the passage give the information needed to answer the question? Rely only on the question and the passage, not on prior knowledge.
Score 0 if the passage has no relevant information for answering the question, 1 if it partially has relevant information for it, 2 if it has any relevant information for it.
Return JSON and nothing else: {\"rating\": 0 | 1 | 2}";

const JUDGE_2_EXAMPLES: &str = r#"Example
DATA: {"question":"What is the capital of Australia?","passage":"Canberra is the capital city of Australia."}
Answer: {"rating":2}

Example
DATA: {"question":"What does a barometer measure?","passage":"A barometer measures atmospheric pressure."}
Answer: {"rating":2}

Example
DATA: {"question":"How do bees make honey?","passage":"The airport train leaves every 20 minutes."}
Answer: {"rating":0}"#;

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
    use crate::scorers::llm::nvidia::pin::{CONTEXT, QUESTION};

    /// The rendered prompts, byte for byte: a changed rule, example or data rule changes a
    /// digest, and the failure prints the new text and digest for review.
    #[test]
    fn rendered_prompts_are_pinned() {
        crate::prompt::assert_pinned(&[
            (
                "instructions",
                INSTRUCTIONS.to_string(),
                "303a1cecb0512107fd147dfc60070707edf3b817121fa029a24e59236d5bd4dc",
            ),
            (
                "judge 1",
                judge_1(QUESTION, CONTEXT),
                "a5e09c70f830fe515d06639e3efe7edfa57f1144b2fe992f3c14009cf132a6f2",
            ),
            (
                "judge 2",
                judge_2(QUESTION, CONTEXT),
                "16c343eb915e40ed48c6f595505bf00b726346951fcccf4c2d40254ebf29f90e",
            ),
        ]);
    }

    /// System message + template (empty data) stay within the length of the prompt Ragas
    /// 0.4.3 renders for the same judge with empty inputs.
    #[test]
    fn no_longer_than_ragas() {
        for (name, text, ragas) in [
            ("judge 1", judge_1("", ""), 1923),
            ("judge 2", judge_2("", ""), 1939),
        ] {
            let len = INSTRUCTIONS.chars().count() + text.chars().count();
            println!("{name}: {len} chars (Ragas {ragas})");
            assert!(len <= ragas, "{name}: {len} > {ragas}");
        }
    }
}
