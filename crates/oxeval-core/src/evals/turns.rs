//! Per-turn assertions of multi-turn items (Mastra's `turns: [{ input, gates?, scorers? }]`).
//!
//! Each turn's gates and scorers are tallied under the turn's index across items (Mastra
//! averages per-turn results by turn index) with the same accounting as the run's own
//! scorers (errors excluded from means and counted, an errored gate run as 0, trials,
//! `notScorable`, the early stop), and they fold into THE outcome of the run: a turn gate
//! under `gatePassRate` fails it, a turn scorer that scored nothing fails it, an unscored turn
//! run makes its item an unscored one (`maxErrors`), a missed turn threshold makes it
//! `scored`. `turnResults` has Mastra's shape (`{ index, gateResults?, thresholdResults?,
//! scores? }`, `scores` holding every turn scorer's mean, thresholded or not) plus, per turn
//! with assertions, oxeval's `coverage`, `errors`, `stats` and `scorerInfo`; a turn without
//! assertions is `{ index }` (it only advances the conversation).
//!
//! One declaration per (turn index, id): the same id in the same turn of another item must
//! be the same kind (gate or scorer) with the same threshold, else the item is refused with a
//! TypeError naming it (Mastra keeps the first threshold silently).

use super::{describe, facts_of, id_of, Counter, ItemAcc, Policy, Tally, Threshold};
use crate::error::InvalidArgument;
use crate::scorers::Direction;
use indexmap::IndexMap;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// One declared assertion of a turn: a gate (must score 1), or a scorer with an optional
/// threshold.
#[derive(Debug, Clone)]
pub(super) struct Decl {
    pub id: String,
    pub gate: bool,
    pub threshold: Option<Threshold>,
    pub direction: Direction,
    pub scale: f64,
}

impl Decl {
    /// A turn's `{ gates?: [{ id, direction?, scale? }], scorers?: [{ id, threshold?,
    /// direction?, scale? }] }` → its declarations (gates first), ids unique within the turn.
    /// `at` names the turn in messages (`data item 3: turns[1]`).
    pub fn parse_turn(v: &Value, at: &str) -> Result<Vec<Decl>, InvalidArgument> {
        let mut out: Vec<Decl> = Vec::new();
        for (key, gate) in [("gates", true), ("scorers", false)] {
            let list = match v.get(key) {
                None | Some(Value::Null) => continue,
                Some(Value::Array(a)) => a,
                Some(other) => {
                    return Err(InvalidArgument::input(format!(
                        "{at}.{key} must be an array, got {}",
                        describe(other)
                    )))
                }
            };
            for (i, e) in list.iter().enumerate() {
                let here = format!("{at}.{key}[{i}]");
                let id = id_of(e, &here).map_err(as_input)?;
                let threshold =
                    match e.get("threshold") {
                        None | Some(Value::Null) => None,
                        Some(_) if gate => {
                            return Err(InvalidArgument::input(format!(
                                "{here}: a gate takes no threshold (it must score 1.0)"
                            )))
                        }
                        Some(t) => Some(Threshold::parse(t, &id).map_err(|e| {
                            InvalidArgument::input(format!("{here}: {}", e.message))
                        })?),
                    };
                let (direction, scale) = facts_of(e, &here, &id).map_err(as_input)?;
                if out.iter().any(|d| d.id == id) {
                    return Err(InvalidArgument::input(format!(
                        "{at} has two assertions with the id \"{id}\" (per-turn results are keyed by id): give one of them another `id` option"
                    )));
                }
                out.push(Decl {
                    id,
                    gate,
                    threshold,
                    direction,
                    scale,
                });
            }
        }
        Ok(out)
    }

    /// What the declaration must agree on across items: its kind and threshold bounds.
    fn signature(&self) -> (bool, Option<(Option<f64>, Option<f64>)>) {
        (self.gate, self.threshold.as_ref().map(|t| (t.min, t.max)))
    }
}

fn as_input(e: InvalidArgument) -> InvalidArgument {
    InvalidArgument::input(e.message)
}

/// One item's turns as `add_item` receives them: per turn, its declarations and their runs.
pub(super) struct ItemTurns {
    turns: Vec<(Vec<Decl>, Map<String, Value>)>,
}

impl ItemTurns {
    /// The item's `turns: [{ gates, scorers, runs }]`, if it has any (a `turns` item).
    pub fn parse(item: &Value, index: u64) -> Result<Option<ItemTurns>, InvalidArgument> {
        let list = match item.get("turns") {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::Array(a)) => a,
            Some(other) => {
                return Err(InvalidArgument::input(format!(
                    "item {index}: turns must be an array, got {}",
                    describe(other)
                )))
            }
        };
        let mut turns = Vec::with_capacity(list.len());
        for (k, t) in list.iter().enumerate() {
            let decls = Decl::parse_turn(t, &format!("item {index}: turns[{k}]"))?;
            let runs = t
                .get("runs")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            turns.push((decls, runs));
        }
        Ok(Some(ItemTurns { turns }))
    }

    pub fn decls(&self) -> impl Iterator<Item = (u64, &Decl)> {
        self.turns
            .iter()
            .enumerate()
            .flat_map(|(k, (ds, _))| ds.iter().map(move |d| (k as u64, d)))
    }
}

/// Every turn's tallies across items, and what was declared.
#[derive(Debug, Clone, Default)]
pub(super) struct Turns {
    /// An item with turns was added (`turnResults` is then present, Mastra's rule).
    any: bool,
    /// Per turn index: its gates and scorers in first-seen order.
    by_turn: BTreeMap<u64, IndexMap<String, Tally>>,
    /// Every declaration seen (planned or added) per (turn, id): its signature.
    declared: BTreeMap<(u64, String), (bool, Option<(Option<f64>, Option<f64>)>)>,
}

