//! The run's budget (`maxCost`, `--max-cost`): the judge spend as billed (each judge call's
//! usage at its model's price, a provider batch's discount included, a response-cache hit
//! free), and the decision to start no new item once the spend would pass the budget. Like
//! the early stop, the runner asks and records the items it did not start as
//! `OXEVAL_BUDGET_EXHAUSTED`; the run then fails with the reason `budget`.

use super::{describe, num, usage::count};
use crate::error::InvalidArgument;
use crate::pricing::Prices;
use serde_json::{json, Value};

/// The run's budget and what it has spent.
#[derive(Debug, Clone)]
pub(super) struct Budget {
    max_cost: f64,
    prices: Prices,
    /// Dollars billed so far.
    spent: f64,
    /// Items that paid something, and what they paid (the projection of the next one).
    paying_items: u64,
    paid_by_them: f64,
    /// Why no new item starts (sticky).
    exhausted: Option<String>,
    /// Items the runner recorded as not started for the budget.
    skipped: u64,
}

fn max_cost(config: &Value) -> Result<Option<f64>, InvalidArgument> {
    match config.get("maxCost") {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_f64() {
            Some(x) if x.is_finite() && x > 0.0 => Ok(Some(x)),
            _ => Err(InvalidArgument::options(format!(
                "maxCost must be a number of US dollars > 0, got {}",
                describe(v)
            ))),
        },
    }
}

impl Budget {
    /// `maxCost` and `prices` of the config; with a budget, every scorer and gate that calls
    /// a judge (`model`: its `provider/model`) must have a price, else the run does not start.
    pub(super) fn from_config(config: &Value) -> Result<Option<Budget>, InvalidArgument> {
        let prices = Prices::from_config(config.get("prices"))?;
        let Some(max_cost) = max_cost(config)? else {
            return Ok(None);
        };
        for key in ["scorers", "gates"] {
            let list = config.get(key).and_then(Value::as_array);
            for s in list.into_iter().flatten() {
                let Some(model) = s.get("model").and_then(Value::as_str) else {
                    continue;
                };
                if prices.lookup(model).is_none() {
                    let id = s.get("id").and_then(Value::as_str).unwrap_or("?");
                    return Err(InvalidArgument::options(format!(
                        "maxCost is set but the judge of \"{id}\" ({model}) has no price in oxeval's table ({}): give it one, e.g. prices: {{ '{model}': {{ input, output }} }} (USD per 1M tokens) or --price-in/--price-out",
                        crate::pricing::table_date()
                    )));
                }
            }
        }
        Ok(Some(Budget {
            max_cost,
            prices,
            spent: 0.0,
            paying_items: 0,
            paid_by_them: 0.0,
            exhausted: None,
            skipped: 0,
        }))
    }

    /// Counts what one item's judge calls were billed (`runs` and its turns' `runs`: each
    /// run's `judge` record, executions with `model`, `usage`, `batch?`, `cached?`).
    pub(super) fn add(&mut self, item: &Value) {
        let code = item.get("targetError").and_then(|e| e.get("code"));
        if code.and_then(Value::as_str) == Some("OXEVAL_BUDGET_EXHAUSTED") {
            self.skipped += 1;
            return;
        }
        let mut paid = 0.0;
        let mut unpriced = None;
        let mut runs = vec![item.get("runs")];
        if let Some(turns) = item.get("turns").and_then(Value::as_array) {
            runs.extend(turns.iter().map(|t| t.get("runs")));
        }
        let trials = runs
            .into_iter()
            .flatten()
            .filter_map(Value::as_object)
            .flat_map(|o| o.values())
            .filter_map(Value::as_array)
            .flatten();
        for t in trials {
            let steps = t.get("judge").and_then(Value::as_object);
            for ex in steps
                .into_iter()
                .flat_map(|s| s.values())
                .filter_map(|s| s.get("executions").and_then(Value::as_array))
            {
                for e in ex {
                    match self.cost_of(e) {
                        Ok(c) => paid += c,
                        Err(model) => unpriced = Some(model),
                    }
                }
            }
        }
        self.spent += paid;
        if paid > 0.0 {
            self.paying_items += 1;
            self.paid_by_them += paid;
        }
        if let (Some(model), None) = (unpriced, &self.exhausted) {
            self.exhausted = Some(format!(
                "a judge call of {model} has no price, so the spend cannot be kept under maxCost ${}: give prices for it",
                num(self.max_cost)
            ));
        }
    }

