//! The scorer run input (`ScorerRun`) as received from JavaScript.

use crate::engine::estimate::EstimateMode;
use crate::error::{type_name, InvalidArgument};
use serde_json::{json, Value};
use std::time::Duration;

#[derive(Debug, Clone)]
pub struct RunInput {
    pub run_id: String,
    pub input: Option<Value>,
    pub output: Value,
    pub ground_truth: Option<Value>,
    /// The rest of the run object: its scorer-specific keys such as `context` or
    /// `expectedTrajectory` (`input`, `output` and `groundTruth` are the fields above).
    pub raw: Value,
}

/// Largest run accepted, as JSON text: far beyond any judge's context window.
pub const MAX_RUN_BYTES: usize = 4 * 1024 * 1024;

/// Longest run option `itemId`, in characters.
pub const MAX_ITEM_ID_CHARS: usize = 256;

/// The default bound of ONE call of a user callback: `contextExtractor`, a function option
/// the core calls mid-run (e.g. hallucination's `getContext`), and runEvals'
/// `onItemComplete`. A callback that has not settled by then fails (it is never waited for
/// forever). Run option / runEvals option `callbackTimeoutMs` changes it; `Infinity` (or
/// anything above [`MAX_TIMER_MS`]) removes it.
pub const DEFAULT_CALLBACK_TIMEOUT_MS: f64 = 60_000.0;

/// After `abort()`, how long runEvals waits for the `onItemComplete` calls of items that
/// finished (in flight or queued) before it resolves. Nothing else is waited for: a target,
/// data source or scorer that ignores the signal is cut off at once.
pub const ABORT_GRACE_MS: f64 = 1_000.0;

/// The longest bound a JS timer can carry (2^31 - 1 ms, about 24.8 days; a longer
/// `setTimeout` fires at once). A longer bound is no bound.
pub const MAX_TIMER_MS: f64 = 2_147_483_647.0;

/// A bound in milliseconds as an option gives it: absent or `null` → `Ok(None)` (the
/// default applies); a positive number → `Ok(Some(Some(ms)))`; `Infinity` (sent by the facade
/// as `{ jsType: 'number', nonFinite: 'Infinity' }`) or more than [`MAX_TIMER_MS`] →
/// `Ok(Some(None))`: no bound. Anything else: the message for `path`.
pub fn bound_ms(value: Option<&Value>, path: &str) -> Result<Option<Option<f64>>, String> {
    let bad = |got: String| {
        format!("{path} must be a positive number of milliseconds (Infinity: no bound); got {got}")
    };
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => match n.as_f64() {
            Some(f) if f > 0.0 && f <= MAX_TIMER_MS => Ok(Some(Some(f))),
            Some(f) if f > MAX_TIMER_MS => Ok(Some(None)),
            _ => Err(bad(n.to_string())),
        },
        Some(Value::Object(o))
            if o.get("nonFinite").and_then(Value::as_str) == Some("Infinity") =>
        {
            Ok(Some(None))
        }
        Some(Value::Object(o)) => Err(bad(o
            .get("nonFinite")
            .or_else(|| o.get("jsType"))
            .and_then(Value::as_str)
            .unwrap_or("object")
            .to_string())),
        Some(Value::String(s)) => Err(bad(format!("the string {s:?}"))),
        Some(other) => Err(bad(type_name(other).to_string())),
    }
}

/// The bounds runEvals applies to the user code it calls, from its options
/// (`callbackTimeoutMs`, `targetTimeoutMs`; `null` = no bound):
/// `{ callbackTimeoutMs, targetTimeoutMs, abortGraceMs }`.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EvalBounds {
    /// One `onItemComplete` call (and, passed on as the run option, every scorer callback).
    pub callback_timeout_ms: Option<f64>,
    /// Whether the user set `callbackTimeoutMs` (then it is passed on to each scorer run).
    pub callback_timeout_set: bool,
    /// One item's target call; none by default.
    pub target_timeout_ms: Option<f64>,
    /// See [`ABORT_GRACE_MS`].
    pub abort_grace_ms: f64,
}

