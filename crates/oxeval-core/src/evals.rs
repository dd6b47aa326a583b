//! Dataset aggregation for `runEvals`, the CLI and `merge`: per-scorer means, coverage,
//! errors, judge usage, statistics over items and over trials, thresholds and gates with
//! Mastra's verdict rules, and THE decision of whether a run passed (`outcome`). Pure: the JS
//! runner feeds it one item at a time ([`EvalAccumulator::add_item`]) and asks for the
//! [`EvalAccumulator::summary`]. Every surface a user reads (runEvals' result, the CLI's exit
//! status and summary line, the HTML badge, JUnit, the Vitest helpers) reads `outcome`.
//!
//! Decisions (see docs/run-evals.md, "What fails a run"):
//! - An errored run never becomes a 0 or a NaN: an item is *scored* for a scorer when at least
//!   one of its trials produced a score; its item score is the mean of those trials. Failed
//!   runs are counted in `errors`, and `coverage` says how many items were scored.
//! - The mean of a scorer with no scored item is `null` (Mastra would report 0).
//! - Sums run in item-index order, whatever order the items completed in, so an unsharded run
//!   and a merge of its shards give bit-identical numbers.
//! - Thresholds compare the mean item score (Mastra's `checkThresholdPassed`); a threshold on a
//!   scorer with no scored item fails. Gates must average `gatePassRate` (Mastra: 1.0) over
//!   items; an errored gate run counts as 0 (a gate is a must-pass, an error is not a pass).
//! - Outcome: the run FAILS when nothing was evaluated, a scorer scored none of its items,
//!   more items went unscored (a scorer error, a target error, an unreadable data row) than
//!   `maxErrors` allows (default 0), a scorer's coverage is below `minCoverage`, a replay-cache
//!   miss happened (always, whatever `maxErrors` says), the run stopped early or was
//!   interrupted, or a gate failed. Otherwise it is `scored` (not a pass) when a threshold was
//!   missed, else `passed`. `verdict` (Mastra's field, only where gates or thresholds exist)
//!   is the same word. A shard (`partial`) decides only what a part can: errors against
//!   `maxErrors`, replay misses, gates at pass rate 1.
//! - Early stop: when [`EARLY_STOP_RUNS`] runs of a scorer in a row (at the start or at any
//!   point later: a judge that dies mid-run) all failed with the same
//!   persistent failure ([`persistent_failure`]: no key, connection refused, unknown host,
//!   HTTP 401/403/404), `add_item` says `stop` once; the runner records the rest as
//!   `OXEVAL_RUN_STOPPED` items instead of paying minutes of retries.
//! - Intervals: the 95 % interval of a mean respects the score's range `[0, scale]`
//!   ([`bounded_ci`]: Wilson's interval, with an effective sample size for scores between the
//!   ends); `null` below two values.

use crate::agreement::{Label, Labels};
use crate::error::{type_name, InvalidArgument};
use crate::scorers::Direction;
use indexmap::IndexMap;
use serde::Serialize;
use serde_json::{json, Map, Value};
use statrs::distribution::{ContinuousCDF, StudentsT};

