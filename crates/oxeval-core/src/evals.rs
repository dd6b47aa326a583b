//! Dataset aggregation for `runEvals`, the CLI and `merge`: per-scorer means, coverage,
//! errors, judge usage, statistics over items and over trials, thresholds and gates with
//! Mastra's verdict rules. Pure: the JS runner feeds it one item at a time
//! ([`EvalAccumulator::add_item`]) and asks for the [`EvalAccumulator::summary`].
//!
//! Decisions (see the README's runEvals section):
//! - An errored run never becomes a 0 or a NaN: an item is *scored* for a scorer when at least
//!   one of its trials produced a score; its item score is the mean of those trials. Failed
//!   runs are counted in `errors`, and `coverage` says how many items were scored.
//! - The mean of a scorer with no scored item is `null` (Mastra would report 0).
//! - Sums run in item-index order, whatever order the items completed in, so an unsharded run
//!   and a merge of its shards give bit-identical numbers.
//! - Thresholds compare the mean item score (Mastra's `checkThresholdPassed`); a threshold on a
//!   scorer with no scored item fails. Gates must average 1.0 over items; an errored gate run
//!   counts as 0 (a gate is a must-pass, an error is not a pass), as in Mastra.
//! - Verdict (present when gates or thresholds exist): any gate failed → `failed`; else any
//!   threshold failed → `scored`; else `passed`.
//! - Intervals: 95 % Student-t interval of the mean (`mean ± t(0.975, n−1) · s/√n`, `s` the
//!   sample standard deviation); `null` below two values.

use crate::error::{type_name, InvalidArgument};
use indexmap::IndexMap;
use serde::Serialize;
use serde_json::{json, Map, Value};
use statrs::distribution::{ContinuousCDF, StudentsT};

/// Largest `trials` accepted.
pub const MAX_TRIALS: u64 = 1000;

/// A scorer's pass/fail threshold: a number is a minimum; `{ min?, max? }` bounds.
#[derive(Debug, Clone, PartialEq)]
pub struct Threshold {
    pub min: Option<f64>,
    pub max: Option<f64>,
    /// As the user gave it (echoed in `thresholdResults`).
    pub raw: Value,
}

fn bound(v: &Value, label: &str, id: &str) -> Result<f64, InvalidArgument> {
    match v.as_f64() {
        Some(x) if x.is_finite() && (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(InvalidArgument::options(format!(
            "the {label} threshold of scorer \"{id}\" must be a finite number in [0, 1], got {}",
            describe(v)
        ))),
    }
}

fn describe(v: &Value) -> String {
    match v {
        Value::Number(n) => n.to_string(),
        Value::String(s) => format!("the string {s:?}"),
        other => format!("a value of type {}", type_name(other)),
    }
}

impl Threshold {
    /// Mastra's threshold rules: a number in [0, 1], or an object with at least one of
    /// `min`/`max` in [0, 1] and `min <= max`.
    pub fn parse(v: &Value, id: &str) -> Result<Threshold, InvalidArgument> {
        match v {
            Value::Number(_) | Value::String(_) => {
                let min = bound(v, "minimum", id)?;
                Ok(Threshold {
                    min: Some(min),
                    max: None,
                    raw: v.clone(),
                })
            }
            Value::Object(o) => {
                let get = |k: &str| o.get(k).filter(|v| !v.is_null());
                let min = get("min").map(|v| bound(v, "minimum", id)).transpose()?;
                let max = get("max").map(|v| bound(v, "maximum", id)).transpose()?;
                if min.is_none() && max.is_none() {
                    return Err(InvalidArgument::options(format!(
                        "the threshold of scorer \"{id}\" must give min, max or both"
                    )));
                }
                if let (Some(a), Some(b)) = (min, max) {
                    if a > b {
                        return Err(InvalidArgument::options(format!(
                            "the threshold of scorer \"{id}\" has min ({a}) above max ({b})"
                        )));
                    }
                }
                Ok(Threshold {
                    min,
                    max,
                    raw: v.clone(),
                })
            }
            other => Err(InvalidArgument::options(format!(
                "the threshold of scorer \"{id}\" must be a number or {{ min?, max? }}, got {}",
                describe(other)
            ))),
        }
    }

    /// Whether `score` passes (a non-finite score never does).
    pub fn passed(&self, score: f64) -> bool {
        score.is_finite()
            && self.min.is_none_or(|m| score >= m)
            && self.max.is_none_or(|m| score <= m)
    }
}

/// Mean, spread and interval of some scores.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stats {
    pub n: u64,
    pub mean: Option<f64>,
    pub std: Option<f64>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub ci95: Option<[f64; 2]>,
}

