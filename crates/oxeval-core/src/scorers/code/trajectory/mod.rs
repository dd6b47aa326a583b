//! `createTrajectoryScorerCode`: Mastra's multi-dimensional trajectory scorer. Accuracy
//! (`compareTrajectories`), efficiency (budgets, redundant calls), blacklist (forbidden
//! tools and sequences) and tool failures (retries), weighted, plus nested expectations
//! of sub-agent / workflow children; a blacklist hit at any depth scores 0.
//!
//! preprocess (the four dimensions and the nested results) → generateScore → generateReason
//! (both functions). Type `trajectory`. Scores: `Math.round(x · 100) / 100`.

use crate::agent::js::{nullish, number_string, round2_plain, template};
use crate::agent::trajectory::{
    dimensions, evaluate_nested_expectations, has_blacklist_violation, level_score, mean_score,
    steps_of, Dimensions, Weights,
};
use crate::error::{type_name, InvalidArgument};
use crate::pipeline::{RunError, ScoreResult};
use crate::run::RunInput;
use crate::scorers::code::{result, step_error, trajectory};
use crate::scorers::spec::{boxed, schema_of, Inputs, Kind, Need, ScorerSpec, StepMeta};
use crate::scorers::ScorerMeta;
use schemars::JsonSchema;
use serde_json::{Map, Value};

pub const SPEC: ScorerSpec = ScorerSpec {
    factory: "createTrajectoryScorerCode",
    id: "code-trajectory-scorer",
    name: "Trajectory Scorer",
    description: "Multi-dimensional trajectory evaluation: accuracy, efficiency, blacklist, and tool failures",
    family: "mastra",
    type_name: "TrajectoryCode",
    kind: Kind::Code,
    inputs: Inputs {
        input: Need::Unused,
        output: Need::Required,
        ground_truth: Need::Unused,
        context: Need::Unused,
    },
    run_fields: Some(schema_of::<crate::scorers::code::trajectory_accuracy::RunFields>),
    extractors: &[],
    nested_options: None,
    options: schema_of::<JsOptions>,
    preprocess: Some(schema_of::<Preprocess>),
    analyze: None,
    steps: &[
        StepMeta::function("preprocess", "Accuracy, efficiency, blacklist, tool failures and nested expectations"),
        StepMeta::function("generateScore", "Weighted dimensions; 0 on a blacklist hit; nested results weigh 0.3"),
        StepMeta::function("generateReason", "One line per dimension"),
    ],
    build: |v, _| boxed(TrajectoryCode::build(v)),
};

/// Options of `createTrajectoryScorerCode`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct JsOptions {
    /// The expectation every run starts from (`{ steps?, ordering?, allowRepeatedSteps?,
    /// maxSteps?, maxTotalTokens?, maxTotalDurationMs?, noRedundantCalls?,
    /// blacklistedTools?, blacklistedSequences?, maxRetriesPerTool? }`); a run's
    /// `expectedTrajectory` wins per key.
    defaults: Option<serde_json::Value>,
    /// Dimension weights (each `max(0, w)`): accuracy 0.4, efficiency 0.3, toolFailures 0.2,
    /// blacklist 0.1.
    weights: Option<WeightOptions>,
}

#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct WeightOptions {
    accuracy: Option<f64>,
    efficiency: Option<f64>,
    tool_failures: Option<f64>,
    blacklist: Option<f64>,
}

/// `preprocessStepResult`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct Preprocess {
    accuracy: Option<serde_json::Value>,
    efficiency: Option<serde_json::Value>,
    blacklist: Option<serde_json::Value>,
    tool_failures: serde_json::Value,
    nested: Option<Vec<serde_json::Value>>,
    config: serde_json::Value,
}

pub struct TrajectoryCode {
    meta: ScorerMeta,
    defaults: Map<String, Value>,
    weights: Weights,
}