impl EvalBounds {
    /// Read runEvals' `{ callbackTimeoutMs?, targetTimeoutMs? }` (described as data: a
    /// non-finite number is `{ jsType, nonFinite }`).
    pub fn from_options(options: &Value) -> Result<EvalBounds, InvalidArgument> {
        let callback = bound_ms(options.get("callbackTimeoutMs"), "callbackTimeoutMs")
            .map_err(InvalidArgument::options)?;
        let target = bound_ms(options.get("targetTimeoutMs"), "targetTimeoutMs")
            .map_err(InvalidArgument::options)?;
        Ok(EvalBounds {
            callback_timeout_ms: callback.unwrap_or(Some(DEFAULT_CALLBACK_TIMEOUT_MS)),
            callback_timeout_set: callback.is_some(),
            target_timeout_ms: target.flatten(),
            abort_grace_ms: ABORT_GRACE_MS,
        })
    }
}

impl RunInput {
    /// Parse and validate a run sent as JSON text (what the JS facade sends).
    pub fn from_json(text: &str) -> Result<Self, InvalidArgument> {
        if text.len() > MAX_RUN_BYTES {
            return Err(InvalidArgument::input(format!(
                "the run is {:.1} MB as JSON; the limit is {} MB (no judge's context window can take more)",
                text.len() as f64 / 1_048_576.0,
                MAX_RUN_BYTES / 1_048_576
            )));
        }
        let value: Value = serde_json::from_str(text).map_err(|e| {
            if e.to_string().contains("recursion limit") {
                InvalidArgument::input(
                    "the run is nested too deeply (more than 128 levels of objects/arrays)",
                )
            } else {
                InvalidArgument::input(format!("the run is not valid JSON text: {e}"))
            }
        })?;
        Self::from_value(value)
    }

    /// The run's identity for the response cache when the host names no item (run option
    /// `itemId`): `input:<digest>` of the run's input (the question: stable while the output
    /// under test changes), or `output:<digest>` when it has none. The first 12 hex digits
    /// of a SHA-256 of the JSON text.
    pub fn item_digest(&self) -> String {
        use sha2::{Digest, Sha256};
        let (what, v) = match &self.input {
            Some(v) => ("input", v),
            None => ("output", &self.output),
        };
        let text = serde_json::to_string(v).unwrap_or_default();
        let d = Sha256::digest(text.as_bytes());
        let hex: String = d.iter().take(6).map(|b| format!("{b:02x}")).collect();
        format!("{what}:{hex}")
    }

    /// Validate the shape of `run`. `runId` defaults to a fresh UUID v4. `input`, `output`
    /// and `groundTruth` move out of `raw` into their fields (no copy of the run is made:
    /// `raw` keeps the scorer-specific keys such as `context` or `expectedTrajectory`).
    pub fn from_value(mut raw: Value) -> Result<Self, InvalidArgument> {
        let Value::Object(map) = &mut raw else {
            return Err(InvalidArgument::input(format!(
                "scorer.run() expects an object like {{ input, output, groundTruth? }}; got {}",
                type_name(&raw)
            )));
        };
        let run_id = match map.get("runId") {
            None | Some(Value::Null) => uuid::Uuid::new_v4().to_string(),
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            Some(other) => {
                return Err(InvalidArgument::input(format!(
                    "run.runId must be a non-empty string; got {}",
                    type_name(other)
                )))
            }
        };
        match map.get("output") {
            None | Some(Value::Null) => {
                return Err(InvalidArgument::input(
                    "run.output is required: the agent output to score (a string, a message, or an array of messages)",
                ))
            }
            Some(Value::String(_) | Value::Array(_) | Value::Object(_)) => {}
            Some(other) => {
                return Err(InvalidArgument::input(format!(
                    "run.output must be a string, a message object or an array of messages; got {}",
                    type_name(other)
                )))
            }
        }
        if let Some(v @ (Value::Number(_) | Value::Bool(_))) = map.get("input") {
            return Err(InvalidArgument::input(format!(
                "run.input must be a string, a message object or an array of messages; got {}",
                type_name(v)
            )));
        }
        let mut take = |key: &str| map.shift_remove(key).filter(|v| !v.is_null());
        let output = take("output").unwrap_or_default();
        let input = take("input");
        let ground_truth = take("groundTruth");
        Ok(RunInput {
            run_id,
            input,
            output,
            ground_truth,
            raw,
        })
    }
}