    /// One execution's bill: 0 for a response-cache hit; `Err(model)` when unpriced.
    fn cost_of(&self, e: &Value) -> Result<f64, String> {
        if e.get("cached").and_then(Value::as_bool) == Some(true) {
            return Ok(0.0);
        }
        let u = e.get("usage");
        let (input, output) = (
            count(u.and_then(|u| u.get("inputTokens"))),
            count(u.and_then(|u| u.get("outputTokens"))),
        );
        if input + output == 0 {
            return Ok(0.0);
        }
        let model = e
            .get("model")
            .and_then(Value::as_str)
            .unwrap_or("custom/function");
        let price = self.prices.lookup(model).ok_or_else(|| model.to_string())?;
        let batch = e.get("batch").is_some_and(Value::is_string);
        Ok(price.cost(input, output, batch))
    }

    /// Whether one more item may start with `in_flight` items still running: no when the
    /// spend plus what they and it are expected to cost (the mean of the items that paid so
    /// far) would pass the budget. Before any item paid, one item runs at a time. Once no,
    /// always no: `Some({ code, message })`.
    pub(super) fn check(&mut self, in_flight: u64) -> Option<Value> {
        if self.exhausted.is_none() {
            let per_item =
                (self.paying_items > 0).then(|| self.paid_by_them / self.paying_items as f64);
            let over = match per_item {
                Some(p) => self.spent + p * (in_flight + 1) as f64 > self.max_cost,
                None => self.spent >= self.max_cost,
            };
            if over {
                self.exhausted = Some(format!(
                    "stopped by the budget: the judge spend is ${} of maxCost ${}{}; the items not started are recorded as OXEVAL_BUDGET_EXHAUSTED; a rerun with the same cache pays only for them",
                    money(self.spent),
                    num(self.max_cost),
                    per_item.map_or(String::new(), |p| format!(" and an item costs about ${}", money(p)))
                ));
            } else if per_item.is_none() && in_flight > 0 {
                return Some(json!({ "wait": true }));
            }
        }
        self.exhausted
            .as_ref()
            .map(|m| json!({ "code": "OXEVAL_BUDGET_EXHAUSTED", "message": m }))
    }

    /// The summary's `budget`: `{ maxCost, spent, notStarted, exhausted? }`.
    pub(super) fn summary(&self) -> Value {
        let mut b =
            json!({ "maxCost": self.max_cost, "spent": self.spent, "notStarted": self.skipped });
        if let Some(m) = self.exhausted() {
            b["exhausted"] = json!(m);
        }
        b
    }

    /// Why the run fails for its budget: some item was not started for it.
    pub(super) fn exhausted(&self) -> Option<String> {
        let m = self.exhausted.as_ref().filter(|_| self.skipped > 0)?;
        let n = self.skipped;
        Some(format!(
            "{m} ({n} item{} not started)",
            if n == 1 { "" } else { "s" }
        ))
    }
}

