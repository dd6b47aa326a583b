//! The dataset accumulator behind `runEvals`, the CLI and `merge` (oxeval_core::evals).

use crate::error::{invalid_outcome, panic_outcome};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use oxeval_core::evals::EvalAccumulator;
use oxeval_core::InvalidArgument;
use serde_json::{json, Value};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

#[napi]
pub struct NativeEvalAccumulator {
    inner: Mutex<EvalAccumulator>,
}

fn parse(text: &str, what: &str) -> std::result::Result<Value, InvalidArgument> {
    serde_json::from_str(text)
        .map_err(|e| InvalidArgument::options(format!("{what} is not valid JSON text: {e}")))
}

/// Run `f`, turning an `InvalidArgument` or a panic into a `{ ok: false, … }` outcome and a
/// value into `{ ok: true, value }`.
fn guarded(f: impl FnOnce() -> std::result::Result<Value, InvalidArgument>) -> Value {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(value)) => json!({ "ok": true, "value": value }),
        Ok(Err(e)) => invalid_outcome(e),
        Err(panic) => panic_outcome(None, panic),
    }
}

/// A new accumulator for `{ scorers: [{ id, threshold?, direction?, scale? }], gates?, trials?,
/// maxErrors?, minCoverage?, gatePassRate?, partial?, stopEarly? }`, or
/// a `{ ok: false, kind: 'type' }` outcome naming what is wrong.
#[napi(ts_return_type = "NativeEvalAccumulator | Record<string, unknown>")]
pub fn create_eval_accumulator(config: String) -> Either<NativeEvalAccumulator, Value> {
    let made = catch_unwind(AssertUnwindSafe(|| {
        EvalAccumulator::new(&parse(&config, "the runEvals configuration")?)
    }));
    match made {
        Ok(Ok(a)) => Either::A(NativeEvalAccumulator {
            inner: Mutex::new(a),
        }),
        Ok(Err(e)) => Either::B(invalid_outcome(e)),
        Err(panic) => Either::B(panic_outcome(None, panic)),
    }
}

#[napi]
impl NativeEvalAccumulator {
    /// Add one item (`{ index, targetError?, runs: { [id]: [{ score?, judge? }] } }` as JSON
    /// text) → `{ ok, value: { trials, failed } }` as JSON text (called once per item: JSON
    /// text and `JSON.parse` cost a fraction of building the object through N-API).
    #[napi]
    pub fn add(&self, item: String) -> String {
        guarded(|| {
            let v = parse(&item, "an eval item")?;
            let mut a = self.inner.lock().unwrap_or_else(|p| p.into_inner());
            a.add_item(&v)
        })
        .to_string()
    }

    /// Check an item's labels (`{ index, expected? }` as JSON text) before its scorers run →
    /// `{ ok, value: null }`, or the TypeError outcome naming the item and the label.
    #[napi(ts_return_type = "Record<string, unknown>")]
    pub fn check_labels(&self, item: String) -> Value {
        guarded(|| {
            let v = parse(&item, "an eval item")?;
            let a = self.inner.lock().unwrap_or_else(|p| p.into_inner());
            a.check_labels(&v).map(|()| Value::Null)
        })
    }

    /// The plan of one data item (`oxeval_core::evals` plan.rs: the facade's description of
    /// the item as JSON text) → `{ ok, value: { mode, turns?, invalid? } }`, or the TypeError
    /// outcome naming the item and the field.
    #[napi(ts_return_type = "Record<string, unknown>")]
    pub fn plan_item(&self, desc: String) -> Value {
        guarded(|| {
            let v = parse(&desc, "a data item's description")?;
            let mut a = self.inner.lock().unwrap_or_else(|p| p.into_inner());
            a.plan_item(&v)
        })
    }

    /// Whether one more item may start with `inFlight` items running (the core's budget,
    /// `maxCost`) → `null`, `{ wait: true }` or `{ code: 'OXEVAL_BUDGET_EXHAUSTED', message }`.
    #[napi(ts_return_type = "Record<string, unknown> | null")]
    pub fn budget(&self, in_flight: u32) -> Value {
        let mut a = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        a.budget(u64::from(in_flight))
    }