mod plan;
mod turns;

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

    /// The threshold as a person reads it: `>= 0.7`, `<= 0.3`, `0.2..0.8`.
    pub fn text(&self) -> String {
        match (self.min, self.max) {
            (Some(a), Some(b)) => format!("{}..{}", num(a), num(b)),
            (Some(a), None) => format!(">= {}", num(a)),
            (None, Some(b)) => format!("<= {}", num(b)),
            (None, None) => String::new(),
        }
    }

    /// Why `mean` misses this threshold, in words that say which side it missed on.
    pub fn missed(&self, id: &str, mean: Option<f64>) -> String {
        let Some(m) = mean else {
            return format!(
                "\"{id}\" has no mean (no item was scored), so it cannot meet its threshold {}",
                self.text()
            );
        };
        match (self.min, self.max) {
            (Some(min), _) if m < min => {
                format!("\"{id}\" mean {} is below the minimum {}", num(m), num(min))
            }
            (_, Some(max)) if m > max => {
                format!("\"{id}\" mean {} is above the maximum {}", num(m), num(max))
            }
            _ => format!(
                "\"{id}\" mean {} misses its threshold {}",
                num(m),
                self.text()
            ),
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

/// The two-sided 95 % normal quantile.
const Z95: f64 = 1.959_963_984_540_054;

/// The Wilson score interval of a proportion `p` over `n` (effective) observations: always
/// inside `[0, 1]`, and sensible at 0 and 1 where the normal interval collapses.
pub fn wilson(p: f64, n: f64) -> [f64; 2] {
    if n.is_nan() || n <= 0.0 || !p.is_finite() {
        return [0.0, 1.0];
    }
    if n.is_infinite() {
        return [p, p];
    }
    let z2 = Z95 * Z95;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = Z95 / denom * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).max(0.0).sqrt();
    [(centre - half).max(0.0), (centre + half).min(1.0)]
}

/// The 95 % interval of the mean of scores that lie in `[0, scale]`: the Wilson score
/// interval with the effective sample size `n* = n · p(1 − p) / v` (`p` the mean and `v` the
/// population variance of the scores divided by `scale`). For 0/1 scores `v = p(1 − p)`, so
/// `n* = n` and this is exactly Wilson's interval; for scores in between, `n* ≥ n` (a bounded
/// score can vary no more than a 0/1 one with the same mean) and the interval narrows with
/// the spread. Every score at 0 (or at `scale`) uses `n* = n`. The interval never leaves
/// `[0, scale]`; `None` below two scores.
pub fn bounded_ci(xs: &[f64], scale: f64) -> Option<[f64; 2]> {
    if xs.len() < 2 {
        return None;
    }
    let scale = if scale.is_finite() && scale > 0.0 {
        scale
    } else {
        1.0
    };
    let n = xs.len() as f64;
    // a score outside [0, scale] (a scorer that does not keep to its range) widens the range
    let hi = xs.iter().copied().fold(scale, f64::max);
    let lo = xs.iter().copied().fold(0.0, f64::min);
    let width = hi - lo;
    let us: Vec<f64> = xs.iter().map(|x| (x - lo) / width).collect();
    let p = us.iter().sum::<f64>() / n;
    let v = us.iter().map(|u| (u - p).powi(2)).sum::<f64>() / n;
    let pq = p * (1.0 - p);
    let n_eff = if pq <= 1e-15 {
        n
    } else if v <= 1e-15 {
        f64::INFINITY
    } else {
        (pq * n / v).max(n)
    };
    let [a, b] = wilson(p.clamp(0.0, 1.0), n_eff);
    Some([lo + a * width, lo + b * width])
}

/// Statistics of `xs` (summed in the given order) for scores in `[0, scale]`: mean, sample
/// standard deviation, range and the bounded 95 % interval ([`bounded_ci`]).
pub fn stats(xs: &[f64], scale: f64) -> Stats {
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
    let std = (xs.len() >= 2).then(|| {
        (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (xs.len() - 1) as f64).sqrt()
    });
    Stats {
        n,
        mean: Some(mean),
        std,
        min: Some(min),
        max: Some(max),
        ci95: bounded_ci(xs, scale),
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
fn count(v: Option<&Value>) -> u64 {
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

    fn add(&mut self, o: &UsageTotals) {
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

/// Mastra's own ids of scorers where a lower score is better (used when a scorer object does
/// not say its direction, e.g. a Mastra scorer mixed into oxeval's runEvals).
const LOWER_IS_BETTER_IDS: &[&str] = &["hallucination-scorer", "bias-scorer", "toxicity-scorer"];

/// How many of a scorer's runs in a row must fail alike before the run stops early.
pub const EARLY_STOP_RUNS: usize = 5;

/// An error that will fail every call of the run the same way (no key, no judge at that
/// address, a rejected key, an unknown model or endpoint): its signature, else `None`.
/// Transient failures (429, 5xx, timeouts, a garbled reply) never stop a run.
pub fn persistent_failure(err: &Value) -> Option<String> {
    let code = err.get("code").and_then(Value::as_str)?;
    let status = err.get("status").and_then(Value::as_u64);
    match code {
        "OXEVAL_MISSING_API_KEY" => Some(code.to_string()),
        "OXEVAL_JUDGE_HTTP" | "OXEVAL_JUDGE_MODEL" => match status {
            Some(s @ (401 | 403 | 404)) => Some(format!("{code} (HTTP {s})")),
            _ => None,
        },
        "OXEVAL_JUDGE_NETWORK" => {
            let m = err
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_ascii_lowercase();
            const UNREACHABLE: &[(&str, &str)] = &[
                ("connection refused", "connection refused"),
                ("dns error", "the host name does not resolve"),
                ("failed to lookup address", "the host name does not resolve"),
                (
                    "name or service not known",
                    "the host name does not resolve",
                ),
                ("no route to host", "no route to host"),
                ("network is unreachable", "network unreachable"),
                ("certificate", "TLS certificate rejected"),
            ];
            UNREACHABLE
                .iter()
                .find(|(needle, _)| m.contains(needle))
                .map(|(_, what)| format!("{code} ({what})"))
        }
        _ => None,
    }
}

/// The first error seen of some kind, for messages.
#[derive(Debug, Clone)]
struct FirstError {
    index: u64,
    scorer: Option<String>,
    code: String,
    message: String,
}

impl FirstError {
    fn describe(&self) -> String {
        let at = match &self.scorer {
            Some(s) => format!("item {}, {s}", self.index),
            None => format!("item {}", self.index),
        };
        format!("{at}: {}: {}", self.code, clip(&self.message, 240))
    }
}

fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n).collect();
        t.push('…');
        t
    }
}

/// A number as a person reads it in a message (at most 3 decimals).
pub(crate) fn num(x: f64) -> String {
    let s = format!("{x:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s.is_empty() || s == "-" {
        "0".into()
    } else {
        s.to_string()
    }
}

fn error_of(v: Option<&Value>, fallback: &str) -> (String, String) {
    let code = v
        .and_then(|e| e.get("code"))
        .and_then(Value::as_str)
        .unwrap_or(fallback)
        .to_string();
    let message = v
        .and_then(|e| e.get("message"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    (code, message)
}

#[derive(Debug, Clone)]
struct Tally {
    threshold: Option<Threshold>,
    gate: bool,
    direction: Direction,
    scale: f64,
    /// Filed under `scores.agent` / `scores.trajectory` (the categorized form).
    category: Option<Category>,
    /// Receives the item's trajectory as its output (Mastra's routing; see `routes`).
    trajectory: bool,
    /// (item index, item score): sorted by index at summary time.
    scores: Vec<(u64, f64)>,
    /// Gate item scores (errors as 0).
    gate_scores: Vec<(u64, f64)>,
    errors: u64,
    total: u64,
    /// Items whose every run said `notScorable` (Mastra 1.71): out of `total`, the means
    /// and the coverage denominator.
    not_scorable: u64,
    usage: UsageTotals,
    /// The current run of persistent failures in a row: their signature and how many.
    streak: Option<(String, usize)>,
    /// Runs counted so far that produced a score (says "the first N runs" vs "N in a row").
    scored_runs: u64,
    /// The user's labels (`expected[id]`) with the judge's item score.
    labels: Labels,
}

/// One item's state while its runs are counted (its top-level scorers, then its turns').
struct ItemAcc {
    index: u64,
    failed: bool,
    unscored: bool,
    /// The item's first error (for the run's "first: …" message).
    first: Option<FirstError>,
}

/// What counting one scorer's runs of an item gives back: its trial statistics (trials > 1)
/// and its usage on this item.
#[derive(Default)]
struct Counted {
    trial: Option<Value>,
    usage: Option<Value>,
}

/// Counts scorers' runs of one item into their tallies: what every count shares (the run's
/// health, its policy and trials, the early-stop signal).
struct Counter<'a> {
    health: &'a mut Health,
    policy: &'a Policy,
    trials: u64,
    stop: &'a mut Option<String>,
}

impl Counter<'_> {
    /// One scorer's trials on one item (`None`: the scorer did not run, its target failed).
    /// `shown` names the scorer in the run's messages (`id`, or `id (turn 2)`).
    fn runs(
        &mut self,
        tally: &mut Tally,
        shown: &str,
        trials: Option<&Vec<Value>>,
        label: Option<Label>,
        item: &mut ItemAcc,
    ) -> Counted {
        let index = item.index;
        tally.total += 1;
        let Some(trials) = trials else {
            if let Some(l) = label {
                tally.labels.push(index, None, l);
            }
            item.failed = true;
            item.unscored = true;
            if tally.gate {
                tally.gate_scores.push((index, 0.0));
            }
            return Counted::default();
        };
        let is_ns = |t: &Value| {
            t.get("notScorable")
                .is_some_and(|v| v == &Value::Bool(true))
        };
        if !trials.is_empty() && trials.iter().all(is_ns) {
            // every run said the item cannot be scored: out of this scorer's count
            tally.total -= 1;
            tally.not_scorable += 1;
            for t in trials {
                if let Some(j) = t.get("judge") {
                    tally.usage.add_judge(j);
                }
            }
            return Counted {
                trial: (self.trials > 1).then(|| json!({ "notScorable": trials.len() })),
                usage: None,
            };
        }
        let trials: Vec<&Value> = trials.iter().filter(|t| !is_ns(t)).collect();
        let mut ok = Vec::with_capacity(trials.len());
        let mut all_scores = Vec::with_capacity(trials.len());
        let mut used = UsageTotals::default();
        // the scorer's first failed trial: the item's error when no trial scored
        let mut scorer_first: Option<FirstError> = None;
        for t in trials {
            if let Some(j) = t.get("judge") {
                used.add_judge(j);
            }
            if let Some(u) = t.get("usage") {
                used.add_totals(u);
            }
            let score = t
                .get("score")
                .and_then(Value::as_f64)
                .filter(|s| s.is_finite());
            if let Some(why) = tally.note_run(score.is_some(), t.get("error")) {
                if self.policy.stop_early && self.health.stopped.is_none() {
                    let (_, message) = error_of(t.get("error"), "");
                    let runs = if tally.scored_runs == 0 {
                        format!("the first {EARLY_STOP_RUNS} runs of \"{shown}\" all failed")
                    } else {
                        format!(
                            "{EARLY_STOP_RUNS} runs of \"{shown}\" in a row failed (after {} that scored)",
                            tally.scored_runs
                        )
                    };
                    let text = format!(
                        "stopped early: {runs} with {why}, which will not change by retrying; fix the judge configuration and run again (last error: {})",
                        clip(&message, 300)
                    );
                    self.health.stopped = Some(text.clone());
                    *self.stop = Some(text);
                }
            }
            match score {
                Some(s) => {
                    ok.push(s);
                    all_scores.push(json!(s));
                }
                None => {
                    tally.errors += 1;
                    item.failed = true;
                    all_scores.push(Value::Null);
                    let (code, message) = error_of(t.get("error"), "OXEVAL_SCORER_FAILED");
                    if code == "OXEVAL_CACHE_MISS" {
                        self.health.cache_misses += 1;
                        if self.health.first_cache_miss.is_none() {
                            self.health.first_cache_miss = Some(FirstError {
                                index,
                                scorer: Some(shown.to_string()),
                                code: code.clone(),
                                message: message.clone(),
                            });
                        }
                    }
                    if scorer_first.is_none() {
                        scorer_first = Some(FirstError {
                            index,
                            scorer: Some(shown.to_string()),
                            code,
                            message,
                        });
                    }
                }
            }
        }
        tally.usage.add(&used);
        let st = stats(&ok, tally.scale);
        if let Some(l) = label {
            tally.labels.push(index, st.mean, l);
        }
        match st.mean {
            Some(m) => {
                tally.scores.push((index, m));
                if tally.gate {
                    tally.gate_scores.push((index, m));
                }
            }
            None => {
                item.unscored = true;
                if item.first.is_none() {
                    item.first = scorer_first;
                }
                if tally.gate {
                    tally.gate_scores.push((index, 0.0));
                }
            }
        }
        let trial = (self.trials > 1).then(|| {
            let mut v = serde_json::to_value(&st).unwrap_or(Value::Null);
            if let Value::Object(o) = &mut v {
                o.insert("scores".into(), Value::Array(all_scores));
            }
            v
        });
        Counted {
            trial,
            usage: Some(serde_json::to_value(&used).unwrap_or_default()),
        }
    }
}

/// One reason of the outcome: `{ kind, scorer?, turn?, message }` (`turn`: the turn index of
/// a per-turn assertion).
fn reason(kind: &str, scorer: Option<&str>, turn: Option<u64>, message: String) -> Value {
    let mut r = json!({ "kind": kind, "message": message });
    if let Some(s) = scorer {
        r["scorer"] = json!(s);
    }
    if let Some(t) = turn {
        r["turn"] = json!(t);
    }
    r
}

/// What the summary says of one tally (a scorer or gate, top-level or of one turn).
struct Judged {
    stats: Stats,
    coverage: Value,
    gate_result: Option<Value>,
    threshold_result: Option<Value>,
    /// Reasons that fail the run.
    reasons: Vec<Value>,
    /// Missed thresholds (the run is then `scored`).
    threshold_reasons: Vec<Value>,
}

/// What the run allows and how it is judged (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct Policy {
    /// Items that may go unscored before the run fails (default 0).
    pub max_errors: u64,
    /// The least share of items each scorer must score (optional).
    pub min_coverage: Option<f64>,
    /// The least average a gate needs to pass (Mastra: 1).
    pub gate_pass_rate: f64,
    /// One shard of a larger run: only what a part can decide is decided (gates at pass
    /// rate 1, errors against `max_errors`, replay misses); means, thresholds, coverage and
    /// "nothing scored" are left to the merge.
    pub partial: bool,
    /// Stop when a scorer's runs fail the same persistent way several times in a row.
    pub stop_early: bool,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            max_errors: 0,
            min_coverage: None,
            gate_pass_rate: 1.0,
            partial: false,
            stop_early: true,
        }
    }
}