/// `scorer.run()`'s second argument, described as data by the JS facade (an AbortSignal
/// cannot cross into Rust): `{ type, deadlineMs, signal, data }` where `type` is the JS type
/// of the options value, `signal` is `absent`, `AbortSignal`, `AbortSignal:aborted` or the JS
/// type of whatever was passed, and `data` holds every other option as it was passed (a
/// string, finite number, boolean or null), or `{ jsType }` for a value JSON cannot carry.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RunOptionsDescriptor {
    #[serde(rename = "type")]
    pub kind: String,
    pub deadline_ms: Option<Value>,
    pub signal: String,
    pub data: serde_json::Map<String, Value>,
    /// The host's key of this run: its host calls carry it (the facade finds the run's
    /// signal, `requestContext` and objects by it). `None`: the run's id.
    pub run_key: Option<String>,
}

/// A run accepted at `scorer.run()`: its input, its deadline, which starts now, before
/// any user callback (`contextExtractor`) runs, and the data item it scores.
#[derive(Debug, Clone)]
pub struct StartedRun {
    pub input: RunInput,
    pub deadline: Option<tokio::time::Instant>,
    /// Run option `itemId`: the data item (and trial) this run scores, as the eval runner
    /// names it; the response cache's locator (see [`RunInput::item_digest`] without it).
    pub item_id: Option<String>,
    /// The bound of one user callback call (run option `callbackTimeoutMs`, default
    /// [`DEFAULT_CALLBACK_TIMEOUT_MS`]); `None`: no bound.
    pub callback_timeout: Option<Duration>,
    /// Run option `trial`: which trial of the item this run is (1 = the first; runEvals'
    /// `trials`). A later trial is its own judge request (its own cache key and batch line),
    /// so that N trials are N samples.
    pub trial: u32,
    /// Run option `estimate` (`'minimal'` | `'typical'`): the run's judge requests are counted
    /// and answered by the estimating judge, never sent (engine/estimate.rs).
    pub estimate: Option<EstimateMode>,
}

/// Why a run could not start.
#[derive(Debug, Clone)]
pub enum StartError {
    Invalid(InvalidArgument),
    /// The signal had already fired.
    AbortedBeforeStart,
}