    /// Which scorers and gates receive the trajectory → `{ trajectory: [ids] }`.
    #[napi(ts_return_type = "Record<string, unknown>")]
    pub fn routes(&self) -> Value {
        let a = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        a.routes()
    }

    /// The run summary so far, with its outcome → `{ ok, value }`. `end`: JSON text
    /// `{ aborted?, unfinished? }` from the runner (absent: a run that finished).
    #[napi(ts_return_type = "Record<string, unknown>")]
    pub fn summary(&self, end: Option<String>) -> Value {
        guarded(|| {
            let end = match end {
                Some(t) => parse(&t, "the end of the run")?,
                None => Value::Null,
            };
            let a = self.inner.lock().unwrap_or_else(|p| p.into_inner());
            Ok(a.summary(&end))
        })
    }
}

/// The trajectory a trajectory scorer or gate of runEvals receives for an output (JSON text;
/// `oxeval_core::agent::routed_trajectory`) → `{ ok, value: { steps } }`, `{ ok, value: {
/// asIs: true } }` (the output is a trajectory already), or the TypeError outcome.
#[napi(catch_unwind, ts_return_type = "Record<string, unknown>")]
pub fn eval_trajectory(output: String) -> Value {
    guarded(|| {
        let v = parse(&output, "the output")?;
        match oxeval_core::agent::routed_trajectory(&v) {
            Ok(Some(steps)) => Ok(json!({ "steps": steps })),
            Ok(None) => Ok(json!({ "asIs": true })),
            Err(m) => Err(InvalidArgument::input(format!(
                "the trajectory cannot be extracted from the output: {}",
                m.replacen("run.output", "the output", 1)
            ))),
        }
    })
}

/// One turn's output as messages, for a conversation's accumulated output (JSON text;
/// `oxeval_core::agent::output_messages`: a text → one assistant message, `{ messages }` and a
/// message object → their messages) → `{ ok, value: [messages] }`, or the TypeError outcome
/// for an output that is no message.
#[napi(catch_unwind, ts_return_type = "Record<string, unknown>")]
pub fn eval_turn_messages(output: String) -> Value {
    guarded(|| {
        let v = parse(&output, "the output")?;
        oxeval_core::agent::output_messages(&v)
            .map(|m| Value::Array(m.into_owned()))
            .map_err(InvalidArgument::input)
    })
}

/// `oxeval compare`'s statistics (see `oxeval_core::compare`): JSON text in, `{ ok, value }`
/// or a `{ ok: false, kind: 'type' }` outcome out.
#[napi(catch_unwind, ts_return_type = "Record<string, any>")]
pub fn compare_scores(input: String) -> Value {
    guarded(|| oxeval_core::compare::compare_json(&parse(&input, "the comparison")?))
}

/// The price of a judge model (`provider/model`) over `prices` (runEvals' `prices` as JSON
/// text, or none): `{ ok, value: { input, output, batchDiscount } | null, date }` (`null`: no
/// price; `date`: the shipped table's), or the TypeError outcome for bad `prices`.
#[napi(catch_unwind, ts_return_type = "Record<string, unknown>")]
pub fn judge_price(model: String, prices: Option<String>) -> Value {
    let mut out = guarded(|| {
        let p = match prices {
            Some(t) => Some(parse(&t, "prices")?),
            None => None,
        };
        let table = oxeval_core::pricing::Prices::from_config(p.as_ref())?;
        Ok(table.lookup(&model).map_or(
            Value::Null,
            |p| json!({ "input": p.input, "output": p.output, "batchDiscount": p.batch_discount }),
        ))
    });
    out["date"] = json!(oxeval_core::pricing::table_date());
    out
}

/// Tokens of `text` as the estimate counts them for a judge model (`provider/model`):
/// `{ tokenizer: 'o200k_base' | 'cl100k_base' | 'chars/4', tokens }` (docs/cost.md).
#[napi(catch_unwind, ts_return_type = "{ tokenizer: string; tokens: number }")]
pub fn count_tokens(model: String, text: String) -> Value {
    let (provider, name) = model.split_once('/').unwrap_or(("", model.as_str()));
    let tokenizer = oxeval_core::engine::estimate::tokenizer_for(provider, name);
    json!({ "tokenizer": tokenizer, "tokens": oxeval_core::engine::estimate::count(tokenizer, &text) })
}