/// The two-sided 95 % Student-t critical value for `df` degrees of freedom.
pub fn t_critical(df: u64) -> f64 {
    match StudentsT::new(0.0, 1.0, df as f64) {
        Ok(t) => t.inverse_cdf(0.975),
        Err(_) => f64::NAN,
    }
}

/// Statistics of `xs`, summed in the given order.
pub fn stats(xs: &[f64]) -> Stats {
    let n = xs.len() as u64;
    if xs.is_empty() {
        return Stats {
            n,
            mean: None,
            std: None,
            min: None,
            max: None,
            ci95: None,
        };
    }
    let mean = xs.iter().sum::<f64>() / xs.len() as f64;
    let min = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let max = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (std, ci95) = if xs.len() >= 2 {
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (xs.len() - 1) as f64;
        let s = var.sqrt();
        let half = t_critical(n - 1) * s / (xs.len() as f64).sqrt();
        (Some(s), Some([mean - half, mean + half]))
    } else {
        (None, None)
    };
    Stats {
        n,
        mean: Some(mean),
        std,
        min: Some(min),
        max: Some(max),
        ci95,
    }
}

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
}

impl UsageTotals {
    /// Adds a totals object (as [`UsageTotals`] serializes).
    pub fn add_totals(&mut self, u: &Value) {
        let n = |k: &str| u.get(k).and_then(Value::as_f64).unwrap_or(0.0).max(0.0) as u64;
        self.calls += n("calls");
        self.input_tokens += n("inputTokens");
        self.output_tokens += n("outputTokens");
        self.total_tokens += n("totalTokens");
        self.reasoning_tokens += n("reasoningTokens");
        self.cached_input_tokens += n("cachedInputTokens");
    }

    fn add(&mut self, o: &UsageTotals) {
        self.calls += o.calls;
        self.input_tokens += o.input_tokens;
        self.output_tokens += o.output_tokens;
        self.total_tokens += o.total_tokens;
        self.reasoning_tokens += o.reasoning_tokens;
        self.cached_input_tokens += o.cached_input_tokens;
    }

    /// Adds every execution of a result's `judge` record (`{ step: { executions: [...] } }`):
    /// `modelCallCount` requests and each execution's `usage`.
    pub fn add_judge(&mut self, judge: &Value) {
        let Some(steps) = judge.as_object() else {
            return;
        };
        let n =
            |v: &Value, k: &str| v.get(k).and_then(Value::as_f64).unwrap_or(0.0).max(0.0) as u64;
        for step in steps.values() {
            for ex in step
                .get("executions")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                self.calls += n(ex, "modelCallCount");
                if let Some(u) = ex.get("usage") {
                    self.input_tokens += n(u, "inputTokens");
                    self.output_tokens += n(u, "outputTokens");
                    self.total_tokens += n(u, "totalTokens");
                    self.reasoning_tokens += n(u, "reasoningTokens");
                    self.cached_input_tokens += n(u, "cachedInputTokens");
                }
            }
        }
    }
}

#[derive(Debug, Clone)]
struct Tally {
    threshold: Option<Threshold>,
    gate: bool,
    /// (item index, item score): sorted by index at summary time.
    scores: Vec<(u64, f64)>,
    /// Gate item scores (errors as 0).
    gate_scores: Vec<(u64, f64)>,
    errors: u64,
    total: u64,
    usage: UsageTotals,
}

