//! A data item before it runs: which form it has (Mastra's single `input`, multi-turn
//! `inputs`, or `turns` with per-turn assertions), whether its shape is usable, and per turn
//! what it asserts and where each assertion's output comes from. A shape that cannot be run is
//! a TypeError naming the item and the field (before its target or any judge call); an item
//! that is well formed but cannot be produced (a multi-turn item with no target and no
//! recorded output) is an item error (`invalid`), as a single item without output is.
//!
//! The facade describes the item (JSON cannot carry scorer objects: each is described by its
//! `id`, `type`, `direction` and `scale`), the core decides. Mastra's rules: `turns` excludes
//! `input` and `inputs`; `inputs` and `turns` are non-empty arrays; every turn has an
//! `input`; a turn's gates are bare scorers, its scorers bare or `{ scorer, threshold }`
//! (thresholds as the run's); a turn gate whose type is `'trajectory'` receives the turn's
//! trajectory. oxeval adds: ids unique within a turn, one declaration per (turn index, id)
//! across items (turns.rs), and the forms without an Agent (a function target called once per
//! turn; no target: recorded outputs).

use super::turns::Decl;
use super::EvalAccumulator;
use crate::error::InvalidArgument;
use serde_json::{json, Map, Value};

/// `desc`'s `{ type, … }` description of a JS value, as a message says it.
fn shown(d: Option<&Value>) -> String {
    let Some(d) = d else {
        return "undefined".into();
    };
    match d.get("type").and_then(Value::as_str) {
        Some("array") if d.get("length").and_then(Value::as_u64) == Some(0) => {
            "an empty array".into()
        }
        Some("array") => "an array".into(),
        Some(t) => t.to_string(),
        None => "undefined".into(),
    }
}

fn type_is(d: Option<&Value>, t: &str) -> bool {
    d.and_then(|d| d.get("type")).and_then(Value::as_str) == Some(t)
}