impl StartedRun {
    /// Check the run options and the run, and start the deadline. `run_json` is the run as
    /// JSON text, or the reason it could not be serialized (cyclic, BigInt, …).
    pub fn start(
        run_json: Result<&str, &str>,
        options: &RunOptionsDescriptor,
    ) -> Result<StartedRun, StartError> {
        let invalid = |m: String| StartError::Invalid(InvalidArgument::input(m));
        if !matches!(options.kind.as_str(), "" | "undefined" | "object") {
            return Err(invalid(format!(
                "scorer.run() options must be an object like {{ signal, deadlineMs, itemId }}; got {}",
                options.kind
            )));
        }
        match options.signal.as_str() {
            "" | "absent" | "AbortSignal" | "AbortSignal:aborted" => {}
            other => {
                return Err(invalid(format!(
                    "run options.signal must be an AbortSignal (e.g. AbortSignal.timeout(ms) or new AbortController().signal); got {other}"
                )))
            }
        }
        let deadline_ms = match &options.deadline_ms {
            None | Some(Value::Null) => None,
            Some(Value::Number(n)) if n.as_f64().is_some_and(|f| f > 0.0) => n.as_f64(),
            Some(_) => {
                return Err(invalid(
                    "run options.deadlineMs must be a positive number of milliseconds".into(),
                ))
            }
        };
        let item_id = match options.data.get("itemId") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.is_empty() => {
                return Err(invalid(
                    "run options.itemId must be a non-empty string; got an empty string".into(),
                ))
            }
            Some(Value::String(s)) if s.chars().count() > MAX_ITEM_ID_CHARS => {
                return Err(invalid(format!(
                    "run options.itemId must be at most {MAX_ITEM_ID_CHARS} characters; got {}",
                    s.chars().count()
                )))
            }
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                let got = other
                    .get("jsType")
                    .and_then(Value::as_str)
                    .unwrap_or_else(|| type_name(other));
                return Err(invalid(format!(
                    "run options.itemId must be a string naming the data item (e.g. its id, or 'q-17#2' for a trial); got {got}"
                )));
            }
        };
        let callback_timeout = bound_ms(
            options.data.get("callbackTimeoutMs"),
            "run options.callbackTimeoutMs",
        )
        .map_err(invalid)?
        .unwrap_or(Some(DEFAULT_CALLBACK_TIMEOUT_MS))
        .map(|ms| Duration::from_secs_f64(ms / 1000.0));
        let trial = match options.data.get("trial") {
            None | Some(Value::Null) => 1,
            Some(Value::Number(n))
                if n.as_u64().is_some_and(|t| (1..=u64::from(u32::MAX)).contains(&t)) =>
            {
                n.as_u64().map_or(1, |t| t as u32)
            }
            Some(other) => {
                return Err(invalid(format!(
                    "run options.trial must be an integer ≥ 1 (which trial of the item this run is); got {}",
                    other
                        .get("jsType")
                        .and_then(Value::as_str)
                        .map_or_else(|| other.to_string(), str::to_owned)
                )))
            }
        };
        let estimate = match options.data.get("estimate") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if EstimateMode::parse(s).is_some() => EstimateMode::parse(s),
            Some(other) => {
                return Err(invalid(format!(
                    "run options.estimate must be 'minimal' or 'typical'; got {other}"
                )))
            }
        };
        if options.signal == "AbortSignal:aborted" {
            return Err(StartError::AbortedBeforeStart);
        }
        let text = run_json.map_err(|why| {
            invalid(format!(
                "scorer.run() input must be plain JSON-serializable data ({why})"
            ))
        })?;
        let input = RunInput::from_json(text).map_err(StartError::Invalid)?;
        // an absurdly large deadline (1e30 ms) means no deadline, never a panic
        let deadline = deadline_ms
            .and_then(|ms| std::time::Duration::try_from_secs_f64(ms / 1000.0).ok())
            .and_then(|d| tokio::time::Instant::now().checked_add(d));
        Ok(StartedRun {
            input,
            deadline,
            item_id,
            callback_timeout,
            trial,
            estimate,
        })
    }

    /// Milliseconds left before the deadline (`None`: no deadline).
    pub fn remaining_ms(&self) -> Option<f64> {
        self.deadline.map(|d| {
            d.saturating_duration_since(tokio::time::Instant::now())
                .as_secs_f64()
                * 1000.0
        })
    }
}

/// What a callback that did not settle within its bound is told: it names the callback and
/// the option that sets the bound.
pub fn callback_timeout_message(name: &str, bound: Option<Duration>) -> String {
    let ms = bound
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or(f64::INFINITY);
    format!(
        "{name} did not settle within {ms} ms (the bound of one user callback call: run option callbackTimeoutMs, default {DEFAULT_CALLBACK_TIMEOUT_MS} ms)"
    )
}