/// How a scorer of the categorized form (`scorers: { agent, trajectory }`, Mastra's
/// `AgentScorerConfig`) is filed: its mean goes under `scores.agent` or `scores.trajectory`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Category {
    Agent,
    Trajectory,
}

impl Category {
    pub fn key(self) -> &'static str {
        match self {
            Category::Agent => "agent",
            Category::Trajectory => "trajectory",
        }
    }
}

/// What the run has learnt across items: why it stopped early, and its replay misses.
#[derive(Debug, Clone, Default)]
struct Health {
    stopped: Option<String>,
    cache_misses: u64,
    first_cache_miss: Option<FirstError>,
}

/// Accumulates per-item outcomes into a run summary.
#[derive(Debug, Clone)]
pub struct EvalAccumulator {
    scorers: IndexMap<String, Tally>,
    /// The scorers were given as `{ agent, trajectory }`: `scores` is keyed by category.
    categorized: bool,
    /// Per-turn assertions of `turns` items (turns.rs).
    turns: turns::Turns,
    trials: u64,
    policy: Policy,
    total_items: u64,
    failed_items: u64,
    /// Items some scorer (or the target, or the data row) left unscored.
    errored_items: u64,
    first_error: Option<FirstError>,
    health: Health,
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

/// A scorer's direction (its config's, else known from Mastra's ids, else higher) and scale
/// (default 1) from its config entry; `at` names the entry in messages.
fn facts_of(s: &Value, at: &str, id: &str) -> Result<(Direction, f64), InvalidArgument> {
    let direction = match s.get("direction") {
        None | Some(Value::Null) => {
            if LOWER_IS_BETTER_IDS.contains(&id) {
                Direction::Lower
            } else {
                Direction::Higher
            }
        }
        Some(v) => serde_json::from_value(v.clone()).map_err(|_| {
            InvalidArgument::options(format!(
                "{at}.direction must be \"higher\" or \"lower\", got {}",
                describe(v)
            ))
        })?,
    };
    let scale = match s.get("scale") {
        None | Some(Value::Null) => 1.0,
        Some(v) => match v.as_f64() {
            Some(x) if x.is_finite() && x > 0.0 => x,
            _ => {
                return Err(InvalidArgument::options(format!(
                    "{at}.scale must be a finite number > 0, got {}",
                    describe(v)
                )))
            }
        },
    };
    Ok((direction, scale))
}

fn fraction(config: &Value, key: &str) -> Result<Option<f64>, InvalidArgument> {
    match config.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_f64() {
            Some(x) if x.is_finite() && (0.0..=1.0).contains(&x) => Ok(Some(x)),
            _ => Err(InvalidArgument::options(format!(
                "{key} must be a number in [0, 1], got {}",
                describe(v)
            ))),
        },
    }
}

impl Policy {
    /// `maxErrors` (an integer ≥ 0), `minCoverage` and `gatePassRate` (in [0, 1]), `partial`
    /// and `stopEarly` (booleans) from the runEvals configuration.
    pub fn from_config(config: &Value) -> Result<Policy, InvalidArgument> {
        let mut p = Policy::default();
        match config.get("maxErrors") {
            None | Some(Value::Null) => {}
            Some(v) => match v.as_f64() {
                Some(x) if x >= 0.0 && x.fract() == 0.0 && x <= 9.0e15 => p.max_errors = x as u64,
                _ => {
                    return Err(InvalidArgument::options(format!(
                    "maxErrors must be a whole number ≥ 0 (items allowed to go unscored), got {}",
                    describe(v)
                )))
                }
            },
        }
        p.min_coverage = fraction(config, "minCoverage")?;
        if let Some(r) = fraction(config, "gatePassRate")? {
            p.gate_pass_rate = r;
        }
        for (key, slot) in [
            ("partial", &mut p.partial),
            ("stopEarly", &mut p.stop_early),
        ] {
            match config.get(key) {
                None | Some(Value::Null) => {}
                Some(Value::Bool(b)) => *slot = *b,
                Some(v) => {
                    return Err(InvalidArgument::options(format!(
                        "{key} must be a boolean, got {}",
                        describe(v)
                    )))
                }
            }
        }
        Ok(p)
    }
}

/// A scorer's `type` as its config entry gives it (Mastra's metadata: `'agent'`,
/// `'trajectory'`, …), for messages.
fn type_text(s: &Value) -> String {
    match s.get("type") {
        None | Some(Value::Null) => "undefined".into(),
        Some(Value::String(t)) => format!("{t:?}"),
        Some(other) => format!("a value of type {}", type_name(other)),
    }
}

/// Whether a config entry's `type` is `'trajectory'` (Mastra routes those to the trajectory).
pub(crate) fn is_trajectory_type(s: &Value) -> bool {
    s.get("type").and_then(Value::as_str) == Some("trajectory")
}

