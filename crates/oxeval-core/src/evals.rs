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
use serde_json::{json, Map, Value};

mod budget;
mod early_stop;
mod outcome;
mod plan;
mod stats;
mod turns;
mod usage;

pub use early_stop::{persistent_failure, EARLY_STOP_RUNS};
use outcome::reason;
pub use outcome::{Policy, Threshold};
pub use stats::{bounded_ci, stats, t_critical, wilson, Stats};
use usage::count;
pub use usage::UsageTotals;

/// Largest `trials` accepted.
pub const MAX_TRIALS: u64 = 1000;

fn describe(v: &Value) -> String {
    match v {
        Value::Number(n) => n.to_string(),
        Value::String(s) => format!("the string {s:?}"),
        other => format!("a value of type {}", type_name(other)),
    }
}

/// Mastra's own ids of scorers where a lower score is better (used when a scorer object does
/// not say its direction, e.g. a Mastra scorer mixed into oxeval's runEvals).
const LOWER_IS_BETTER_IDS: &[&str] = &["hallucination-scorer", "bias-scorer", "toxicity-scorer"];

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
    /// `maxCost` (budget.rs): the spend as billed and whether a new item may start.
    budget: Option<budget::Budget>,
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
            budget: budget::Budget::from_config(config)?,
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
        if let Some(b) = &mut self.budget {
            b.add(item);
        }
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

    /// Whether the runner may start one more item with `in_flight` items running (budget.rs):
    /// `null` (yes), `{ wait: true }` (not before an item finishes: none has paid yet, so
    /// nothing tells what one costs) or `{ code: 'OXEVAL_BUDGET_EXHAUSTED', message }` (no, and
    /// no further item either: the spend would pass `maxCost`).
    pub fn budget(&mut self, in_flight: u64) -> Value {
        self.budget
            .as_mut()
            .and_then(|b| b.check(in_flight))
            .unwrap_or(Value::Null)
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
        if let Some(m) = self.budget.as_ref().and_then(|b| b.exhausted()) {
            reasons.push(reason("budget", None, None, m));
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
        let (status, meaning) = outcome::status(&reasons, &threshold_reasons, partial);
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
        if let Some(b) = &self.budget {
            out["budget"] = b.summary();
            out["outcome"]["policy"]["maxCost"] = b.summary()["maxCost"].clone();
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
}
