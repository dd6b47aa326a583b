//! ResponseGroundedness's prompts (oxeval's own wording; each returns `{"rating":
//! integer}`). The two judges are independent: different wording, different examples,
//! different field names.

use crate::prompt::task;
use serde_json::json;

pub const INSTRUCTIONS: &str = "You are a strict, consistent judge of groundedness. \
You rate how far a response is supported by retrieved context. \
Use only the material you are given, never outside knowledge, and follow the requested output format exactly.";

const JUDGE_1: &str = "Task: rate how well the response is supported by the context.
- 2: every claim of the response is supported by the context (fully grounded).
- 1: some claims of the response are supported by the context, others are not found in it (partially grounded).
- 0: no claim of the response is supported by the context, or the response contradicts it (not grounded).
Use only the context, never outside knowledge. Return JSON with the rating only: {\"rating\": 0 | 1 | 2}";

const JUDGE_1_EXAMPLES: &str = r#"Example
DATA: {"response":"The museum is closed on Mondays and entry is free.","context":"The museum opens Tuesday to Sunday. Admission: 12 euros."}
Answer: {"rating":1}

Example
DATA: {"response":"The museum opens Tuesday to Sunday.","context":"The museum opens Tuesday to Sunday. Admission: 12 euros."}
Answer: {"rating":2}"#;

const JUDGE_2: &str = "Task: check an assistant's reply against the source passages. Can the statements of the reply be verified from the passages alone?
Score 2 if every statement can be verified from the passages, 1 if only some of them can, 0 if none can or the reply conflicts with the passages.
Ignore whether the reply is true in the world: only the passages count. Return JSON and nothing else: {\"rating\": 0 | 1 | 2}";

const JUDGE_2_EXAMPLES: &str = r#"Example
DATA: {"reply":"Mount Kilimanjaro is the highest mountain in Africa.","passages":"The ferry to the island leaves every hour."}
Answer: {"rating":0}

Example
DATA: {"reply":"The ferry leaves every hour and the trip takes 40 minutes.","passages":"The ferry to the island leaves every hour. The crossing takes 40 minutes."}
Answer: {"rating":2}"#;

/// ResponseGroundedness judge 1: `response` against `context`.
pub fn judge_1(response: &str, context: &str) -> String {
    task(
        JUDGE_1,
        JUDGE_1_EXAMPLES,
        &[("response", json!(response)), ("context", json!(context))],
    )
}

/// ResponseGroundedness judge 2: the response as `reply`, the contexts as `passages`.
pub fn judge_2(response: &str, context: &str) -> String {
    task(
        JUDGE_2,
        JUDGE_2_EXAMPLES,
        &[("reply", json!(response)), ("passages", json!(context))],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scorers::llm::nvidia::pin::{digest, CONTEXT, RESPONSE};

    /// The rendered prompts, byte for byte.
    #[test]
    fn rendered_prompts_are_pinned() {
        for (name, text, want) in [
            (
                "instructions",
                INSTRUCTIONS.to_string(),
                "f149d975e79bfdd17ca4c2f4d76f980a6485e6af3bc1c4a7b897b4fee333ee14",
            ),
            (
                "judge 1",
                judge_1(RESPONSE, CONTEXT),
                "6fbde3a503a8f32b9de7dd40057fb8e887041866852102dfb4a117509bd128a1",
            ),
            (
                "judge 2",
                judge_2(RESPONSE, CONTEXT),
                "cc4586a2c52895a384cbe067a0e970c946e92df6bbb5129f81b1c0876ff50c23",
            ),
        ] {
            assert_eq!(digest(&text), want, "{name} changed:\n{text}");
        }
    }
}