impl EvalAccumulator {
    /// `config`: `{ scorers: [{ id, threshold?, direction?, scale?, type?, category? }],
    /// categorized?, gates?: [{ id, direction?, scale?, type? }], trials?, maxErrors?,
    /// minCoverage?, gatePassRate?, partial?, stopEarly? }`. Scorer ids must be unique across
    /// scorers and gates (results are keyed by id). `categorized`: the scorers were given as
    /// `{ agent: [...], trajectory: [...] }` (each entry's `category`); a scorer filed under
    /// `trajectory` must be one (`type: 'trajectory'`): it receives the trajectory extracted
    /// from the agent's messages, not the messages.
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
        let policy = Policy::from_config(config)?;
        let categorized = config.get("categorized").and_then(Value::as_bool) == Some(true);
        let mut scorers = IndexMap::new();
        let mut in_category = [0usize; 2];
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
                let category = match (gate, categorized, s.get("category").and_then(Value::as_str)) {
                    (false, true, Some("agent")) => Some(Category::Agent),
                    (false, true, Some("trajectory")) => Some(Category::Trajectory),
                    (false, true, _) => {
                        return Err(InvalidArgument::options(format!(
                            "{key}[{i}] has no category (\"agent\" or \"trajectory\") in a categorized configuration"
                        )))
                    }
                    _ => None,
                };
                // where the user wrote it: scorers.trajectory[1], gates[0], scorers[2]
                let at = match category {
                    Some(c) => {
                        let k = &mut in_category[c as usize];
                        *k += 1;
                        format!("scorers.{}[{}]", c.key(), *k - 1)
                    }
                    None => format!("{key}[{i}]"),
                };
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
                if category == Some(Category::Trajectory) && !is_trajectory_type(s) {
                    return Err(InvalidArgument::options(format!(
                        "{at} (\"{id}\") is not a trajectory scorer (its type is {}): a scorer under scorers.trajectory receives the trajectory extracted from the agent's messages, so it must have type 'trajectory'; put it in scorers.agent",
                        type_text(s)
                    )));
                }
                let (direction, scale) = facts_of(s, &at, &id)?;
                if scorers.contains_key(&id) {
                    return Err(InvalidArgument::options(format!(
                        "two scorers share the id \"{id}\" (results are keyed by id): give one of them another `id` option"
                    )));
                }
                let mut t = Tally::new(threshold, gate, direction, scale);
                t.category = category;
                // Mastra's routing: a trajectory gate and a scorer filed under
                // scorers.trajectory receive the trajectory; every other scorer the output
                t.trajectory = if gate {
                    is_trajectory_type(s)
                } else {
                    category == Some(Category::Trajectory)
                };
                scorers.insert(id, t);
            }
        }
        Ok(EvalAccumulator {
            scorers,
            categorized,
            turns: turns::Turns::default(),
            trials,
            policy,
            total_items: 0,
            failed_items: 0,
            errored_items: 0,
            first_error: None,
            health: Health::default(),
            seen: Default::default(),
        })
    }

    pub fn trials(&self) -> u64 {
        self.trials
    }

    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// Which of the run's scorers and gates receive the item's trajectory as their output
    /// (`{ trajectory: [ids] }`): the scorers under `scorers.trajectory` and the gates whose
    /// type is `'trajectory'` (Mastra's routing); the rest receive the output.
    pub fn routes(&self) -> Value {
        let ids: Vec<&String> = self
            .scorers
            .iter()
            .filter(|(_, t)| t.trajectory)
            .map(|(id, _)| id)
            .collect();
        json!({ "trajectory": ids })
    }

    /// One item: `{ index, targetError?: bool | { code, message }, runs: { [id]: [{ score?:
    /// number|null, error?: { code, status?, message }, judge?: object, usage?: UsageTotals
    /// }] }, turns?: [{ gates, scorers, runs }] }` (one entry per trial; a missing or null
    /// score is a failed run; `judge` is a result's judge record, `usage` totals already
    /// summed, as a merge reads them back). A scorer missing from `runs` did not run for this
    /// item (its target failed): it counts in the item total, not as scored. `turns` (a
    /// `turns` item): per turn, its declared gates and scorers (turns.rs) and their runs,
    /// counted the same way under the turn's index. Returns `{ trials, usage, failed, turns?,
    /// stop? }`: per-scorer trial statistics (only when `trials > 1`), the item's usage per
    /// scorer, whether the item failed, the same per turn, and — once, when a scorer's first
    /// runs all failed the same persistent way — why the run should stop now.
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
        // checked before anything is counted: a bad label or turn leaves the accumulator unchanged
        let labels = self.labels_of(item, index)?;
        let item_turns = turns::ItemTurns::parse(item, index)?;
        if let Some(t) = &item_turns {
            self.turns.check(t.decls(), &format!("item {index}"))?;
        }
        if !self.seen.insert(index) {
            return Err(InvalidArgument::input(format!(
                "item index {index} appears twice (shards overlap, or one file was given twice)"
            )));
        }
        if let Some(t) = &item_turns {
            self.turns.declare(t.decls());
        }
        let empty = Map::new();
        let runs = item
            .get("runs")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let target_error = match item.get("targetError") {
            None | Some(Value::Null) | Some(Value::Bool(false)) => None,
            Some(Value::Bool(true)) => Some(error_of(None, "OXEVAL_TARGET")),
            Some(e) => Some(error_of(Some(e), "OXEVAL_TARGET")),
        };
        let mut acc = ItemAcc {
            index,
            failed: target_error.is_some(),
            unscored: target_error.is_some(),
            first: target_error.map(|(code, message)| FirstError {
                index,
                scorer: None,
                code,
                message,
            }),
        };
        let mut per_trial = Map::new();
        let mut item_usage = Map::new();
        let mut stop = None;
        self.total_items += 1;
        let mut count = Counter {
            health: &mut self.health,
            policy: &self.policy,
            trials: self.trials,
            stop: &mut stop,
        };
        for (id, tally) in self.scorers.iter_mut() {
            let label = labels.iter().find(|(k, _)| k == id).map(|(_, l)| *l);
            let trials = runs.get(id).and_then(Value::as_array);
            let c = count.runs(tally, id, trials, label, &mut acc);
            if let Some(t) = c.trial {
                per_trial.insert(id.clone(), t);
            }
            if let Some(u) = c.usage {
                item_usage.insert(id.clone(), u);
            }
        }
        let turns_out = item_turns.map(|t| self.turns.add(t, &mut acc, &mut count));
        if acc.failed {
            self.failed_items += 1;
        }
        if acc.unscored {
            self.errored_items += 1;
            if self.first_error.is_none()
                || self
                    .first_error
                    .as_ref()
                    .is_some_and(|f| acc.first.as_ref().is_some_and(|i| i.index < f.index))
            {
                self.first_error = acc.first;
            }
        }
        let mut out = json!({ "trials": per_trial, "usage": item_usage, "failed": acc.failed });
        if let Some(t) = turns_out {
            out["turns"] = t;
        }
        if let Some(s) = stop {
            out["stop"] = json!({ "code": "OXEVAL_RUN_STOPPED", "message": s });
        }
        Ok(out)
    }

    /// The run summary (see the module docs): `scores`, `summary`, `errors`, `coverage`,
    /// `usage`, `stats`, `trials`, `outcome`, `scorerInfo`, `gateResults`/`thresholdResults`/
    /// `verdict` when gates or thresholds exist (top-level or per turn), and `turnResults`
    /// when an item had turns. `scores` is keyed by category (`{ agent?, trajectory? }`, each
    /// present when it has a scorer) for a categorized configuration. `end`: `{ aborted?:
    /// bool, unfinished?: number }` from the runner (a run stopped by its signal, and how many
    /// items were started but did not finish).
    pub fn summary(&self, end: &Value) -> Value {
        let aborted = end.get("aborted").and_then(Value::as_bool).unwrap_or(false);
        let unfinished = count(end.get("unfinished"));
        let partial = self.policy.partial;
        let mut scores = Map::new();
        let mut by_category: [Map<String, Value>; 2] = [Map::new(), Map::new()];
        let mut errors = Map::new();
        let mut coverage = Map::new();
        let mut not_scorable = Map::new();
        let mut usage = Map::new();
        let mut stats_out = Map::new();
        let mut info = Map::new();
        let mut gate_results = Vec::new();
        let mut threshold_results = Vec::new();
        let mut reasons: Vec<Value> = Vec::new();
        let mut threshold_reasons: Vec<Value> = Vec::new();
        if !partial && self.total_items == 0 {
            reasons.push(reason(
                "no-items",
                None,
                None,
                "no item was evaluated (the dataset is empty, or every item was stopped)".into(),
            ));
        }
        if !partial && self.total_items > 0 && self.scorers.is_empty() && self.turns.is_empty() {
            reasons.push(reason(
                "no-scorers",
                None,
                None,
                "nothing was scored: the run has no scorer, no gate and no per-turn assertion"
                    .into(),
            ));
        }
        if let Some(s) = &self.health.stopped {
            reasons.push(reason("stopped", None, None, s.clone()));
        }
        if aborted {
            reasons.push(reason(
                "aborted",
                None,
                None,
                format!(
                    "the run was interrupted: {} item{} finished{}",
                    self.total_items,
                    if self.total_items == 1 { "" } else { "s" },
                    if unfinished > 0 {
                        format!(", {unfinished} did not")
                    } else {
                        String::new()
                    }
                ),
            ));
        }
        if self.health.cache_misses > 0 {
            reasons.push(reason(
                "cache-miss",
                None,
                None,
                format!(
                    "{} judge call{} not in the replay cache (a replay run never calls the judge, and a miss always fails it); first: {}",
                    self.health.cache_misses,
                    if self.health.cache_misses == 1 { " was" } else { "s were" },
                    self.health.first_cache_miss.as_ref().map(FirstError::describe).unwrap_or_default()
                ),
            ));
        }
        if self.errored_items > self.policy.max_errors {
            reasons.push(reason(
                "errors",
                None,
                None,
                format!(
                    "{} of {} item{} not scored (allowed: {}; maxErrors / --max-errors allows some); first: {}",
                    self.errored_items,
                    self.total_items,
                    if self.total_items == 1 { " was" } else { "s were" },
                    self.policy.max_errors,
                    self.first_error.as_ref().map(FirstError::describe).unwrap_or_default()
                ),
            ));
        }
        for (id, t) in &self.scorers {
            let j = t.judge(id, &self.policy, None);
            errors.insert(id.clone(), json!(t.errors));
            coverage.insert(id.clone(), j.coverage);
            usage.insert(
                id.clone(),
                serde_json::to_value(&t.usage).unwrap_or_default(),
            );
            info.insert(
                id.clone(),
                json!({ "direction": t.direction, "scale": t.scale, "gate": t.gate }),
            );
            if t.not_scorable > 0 {
                not_scorable.insert(id.clone(), json!(t.not_scorable));
            }
            reasons.extend(j.reasons);
            threshold_reasons.extend(j.threshold_reasons);
            if let Some(g) = j.gate_result {
                gate_results.push(g);
            }
            if let Some(th) = j.threshold_result {
                threshold_results.push(th);
            }
            if !t.gate {
                match t.category {
                    Some(c) => by_category[c as usize].insert(id.clone(), json!(j.stats.mean)),
                    None => scores.insert(id.clone(), json!(j.stats.mean)),
                };
            }
            stats_out.insert(
                id.clone(),
                serde_json::to_value(&j.stats).unwrap_or_default(),
            );
        }
        if self.categorized {
            for c in [Category::Agent, Category::Trajectory] {
                let m = std::mem::take(&mut by_category[c as usize]);
                if !m.is_empty() {
                    scores.insert(c.key().into(), Value::Object(m));
                }
            }
        }
        let turns = self.turns.summary(&self.policy);
        reasons.extend(turns.reasons);
        threshold_reasons.extend(turns.threshold_reasons);
        let status = if !reasons.is_empty() {
            "failed"
        } else if !threshold_reasons.is_empty() {
            "scored"
        } else {
            "passed"
        };
        let meaning = match status {
            "passed" if partial => "passed: this shard's items were scored and its gates passed (thresholds are decided by oxeval merge)",
            "passed" => "passed: every item was scored and every gate and threshold was met",
            "scored" => "scored: every item was scored and the gates passed, but a scorer missed its threshold; this is not a pass",
            _ => "failed: see the reasons",
        };
        reasons.extend(threshold_reasons);
        let mut out = json!({
            "scores": scores,
            "summary": {
                "totalItems": self.total_items,
                "failedItems": self.failed_items,
                "erroredItems": self.errored_items,
            },
            "errors": errors,
            "coverage": coverage,
            "usage": usage,
            "stats": stats_out,
            "trials": self.trials,
            "scorerInfo": info,
            "outcome": {
                "status": status,
                "passed": status == "passed",
                "meaning": meaning,
                "reasons": reasons,
                "policy": {
                    "maxErrors": self.policy.max_errors,
                    "minCoverage": self.policy.min_coverage,
                    "gatePassRate": self.policy.gate_pass_rate,
                    "partial": partial,
                },
            },
        });
        if !not_scorable.is_empty() {
            out["summary"]["notScorable"] = Value::Object(not_scorable);
        }
        let has_gates = !gate_results.is_empty();
        let has_thresholds = !threshold_results.is_empty();
        if has_gates {
            out["gateResults"] = Value::Array(gate_results);
        }
        if has_thresholds {
            out["thresholdResults"] = Value::Array(threshold_results);
        }
        if let Some(t) = turns.results {
            out["turnResults"] = t;
        }
        if has_gates || has_thresholds || turns.has_gates || turns.has_thresholds {
            // Mastra's field, where gates or thresholds were set (top-level or per turn):
            // the same decision
            out["verdict"] = json!(status);
        }
        if let Some(s) = &self.health.stopped {
            out["stopped"] = json!({ "code": "OXEVAL_RUN_STOPPED", "message": s });
        }
        let agreement: Map<String, Value> = self
            .scorers
            .iter()
            .filter(|(_, t)| !t.labels.is_empty())
            .map(|(id, t)| (id.clone(), t.agreement()))
            .collect();
        if !agreement.is_empty() {
            out["agreement"] = Value::Object(agreement);
        }
        out
    }

    /// Whether an item's labels (`{ index, expected? }`) are usable, before its scorers run
    /// (runEvals asks first, so a bad label costs no judge call).
    pub fn check_labels(&self, item: &Value) -> Result<(), InvalidArgument> {
        let index = item.get("index").and_then(Value::as_u64).unwrap_or(0);
        self.labels_of(item, index).map(|_| ())
    }

    /// The item's `expected` labels (`{ [scorerId]: number | 'pass' | 'fail' }`), checked:
    /// each key a scorer of this run, each value a label.
    fn labels_of(&self, item: &Value, index: u64) -> Result<Vec<(String, Label)>, InvalidArgument> {
        let expected = match item.get("expected") {
            None | Some(Value::Null) => return Ok(Vec::new()),
            Some(Value::Object(o)) => o,
            Some(other) => {
                return Err(InvalidArgument::input(format!(
                    "item {index}: expected must be an object {{ [scorerId]: number | 'pass' | 'fail' }}, got {}",
                    describe(other)
                )))
            }
        };
        let mut out = Vec::with_capacity(expected.len());
        for (id, v) in expected {
            if !self.scorers.contains_key(id) {
                let known: Vec<&str> = self.scorers.keys().map(String::as_str).collect();
                return Err(InvalidArgument::input(format!(
                    "item {index}: expected names the scorer {id:?}, which is not in this run (scorers: {})",
                    known.join(", ")
                )));
            }
            if v.is_null() {
                continue;
            }
            out.push((
                id.clone(),
                Label::parse(v, &format!("item {index}: expected[{id:?}]"))?,
            ));
        }
        Ok(out)
    }
}

