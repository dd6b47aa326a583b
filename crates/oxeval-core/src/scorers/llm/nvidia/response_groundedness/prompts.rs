//! ResponseGroundedness's prompts: Ragas 0.4.3's decision rules in oxeval's own wording, with
//! oxeval's own examples on the same side of each boundary as Ragas's (each returns `{"rating":
//! integer}`). The two judges are independent: different wording, different examples, different
//! field names.

use crate::prompt::task;
use serde_json::json;

pub const INSTRUCTIONS: &str = "You rate how far a retrieved context supports a response \
and give the rating the task asks for, in the requested JSON format.";

// Ragas 0.4.3's decision rules in oxeval's words (docs/decision-tables/response-groundedness.md):
// the response is judged as one assertion; a generalisation or a less specific wording of
// what the context says is full support.
const JUDGE_1: &str =
    "Task: decide whether the response, taken as one assertion, is supported by the context.
- 0: the response or the context is empty, or the context does not support the response.
- 1: the context partially supports the response.
- 2: the context fully supports the response.
Return JSON with the rating only: {\"rating\": 0 | 1 | 2}";

const JUDGE_1_EXAMPLES: &str = r#"Example
DATA: {"response":"The Prado Museum is in Spain.","context":"The Prado Museum stands on the Paseo del Prado in Madrid, Spain, and opened in 1819."}
Answer: {"rating":2}

Example
DATA: {"response":"The Prado is a football stadium built in 1990.","context":"The Prado Museum in Madrid opened in 1819 and holds European paintings."}
Answer: {"rating":0}

Example
DATA: {"response":"The Prado holds paintings.","context":"The Prado Museum holds one of the finest collections of European paintings from the 12th to the 19th century."}
Answer: {"rating":2}"#;

const JUDGE_2: &str = "Task: rate how strongly the source passages back the assistant's reply.
Score 0 if the reply or the passages are empty or the passages do not back the reply, 1 if they back it partially, 2 if they back it fully.
Return JSON and nothing else: {\"rating\": 0 | 1 | 2}";

const JUDGE_2_EXAMPLES: &str = r#"Example
DATA: {"reply":"The ferry crosses a lake.","passages":"The ferry crosses Lake Constance between Konstanz and Meersburg, one of the busiest routes on the lake."}
Answer: {"rating":2}

Example
DATA: {"reply":"The ferry company also builds aircraft.","passages":"The ferry crosses Lake Constance between Konstanz and Meersburg."}
Answer: {"rating":0}

Example
DATA: {"reply":"The ferry links Konstanz and Meersburg.","passages":"The ferry leaves Konstanz every hour from 5:30 to 23:30 and reaches Meersburg twenty minutes later."}
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
    use crate::scorers::llm::nvidia::pin::{CONTEXT, RESPONSE};

    /// The rendered prompts, byte for byte: a changed rule, example or data rule changes a
    /// digest, and the failure prints the new text and digest for review.
    #[test]
    fn rendered_prompts_are_pinned() {
        crate::prompt::assert_pinned(&[
            (
                "instructions",
                INSTRUCTIONS.to_string(),
                "66731812e63a4b1ed2cfbd21c09c77bc5acd72e42e7f2e8c396b7989f0d3b714",
            ),
            (
                "judge 1",
                judge_1(RESPONSE, CONTEXT),
                "eb884effe4163e6a0bdba4d03ce4d4b9e59a2e2c3b88846df9d006c46c4e8340",
            ),
            (
                "judge 2",
                judge_2(RESPONSE, CONTEXT),
                "e32c236a63e0a5a17e4c7f9f15dcebe37b589abf7c694f88fddb52daae76af7a",
            ),
        ]);
    }

    /// System message + template (empty data) stay within the length of the prompt Ragas
    /// 0.4.3 renders for the same judge with empty inputs.
    #[test]
    fn no_longer_than_ragas() {
        for (name, text, ragas) in [
            ("judge 1", judge_1("", ""), 1926),
            ("judge 2", judge_2("", ""), 1834),
        ] {
            let len = INSTRUCTIONS.chars().count() + text.chars().count();
            println!("{name}: {len} chars (Ragas {ragas})");
            assert!(len <= ragas, "{name}: {len} > {ragas}");
        }
    }

    /// Issue 23: judge 2's third example drops only detail, never a restriction.
    #[test]
    fn decision_rules_issue_23() {
        let p = judge_2("r", "c");
        assert!(!p.contains("The ferry runs every hour."));
        assert!(p.contains(r#""reply":"The ferry links Konstanz and Meersburg.""#));
    }
}