/// Accumulates per-item outcomes into a run summary.
#[derive(Debug, Clone)]
pub struct EvalAccumulator {
    scorers: IndexMap<String, Tally>,
    trials: u64,
    total_items: u64,
    failed_items: u64,
    seen: std::collections::HashSet<u64>,
}

fn id_of(v: &Value, at: &str) -> Result<String, InvalidArgument> {
    match v.get("id") {
        Some(Value::String(s)) if !s.is_empty() && s.len() <= 256 => Ok(s.clone()),
        Some(other) => Err(InvalidArgument::options(format!(
            "{at}.id must be a non-empty string of at most 256 characters, got {}",
            describe(other)
        ))),
        None => Err(InvalidArgument::options(format!(
            "{at} has no id (a scorer needs a string id)"
        ))),
    }
}

impl EvalAccumulator {
    /// `config`: `{ scorers: [{ id, threshold? }], gates?: [{ id }], trials? }`. Scorer ids
    /// must be unique across scorers and gates (results are keyed by id).
    pub fn new(config: &Value) -> Result<Self, InvalidArgument> {
        let trials = match config.get("trials") {
            None | Some(Value::Null) => 1,
            Some(v) => match v.as_f64() {
                Some(t) if t.fract() == 0.0 && t >= 1.0 && t <= MAX_TRIALS as f64 => t as u64,
                _ => {
                    return Err(InvalidArgument::options(format!(
                        "trials must be an integer in [1, {MAX_TRIALS}], got {}",
                        describe(v)
                    )))
                }
            },
        };
        let mut scorers = IndexMap::new();
        let lists = [("scorers", false), ("gates", true)];
        for (key, gate) in lists {
            let list = match config.get(key) {
                None | Some(Value::Null) => continue,
                Some(Value::Array(a)) => a,
                Some(other) => {
                    return Err(InvalidArgument::options(format!(
                        "{key} must be an array, got {}",
                        describe(other)
                    )))
                }
            };
            for (i, s) in list.iter().enumerate() {
                let at = format!("{key}[{i}]");
                let id = id_of(s, &at)?;
                let threshold = match s.get("threshold") {
                    None | Some(Value::Null) => None,
                    Some(t) if !gate => Some(Threshold::parse(t, &id)?),
                    Some(_) => {
                        return Err(InvalidArgument::options(format!(
                            "{at}: a gate has no threshold (it must score 1.0)"
                        )))
                    }
                };
                if scorers.contains_key(&id) {
                    return Err(InvalidArgument::options(format!(
                        "two scorers share the id \"{id}\" (results are keyed by id): give one of them another `id` option"
                    )));
                }
                scorers.insert(
                    id,
                    Tally {
                        threshold,
                        gate,
                        scores: Vec::new(),
                        gate_scores: Vec::new(),
                        errors: 0,
                        total: 0,
                        usage: UsageTotals::default(),
                    },
                );
            }
        }
        Ok(EvalAccumulator {
            scorers,
            trials,
            total_items: 0,
            failed_items: 0,
            seen: Default::default(),
        })
    }

    pub fn trials(&self) -> u64 {
        self.trials
    }