impl Tally {
    /// Counts one run toward the dead-judge stop: a score or a failure that retrying can
    /// change ends the streak; a persistent failure extends it when it is the same failure.
    /// Returns the failure's signature when the streak has just reached [`EARLY_STOP_RUNS`].
    fn note_run(&mut self, scored: bool, error: Option<&Value>) -> Option<String> {
        if scored {
            self.scored_runs += 1;
            self.streak = None;
            return None;
        }
        let Some(sig) = error.and_then(persistent_failure) else {
            self.streak = None;
            return None;
        };
        let count = match &mut self.streak {
            Some((s, n)) if *s == sig => {
                *n += 1;
                *n
            }
            _ => {
                self.streak = Some((sig.clone(), 1));
                1
            }
        };
        (count == EARLY_STOP_RUNS).then_some(sig)
    }

    fn new(threshold: Option<Threshold>, gate: bool, direction: Direction, scale: f64) -> Tally {
        Tally {
            threshold,
            gate,
            direction,
            scale,
            category: None,
            trajectory: false,
            scores: Vec::new(),
            gate_scores: Vec::new(),
            errors: 0,
            total: 0,
            not_scorable: 0,
            usage: UsageTotals::default(),
            streak: None,
            scored_runs: 0,
            labels: Labels::default(),
        }
    }