impl TrajectoryCode {
    fn build(v: &Value) -> Result<Self, InvalidArgument> {
        crate::options::options_object(v, SPEC.factory)?;
        let bad = |k: &str, what: &str, got: &Value| {
            InvalidArgument::options(format!(
                "{}(): options.{k} must be {what}; got {}",
                SPEC.factory,
                type_name(got)
            ))
        };
        let defaults = match v.get("defaults") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(o) => return Err(bad("defaults", "an object (a trajectory expectation)", o)),
        };
        let w = match v.get("weights") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(w @ Value::Object(_)) => w.clone(),
            Some(o) => return Err(bad("weights", "an object", o)),
        };
        let weight = |k: &str, d: f64| match nullish(w.get(k)) {
            // Mastra's weighted mean turns it into a NaN score (or ignores the level): a
            // TypeError here (docs/scorers-code.md)
            Some(x) if crate::options::non_finite(Some(x)).is_some() => {
                Err(InvalidArgument::options(format!(
                    "{}(): options.weights.{k} must be a finite number; got {}",
                    SPEC.factory,
                    x[crate::options::NON_FINITE_KEY]
                        .as_str()
                        .unwrap_or_default()
                )))
            }
            None => Ok(d),
            Some(Value::Number(n)) => Ok(n.as_f64().unwrap_or(d).max(0.0)),
            Some(o) => Err(bad(&format!("weights.{k}"), "a number", o)),
        };
        let weights = Weights {
            accuracy: weight("accuracy", 0.4)?,
            efficiency: weight("efficiency", 0.3)?,
            tool_failures: weight("toolFailures", 0.2)?,
            blacklist: weight("blacklist", 0.1)?,
        };
        Ok(TrajectoryCode {
            meta: ScorerMeta::code(&SPEC, "trajectory"),
            defaults,
            weights,
        })
    }

    pub(crate) fn run_sync(&self, run: RunInput) -> Result<ScoreResult, RunError> {
        let (score, pre, reason) = self.evaluate(&run)?;
        Ok(result(run, score, pre, Some(reason)))
    }

    /// Score, `preprocessStepResult` and reason of one run.
    pub fn evaluate(&self, run: &RunInput) -> Result<(f64, Value, String), RunError> {
        let actual = trajectory(run)?;
        let mut config = self.defaults.clone();
        match nullish(run.raw.get("expectedTrajectory")) {
            None => {}
            Some(Value::Object(item)) => {
                for (k, v) in item {
                    config.insert(k.clone(), v.clone());
                }
            }
            Some(o) => {
                return Err(RunError::Invalid(InvalidArgument::input(format!(
                    "run.expectedTrajectory must be an object (a trajectory expectation); got {}",
                    type_name(o)
                ))))
            }
        }
        let config = Value::Object(config);
        let path = "expectedTrajectory";
        let fail = |m: String| {
            if m.starts_with("Invalid ") || m.starts_with("Cannot evaluate") {
                step_error(run, "preprocess", &m)
            } else {
                RunError::Invalid(InvalidArgument::input(m))
            }
        };
        let d = dimensions(&actual, &config, path).map_err(fail)?;
        let steps = config
            .get("steps")
            .and_then(Value::as_array)
            .filter(|s| !s.is_empty());
        let nested = match steps {
            Some(s) => evaluate_nested_expectations(s, steps_of(&actual), &self.weights, path)
                .map_err(fail)?,
            None => Vec::new(),
        };
        let nested = (!nested.is_empty()).then_some(nested);
        let score = score(&d, nested.as_deref(), &self.weights);
        let reason = reason(score, &d, nested.as_deref());
        let mut pre = Map::new();
        let put = |m: &mut Map<String, Value>, k: &str, v: &Option<Value>| {
            if let Some(v) = v {
                m.insert(k.into(), v.clone());
            }
        };
        put(&mut pre, "accuracy", &d.accuracy);
        put(&mut pre, "efficiency", &d.efficiency);
        put(&mut pre, "blacklist", &d.blacklist);
        pre.insert("toolFailures".into(), d.tool_failures.clone());
        put(&mut pre, "nested", &nested.map(Value::Array));
        pre.insert("config".into(), config);
        Ok((score, Value::Object(pre), reason))
    }
}

fn score_of(v: &Value) -> f64 {
    v.get("score").and_then(Value::as_f64).unwrap_or(0.0)
}

/// generateScore.
fn score(d: &Dimensions, nested: Option<&[Value]>, w: &Weights) -> f64 {
    if d.blacklist.as_ref().is_some_and(|b| score_of(b) == 0.0) {
        return 0.0;
    }
    let level = level_score(d, w);
    if level.is_none() && nested.is_none() {
        return 1.0;
    }
    let mut level = level.unwrap_or(1.0);
    if let Some(n) = nested {
        if has_blacklist_violation(n) {
            return 0.0;
        }
        level = 0.7 * level + 0.3 * mean_score(n);
    }
    round2_plain(level)
}

