//! Judge usage summed over a scorer's runs (calls and tokens, with batch mode's share).

use serde::Serialize;
use serde_json::Value;

/// Judge usage summed over a scorer's runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UsageTotals {
    pub calls: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub total_tokens: u64,
    pub reasoning_tokens: u64,
    pub cached_input_tokens: u64,
    /// Batch mode: the calls (and their tokens) answered through a provider batch (billed
    /// at half price); absent when none was.
    #[serde(skip_serializing_if = "is_zero")]
    pub batch_calls: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub batch_input_tokens: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub batch_output_tokens: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub batch_total_tokens: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A token count as a non-negative integer (estimates such as 12.5 round; negatives, NaN and
/// absurd values count as 0).
pub(super) fn count(v: Option<&Value>) -> u64 {
    match v.and_then(Value::as_f64) {
        Some(x) if x.is_finite() && x > 0.0 && x < 9.0e15 => x.round() as u64,
        _ => 0,
    }
}

impl UsageTotals {
    /// Adds a totals object (as [`UsageTotals`] serializes).
    pub fn add_totals(&mut self, u: &Value) {
        let n = |k: &str| count(u.get(k));
        self.calls += n("calls");
        self.input_tokens += n("inputTokens");
        self.output_tokens += n("outputTokens");
        self.total_tokens += n("totalTokens");
        self.reasoning_tokens += n("reasoningTokens");
        self.cached_input_tokens += n("cachedInputTokens");
        self.batch_calls += n("batchCalls");
        self.batch_input_tokens += n("batchInputTokens");
        self.batch_output_tokens += n("batchOutputTokens");
        self.batch_total_tokens += n("batchTotalTokens");
    }

    pub(super) fn add(&mut self, o: &UsageTotals) {
        self.calls += o.calls;
        self.input_tokens += o.input_tokens;
        self.output_tokens += o.output_tokens;
        self.total_tokens += o.total_tokens;
        self.reasoning_tokens += o.reasoning_tokens;
        self.cached_input_tokens += o.cached_input_tokens;
        self.batch_calls += o.batch_calls;
        self.batch_input_tokens += o.batch_input_tokens;
        self.batch_output_tokens += o.batch_output_tokens;
        self.batch_total_tokens += o.batch_total_tokens;
    }

    /// Adds every execution of a result's `judge` record (`{ step: { executions: [...] } }`):
    /// `modelCallCount` requests and each execution's `usage`.
    pub fn add_judge(&mut self, judge: &Value) {
        let Some(steps) = judge.as_object() else {
            return;
        };
        for step in steps.values() {
            for ex in step
                .get("executions")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                self.calls += count(ex.get("modelCallCount"));
                // batch mode: the execution names the batch that answered it
                let batched = ex.get("batch").is_some_and(Value::is_string);
                if batched {
                    self.batch_calls += count(ex.get("modelCallCount"));
                }
                if let Some(u) = ex.get("usage") {
                    self.input_tokens += count(u.get("inputTokens"));
                    self.output_tokens += count(u.get("outputTokens"));
                    self.total_tokens += count(u.get("totalTokens"));
                    self.reasoning_tokens += count(u.get("reasoningTokens"));
                    self.cached_input_tokens += count(u.get("cachedInputTokens"));
                    if batched {
                        self.batch_input_tokens += count(u.get("inputTokens"));
                        self.batch_output_tokens += count(u.get("outputTokens"));
                        self.batch_total_tokens += count(u.get("totalTokens"));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evals::EvalAccumulator;
    use serde_json::json;

    fn acc(config: Value) -> EvalAccumulator {
        EvalAccumulator::new(&config).unwrap()
    }

    #[test]
    fn usage_counts_the_batch_share() {
        let mut u = UsageTotals::default();
        u.add_judge(&json!({
            "a": {"executions": [
                {"modelCallCount": 1, "batch": "batch_1", "usage": {"inputTokens": 10, "outputTokens": 2, "totalTokens": 12}},
                {"modelCallCount": 2, "usage": {"inputTokens": 5, "outputTokens": 1, "totalTokens": 6}}
            ]}
        }));
        assert_eq!((u.calls, u.batch_calls), (3, 1));
        assert_eq!(
            (u.total_tokens, u.batch_total_tokens, u.batch_input_tokens),
            (18, 12, 10)
        );
        let v = serde_json::to_value(&u).unwrap();
        assert_eq!(v["batchCalls"], 1);
        let mut back = UsageTotals::default();
        back.add_totals(&v);
        assert_eq!(back, u);
        assert!(serde_json::to_value(UsageTotals::default())
            .unwrap()
            .get("batchCalls")
            .is_none());
    }

    #[test]
    fn usage_sums_every_execution() {
        let mut a = acc(json!({"scorers": [{"id": "s"}]}));
        let judge = json!({
            "preprocess": {"executions": [{"modelCallCount": 2, "usage": {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15}}]},
            "analyze": {"executions": [{"modelCallCount": 1, "usage": {"inputTokens": 7, "reasoningTokens": 3}}, {"modelCallCount": 0, "usage": {}}]},
        });
        a.add_item(&json!({"index": 0, "runs": {"s": [{"score": 1, "judge": judge}]}}))
            .unwrap();
        // a failed run's partial judge record still counts
        a.add_item(&json!({"index": 1, "runs": {"s": [{"judge": {"x": {"executions": [{"modelCallCount": 1, "usage": {"totalTokens": 4}}]}}}]}})).unwrap();
        let u = &a.summary(&Value::Null)["usage"]["s"];
        assert_eq!(
            u,
            &json!({"calls": 4, "inputTokens": 17, "outputTokens": 5, "totalTokens": 19, "reasoningTokens": 3, "cachedInputTokens": 0})
        );
    }

    #[test]
    fn estimated_token_counts_are_normalised() {
        let mut u = UsageTotals::default();
        u.add_judge(&json!({"a": {"executions": [{"modelCallCount": 1, "usage": {"inputTokens": 12.5, "outputTokens": -1, "totalTokens": 1e20}}]}}));
        assert_eq!(
            (u.calls, u.input_tokens, u.output_tokens, u.total_tokens),
            (1, 13, 0, 0)
        );
    }
}