    /// What the summary says of this tally under `policy`: its statistics and coverage, its
    /// gate or threshold result, and the reasons it fails the run. `turn`: the turn index of
    /// a per-turn assertion (its messages name the turn).
    fn judge(&self, id: &str, policy: &Policy, turn: Option<u64>) -> Judged {
        let partial = policy.partial;
        let at = turn.map_or(String::new(), |k| format!("turn {k}: "));
        let mut sorted = self.scores.clone();
        sorted.sort_by_key(|(i, _)| *i);
        let xs: Vec<f64> = sorted.iter().map(|(_, s)| *s).collect();
        let st = stats(&xs, self.scale);
        let mut reasons = Vec::new();
        let mut threshold_reasons = Vec::new();
        let plural = |n: u64| if n == 1 { "" } else { "s" };
        if !partial && self.total == 0 && self.not_scorable > 0 {
            // nothing was scorable: never a pass (Mastra omits such a gate or threshold)
            reasons.push(reason(
                "nothing-scored",
                Some(id),
                turn,
                format!(
                    "{at}\"{id}\" found none of its {} item{} scorable",
                    self.not_scorable,
                    plural(self.not_scorable)
                ),
            ));
        }
        if !partial && self.total > 0 && xs.is_empty() {
            reasons.push(reason(
                "nothing-scored",
                Some(id),
                turn,
                format!(
                    "{at}\"{id}\" scored none of its {} item{}",
                    self.total,
                    plural(self.total)
                ),
            ));
        }
        if let (false, Some(floor)) = (partial, policy.min_coverage) {
            let share = if self.total == 0 {
                0.0
            } else {
                xs.len() as f64 / self.total as f64
            };
            if share < floor && !xs.is_empty() {
                reasons.push(reason(
                    "coverage",
                    Some(id),
                    turn,
                    format!(
                        "{at}\"{id}\" scored {} of {} items ({}%), below the coverage floor of {}%",
                        xs.len(),
                        self.total,
                        num(share * 100.0),
                        num(floor * 100.0)
                    ),
                ));
            }
        }
        // a gate or threshold none of whose runs was scorable is left out (as Mastra)
        let all_not_scorable = self.total == 0 && self.not_scorable > 0;
        let mut gate_result = None;
        let mut threshold_result = None;
        if self.gate && !all_not_scorable {
            let mut g = self.gate_scores.clone();
            g.sort_by_key(|(i, _)| *i);
            let gs: Vec<f64> = g.iter().map(|(_, s)| *s).collect();
            let avg = stats(&gs, 1.0).mean.unwrap_or(0.0);
            // an empty shard has nothing against its gates; an empty run fails (no-items)
            let passed = if gs.is_empty() {
                partial
            } else {
                avg >= policy.gate_pass_rate
            };
            // a shard decides a gate only when every item must pass
            let decided = !partial || policy.gate_pass_rate >= 1.0;
            if !passed && decided {
                reasons.push(reason(
                    "gate",
                    Some(id),
                    turn,
                    format!(
                        "{at}gate \"{id}\" passed {}% of items (required: {}%)",
                        num(avg * 100.0),
                        num(policy.gate_pass_rate * 100.0)
                    ),
                ));
            }
            gate_result = Some(json!({ "id": id, "passed": passed, "score": avg }));
        } else if !self.gate {
            if let Some(th) = self.threshold.as_ref().filter(|_| !all_not_scorable) {
                let passed = st.mean.is_some_and(|m| th.passed(m));
                if !passed && !partial {
                    threshold_reasons.push(reason(
                        "threshold",
                        Some(id),
                        turn,
                        format!("{at}{}", th.missed(id, st.mean)),
                    ));
                }
                threshold_result = Some(json!({
                    "id": id, "passed": passed, "averageScore": st.mean, "threshold": th.raw,
                }));
            }
        }
        Judged {
            coverage: json!({ "scored": xs.len(), "total": self.total }),
            stats: st,
            gate_result,
            threshold_result,
            reasons,
            threshold_reasons,
        }
    }

    /// Agreement with the labels at the scorer's threshold; without one, a gate passes at 1
    /// and a scorer at half its scale (on its better side).
    fn agreement(&self) -> Value {
        match (&self.threshold, self.gate, self.direction) {
            (Some(th), _, _) => self.labels.summary(|x| th.passed(x), &th.text()),
            (None, true, _) => self.labels.summary(|x| x >= 1.0, ">= 1 (a gate)"),
            (None, false, Direction::Lower) => {
                let half = self.scale / 2.0;
                self.labels.summary(
                    |x| x <= half,
                    &format!("<= {} (no threshold set: half the scale)", num(half)),
                )
            }
            (None, false, _) => {
                let half = self.scale / 2.0;
                self.labels.summary(
                    |x| x >= half,
                    &format!(">= {} (no threshold set: half the scale)", num(half)),
                )
            }
        }
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
        let s = stats(&[], 1.0);
        assert_eq!((s.n, s.mean, s.std, s.ci95), (0, None, None, None));
        let s = stats(&[0.5], 1.0);
        assert_eq!((s.n, s.mean, s.std, s.ci95), (1, Some(0.5), None, None));
        let s = stats(&[1.0, 0.0], 1.0);
        assert!(close(s.mean.unwrap(), 0.5));
        assert!(close(s.std.unwrap(), std::f64::consts::FRAC_1_SQRT_2));
        // 0/1 scores: exactly Wilson's interval for 1 of 2 (the t interval was ±6.35)
        let [lo, hi] = s.ci95.unwrap();
        assert!(
            (lo - 0.094_531).abs() < 1e-5 && (hi - 0.905_469).abs() < 1e-5,
            "{lo} {hi}"
        );
        let s = stats(&[0.2, 0.4, 0.6, 0.8, 1.0], 1.0);
        assert!(close(s.mean.unwrap(), 0.6));
        assert!(close(s.std.unwrap(), 0.1f64.sqrt())); // variance 0.1
        assert_eq!((s.min, s.max), (Some(0.2), Some(1.0)));
        // population variance 0.08 → n* = 5 · 0.24 / 0.08 = 15: Wilson(0.6, 15)
        assert_eq!(s.ci95, Some(wilson(0.6, 15.0)));
        let same = stats(&[0.7, 0.7, 0.7], 1.0);
        assert!(same.std.unwrap() < 1e-12);
        let [lo, hi] = same.ci95.unwrap();
        assert!(close(lo, 0.7) && close(hi, 0.7));
    }

    #[test]
    fn intervals_never_leave_the_range() {
        // the two intervals the issue saw leave [0, 1] with Student's t
        for xs in [
            vec![0.0, 0.0, 0.4, 1.0, 0.8, 0.0, 0.1],
            vec![1.0, 1.0, 0.9, 1.0, 0.94, 1.0],
            vec![1.0, 1.0, 1.0, 1.0, 1.0],
            vec![0.0, 0.0],
            vec![0.0, 1.0, 1.0, 1.0],
        ] {
            let [lo, hi] = bounded_ci(&xs, 1.0).unwrap();
            let mean = xs.iter().sum::<f64>() / xs.len() as f64;
            assert!(
                (0.0..=1.0).contains(&lo) && (0.0..=1.0).contains(&hi),
                "{xs:?}: [{lo}, {hi}]"
            );
            assert!(
                lo <= mean + 1e-12 && mean <= hi + 1e-12,
                "{xs:?}: [{lo}, {hi}]"
            );
        }
        // every score at 1 of 5 is Wilson's 5 of 5, not a zero-width interval
        let [lo, hi] = bounded_ci(&[1.0; 5], 1.0).unwrap();
        assert!((lo - 0.565_509).abs() < 1e-5 && close(hi, 1.0), "{lo}");
        // a scale of 10: the same interval, ten times wider
        let a = bounded_ci(&[0.2, 0.5, 0.9], 1.0).unwrap();
        let b = bounded_ci(&[2.0, 5.0, 9.0], 10.0).unwrap();
        assert!(close(a[0] * 10.0, b[0]) && close(a[1] * 10.0, b[1]));
        // a score outside its range widens the range instead of breaking the interval
        let [lo, hi] = bounded_ci(&[0.5, 1.5], 1.0).unwrap();
        assert!(lo >= 0.0 && hi <= 1.5);
        // many items close together: narrower than 0/1 data with the same mean
        let tight: Vec<f64> = (0..100).map(|i| 0.5 + (i % 3) as f64 * 0.01).collect();
        let [lo, hi] = bounded_ci(&tight, 1.0).unwrap();
        assert!(hi - lo < 0.01, "{lo} {hi}");
    }