fn joined(v: Option<&Value>, sep: &str) -> String {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|x| template(Some(x)))
                .collect::<Vec<_>>()
                .join(sep)
        })
        .unwrap_or_default()
}

fn non_empty(v: Option<&Value>) -> bool {
    v.and_then(Value::as_array).is_some_and(|a| !a.is_empty())
}

fn js(v: Option<&Value>) -> String {
    match v {
        Some(Value::Number(n)) => number_string(n.as_f64().unwrap_or(0.0)),
        other => template(other),
    }
}

/// generateReason: `Score: s`, then one line per dimension (a blacklist hit stops there).
fn reason(score: f64, d: &Dimensions, nested: Option<&[Value]>) -> String {
    let mut parts = vec![format!("Score: {}", number_string(score))];
    if let Some(b) = d.blacklist.as_ref().filter(|b| score_of(b) == 0.0) {
        let mut v = Vec::new();
        if non_empty(b.get("violatedTools")) {
            v.push(format!(
                "forbidden tools used: {}",
                joined(b.get("violatedTools"), ", ")
            ));
        }
        if non_empty(b.get("violatedSequences")) {
            let seqs: Vec<String> = b["violatedSequences"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| joined(Some(s), " → "))
                .collect();
            v.push(format!("forbidden sequences: {}", seqs.join("; ")));
        }
        parts.push(format!("Blacklist violation: {}.", v.join(". ")));
        return parts.join("\n");
    }
    if let Some(n) = nested.filter(|n| has_blacklist_violation(n)) {
        let names: Vec<String> = n
            .iter()
            .filter(|r| has_blacklist_violation(std::slice::from_ref(r)))
            .map(|r| template(r.get("stepName")))
            .collect();
        parts.push(format!(
            "Nested blacklist violation in: {}.",
            names.join(", ")
        ));
        return parts.join("\n");
    }
    if let Some(a) = &d.accuracy {
        let mut det = vec![format!(
            "{}/{} expected steps matched",
            js(a.get("matchedSteps")),
            js(a.get("totalExpectedSteps"))
        )];
        for (key, label) in [
            ("missingSteps", "missing"),
            ("extraSteps", "extra"),
            ("outOfOrderSteps", "out of order"),
        ] {
            if non_empty(a.get(key)) {
                det.push(format!("{label}: {}", joined(a.get(key), ", ")));
            }
        }
        parts.push(format!(
            "Accuracy ({}): {}.",
            js(a.get("score")),
            det.join(". ")
        ));
    }
    if let Some(e) = &d.efficiency {
        let mut det = Vec::new();
        if e["overStepBudget"] == true {
            det.push(format!(
                "over step budget ({} steps)",
                js(e.get("totalSteps"))
            ));
        }
        if e["overTokenBudget"] == true {
            det.push(format!(
                "over token budget ({} tokens)",
                js(e.get("totalTokens"))
            ));
        }
        if e["overDurationBudget"] == true {
            det.push(format!(
                "over duration budget ({}ms)",
                js(e.get("totalDurationMs"))
            ));
        }
        if non_empty(e.get("redundantCalls")) {
            let names: Vec<String> = e["redundantCalls"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| template(c.get("name")))
                .collect();
            det.push(format!("redundant calls: {}", names.join(", ")));
        }
        if det.is_empty() {
            parts.push(format!(
                "Efficiency ({}): all budgets met, no redundant calls.",
                js(e.get("score"))
            ));
        } else {
            parts.push(format!(
                "Efficiency ({}): {}.",
                js(e.get("score")),
                det.join(". ")
            ));
        }
    }
    let tf = &d.tool_failures;
    if non_empty(tf.get("patterns")) {
        let mut det = Vec::new();
        if tf
            .get("totalRetries")
            .and_then(Value::as_f64)
            .unwrap_or(0.0)
            > 0.0
        {
            det.push(format!("{} total retries", js(tf.get("totalRetries"))));
        }
        if non_empty(tf.get("excessiveRetryTools")) {
            det.push(format!(
                "excessive retries: {}",
                joined(tf.get("excessiveRetryTools"), ", ")
            ));
        }
        parts.push(format!(
            "Tool failures ({}): {}.",
            js(tf.get("score")),
            det.join(". ")
        ));
    }
    if let Some(n) = nested {
        let s: Vec<String> = n
            .iter()
            .map(|r| format!("{}: {}", template(r.get("stepName")), js(r.get("score"))))
            .collect();
        parts.push(format!("Nested scores: {}.", s.join(", ")));
    }
    parts.join("\n")
}

