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
    fn signature(&self) -> Signature {
        (self.gate, self.threshold.as_ref().map(|t| (t.min, t.max)))
    }
}

/// A declaration's kind (gate?) and threshold bounds (min, max), as items must agree on them.
type Signature = (bool, Option<(Option<f64>, Option<f64>)>);

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
    declared: BTreeMap<(u64, String), Signature>,
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
            let what = |(gate, th): Signature| match (gate, th) {
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

#[cfg(test)]
mod tests {
    use super::super::EvalAccumulator;
    use serde_json::{json, Value};

    fn run(items: &[Value]) -> Value {
        let mut a = EvalAccumulator::new(&json!({ "scorers": [] })).unwrap();
        for it in items {
            a.add_item(it).unwrap();
        }
        a.summary(&Value::Null)
    }

    fn gate(id: &str) -> Value {
        json!({ "id": id })
    }

    /// A turns item: per turn `(gates, scorers, runs)`.
    fn item(index: u64, turns: Vec<(Vec<Value>, Vec<Value>, Value)>) -> Value {
        let turns: Vec<Value> = turns
            .into_iter()
            .map(|(g, s, r)| json!({ "gates": g, "scorers": s, "runs": r }))
            .collect();
        json!({ "index": index, "runs": {}, "turns": turns })
    }

    fn kinds(s: &Value) -> Vec<(String, Option<u64>)> {
        s["outcome"]["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["kind"].as_str().unwrap().to_string(), r["turn"].as_u64()))
            .collect()
    }

    #[test]
    fn turn_results_average_by_turn_index_and_fold_into_the_outcome() {
        let th = json!({ "id": "sim", "threshold": 0.8 });
        let s = run(&[
            item(
                0,
                vec![
                    (
                        vec![gate("called")],
                        vec![],
                        json!({ "called": [{ "score": 1 }] }),
                    ),
                    (vec![], vec![th.clone()], json!({ "sim": [{ "score": 1 }] })),
                    (vec![], vec![], json!({})),
                ],
            ),
            item(
                1,
                vec![
                    (
                        vec![gate("called")],
                        vec![],
                        json!({ "called": [{ "score": 0 }] }),
                    ),
                    (vec![], vec![th], json!({ "sim": [{ "score": 0.5 }] })),
                    (vec![], vec![], json!({})),
                ],
            ),
        ]);
        let t = &s["turnResults"];
        // turn 0: the gate averages 0.5 over the two conversations (Mastra: by turn index)
        assert_eq!(t[0]["index"], 0);
        assert_eq!(
            t[0]["gateResults"],
            json!([{ "id": "called", "passed": false, "score": 0.5 }])
        );
        assert!(t[0].get("scores").is_none() && t[0].get("thresholdResults").is_none());
        // turn 1: mean 0.75 misses 0.8; `scores` holds the thresholded scorer too (Mastra)
        assert_eq!(
            t[1]["thresholdResults"],
            json!([{ "id": "sim", "passed": false, "averageScore": 0.75, "threshold": 0.8 }])
        );
        assert_eq!(t[1]["scores"], json!({ "sim": 0.75 }));
        assert_eq!(t[1]["coverage"]["sim"], json!({ "scored": 2, "total": 2 }));
        // a turn without assertions only advances the conversation: { index }
        assert_eq!(t[2], json!({ "index": 2 }));
        // the failed turn gate fails the run; the missed turn threshold is listed after it
        assert_eq!(s["outcome"]["status"], "failed");
        assert_eq!(s["verdict"], "failed");
        assert_eq!(
            kinds(&s),
            vec![("gate".into(), Some(0)), ("threshold".into(), Some(1))]
        );
        let msgs: Vec<&str> = s["outcome"]["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["message"].as_str().unwrap())
            .collect();
        assert_eq!(
            msgs[0],
            "turn 0: gate \"called\" passed 50% of items (required: 100%)"
        );
        assert_eq!(
            msgs[1],
            "turn 1: \"sim\" mean 0.75 is below the minimum 0.8"
        );
        // no top-level scorer: scores is empty, not missing
        assert_eq!(s["scores"], json!({}));
    }

    #[test]
    fn a_missed_turn_threshold_alone_is_scored_and_has_a_verdict() {
        let s = run(&[item(
            0,
            vec![(
                vec![],
                vec![json!({ "id": "sim", "threshold": { "min": 0.9 } })],
                json!({ "sim": [{ "score": 0.5 }] }),
            )],
        )]);
        assert_eq!(s["outcome"]["status"], "scored");
        assert_eq!(s["verdict"], "scored");
        assert!(s.get("gateResults").is_none() && s.get("thresholdResults").is_none());
        // a bare turn scorer: no verdict (Mastra: only gates and thresholds make one)
        let s = run(&[item(
            0,
            vec![(
                vec![],
                vec![json!({ "id": "sim" })],
                json!({ "sim": [{ "score": 0.5 }] }),
            )],
        )]);
        assert_eq!(s["outcome"]["status"], "passed");
        assert!(s.get("verdict").is_none());
        assert_eq!(s["turnResults"][0]["scores"], json!({ "sim": 0.5 }));
    }

    #[test]
    fn errors_in_turns_are_counted_never_zero_and_unscore_the_item() {
        let err =
            json!({ "error": { "code": "OXEVAL_JUDGE_HTTP", "status": 500, "message": "down" } });
        let s = run(&[
            item(
                0,
                vec![(
                    vec![gate("g")],
                    vec![json!({ "id": "sim" })],
                    json!({ "g": [err.clone()], "sim": [err.clone()] }),
                )],
            ),
            item(
                1,
                vec![(
                    vec![gate("g")],
                    vec![json!({ "id": "sim" })],
                    json!({ "g": [{ "score": 1 }], "sim": [{ "score": 0.4 }] }),
                )],
            ),
        ]);
        let t = &s["turnResults"][0];
        // the errored gate run counts as 0; the errored scorer run is left out of the mean
        assert_eq!(t["gateResults"][0]["score"], 0.5);
        assert_eq!(t["scores"]["sim"], 0.4);
        assert_eq!(t["errors"], json!({ "g": 1, "sim": 1 }));
        assert_eq!(t["coverage"]["sim"], json!({ "scored": 1, "total": 2 }));
        // the item is an unscored one (maxErrors 0): the run fails for it, naming the turn
        assert_eq!(s["summary"]["erroredItems"], 1);
        assert_eq!(s["summary"]["failedItems"], 1);
        let reasons = &s["outcome"]["reasons"];
        assert_eq!(reasons[0]["kind"], "errors");
        assert!(
            reasons[0]["message"]
                .as_str()
                .unwrap()
                .contains("first: item 0, g (turn 0): OXEVAL_JUDGE_HTTP: down"),
            "{reasons}"
        );
        // every run of a turn scorer failed: nothing scored, named with its turn
        let s = run(&[item(
            0,
            vec![(
                vec![],
                vec![json!({ "id": "sim" })],
                json!({ "sim": [err] }),
            )],
        )]);
        assert!(
            kinds(&s).contains(&("nothing-scored".into(), Some(0))),
            "{s}"
        );
        assert_eq!(s["turnResults"][0]["scores"]["sim"], Value::Null);
    }

    #[test]
    fn a_failed_conversation_counts_its_turn_assertions_as_not_scored() {
        // the target failed at turn 1: no assertion of the item ran
        let it = json!({
            "index": 0, "runs": {}, "targetError": { "code": "OXEVAL_TARGET", "message": "turn 1 of 2: boom" },
            "turns": [{ "gates": [{ "id": "g" }], "scorers": [] }, { "gates": [], "scorers": [{ "id": "s", "threshold": 0.5 }] }],
        });
        let ok = item(
            1,
            vec![
                (vec![gate("g")], vec![], json!({ "g": [{ "score": 1 }] })),
                (
                    vec![],
                    vec![json!({ "id": "s", "threshold": 0.5 })],
                    json!({ "s": [{ "score": 1 }] }),
                ),
            ],
        );
        let s = run(&[it, ok]);
        assert_eq!(s["turnResults"][0]["gateResults"][0]["score"], 0.5);
        assert_eq!(
            s["turnResults"][1]["coverage"]["s"],
            json!({ "scored": 1, "total": 2 })
        );
        assert_eq!(s["summary"]["erroredItems"], 1);
        assert_eq!(s["outcome"]["status"], "failed");
    }

    #[test]
    fn a_turn_assertion_is_one_declaration_per_turn_index() {
        let mut a = EvalAccumulator::new(&json!({ "scorers": [] })).unwrap();
        a.add_item(&item(
            0,
            vec![(
                vec![],
                vec![json!({ "id": "s", "threshold": 0.5 })],
                json!({ "s": [{ "score": 1 }] }),
            )],
        ))
        .unwrap();
        // the same id in another turn index is another assertion
        a.add_item(&item(
            1,
            vec![
                (vec![], vec![], json!({})),
                (vec![gate("s")], vec![], json!({ "s": [{ "score": 1 }] })),
            ],
        ))
        .unwrap();
        // the same turn with another threshold: refused, naming the item and the turn
        let e = a
            .add_item(&item(
                2,
                vec![(
                    vec![],
                    vec![json!({ "id": "s", "threshold": 0.7 })],
                    json!({}),
                )],
            ))
            .unwrap_err();
        assert_eq!(
            e.message,
            "item 2: turns[0]: \"s\" is a scorer with the threshold >= 0.7 here but a scorer with the threshold >= 0.5 in an earlier item's turn 0 (per-turn results are averaged by turn index across items, so a turn's assertion must be the same in every item)"
        );
        let e = a
            .add_item(&item(3, vec![(vec![gate("s")], vec![], json!({}))]))
            .unwrap_err();
        assert!(
            e.message
                .contains("\"s\" is a gate here but a scorer with the threshold >= 0.5"),
            "{}",
            e.message
        );
        // refused items leave the accumulator as it was
        let s = a.summary(&Value::Null);
        assert_eq!(s["summary"]["totalItems"], 2);
        // the same threshold written another way is the same declaration
        a.add_item(&item(
            4,
            vec![(
                vec![],
                vec![json!({ "id": "s", "threshold": { "min": 0.5 } })],
                json!({ "s": [{ "score": 0 }] }),
            )],
        ))
        .unwrap();
        // ids are unique within a turn
        let e = a
            .add_item(&item(
                5,
                vec![(vec![gate("x")], vec![json!({ "id": "x" })], json!({}))],
            ))
            .unwrap_err();
        assert!(
            e.message
                .starts_with("item 5: turns[0] has two assertions with the id \"x\""),
            "{}",
            e.message
        );
    }

    #[test]
    fn no_turns_no_turn_results_and_merges_are_bit_identical() {
        let s = run(&[json!({ "index": 0, "runs": {} })]);
        assert!(s.get("turnResults").is_none());
        // nothing at all to score: the run fails and says so
        assert!(kinds(&s).contains(&("no-scorers".into(), None)), "{s}");
        // the same items in another order give the same summary, bit for bit
        let items: Vec<Value> = (0..6)
            .map(|i| {
                item(
                    i,
                    vec![(
                        vec![gate("g")],
                        vec![json!({ "id": "s", "threshold": 0.3 })],
                        json!({ "g": [{ "score": (i % 2) as f64 }], "s": [{ "score": 0.1 * i as f64 + 0.05 }] }),
                    )],
                )
            })
            .collect();
        let a = run(&items);
        let mut rev = items.clone();
        rev.reverse();
        assert_eq!(a, run(&rev));
        assert_eq!(a["turnResults"][0]["stats"]["s"]["n"], 6);
    }
}