fn has(d: &Value, key: &str) -> bool {
    d.get("has")
        .and_then(|h| h.get(key))
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

fn items(d: Option<&Value>) -> &[Value] {
    d.and_then(|d| d.get("items"))
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// A described scorer (`{ id, type?, direction?, scale? }`) as a declaration entry.
fn entry_of(scorer: &Value) -> Map<String, Value> {
    let mut e = Map::new();
    for k in ["id", "direction", "scale"] {
        if let Some(v) = scorer.get(k).filter(|v| !v.is_null()) {
            e.insert(k.into(), v.clone());
        }
    }
    e
}

impl EvalAccumulator {
    /// The plan of one data item from the facade's description:
    ///
    /// `{ index, target: 'agent' | 'function' | 'none', has: { input, inputs, turns, output },
    /// inputs?: value, turns?: { type: 'array', items: [turn] } | value }`, a turn `{ type:
    /// 'object', has: { input, output }, gates?: list, scorers?: list } | value`, a list `{
    /// type: 'array', items: [entry] } | value`, an entry `{ type: 'scorer', scorer }` | `{
    /// type: 'entry', scorer?, scorerType, hasThreshold, threshold?, thresholdType }` (a `{ scorer, threshold
    /// }` object) | value; a scorer `{ id, type?, direction?, scale? }`; a value `{ type:
    /// <JS type>, length? }`.
    ///
    /// → `{ mode: 'single' | 'inputs' | 'turns', turns?: [{ gates: [{ id, trajectory,
    /// direction?, scale? }], scorers: [{ id, threshold?, direction?, scale? }] }], invalid?:
    /// message }`. The turns' declarations are recorded (turns.rs): the same id in the same
    /// turn of a later item must agree.
    pub fn plan_item(&mut self, desc: &Value) -> Result<Value, InvalidArgument> {
        let index = desc.get("index").and_then(Value::as_u64).unwrap_or(0);
        let at = format!("data item {index}");
        let target = desc.get("target").and_then(Value::as_str).unwrap_or("none");
        if has(desc, "turns") {
            if has(desc, "input") || has(desc, "inputs") {
                return Err(InvalidArgument::input(format!(
                    "{at}: turns cannot be combined with input or inputs (each turn carries its own input)"
                )));
            }
            let turns = desc.get("turns");
            if !type_is(turns, "array") || items(turns).is_empty() {
                return Err(InvalidArgument::input(format!(
                    "{at}: turns must be a non-empty array of {{ input, gates?, scorers? }}, got {}",
                    shown(turns)
                )));
            }
            let mut planned = Vec::new();
            let mut decls: Vec<Vec<Decl>> = Vec::new();
            let mut invalid = None;
            for (t, turn) in items(turns).iter().enumerate() {
                let here = format!("{at}: turns[{t}]");
                if !type_is(Some(turn), "object") {
                    return Err(InvalidArgument::input(format!(
                        "{here} must be an object {{ input, gates?, scorers? }}, got {}",
                        shown(Some(turn))
                    )));
                }
                if !has(turn, "input") {
                    return Err(InvalidArgument::input(format!(
                        "{here} has no input (the message sent to the agent for this turn)"
                    )));
                }
                if target == "none" && !has(turn, "output") && invalid.is_none() {
                    invalid = Some(format!(
                        "{here} has no output, and runEvals has no target to produce one"
                    ));
                }
                let (canonical, trajectory) = turn_entries(turn, &here)?;
                let parsed = Decl::parse_turn(&canonical, &here)?;
                let mut gates = Vec::new();
                let mut scorers = Vec::new();
                for d in &parsed {
                    let mut e = json!({ "id": d.id, "direction": d.direction, "scale": d.scale });
                    if d.gate {
                        e["trajectory"] = json!(trajectory.contains(&d.id));
                        gates.push(e);
                    } else {
                        if let Some(th) = &d.threshold {
                            e["threshold"] = th.raw.clone();
                        }
                        scorers.push(e);
                    }
                }
                planned.push(json!({ "gates": gates, "scorers": scorers }));
                decls.push(parsed);
            }
            let all = || {
                decls
                    .iter()
                    .enumerate()
                    .flat_map(|(k, ds)| ds.iter().map(move |d| (k as u64, d)))
            };
            self.turns.check(all(), &at)?;
            self.turns.declare(all());
            let mut out = json!({ "mode": "turns", "turns": planned });
            if let Some(m) = invalid {
                out["invalid"] = json!(m);
            }
            return Ok(out);
        }
        if has(desc, "inputs") {
            let inputs = desc.get("inputs");
            if !type_is(inputs, "array")
                || inputs.and_then(|d| d.get("length")).and_then(Value::as_u64) == Some(0)
            {
                return Err(InvalidArgument::input(format!(
                    "{at}: inputs must be a non-empty array (one input per turn, sent in order on one thread), got {}",
                    shown(inputs)
                )));
            }
            let mut out = json!({ "mode": "inputs" });
            if target == "none" && !has(desc, "output") {
                out["invalid"] = json!(format!(
                    "{at} has inputs but no output, and runEvals has no target to run its turns"
                ));
            }
            return Ok(out);
        }
        Ok(json!({ "mode": "single" }))
    }
}

/// A described turn's gates and scorers as the declaration JSON `Decl::parse_turn` reads,
/// and the ids of its trajectory gates; the shape errors name the field.
fn turn_entries(turn: &Value, here: &str) -> Result<(Value, Vec<String>), InvalidArgument> {
    let mut canonical = Map::new();
    let mut trajectory = Vec::new();
    for (key, gate) in [("gates", true), ("scorers", false)] {
        let Some(list) = turn.get(key) else {
            continue;
        };
        if type_is(Some(list), "undefined") || type_is(Some(list), "null") {
            continue;
        }
        if !type_is(Some(list), "array") {
            return Err(InvalidArgument::input(format!(
                "{here}.{key} must be an array of scorers{}, got {}",
                if gate {
                    ""
                } else {
                    " or { scorer, threshold }"
                },
                shown(Some(list))
            )));
        }
        let mut out = Vec::new();
        for (k, e) in items(Some(list)).iter().enumerate() {
            let at = format!("{here}.{key}[{k}]");
            let kind = e.get("type").and_then(Value::as_str).unwrap_or("undefined");
            let scorer = match kind {
                "scorer" => e.get("scorer").cloned().unwrap_or(Value::Null),
                "entry" if gate => {
                    return Err(InvalidArgument::input(format!(
                        "{at}: a gate is a scorer that must score 1.0; it takes no {{ scorer, threshold }} (put it in {here}.scorers for a threshold)"
                    )))
                }
                "entry" => {
                    let Some(s) = e.get("scorer").filter(|s| s.is_object()) else {
                        return Err(InvalidArgument::input(format!(
                            "{at}.scorer must be a scorer (an object with a string id and a run() method), got {}",
                            e.get("scorerType").and_then(Value::as_str).unwrap_or("undefined")
                        )));
                    };
                    if e.get("hasThreshold").and_then(Value::as_bool) != Some(true) {
                        return Err(InvalidArgument::input(format!(
                            "{at} has a scorer but no threshold"
                        )));
                    }
                    let Some(th) = e.get("threshold").filter(|t| !t.is_null()) else {
                        return Err(InvalidArgument::input(format!(
                            "{at}.threshold must be a number or {{ min?, max? }}, got {}",
                            e.get("thresholdType").and_then(Value::as_str).unwrap_or("undefined")
                        )));
                    };
                    let mut s = s.clone();
                    s["threshold"] = th.clone();
                    s
                }
                other => {
                    return Err(InvalidArgument::input(format!(
                        "{at} must be a scorer (an object with a string id and a run() method){}, got {other}",
                        if gate { "" } else { " or { scorer, threshold }" }
                    )))
                }
            };
            let mut c = entry_of(&scorer);
            if let Some(th) = scorer.get("threshold") {
                c.insert("threshold".into(), th.clone());
            }
            if gate && super::is_trajectory_type(&scorer) {
                if let Some(id) = scorer.get("id").and_then(Value::as_str) {
                    trajectory.push(id.to_string());
                }
            }
            out.push(Value::Object(c));
        }
        canonical.insert(key.into(), Value::Array(out));
    }
    Ok((Value::Object(canonical), trajectory))
}

#[cfg(test)]
mod tests {
    use super::super::EvalAccumulator;
    use serde_json::{json, Value};

    fn acc() -> EvalAccumulator {
        EvalAccumulator::new(&json!({ "scorers": [] })).unwrap()
    }

    fn scorer(id: &str) -> Value {
        json!({ "type": "scorer", "scorer": { "id": id, "type": "agent" } })
    }

    fn turn(gates: Vec<Value>, scorers: Vec<Value>) -> Value {
        json!({
            "type": "object", "has": { "input": true, "output": false },
            "gates": { "type": "array", "items": gates }, "scorers": { "type": "array", "items": scorers },
        })
    }

    fn turns_item(turns: Vec<Value>) -> Value {
        json!({
            "index": 3, "target": "agent",
            "has": { "input": false, "inputs": false, "turns": true, "output": false },
            "turns": { "type": "array", "length": turns.len(), "items": turns },
        })
    }

    fn err(desc: Value) -> String {
        acc().plan_item(&desc).unwrap_err().message
    }

    #[test]
    fn forms_and_routes() {
        let mut a = acc();
        let single =
            json!({ "index": 0, "target": "none", "has": { "input": true, "output": true } });
        assert_eq!(a.plan_item(&single).unwrap(), json!({ "mode": "single" }));
        let inputs = json!({ "index": 1, "target": "agent", "has": { "inputs": true, "input": true }, "inputs": { "type": "array", "length": 2 } });
        // inputs with an input: Mastra allows it (the turns are the inputs)
        assert_eq!(a.plan_item(&inputs).unwrap(), json!({ "mode": "inputs" }));
        let traj = json!({ "type": "scorer", "scorer": { "id": "t", "type": "trajectory" } });
        let with_threshold = json!({ "type": "entry", "scorer": { "id": "s", "scale": 1 }, "hasThreshold": true, "threshold": 0.5, "scorerType": "object" });
        let p = a
            .plan_item(&turns_item(vec![
                turn(vec![scorer("g"), traj], vec![with_threshold]),
                turn(vec![], vec![]),
            ]))
            .unwrap();
        assert_eq!(p["mode"], "turns");
        // a trajectory gate is routed to the turn's trajectory; a turn scorer never is
        assert_eq!(p["turns"][0]["gates"][0]["trajectory"], false);
        assert_eq!(p["turns"][0]["gates"][1]["trajectory"], true);
        assert_eq!(
            p["turns"][0]["scorers"],
            json!([{ "id": "s", "direction": "higher", "scale": 1.0, "threshold": 0.5 }])
        );
        assert_eq!(p["turns"][1], json!({ "gates": [], "scorers": [] }));
        assert!(p.get("invalid").is_none());
    }

    #[test]
    fn no_target_needs_recorded_outputs() {
        let mut a = acc();
        let mut d = turns_item(vec![turn(vec![], vec![]), turn(vec![], vec![])]);
        d["target"] = json!("none");
        d["turns"]["items"][0]["has"]["output"] = json!(true);
        let p = a.plan_item(&d).unwrap();
        assert_eq!(
            p["invalid"],
            "data item 3: turns[1] has no output, and runEvals has no target to produce one"
        );
        let inputs = json!({ "index": 4, "target": "none", "has": { "inputs": true }, "inputs": { "type": "array", "length": 2 } });
        assert_eq!(
            a.plan_item(&inputs).unwrap()["invalid"],
            "data item 4 has inputs but no output, and runEvals has no target to run its turns"
        );
        let mut with = inputs.clone();
        with["has"]["output"] = json!(true);
        assert!(a.plan_item(&with).unwrap().get("invalid").is_none());
        // a function target: one call per turn (oxeval's), no recorded output needed
        with["has"]["output"] = json!(false);
        with["target"] = json!("function");
        assert!(a.plan_item(&with).unwrap().get("invalid").is_none());
    }

    #[test]
    fn shape_errors_name_the_item_and_the_field() {
        let inputs = |v: Value| json!({ "index": 2, "target": "agent", "has": { "inputs": true }, "inputs": v });
        assert_eq!(
            err(inputs(json!({ "type": "string" }))),
            "data item 2: inputs must be a non-empty array (one input per turn, sent in order on one thread), got string"
        );
        assert!(
            err(inputs(json!({ "type": "array", "length": 0 }))).ends_with("got an empty array")
        );
        let mut both = turns_item(vec![turn(vec![], vec![])]);
        both["has"]["input"] = json!(true);
        assert_eq!(err(both), "data item 3: turns cannot be combined with input or inputs (each turn carries its own input)");
        let mut t = turns_item(vec![]);
        assert_eq!(err(t.clone()), "data item 3: turns must be a non-empty array of { input, gates?, scorers? }, got an empty array");
        t["turns"] = json!({ "type": "object" });
        assert!(err(t).ends_with("got object"));
        assert_eq!(
            err(turns_item(vec![json!({ "type": "string" })])),
            "data item 3: turns[0] must be an object { input, gates?, scorers? }, got string"
        );
        let mut no_input = turn(vec![], vec![]);
        no_input["has"]["input"] = json!(false);
        assert_eq!(
            err(turns_item(vec![turn(vec![], vec![]), no_input])),
            "data item 3: turns[1] has no input (the message sent to the agent for this turn)"
        );
        let mut bad_list = turn(vec![], vec![]);
        bad_list["gates"] = json!({ "type": "object" });
        assert_eq!(
            err(turns_item(vec![bad_list])),
            "data item 3: turns[0].gates must be an array of scorers, got object"
        );
        assert_eq!(
            err(turns_item(vec![turn(vec![json!({ "type": "string" })], vec![])])),
            "data item 3: turns[0].gates[0] must be a scorer (an object with a string id and a run() method), got string"
        );
        let wrapped = json!({ "type": "entry", "scorer": { "id": "s" }, "hasThreshold": true, "threshold": 1, "scorerType": "object" });
        assert!(err(turns_item(vec![turn(vec![wrapped], vec![])]))
            .starts_with("data item 3: turns[0].gates[0]: a gate is a scorer that must score 1.0"));
        assert_eq!(
            err(turns_item(vec![turn(vec![], vec![json!({ "type": "number" })])])),
            "data item 3: turns[0].scorers[0] must be a scorer (an object with a string id and a run() method) or { scorer, threshold }, got number"
        );
        let not_scorer = json!({ "type": "entry", "hasThreshold": true, "threshold": 1, "scorerType": "string" });
        assert_eq!(
            err(turns_item(vec![turn(vec![], vec![not_scorer])])),
            "data item 3: turns[0].scorers[0].scorer must be a scorer (an object with a string id and a run() method), got string"
        );
        let no_threshold = json!({ "type": "entry", "scorer": { "id": "s" }, "hasThreshold": false, "scorerType": "object" });
        assert_eq!(
            err(turns_item(vec![turn(vec![], vec![no_threshold])])),
            "data item 3: turns[0].scorers[0] has a scorer but no threshold"
        );
        let undefined_threshold = json!({ "type": "entry", "scorer": { "id": "s" }, "hasThreshold": true, "scorerType": "object", "thresholdType": "undefined" });
        assert_eq!(
            err(turns_item(vec![turn(vec![], vec![undefined_threshold])])),
            "data item 3: turns[0].scorers[0].threshold must be a number or { min?, max? }, got undefined"
        );
        let out_of_range = json!({ "type": "entry", "scorer": { "id": "s" }, "hasThreshold": true, "threshold": 1.5, "scorerType": "object" });
        assert_eq!(
            err(turns_item(vec![turn(vec![], vec![out_of_range])])),
            "data item 3: turns[0].scorers[0]: the minimum threshold of scorer \"s\" must be a finite number in [0, 1], got 1.5"
        );
        assert!(
            err(turns_item(vec![turn(vec![scorer("x")], vec![scorer("x")])]))
                .starts_with("data item 3: turns[0] has two assertions with the id \"x\"")
        );
    }

    #[test]
    fn a_plan_is_checked_against_earlier_declarations() {
        let mut a = acc();
        a.plan_item(&turns_item(vec![turn(vec![scorer("g")], vec![])]))
            .unwrap();
        let e = a
            .plan_item(&turns_item(vec![turn(vec![], vec![scorer("g")])]))
            .unwrap_err()
            .message;
        assert!(
            e.starts_with(
                "data item 3: turns[0]: \"g\" is a scorer without a threshold here but a gate"
            ),
            "{e}"
        );
    }
}