    /// One item: `{ index, targetError?: bool, runs: { [id]: [{ score?: number|null,
    /// judge?: object, usage?: UsageTotals }] } }` (one entry per trial; a missing or null
    /// score is a failed run; `judge` is a result's judge record, `usage` totals already
    /// summed, as a merge reads them back). A scorer missing from `runs` did not run for
    /// this item (its target failed): it counts in the item total, not as scored. Returns
    /// `{ trials, usage, failed }`: per-scorer trial statistics (only when `trials > 1`), the
    /// item's usage per scorer, and whether the item failed.
    pub fn add_item(&mut self, item: &Value) -> Result<Value, InvalidArgument> {
        let index = match item.get("index").and_then(Value::as_f64) {
            Some(i) if i >= 0.0 && i.fract() == 0.0 && i < 9.0e15 => i as u64,
            _ => {
                return Err(InvalidArgument::input(format!(
                    "an item's index must be a non-negative integer, got {}",
                    item.get("index").map_or("nothing".into(), describe)
                )))
            }
        };
        if !self.seen.insert(index) {
            return Err(InvalidArgument::input(format!(
                "item index {index} appears twice (shards overlap, or one file was given twice)"
            )));
        }
        let empty = Map::new();
        let runs = item
            .get("runs")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let mut failed = item
            .get("targetError")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let mut per_trial = Map::new();
        let mut item_usage = Map::new();
        self.total_items += 1;
        for (id, tally) in self.scorers.iter_mut() {
            tally.total += 1;
            let trials = runs.get(id).and_then(Value::as_array);
            let Some(trials) = trials else {
                failed = true;
                if tally.gate {
                    tally.gate_scores.push((index, 0.0));
                }
                continue;
            };
            let mut ok = Vec::with_capacity(trials.len());
            let mut all_scores = Vec::with_capacity(trials.len());
            let mut used = UsageTotals::default();
            for t in trials {
                if let Some(j) = t.get("judge") {
                    used.add_judge(j);
                }
                if let Some(u) = t.get("usage") {
                    used.add_totals(u);
                }
                match t
                    .get("score")
                    .and_then(Value::as_f64)
                    .filter(|s| s.is_finite())
                {
                    Some(s) => {
                        ok.push(s);
                        all_scores.push(json!(s));
                    }
                    None => {
                        tally.errors += 1;
                        failed = true;
                        all_scores.push(Value::Null);
                    }
                }
            }
            tally.usage.add(&used);
            item_usage.insert(id.clone(), serde_json::to_value(&used).unwrap_or_default());
            let st = stats(&ok);
            match st.mean {
                Some(m) => {
                    tally.scores.push((index, m));
                    if tally.gate {
                        tally.gate_scores.push((index, m));
                    }
                }
                None => {
                    if tally.gate {
                        tally.gate_scores.push((index, 0.0));
                    }
                }
            }
            if self.trials > 1 {
                let mut v = serde_json::to_value(&st).unwrap_or(Value::Null);
                if let Value::Object(o) = &mut v {
                    o.insert("scores".into(), Value::Array(all_scores));
                }
                per_trial.insert(id.clone(), v);
            }
        }
        if failed {
            self.failed_items += 1;
        }
        Ok(json!({ "trials": per_trial, "usage": item_usage, "failed": failed }))
    }