crate::impl_scorer!(TrajectoryCode, sync);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn eval(options: Value, run: Value) -> (f64, Value, String) {
        TrajectoryCode::build(&options)
            .unwrap()
            .evaluate(&RunInput::from_value(run).unwrap())
            .ok()
            .unwrap()
    }

    #[test]
    fn table() {
        let tr = json!({"steps": [{"stepType": "tool_call", "name": "s"}, {"stepType": "tool_call", "name": "m"}]});
        // the catalogue's observed case
        let (score, pre, reason) = eval(
            json!({"defaults": {"steps": [{"name": "s"}, {"name": "m"}], "maxSteps": 1}}),
            json!({"output": tr}),
        );
        assert_eq!(score, 0.79);
        assert_eq!(reason, "Score: 0.79\nAccuracy (1): 2/2 expected steps matched.\nEfficiency (0.5): over step budget (2 steps).");
        assert_eq!(
            pre["config"],
            json!({"steps": [{"name": "s"}, {"name": "m"}], "maxSteps": 1})
        );
        // nothing configured → 1
        let (score, _, reason) = eval(json!({}), json!({"output": tr}));
        assert_eq!((score, reason.as_str()), (1.0, "Score: 1"));
        // a blacklist hit → 0, and the reason stops there
        let (score, _, reason) = eval(
            json!({}),
            json!({"output": tr, "expectedTrajectory": {"blacklistedSequences": [["s", "m"]]}}),
        );
        assert_eq!(score, 0.0);
        assert_eq!(
            reason,
            "Score: 0\nBlacklist violation: forbidden sequences: s → m."
        );
        // zero weights: the level is 1
        let (score, _, _) = eval(
            json!({"weights": {"accuracy": 0, "efficiency": 0, "toolFailures": 0, "blacklist": 0}, "defaults": {"steps": [{"name": "x"}]}}),
            json!({"output": tr}),
        );
        assert_eq!(score, 1.0);
        // an invalid budget throws as Mastra
        let err = TrajectoryCode::build(&json!({})).unwrap().evaluate(
            &RunInput::from_value(json!({"output": tr, "expectedTrajectory": {"maxSteps": -1}}))
                .unwrap(),
        );
        let Err(RunError::Failed(f)) = err else {
            panic!()
        };
        assert!(f
            .message
            .contains("Invalid maxSteps budget: expected a finite nonnegative number"));
    }

    #[test]
    fn non_finite_stand_ins() {
        let inf = json!({"$nonFinite": "Infinity"});
        let nan = json!({"$nonFinite": "NaN"});
        let f = json!({"stepType": "tool_call", "name": "s", "success": false});
        let tr = json!({"steps": [f, f, {"stepType": "tool_call", "name": "s"}]});
        // an infinite retry allowance: no retry is excessive (Mastra: 1)
        let (score, _, _) = eval(
            json!({"defaults": {"maxRetriesPerTool": inf}}),
            json!({"output": tr}),
        );
        assert_eq!(score, 1.0);
        // NaN in force: a run failure at preprocess, never a NaN score
        let err = TrajectoryCode::build(&json!({"defaults": {"maxRetriesPerTool": nan}}))
            .unwrap()
            .evaluate(&RunInput::from_value(json!({"output": tr})).unwrap());
        assert!(matches!(err, Err(RunError::Failed(f)) if f.message.contains("got NaN")));
        // an infinite budget in force: Mastra's message
        let err = TrajectoryCode::build(&json!({"defaults": {"maxSteps": inf}}))
            .unwrap()
            .evaluate(&RunInput::from_value(json!({"output": tr})).unwrap());
        assert!(
            matches!(err, Err(RunError::Failed(f)) if f.message.contains("Invalid maxSteps budget"))
        );
        // a non-finite weight: a TypeError at the factory
        assert!(TrajectoryCode::build(&json!({"weights": {"blacklist": nan}})).is_err());
    }
}