/// What the summary takes from the turns.
#[derive(Default)]
pub(super) struct TurnSummary {
    pub results: Option<Value>,
    pub reasons: Vec<Value>,
    pub threshold_reasons: Vec<Value>,
    pub has_gates: bool,
    pub has_thresholds: bool,
}

impl Turns {
    /// No per-turn assertion was tallied.
    pub fn is_empty(&self) -> bool {
        self.by_turn.values().all(IndexMap::is_empty)
    }

    /// Whether `decls` (turn index, declaration) agree with the declarations seen so far;
    /// `at` names the item in the message.
    pub fn check<'a>(
        &self,
        decls: impl Iterator<Item = (u64, &'a Decl)>,
        at: &str,
    ) -> Result<(), InvalidArgument> {
        for (k, d) in decls {
            let Some(seen) = self.declared.get(&(k, d.id.clone())) else {
                continue;
            };
            if *seen == d.signature() {
                continue;
            }
            let what = |(gate, th): (bool, Option<(Option<f64>, Option<f64>)>)| match (gate, th) {
                (true, _) => "a gate".to_string(),
                (false, None) => "a scorer without a threshold".to_string(),
                (false, Some((min, max))) => format!(
                    "a scorer with the threshold {}",
                    Threshold {
                        min,
                        max,
                        raw: Value::Null
                    }
                    .text()
                ),
            };
            return Err(InvalidArgument::input(format!(
                "{at}: turns[{k}]: \"{}\" is {} here but {} in an earlier item's turn {k} (per-turn results are averaged by turn index across items, so a turn's assertion must be the same in every item)",
                d.id,
                what(d.signature()),
                what(*seen)
            )));
        }
        Ok(())
    }

    /// Records `decls` as seen (after [`Turns::check`]).
    pub fn declare<'a>(&mut self, decls: impl Iterator<Item = (u64, &'a Decl)>) {
        for (k, d) in decls {
            self.declared
                .entry((k, d.id.clone()))
                .or_insert_with(|| d.signature());
        }
    }

    /// Counts one item's turns (checked and declared); per turn its trial statistics and
    /// usage, as `add_item` returns them for the item's own scorers.
    pub fn add(&mut self, item: ItemTurns, acc: &mut ItemAcc, count: &mut Counter) -> Value {
        self.any = true;
        let mut out = Vec::with_capacity(item.turns.len());
        for (k, (decls, runs)) in item.turns.into_iter().enumerate() {
            let k = k as u64;
            let bucket = self.by_turn.entry(k).or_default();
            let mut trials = Map::new();
            let mut usage = Map::new();
            for d in decls {
                let shown = format!("{} (turn {k})", d.id);
                let trial_runs = runs.get(&d.id).and_then(Value::as_array);
                let tally = bucket
                    .entry(d.id.clone())
                    .or_insert_with(|| Tally::new(d.threshold, d.gate, d.direction, d.scale));
                let c = count.runs(tally, &shown, trial_runs, None, acc);
                if let Some(t) = c.trial {
                    trials.insert(d.id.clone(), t);
                }
                if let Some(u) = c.usage {
                    usage.insert(d.id, u);
                }
            }
            out.push(json!({ "trials": trials, "usage": usage }));
        }
        Value::Array(out)
    }

    /// `turnResults` (when an item had turns) and what the turns add to the outcome.
    pub fn summary(&self, policy: &Policy) -> TurnSummary {
        let mut s = TurnSummary::default();
        if !self.any {
            return s;
        }
        let mut results = Vec::with_capacity(self.by_turn.len());
        for (k, bucket) in &self.by_turn {
            let mut r = json!({ "index": k });
            let mut gates = Vec::new();
            let mut thresholds = Vec::new();
            let mut scores = Map::new();
            let mut coverage = Map::new();
            let mut errors = Map::new();
            let mut stats = Map::new();
            let mut info = Map::new();
            for (id, t) in bucket {
                let j = t.judge(id, policy, Some(*k));
                s.reasons.extend(j.reasons);
                s.threshold_reasons.extend(j.threshold_reasons);
                if let Some(g) = j.gate_result {
                    gates.push(g);
                }
                if let Some(th) = j.threshold_result {
                    thresholds.push(th);
                }
                if !t.gate {
                    scores.insert(id.clone(), json!(j.stats.mean));
                }
                coverage.insert(id.clone(), j.coverage);
                errors.insert(id.clone(), json!(t.errors));
                stats.insert(
                    id.clone(),
                    serde_json::to_value(&j.stats).unwrap_or_default(),
                );
                info.insert(
                    id.clone(),
                    json!({ "direction": t.direction, "scale": t.scale, "gate": t.gate }),
                );
            }
            if !gates.is_empty() {
                s.has_gates = true;
                r["gateResults"] = Value::Array(gates);
            }
            if !thresholds.is_empty() {
                s.has_thresholds = true;
                r["thresholdResults"] = Value::Array(thresholds);
            }
            if !scores.is_empty() {
                r["scores"] = Value::Object(scores);
            }
            if !bucket.is_empty() {
                r["coverage"] = Value::Object(coverage);
                r["errors"] = Value::Object(errors);
                r["stats"] = Value::Object(stats);
                r["scorerInfo"] = Value::Object(info);
            }
            results.push(r);
        }
        s.results = Some(Value::Array(results));
        s
    }
}