    /// The run summary (see the module docs): `scores`, `summary`, `errors`, `coverage`,
    /// `usage`, `stats`, `trials`, and `gateResults`/`thresholdResults`/`verdict` when
    /// gates or thresholds exist.
    pub fn summary(&self) -> Value {
        let mut scores = Map::new();
        let mut errors = Map::new();
        let mut coverage = Map::new();
        let mut usage = Map::new();
        let mut stats_out = Map::new();
        let mut gate_results = Vec::new();
        let mut threshold_results = Vec::new();
        let (mut gates_ok, mut thresholds_ok) = (true, true);
        let mut has_thresholds = false;
        for (id, t) in &self.scorers {
            let mut sorted = t.scores.clone();
            sorted.sort_by_key(|(i, _)| *i);
            let xs: Vec<f64> = sorted.iter().map(|(_, s)| *s).collect();
            let st = stats(&xs);
            errors.insert(id.clone(), json!(t.errors));
            coverage.insert(id.clone(), json!({ "scored": xs.len(), "total": t.total }));
            usage.insert(
                id.clone(),
                serde_json::to_value(&t.usage).unwrap_or_default(),
            );
            if t.gate {
                let mut g = t.gate_scores.clone();
                g.sort_by_key(|(i, _)| *i);
                let gs: Vec<f64> = g.iter().map(|(_, s)| *s).collect();
                let avg = stats(&gs).mean.unwrap_or(0.0);
                let passed = avg >= 1.0;
                gates_ok &= passed;
                gate_results.push(json!({ "id": id, "passed": passed, "score": avg }));
            } else {
                scores.insert(id.clone(), json!(st.mean));
                if let Some(th) = &t.threshold {
                    has_thresholds = true;
                    let passed = st.mean.is_some_and(|m| th.passed(m));
                    thresholds_ok &= passed;
                    threshold_results.push(json!({
                        "id": id, "passed": passed, "averageScore": st.mean, "threshold": th.raw,
                    }));
                }
            }
            stats_out.insert(id.clone(), serde_json::to_value(&st).unwrap_or_default());
        }
        let mut out = json!({
            "scores": scores,
            "summary": { "totalItems": self.total_items, "failedItems": self.failed_items },
            "errors": errors,
            "coverage": coverage,
            "usage": usage,
            "stats": stats_out,
            "trials": self.trials,
        });
        let has_gates = !gate_results.is_empty();
        if has_gates {
            out["gateResults"] = Value::Array(gate_results);
        }
        if has_thresholds {
            out["thresholdResults"] = Value::Array(threshold_results);
        }
        if has_gates || has_thresholds {
            out["verdict"] = json!(if !gates_ok {
                "failed"
            } else if !thresholds_ok {
                "scored"
            } else {
                "passed"
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn t_critical_values_match_the_table() {
        // two-sided 95 % (Student's table)
        for (df, t) in [
            (1, 12.706),
            (2, 4.303),
            (4, 2.776),
            (9, 2.262),
            (29, 2.045),
            (1000, 1.962),
        ] {
            assert!(
                (t_critical(df) - t).abs() < 1e-3,
                "df {df}: {}",
                t_critical(df)
            );
        }
    }

    #[test]
    fn stats_table() {
        let s = stats(&[]);
        assert_eq!((s.n, s.mean, s.std, s.ci95), (0, None, None, None));
        let s = stats(&[0.5]);
        assert_eq!((s.n, s.mean, s.std, s.ci95), (1, Some(0.5), None, None));
        let s = stats(&[1.0, 0.0]);
        assert!(close(s.mean.unwrap(), 0.5));
        assert!(close(s.std.unwrap(), std::f64::consts::FRAC_1_SQRT_2));
        // 0.5 ± 12.706 · 0.7071 / √2
        let [lo, hi] = s.ci95.unwrap();
        assert!((lo - (0.5 - 6.353)).abs() < 1e-3 && (hi - (0.5 + 6.353)).abs() < 1e-3);
        let s = stats(&[0.2, 0.4, 0.6, 0.8, 1.0]);
        assert!(close(s.mean.unwrap(), 0.6));
        assert!(close(s.std.unwrap(), 0.1f64.sqrt())); // variance 0.1
        assert_eq!((s.min, s.max), (Some(0.2), Some(1.0)));
        let half = 2.776_445_105 * 0.1f64.sqrt() / 5f64.sqrt();
        assert!((s.ci95.unwrap()[0] - (0.6 - half)).abs() < 1e-6);
        let same = stats(&[0.7, 0.7, 0.7]);
        assert!(same.std.unwrap() < 1e-12);
        let [lo, hi] = same.ci95.unwrap();
        assert!(close(lo, 0.7) && close(hi, 0.7));
    }

    #[test]
    fn thresholds_follow_mastras_rules() {
        let t = |v: Value| Threshold::parse(&v, "s");
        assert!(t(json!(0.7)).unwrap().passed(0.7));
        assert!(!t(json!(0.7)).unwrap().passed(0.69));
        assert!(!t(json!(0.0)).unwrap().passed(f64::NAN));
        let band = t(json!({"min": 0.2, "max": 0.4})).unwrap();
        assert!(band.passed(0.3) && !band.passed(0.5) && !band.passed(0.1));
        assert!(t(json!({"max": 0.1})).unwrap().passed(0.0));
        for bad in [
            json!(1.5),
            json!(-0.1),
            json!({}),
            json!({"min": 0.5, "max": 0.4}),
            json!([0.5]),
            json!(true),
            json!({"min": "x"}),
        ] {
            let e = t(bad.clone()).unwrap_err();
            assert!(e.message.contains("\"s\""), "{bad}: {}", e.message);
        }
    }

    fn acc(config: Value) -> EvalAccumulator {
        EvalAccumulator::new(&config).unwrap()
    }

    #[test]
    fn config_errors_name_the_problem() {
        let bad = |c: Value, want: &str| {
            let e = EvalAccumulator::new(&c).unwrap_err();
            assert!(e.message.contains(want), "{c}: {}", e.message);
        };
        bad(
            json!({"scorers": [{"id": "a"}, {"id": "a"}]}),
            "share the id \"a\"",
        );
        bad(
            json!({"scorers": [{"id": "a"}], "gates": [{"id": "a"}]}),
            "share the id",
        );
        bad(json!({"scorers": [{}]}), "scorers[0] has no id");
        bad(json!({"scorers": [{"id": 3}]}), "scorers[0].id");
        bad(json!({"scorers": {}}), "scorers must be an array");
        bad(json!({"trials": 0}), "trials");
        bad(json!({"trials": 1.5}), "trials");
        bad(
            json!({"gates": [{"id": "g", "threshold": 0.5}]}),
            "a gate has no threshold",
        );
        bad(
            json!({"scorers": [{"id": "a", "threshold": 2}]}),
            "minimum threshold of scorer \"a\"",
        );
    }

    #[test]
    fn errors_are_excluded_and_counted_never_zero() {
        let mut a = acc(json!({"scorers": [{"id": "s", "threshold": 0.5}]}));
        a.add_item(&json!({"index": 0, "runs": {"s": [{"score": 1.0}]}}))
            .unwrap();
        a.add_item(&json!({"index": 1, "runs": {"s": [{"score": null}]}}))
            .unwrap();
        a.add_item(&json!({"index": 2, "runs": {"s": [{"score": 0.5}]}}))
            .unwrap();
        a.add_item(&json!({"index": 3, "targetError": true, "runs": {}}))
            .unwrap();
        let s = a.summary();
        assert_eq!(s["scores"]["s"], json!(0.75));
        assert_eq!(s["errors"]["s"], json!(1));
        assert_eq!(s["coverage"]["s"], json!({"scored": 2, "total": 4}));
        assert_eq!(s["summary"], json!({"totalItems": 4, "failedItems": 2}));
        assert_eq!(s["verdict"], json!("passed"));
        assert_eq!(s["thresholdResults"][0]["averageScore"], json!(0.75));
    }

    #[test]
    fn no_scored_item_is_null_and_fails_its_threshold() {
        let mut a = acc(json!({"scorers": [{"id": "s", "threshold": 0.0}, {"id": "t"}]}));
        a.add_item(&json!({"index": 0, "runs": {"s": [{}], "t": [{"score": 0.0}]}}))
            .unwrap();
        let s = a.summary();
        assert_eq!(s["scores"]["s"], Value::Null);
        assert_eq!(s["scores"]["t"], json!(0.0));
        assert_eq!(s["thresholdResults"][0]["passed"], json!(false));
        assert_eq!(s["verdict"], json!("scored"));
        assert_eq!(s["stats"]["s"]["mean"], Value::Null);
    }

    #[test]
    fn verdict_table() {
        // (gate item scores, threshold mean ok) → verdict
        let cases = [
            (vec![Some(1.0), Some(1.0)], 0.9, "passed"),
            (vec![Some(1.0), Some(1.0)], 0.1, "scored"),
            (vec![Some(1.0), Some(0.0)], 0.9, "failed"),
            (vec![Some(1.0), None], 0.9, "failed"), // an errored gate is not a pass
            (vec![Some(1.0), Some(0.0)], 0.1, "failed"),
        ];
        for (gates, s, want) in cases {
            let mut a =
                acc(json!({"scorers": [{"id": "s", "threshold": 0.5}], "gates": [{"id": "g"}]}));
            for (i, g) in gates.iter().enumerate() {
                let g = g.map_or(json!({}), |x| json!({"score": x}));
                a.add_item(&json!({"index": i, "runs": {"s": [{"score": s}], "g": [g]}}))
                    .unwrap();
            }
            let out = a.summary();
            assert_eq!(out["verdict"], json!(want), "{gates:?} {s}");
            assert!(out["scores"].get("g").is_none(), "gates are not in scores");
        }
    }

    #[test]
    fn no_thresholds_no_gates_no_verdict() {
        let mut a = acc(json!({"scorers": [{"id": "s"}]}));
        a.add_item(&json!({"index": 0, "runs": {"s": [{"score": 1}]}}))
            .unwrap();
        let s = a.summary();
        assert!(s.get("verdict").is_none() && s.get("thresholdResults").is_none());
    }

    #[test]
    fn trials_give_item_statistics() {
        let mut a = acc(json!({"scorers": [{"id": "s"}], "trials": 3}));
        let r = a
            .add_item(&json!({"index": 0, "runs": {"s": [{"score": 0.2}, {"score": null}, {"score": 0.6}]}}))
            .unwrap();
        let t = &r["trials"]["s"];
        assert_eq!(t["scores"], json!([0.2, null, 0.6]));
        assert!(close(t["mean"].as_f64().unwrap(), 0.4));
        assert_eq!(t["n"], json!(2));
        assert!(t["ci95"].is_array());
        a.add_item(&json!({"index": 1, "runs": {"s": [{"score": 1}, {"score": 1}, {"score": 1}]}}))
            .unwrap();
        let s = a.summary();
        assert!(close(s["scores"]["s"].as_f64().unwrap(), 0.7));
        assert_eq!(s["errors"]["s"], json!(1));
        assert_eq!(s["coverage"]["s"]["scored"], json!(2));
        assert_eq!(r["failed"], json!(true));
    }

    #[test]
    fn order_of_arrival_does_not_change_a_bit() {
        let xs: Vec<f64> = (0..1000)
            .map(|i| ((i * 7919) % 1000) as f64 / 997.0)
            .collect();
        let run = |order: Vec<usize>| {
            let mut a = acc(json!({"scorers": [{"id": "s"}]}));
            for i in order {
                a.add_item(&json!({"index": i, "runs": {"s": [{"score": xs[i]}]}}))
                    .unwrap();
            }
            a.summary()
        };
        let forward = run((0..1000).collect());
        let mut shuffled: Vec<usize> = (0..1000).collect();
        shuffled.sort_by_key(|i| (i * 31) % 1000);
        let backward = run(shuffled);
        assert_eq!(forward, backward);
    }

    #[test]
    fn duplicate_and_bad_indexes_are_rejected() {
        let mut a = acc(json!({"scorers": [{"id": "s"}]}));
        a.add_item(&json!({"index": 4, "runs": {}})).unwrap();
        assert!(a
            .add_item(&json!({"index": 4, "runs": {}}))
            .unwrap_err()
            .message
            .contains("twice"));
        assert!(a.add_item(&json!({"index": -1})).is_err());
        assert!(a.add_item(&json!({"index": 1.5})).is_err());
        assert!(a.add_item(&json!({})).is_err());
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
        let u = &a.summary()["usage"]["s"];
        assert_eq!(
            u,
            &json!({"calls": 4, "inputTokens": 17, "outputTokens": 5, "totalTokens": 19, "reasoningTokens": 3, "cachedInputTokens": 0})
        );
    }
}