/// Dollars as a person reads them: 4 significant decimals for small sums.
fn money(x: f64) -> String {
    if x >= 1.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.4}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(max: f64, prices: Value, scorers: Value) -> Result<Option<Budget>, InvalidArgument> {
        Budget::from_config(&json!({ "maxCost": max, "prices": prices, "scorers": scorers }))
    }

    fn item(input: u64, output: u64, extra: Value) -> Value {
        let mut e = json!({ "modelCallCount": 1, "model": "openai/gpt-4o-mini", "usage": { "inputTokens": input, "outputTokens": output } });
        if let (Value::Object(e), Value::Object(x)) = (&mut e, extra) {
            e.extend(x);
        }
        json!({ "index": 0, "runs": { "s": [{ "score": 1, "judge": { "analyze": { "executions": [e] } } }] } })
    }

    #[test]
    fn no_price_is_an_error_before_the_run() {
        let e = budget(
            1.0,
            Value::Null,
            json!([{ "id": "s", "model": "openai/scripted-judge" }]),
        )
        .unwrap_err();
        assert!(
            e.message.contains("\"s\"")
                && e.message.contains("openai/scripted-judge")
                && e.message.contains("no price"),
            "{}",
            e.message
        );
        assert!(budget(
            1.0,
            json!({ "in": 1, "out": 2 }),
            json!([{ "id": "s", "model": "openai/scripted-judge" }])
        )
        .unwrap()
        .is_some());
        assert!(budget(
            1.0,
            Value::Null,
            json!([{ "id": "s", "model": "openai/gpt-4o-mini" }, { "id": "c" }])
        )
        .unwrap()
        .is_some());
        for bad in [json!(0), json!(-1), json!("1"), json!(true)] {
            assert!(
                Budget::from_config(&json!({ "maxCost": bad })).is_err(),
                "{bad}"
            );
        }
        assert!(Budget::from_config(&json!({})).unwrap().is_none());
    }

    #[test]
    fn arithmetic_table() {
        // gpt-4o-mini: 0.15 in, 0.6 out per 1M; batch half; a cache hit free
        let cases: &[(Value, f64)] = &[
            (json!({}), 1_000_000.0 * 0.15 / 1e6 + 100_000.0 * 0.6 / 1e6),
            (json!({ "batch": "batch_1" }), (0.15 + 0.06) / 2.0),
            (json!({ "cached": true }), 0.0),
            (json!({ "model": "openai/gpt-4o" }), 2.5 + 1.0),
        ];
        for (extra, want) in cases {
            let mut b = budget(100.0, Value::Null, json!([])).unwrap().unwrap();
            b.add(&item(1_000_000, 100_000, extra.clone()));
            assert!(
                (b.spent - want).abs() < 1e-9,
                "{extra}: {} vs {want}",
                b.spent
            );
        }
    }

    #[test]
    fn stops_when_the_next_items_would_pass_the_budget() {
        // each item 0.21 (1M in + 100k out of gpt-4o-mini)
        let mut b = budget(1.0, Value::Null, json!([])).unwrap().unwrap();
        assert_eq!(b.check(0), None, "the first item starts");
        assert_eq!(
            b.check(1),
            Some(json!({ "wait": true })),
            "one at a time until one paid"
        );
        b.add(&item(1_000_000, 100_000, json!({})));
        assert_eq!(b.check(2), None, "0.21 + 3 × 0.21 = 0.84 ≤ 1");
        let stop = b.check(4).expect("0.21 + 5 × 0.21 > 1");
        assert_eq!(stop["code"], "OXEVAL_BUDGET_EXHAUSTED");
        assert!(
            stop["message"]
                .as_str()
                .unwrap()
                .contains("$0.2100 of maxCost $1"),
            "{stop}"
        );
        assert!(b.check(0).is_some(), "sticky");
        // a cached item pays nothing and does not lower the projection
        let mut c = budget(0.5, Value::Null, json!([])).unwrap().unwrap();
        c.add(&item(1_000_000, 100_000, json!({})));
        for _ in 0..10 {
            c.add(&item(1_000_000, 100_000, json!({ "cached": true })));
        }
        assert!(c.check(1).is_some(), "0.21 + 2 × 0.21 > 0.5");
        assert!((c.summary()["spent"].as_f64().unwrap() - 0.21).abs() < 1e-9);
        assert!(
            c.exhausted().is_none(),
            "no item was refused yet: the run does not fail"
        );
        c.add(&json!({ "index": 9, "targetError": { "code": "OXEVAL_BUDGET_EXHAUSTED" }, "runs": {} }));
        assert!(c.exhausted().unwrap().ends_with("(1 item not started)"));
        assert_eq!(c.summary()["notStarted"], 1);
    }

    #[test]
    fn an_unpriced_call_exhausts_the_budget() {
        let mut b = budget(1.0, Value::Null, json!([])).unwrap().unwrap();
        b.add(&item(10, 10, json!({ "model": "custom/function" })));
        let m = b.check(0).unwrap();
        assert!(
            m["message"]
                .as_str()
                .unwrap()
                .contains("custom/function has no price"),
            "{m}"
        );
    }
}