    #[test]
    fn wilson_matches_published_values() {
        // Wilson (1927) / Newcombe (1998) table: 81 of 263 → [0.2553, 0.3662]
        let [lo, hi] = wilson(81.0 / 263.0, 263.0);
        assert!(
            (lo - 0.2553).abs() < 1e-4 && (hi - 0.3662).abs() < 1e-4,
            "{lo} {hi}"
        );
        // 0 of 10 → [0, 0.2775]
        let [lo, hi] = wilson(0.0, 10.0);
        assert!(close(lo, 0.0) && (hi - 0.2775).abs() < 1e-4, "{hi}");
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
    fn categorized_scores_and_trajectory_routing() {
        let config = json!({
            "categorized": true,
            "scorers": [
                { "id": "quality", "category": "agent", "type": "agent" },
                { "id": "path", "category": "trajectory", "type": "trajectory", "threshold": 0.5 },
                // a trajectory scorer filed under agent receives the messages (Mastra's routing)
                { "id": "path-raw", "category": "agent", "type": "trajectory" },
            ],
            "gates": [{ "id": "called", "type": "agent" }, { "id": "order", "type": "trajectory" }],
        });
        let mut a = acc(config.clone());
        assert_eq!(a.routes(), json!({ "trajectory": ["path", "order"] }));
        let runs = |q: f64, p: f64| json!({ "quality": [{ "score": q }], "path": [{ "score": p }], "path-raw": [{ "score": 1 }], "called": [{ "score": 1 }], "order": [{ "score": 1 }] });
        a.add_item(&json!({ "index": 0, "runs": runs(1.0, 0.5) }))
            .unwrap();
        a.add_item(&json!({ "index": 1, "runs": runs(0.5, 1.0) }))
            .unwrap();
        let s = a.summary(&Value::Null);
        // Mastra's result.scores.agent / .trajectory; gates stay out of scores
        assert_eq!(
            s["scores"],
            json!({ "agent": { "quality": 0.75, "path-raw": 1.0 }, "trajectory": { "path": 0.75 } })
        );
        // everything else stays keyed by id
        assert_eq!(s["coverage"]["path"], json!({ "scored": 2, "total": 2 }));
        assert_eq!(s["thresholdResults"][0]["id"], "path");
        assert_eq!(s["verdict"], "passed");
        // a category with no scorer is left out (Mastra)
        let only = acc(
            json!({ "categorized": true, "scorers": [{ "id": "path", "category": "trajectory", "type": "trajectory" }] }),
        );
        assert_eq!(
            only.summary(&Value::Null)["scores"],
            json!({ "trajectory": { "path": null } })
        );
        // the flat form never routes a scorer, whatever its type; a gate by its type
        let flat = acc(
            json!({ "scorers": [{ "id": "path", "type": "trajectory" }], "gates": [{ "id": "g" }] }),
        );
        assert_eq!(flat.routes(), json!({ "trajectory": [] }));
        // a scorer under scorers.trajectory must be one
        for (entry, shown) in [
            (
                json!({ "id": "rel", "category": "trajectory", "type": "agent" }),
                "\"agent\"",
            ),
            (
                json!({ "id": "rel", "category": "trajectory" }),
                "undefined",
            ),
        ] {
            let e = EvalAccumulator::new(&json!({ "categorized": true, "scorers": [{ "id": "q", "category": "agent" }, entry] })).unwrap_err();
            assert_eq!(
                e.message,
                format!("scorers.trajectory[0] (\"rel\") is not a trajectory scorer (its type is {shown}): a scorer under scorers.trajectory receives the trajectory extracted from the agent's messages, so it must have type 'trajectory'; put it in scorers.agent")
            );
        }
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
        let s = a.summary(&Value::Null);
        assert_eq!(s["scores"]["s"], json!(0.75));
        assert_eq!(s["errors"]["s"], json!(1));
        assert_eq!(s["coverage"]["s"], json!({"scored": 2, "total": 4}));
        assert_eq!(
            s["summary"],
            json!({"totalItems": 4, "failedItems": 2, "erroredItems": 2})
        );
        // two items went unscored and none were allowed: the run fails, threshold met or not
        assert_eq!(s["verdict"], json!("failed"));
        assert_eq!(s["outcome"]["passed"], json!(false));
        assert_eq!(s["outcome"]["reasons"][0]["kind"], json!("errors"));
        assert_eq!(s["thresholdResults"][0]["passed"], json!(true));
        assert_eq!(s["thresholdResults"][0]["averageScore"], json!(0.75));
    }

    #[test]
    fn no_scored_item_is_null_and_fails_its_threshold() {
        let mut a = acc(json!({"scorers": [{"id": "s", "threshold": 0.0}, {"id": "t"}]}));
        a.add_item(&json!({"index": 0, "runs": {"s": [{}], "t": [{"score": 0.0}]}}))
            .unwrap();
        let s = a.summary(&Value::Null);
        assert_eq!(s["scores"]["s"], Value::Null);
        assert_eq!(s["scores"]["t"], json!(0.0));
        assert_eq!(s["thresholdResults"][0]["passed"], json!(false));
        // a scorer that scored nothing fails the run (it is never "scored")
        assert_eq!(s["verdict"], json!("failed"));
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
            let out = a.summary(&Value::Null);
            assert_eq!(out["verdict"], json!(want), "{gates:?} {s}");
            assert!(out["scores"].get("g").is_none(), "gates are not in scores");
        }
    }