/// [`EvalBounds::from_options`] as the facade calls it: JSON text in, `{ ok, value }` or
/// `{ ok: false, code, message }` out.
pub fn eval_bounds_json(options: &str) -> Value {
    let parsed: Value = serde_json::from_str(options).unwrap_or(Value::Null);
    match EvalBounds::from_options(&parsed) {
        Ok(b) => json!({ "ok": true, "value": b }),
        Err(e) => json!({ "ok": false, "code": e.code.as_str(), "message": e.message }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_limits() {
        let big = format!(
            "{{\"input\":\"q\",\"output\":\"{}\"}}",
            "a".repeat(MAX_RUN_BYTES)
        );
        assert!(RunInput::from_json(&big)
            .unwrap_err()
            .message
            .contains("the limit is 4 MB"));
        let deep = format!(
            "{{\"output\":\"a\",\"x\":{}{}}}",
            "[".repeat(200),
            "]".repeat(200)
        );
        assert!(RunInput::from_json(&deep)
            .unwrap_err()
            .message
            .contains("nested too deeply"));
        assert!(RunInput::from_json("{")
            .unwrap_err()
            .message
            .contains("not valid JSON"));
        assert!(RunInput::from_json(r#"{"output":"a"}"#).is_ok());
    }

    #[test]
    fn start_checks_options_then_the_run() {
        let opts = |v: Value| serde_json::from_value::<RunOptionsDescriptor>(v).unwrap();
        let ok = StartedRun::start(Ok(r#"{"output":"a"}"#), &opts(json!({}))).unwrap();
        assert!(ok.deadline.is_none() && ok.remaining_ms().is_none());
        let d =
            StartedRun::start(Ok(r#"{"output":"a"}"#), &opts(json!({"deadlineMs": 500}))).unwrap();
        assert!(d.remaining_ms().unwrap() <= 500.0);
        let huge =
            StartedRun::start(Ok(r#"{"output":"a"}"#), &opts(json!({"deadlineMs": 1e30}))).unwrap();
        assert!(huge.deadline.is_none());
        let msg = |r: Result<StartedRun, StartError>| match r {
            Err(StartError::Invalid(e)) => e.message,
            other => panic!("{other:?}"),
        };
        assert!(msg(StartedRun::start(
            Ok("{}"),
            &opts(json!({"type": "number"}))
        ))
        .contains("options must be an object"));
        assert!(msg(StartedRun::start(
            Ok("{}"),
            &opts(json!({"signal": "object"}))
        ))
        .contains("must be an AbortSignal"));
        assert!(msg(StartedRun::start(
            Ok("{}"),
            &opts(json!({"deadlineMs": -1}))
        ))
        .contains("positive number"));
        for (bad, want) in [
            (
                json!({"itemId": 7}),
                "itemId must be a string naming the data item",
            ),
            (json!({"itemId": {"jsType": "function"}}), "got function"),
            (json!({"itemId": ""}), "got an empty string"),
            (
                json!({"itemId": "x".repeat(257)}),
                "at most 256 characters; got 257",
            ),
            (json!({"trial": 0}), "trial must be an integer ≥ 1"),
            (json!({"trial": 1.5}), "trial must be an integer ≥ 1"),
            (json!({"trial": {"jsType": "bigint"}}), "got bigint"),
            (
                json!({"estimate": "cheap"}),
                "estimate must be 'minimal' or 'typical'",
            ),
        ] {
            let m = msg(StartedRun::start(
                Ok(r#"{"output":"a"}"#),
                &opts(json!({ "data": bad })),
            ));
            assert!(m.contains(want), "{m}");
        }
        let named = StartedRun::start(
            Ok(r#"{"output":"a"}"#),
            &opts(json!({"data": {"itemId": "q-1#2", "other": true}})),
        )
        .unwrap();
        assert_eq!(named.item_id.as_deref(), Some("q-1#2"));
        assert_eq!(named.estimate, None);
        let estimating = StartedRun::start(
            Ok(r#"{"output":"a"}"#),
            &opts(json!({"data": {"estimate": "typical"}})),
        )
        .unwrap();
        assert_eq!(estimating.estimate, Some(EstimateMode::Typical));
        assert_eq!(ok.item_id, None);
        assert!(msg(StartedRun::start(Err("cyclic"), &opts(json!({}))))
            .contains("JSON-serializable data (cyclic)"));
        assert!(matches!(
            StartedRun::start(Ok("{}"), &opts(json!({"signal": "AbortSignal:aborted"}))),
            Err(StartError::AbortedBeforeStart)
        ));
    }

    #[test]
    fn callback_bounds() {
        let opts = |v: Value| serde_json::from_value::<RunOptionsDescriptor>(v).unwrap();
        let start = |v: Value| StartedRun::start(Ok(r#"{"output":"a"}"#), &opts(v));
        // the default bound, with no deadline
        let d = start(json!({})).unwrap();
        assert_eq!(d.callback_timeout, Some(Duration::from_secs(60)));
        // a configured bound
        let c = start(json!({"data": {"callbackTimeoutMs": 50}})).unwrap();
        assert_eq!(c.callback_timeout, Some(Duration::from_millis(50)));
        // Infinity (and past a JS timer's range): no bound
        for v in [
            json!({"jsType": "number", "nonFinite": "Infinity"}),
            json!(1e12),
        ] {
            let u = start(json!({"data": {"callbackTimeoutMs": v}})).unwrap();
            assert_eq!(u.callback_timeout, None);
        }
        for (bad, want) in [
            (json!(0), "got 0"),
            (json!(-5), "got -5"),
            (json!("100"), "got the string \"100\""),
            (json!({"jsType": "number", "nonFinite": "NaN"}), "got NaN"),
            (json!({"jsType": "function"}), "got function"),
            (json!(true), "got boolean"),
        ] {
            let Err(StartError::Invalid(e)) = start(json!({"data": {"callbackTimeoutMs": bad}}))
            else {
                panic!("{bad} accepted")
            };
            assert!(
                e.message.starts_with(
                    "run options.callbackTimeoutMs must be a positive number of milliseconds"
                ) && e.message.ends_with(want),
                "{}",
                e.message
            );
        }
    }

    #[test]
    fn eval_bounds() {
        assert_eq!(
            eval_bounds_json("{}"),
            json!({"ok": true, "value": {"callbackTimeoutMs": 60000.0, "callbackTimeoutSet": false, "targetTimeoutMs": null, "abortGraceMs": 1000.0}})
        );
        assert_eq!(
            eval_bounds_json(r#"{"callbackTimeoutMs": 25, "targetTimeoutMs": 300}"#)["value"],
            json!({"callbackTimeoutMs": 25.0, "callbackTimeoutSet": true, "targetTimeoutMs": 300.0, "abortGraceMs": 1000.0})
        );
        let inf = r#"{"callbackTimeoutMs": {"jsType": "number", "nonFinite": "Infinity"}, "targetTimeoutMs": null}"#;
        assert_eq!(
            eval_bounds_json(inf)["value"],
            json!({"callbackTimeoutMs": null, "callbackTimeoutSet": true, "targetTimeoutMs": null, "abortGraceMs": 1000.0})
        );
        let bad = eval_bounds_json(r#"{"targetTimeoutMs": -1}"#);
        assert_eq!(bad["ok"], json!(false));
        assert_eq!(bad["code"], json!("OXEVAL_INVALID_OPTIONS"));
        assert_eq!(
            bad["message"],
            json!("targetTimeoutMs must be a positive number of milliseconds (Infinity: no bound); got -1")
        );
        let bad =
            eval_bounds_json(r#"{"callbackTimeoutMs": {"jsType": "number", "nonFinite": "NaN"}}"#);
        assert!(bad["message"]
            .as_str()
            .unwrap()
            .starts_with("callbackTimeoutMs must be"));
    }

    #[test]
    fn shapes() {
        let r = RunInput::from_value(json!({"input": "q", "output": "a"})).unwrap();
        assert_eq!(r.run_id.len(), 36);
        assert_eq!(r.input, Some(json!("q")));
        let r = RunInput::from_value(json!({"runId": "r1", "output": [{"role": "assistant", "content": "x"}], "groundTruth": "g"})).unwrap();
        assert_eq!(r.run_id, "r1");
        assert_eq!(r.ground_truth, Some(json!("g")));
        // the item without an itemId: a digest of the input, else of the output
        let q = RunInput::from_value(json!({"input": "q", "output": "a"})).unwrap();
        let q2 = RunInput::from_value(json!({"input": "q", "output": "b"})).unwrap();
        assert_eq!(q.item_digest(), q2.item_digest());
        assert!(q.item_digest().starts_with("input:") && q.item_digest().len() == 18);
        let p = RunInput::from_value(json!({"input": "p", "output": "a"})).unwrap();
        assert_ne!(p.item_digest(), q.item_digest());
        assert!(r.item_digest().starts_with("output:"));
        for (bad, want) in [
            (json!("text"), "expects an object"),
            (json!({"input": "q"}), "run.output is required"),
            (json!({"output": null}), "run.output is required"),
            (json!({"output": 5}), "got number"),
            (json!({"output": "a", "runId": 7}), "runId must be"),
            (json!({"output": "a", "input": true}), "run.input must be"),
        ] {
            let e = RunInput::from_value(bad.clone()).unwrap_err();
            assert!(e.message.contains(want), "{bad}: {}", e.message);
        }
    }
}