    #[test]
    fn no_thresholds_no_gates_no_verdict() {
        let mut a = acc(json!({"scorers": [{"id": "s"}]}));
        a.add_item(&json!({"index": 0, "runs": {"s": [{"score": 1}]}}))
            .unwrap();
        let s = a.summary(&Value::Null);
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
        let s = a.summary(&Value::Null);
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
            a.summary(&Value::Null)
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

    fn kinds(s: &Value) -> Vec<String> {
        s["outcome"]["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["kind"].as_str().unwrap().to_string())
            .collect()
    }

    fn run_with(config: Value, items: &[Value]) -> Value {
        let mut a = acc(config);
        for it in items {
            a.add_item(it).unwrap();
        }
        a.summary(&Value::Null)
    }

    #[test]
    fn outcome_table() {
        let ok = |i: u64, x: f64| json!({"index": i, "runs": {"s": [{"score": x}]}});
        let err = |i: u64, code: &str| json!({"index": i, "runs": {"s": [{"error": {"code": code, "message": "boom"}}]}});
        // (config, items, status, reason kinds)
        let cases: Vec<(Value, Vec<Value>, &str, Vec<&str>)> = vec![
            (
                json!({"scorers": [{"id": "s"}]}),
                vec![ok(0, 1.0), ok(1, 0.2)],
                "passed",
                vec![],
            ),
            (
                json!({"scorers": [{"id": "s"}]}),
                vec![],
                "failed",
                vec!["no-items"],
            ),
            // nothing scored: failed, not passed (the bug: coverage 0/10, verdict passed)
            (
                json!({"scorers": [{"id": "s"}], "maxErrors": 100}),
                vec![
                    err(0, "OXEVAL_MISSING_API_KEY"),
                    err(1, "OXEVAL_JUDGE_NETWORK"),
                ],
                "failed",
                vec!["nothing-scored"],
            ),
            (
                json!({"scorers": [{"id": "s"}]}),
                vec![ok(0, 1.0), err(1, "OXEVAL_JUDGE_HTTP")],
                "failed",
                vec!["errors"],
            ),
            (
                json!({"scorers": [{"id": "s"}], "maxErrors": 1}),
                vec![ok(0, 1.0), err(1, "OXEVAL_JUDGE_HTTP")],
                "passed",
                vec![],
            ),
            // a replay miss fails whatever maxErrors allows
            (
                json!({"scorers": [{"id": "s"}], "maxErrors": 5}),
                vec![ok(0, 1.0), err(1, "OXEVAL_CACHE_MISS")],
                "failed",
                vec!["cache-miss"],
            ),
            (
                json!({"scorers": [{"id": "s"}], "maxErrors": 5, "minCoverage": 0.9}),
                vec![ok(0, 1.0), err(1, "OXEVAL_JUDGE_HTTP")],
                "failed",
                vec!["coverage"],
            ),
            (
                json!({"scorers": [{"id": "s", "threshold": 0.8}]}),
                vec![ok(0, 1.0), ok(1, 0.2)],
                "scored",
                vec!["threshold"],
            ),
            // a target error or an unreadable row is an unscored item
            (
                json!({"scorers": [{"id": "s"}]}),
                vec![
                    ok(0, 1.0),
                    json!({"index": 1, "targetError": {"code": "OXEVAL_INVALID_INPUT", "message": "bad row"}, "runs": {}}),
                ],
                "failed",
                vec!["errors"],
            ),
        ];
        for (config, items, status, want) in cases {
            let s = run_with(config.clone(), &items);
            assert_eq!(s["outcome"]["status"], json!(status), "{config} {items:?}");
            assert_eq!(s["outcome"]["passed"], json!(status == "passed"));
            assert_eq!(kinds(&s), want, "{config}");
            assert!(!s["outcome"]["meaning"].as_str().unwrap().is_empty());
            // Mastra's verdict only where gates or thresholds exist, and then the same word
            match s.get("verdict") {
                Some(v) => assert_eq!(v, &json!(status)),
                None => assert!(config["scorers"][0].get("threshold").is_none()),
            }
        }
    }

    #[test]
    fn reasons_name_the_item_scorer_and_side() {
        let s = run_with(
            json!({"scorers": [{"id": "h", "threshold": {"max": 0.3}}]}),
            &[
                json!({"index": 0, "runs": {"h": [{"score": 0.5}]}}),
                json!({"index": 1, "runs": {"h": [{"score": 0.4}]}}),
            ],
        );
        let m = s["outcome"]["reasons"][0]["message"].as_str().unwrap();
        assert!(m.contains("above the maximum 0.3"), "{m}");
        assert!(!m.contains("below"), "{m}");
        let s = run_with(
            json!({"scorers": [{"id": "s"}]}),
            &[
                json!({"index": 0, "runs": {"s": [{"score": 1}]}}),
                json!({"index": 7, "runs": {"s": [{"error": {"code": "OXEVAL_CACHE_MISS", "message": "no reply recorded for s/analyze of item #7: the prompt differs"}}]}}),
            ],
        );
        let m = s["outcome"]["reasons"][0]["message"].as_str().unwrap();
        assert!(
            m.contains("item 7, s: OXEVAL_CACHE_MISS: no reply recorded"),
            "{m}"
        );
        assert_eq!(s["scorerInfo"]["s"]["direction"], json!("higher"));
    }

    #[test]
    fn gates_use_the_pass_rate_and_shards_decide_only_what_they_can() {
        let items: Vec<Value> = (0..10)
            .map(|i| json!({"index": i, "runs": {"g": [{"score": if i == 0 { 0.0 } else { 1.0 }}], "s": [{"score": 0.1}]}}))
            .collect();
        let base = json!({"scorers": [{"id": "s", "threshold": 0.5}], "gates": [{"id": "g"}]});
        let s = run_with(base.clone(), &items);
        assert_eq!(kinds(&s), vec!["gate", "threshold"]);
        let mut c = base.clone();
        c["gatePassRate"] = json!(0.9);
        let s = run_with(c, &items);
        assert_eq!(s["outcome"]["status"], json!("scored"));
        assert_eq!(s["gateResults"][0]["passed"], json!(true));
        // a shard: the failed gate decides (every item must pass); the mean does not
        let mut c = base.clone();
        c["partial"] = json!(true);
        let s = run_with(c.clone(), &items);
        assert_eq!(kinds(&s), vec!["gate"]);
        let s = run_with(c.clone(), &items[1..]);
        assert_eq!(s["outcome"]["status"], json!("passed"));
        // an empty shard is not a failure of the run
        let s = run_with(c, &[]);
        assert_eq!(s["outcome"]["status"], json!("passed"));
    }

    #[test]
    fn stops_early_only_on_persistent_failures() {
        let fail = |i: u64, e: Value| json!({"index": i, "runs": {"s": [{"error": e}]}});
        let refused = json!({"code": "OXEVAL_JUDGE_NETWORK", "message": "could not reach judge x at http://127.0.0.1:1/ after 3 tries: error sending request: tcp connect error: Connection refused (os error 111)"});
        let mut a = acc(json!({"scorers": [{"id": "s"}]}));
        for i in 0..4 {
            let r = a.add_item(&fail(i, refused.clone())).unwrap();
            assert!(r.get("stop").is_none());
        }
        let r = a.add_item(&fail(4, refused.clone())).unwrap();
        let m = r["stop"]["message"].as_str().unwrap();
        assert!(
            m.contains("connection refused") && m.contains("\"s\""),
            "{m}"
        );
        assert!(
            a.add_item(&fail(5, refused.clone()))
                .unwrap()
                .get("stop")
                .is_none(),
            "said once"
        );
        assert_eq!(kinds(&a.summary(&Value::Null))[0], "stopped");
        // transient failures, or one success among the first runs, never stop a run
        for first in [
            json!({"code": "OXEVAL_JUDGE_HTTP", "status": 429, "message": "rate limited"}),
            json!({"code": "OXEVAL_JUDGE_TIMEOUT", "message": "slow"}),
            json!({"code": "OXEVAL_JUDGE_NETWORK", "message": "connection reset by peer"}),
        ] {
            let mut a = acc(json!({"scorers": [{"id": "s"}]}));
            for i in 0..8 {
                assert!(a
                    .add_item(&fail(i, first.clone()))
                    .unwrap()
                    .get("stop")
                    .is_none());
            }
        }
        // a judge that dies mid-run: five persistent failures in a row after scored runs stop it
        let mut a = acc(json!({"scorers": [{"id": "s"}]}));
        for i in 0..3 {
            a.add_item(&json!({"index": i, "runs": {"s": [{"score": 1}]}}))
                .unwrap();
        }
        for i in 3..7 {
            assert!(a
                .add_item(&fail(i, refused.clone()))
                .unwrap()
                .get("stop")
                .is_none());
        }
        let r = a.add_item(&fail(7, refused.clone())).unwrap();
        let m = r["stop"]["message"].as_str().unwrap();
        assert!(
            m.contains("5 runs of \"s\" in a row failed (after 3 that scored)"),
            "{m}"
        );
        // a success or a transient failure between persistent ones ends the streak
        for breaker in [
            json!({"runs": {"s": [{"score": 0.5}]}}),
            json!({"runs": {"s": [{"error": {"code": "OXEVAL_JUDGE_HTTP", "status": 503, "message": "busy"}}]}}),
        ] {
            let mut a = acc(json!({"scorers": [{"id": "s"}]}));
            let mut i = 0;
            for _ in 0..5 {
                for _ in 0..4 {
                    let r = a.add_item(&fail(i, refused.clone())).unwrap();
                    assert!(r.get("stop").is_none());
                    i += 1;
                }
                let mut b = breaker.clone();
                b["index"] = json!(i);
                assert!(a.add_item(&b).unwrap().get("stop").is_none());
                i += 1;
            }
        }
        // different persistent failures are not "the same" failure
        let mut a = acc(json!({"scorers": [{"id": "s"}]}));
        for i in 0..5 {
            let e = if i % 2 == 0 {
                json!({"code": "OXEVAL_JUDGE_HTTP", "status": 401, "message": "no"})
            } else {
                json!({"code": "OXEVAL_MISSING_API_KEY", "message": "no key"})
            };
            assert!(a.add_item(&fail(i, e)).unwrap().get("stop").is_none());
        }
        // stopEarly: false turns it off
        let mut a = acc(json!({"scorers": [{"id": "s"}], "stopEarly": false}));
        for i in 0..6 {
            assert!(a
                .add_item(&fail(i, refused.clone()))
                .unwrap()
                .get("stop")
                .is_none());
        }
        for (e, want) in [
            (json!({"code": "OXEVAL_MISSING_API_KEY"}), true),
            (json!({"code": "OXEVAL_JUDGE_HTTP", "status": 401}), true),
            (json!({"code": "OXEVAL_JUDGE_HTTP", "status": 404}), true),
            (json!({"code": "OXEVAL_JUDGE_MODEL", "status": 403}), true),
            (json!({"code": "OXEVAL_JUDGE_HTTP", "status": 500}), false),
            (
                json!({"code": "OXEVAL_JUDGE_NETWORK", "message": "dns error: failed to lookup address information"}),
                true,
            ),
            (json!({"code": "OXEVAL_JUDGE_OUTPUT"}), false),
            (json!({"code": "OXEVAL_CACHE_MISS"}), false),
        ] {
            assert_eq!(persistent_failure(&e).is_some(), want, "{e}");
        }
    }

    #[test]
    fn aborted_runs_never_pass() {
        let mut a = acc(json!({"scorers": [{"id": "s"}]}));
        a.add_item(&json!({"index": 0, "runs": {"s": [{"score": 1}]}}))
            .unwrap();
        let s = a.summary(&json!({"aborted": true, "unfinished": 3}));
        assert_eq!(kinds(&s), vec!["aborted"]);
        let m = s["outcome"]["reasons"][0]["message"].as_str().unwrap();
        assert!(m.contains("1 item finished, 3 did not"), "{m}");
    }

    #[test]
    fn direction_and_scale_come_from_the_config_or_known_ids() {
        let a = acc(
            json!({"scorers": [{"id": "hallucination-scorer"}, {"id": "x", "direction": "lower", "scale": 10}, {"id": "y"}]}),
        );
        let s = a.summary(&Value::Null);
        assert_eq!(
            s["scorerInfo"]["hallucination-scorer"]["direction"],
            json!("lower")
        );
        assert_eq!(
            s["scorerInfo"]["x"],
            json!({"direction": "lower", "scale": 10.0, "gate": false})
        );
        assert_eq!(s["scorerInfo"]["y"]["direction"], json!("higher"));
        for bad in [
            json!({"scorers": [{"id": "x", "direction": "up"}]}),
            json!({"scorers": [{"id": "x", "scale": 0}]}),
            json!({"scorers": [{"id": "x"}], "maxErrors": -1}),
            json!({"scorers": [{"id": "x"}], "maxErrors": 1.5}),
            json!({"scorers": [{"id": "x"}], "minCoverage": 2}),
            json!({"scorers": [{"id": "x"}], "gatePassRate": "1"}),
            json!({"scorers": [{"id": "x"}], "partial": 1}),
        ] {
            assert!(EvalAccumulator::new(&bad).is_err(), "{bad}");
        }
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
