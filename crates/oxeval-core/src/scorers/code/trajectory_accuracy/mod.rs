//! `createTrajectoryAccuracyScorerCode`: Mastra's code trajectory accuracy. How well the
//! actual steps match an expected trajectory (strict, relaxed or unordered ordering).
//!
//! preprocess (`compareTrajectories`) → generateScore (its score). Type `trajectory`.

use crate::agent::js::{nullish, template, truthy};
use crate::agent::trajectory::{compare_trajectories, steps_of};
use crate::error::{type_name, InvalidArgument};
use crate::pipeline::{RunError, ScoreResult};
use crate::run::RunInput;
use crate::scorers::code::{result, trajectory};
use crate::scorers::spec::{boxed, schema_of, Inputs, Kind, Need, ScorerSpec, StepMeta};
use crate::scorers::ScorerMeta;
use schemars::JsonSchema;
use serde_json::{json, Map, Value};

pub const SPEC: ScorerSpec = ScorerSpec {
    factory: "createTrajectoryAccuracyScorerCode",
    id: "code-trajectory-accuracy-scorer",
    name: "Trajectory Accuracy Scorer",
    description: "Evaluates whether the trajectory (the agent's steps) matches the expected path",
    family: "mastra",
    type_name: "TrajectoryAccuracyCode",
    kind: Kind::Code,
    inputs: Inputs {
        input: Need::Unused,
        output: Need::Required,
        ground_truth: Need::Unused,
        context: Need::Unused,
    },
    run_fields: Some(schema_of::<RunFields>),
    extractors: &[],
    nested_options: None,
    options: schema_of::<JsOptions>,
    preprocess: Some(schema_of::<Preprocess>),
    analyze: None,
    steps: &[
        StepMeta::function(
            "preprocess",
            "Compare the actual steps with the expected trajectory",
        ),
        StepMeta::function(
            "generateScore",
            "The comparison's score (0 without an expected trajectory)",
        ),
    ],
    build: |v, _| boxed(TrajectoryAccuracyCode::build(v)),
};

/// The run field the trajectory scorers read.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct RunFields {
    /// The dataset item's expected trajectory (`{ steps, ordering?, allowRepeatedSteps?,
    /// maxSteps?, … }`); its `ordering` / `allowRepeatedSteps` win over the options.
    expected_trajectory: Option<serde_json::Value>,
}

/// Options of `createTrajectoryAccuracyScorerCode`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct JsOptions {
    /// The expected steps (an array of expected steps, or a trajectory `{ steps }` whose
    /// steps lose `durationMs` / `metadata`); else each run's `expectedTrajectory`.
    expected_trajectory: Option<serde_json::Value>,
    /// `{ ordering: 'strict' | 'relaxed' | 'unordered' (default relaxed), allowRepeatedSteps
    /// (default true) }`.
    comparison_options: Option<ComparisonOptions>,
}

#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct ComparisonOptions {
    ordering: Option<String>,
    allow_repeated_steps: Option<bool>,
}

/// `preprocessStepResult`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct Preprocess {
    actual_trajectory: serde_json::Value,
    expected_trajectory: Option<serde_json::Value>,
    comparison: Option<serde_json::Value>,
    actual_step_names: Vec<serde_json::Value>,
    expected_step_names: Vec<serde_json::Value>,
    error: Option<String>,
}

pub struct TrajectoryAccuracyCode {
    meta: ScorerMeta,
    steps: Option<Vec<Value>>,
    ordering: Value,
    allow_repeated: Value,
}

/// `trajectoryStepToExpectedStep`: a step without `durationMs` / `metadata`, its non-empty
/// `children` as `{ steps }`.
pub(crate) fn to_expected(step: &Value) -> Value {
    let Value::Object(m) = step else {
        return step.clone();
    };
    let mut out = Map::new();
    for (k, v) in m {
        if matches!(k.as_str(), "durationMs" | "metadata" | "children") {
            continue;
        }
        out.insert(k.clone(), v.clone());
    }
    if let Some(Value::Array(children)) = m.get("children") {
        if !children.is_empty() {
            out.insert(
                "children".into(),
                json!({ "steps": children.iter().map(to_expected).collect::<Vec<_>>() }),
            );
        }
    }
    Value::Object(out)
}

fn names(steps: &[Value]) -> Value {
    Value::Array(
        steps
            .iter()
            .map(|s| s.get("name").cloned().unwrap_or(Value::Null))
            .collect(),
    )
}

/// The `expectedTrajectory` option of a trajectory-accuracy factory (`factory` names it in
/// messages): an array of expected steps as they are, or a trajectory `{ steps }` whose steps
/// become expected steps; `None` when absent (each run then brings its own).
pub(crate) fn expected_steps(
    v: &Value,
    factory: &str,
) -> Result<Option<Vec<Value>>, InvalidArgument> {
    let bad = |k: &str, what: &str, got: &Value| {
        InvalidArgument::options(format!(
            "{factory}(): options.{k} must be {what}; got {}",
            type_name(got)
        ))
    };
    match v.get("expectedTrajectory") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(a)) => Ok(Some(a.clone())),
        Some(t @ Value::Object(_)) => match t.get("steps") {
            Some(Value::Array(a)) => Ok(Some(a.iter().map(to_expected).collect())),
            Some(o) => Err(bad("expectedTrajectory.steps", "an array of steps", o)),
            None => Err(bad(
                "expectedTrajectory.steps",
                "an array of steps",
                &Value::Null,
            )),
        },
        Some(o) => Err(bad(
            "expectedTrajectory",
            "an array of expected steps or a trajectory { steps }",
            o,
        )),
    }
}

impl TrajectoryAccuracyCode {
    fn build(v: &Value) -> Result<Self, InvalidArgument> {
        crate::options::options_object(v, SPEC.factory)?;
        let bad = |k: &str, what: &str, got: &Value| {
            InvalidArgument::options(format!(
                "{}(): options.{k} must be {what}; got {}",
                SPEC.factory,
                type_name(got)
            ))
        };
        let steps = expected_steps(v, SPEC.factory)?;
        let comparison = match v.get("comparisonOptions") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(c @ Value::Object(_)) => c.clone(),
            Some(o) => return Err(bad("comparisonOptions", "an object", o)),
        };
        let ordering = match comparison.get("ordering") {
            None | Some(Value::Null) => json!("relaxed"),
            Some(Value::String(s)) if matches!(s.as_str(), "strict" | "relaxed" | "unordered") => {
                json!(s)
            }
            Some(o) => {
                return Err(bad(
                    "comparisonOptions.ordering",
                    "'strict', 'relaxed' or 'unordered'",
                    o,
                ))
            }
        };
        let allow_repeated = match comparison.get("allowRepeatedSteps") {
            None | Some(Value::Null) => json!(true),
            Some(b @ Value::Bool(_)) => b.clone(),
            Some(o) => return Err(bad("comparisonOptions.allowRepeatedSteps", "a boolean", o)),
        };
        let ord = ordering.as_str().unwrap_or("relaxed");
        let description = match &steps {
            Some(s) => format!(
                "Evaluates whether the trajectory matches the expected path: [{}] ({ord} ordering)",
                s.iter().map(|x| template(x.get("name"))).collect::<Vec<_>>().join(" → ")
            ),
            None => format!("Evaluates trajectory accuracy against expected trajectory from dataset items ({ord} ordering)"),
        };
        let mut meta = ScorerMeta::code(&SPEC, "trajectory");
        meta.description = description.into();
        Ok(TrajectoryAccuracyCode {
            meta,
            steps,
            ordering,
            allow_repeated,
        })
    }

    pub(crate) fn run_sync(&self, run: RunInput) -> Result<ScoreResult, RunError> {
        let (score, pre) = self.evaluate(&run)?;
        Ok(result(run, score, pre, None))
    }

    pub fn evaluate(&self, run: &RunInput) -> Result<(f64, Value), RunError> {
        let actual = trajectory(run)?;
        let actual_steps = steps_of(&actual);
        let item = nullish(run.raw.get("expectedTrajectory"));
        let resolved: Option<Vec<Value>> = match (&self.steps, item) {
            (Some(s), _) => Some(s.clone()),
            (None, Some(e)) if truthy(Some(e)) => match e.get("steps") {
                Some(Value::Array(a)) => Some(a.clone()),
                None | Some(Value::Null) => None,
                Some(o) => {
                    return Err(RunError::Invalid(InvalidArgument::input(format!(
                        "run.expectedTrajectory.steps must be an array of expected steps; got {}",
                        type_name(o)
                    ))))
                }
            },
            _ => None,
        };
        let Some(expected) = resolved else {
            return Ok((
                0.0,
                json!({
                    "actualTrajectory": &*actual,
                    "actualStepNames": names(actual_steps),
                    "expectedStepNames": [],
                    "error": "No expected trajectory provided (pass via options or dataset item expectedTrajectory)",
                }),
            ));
        };
        let ordering = item
            .and_then(|e| nullish(e.get("ordering")))
            .unwrap_or(&self.ordering);
        let allow = item
            .and_then(|e| nullish(e.get("allowRepeatedSteps")))
            .unwrap_or(&self.allow_repeated);
        let comparison = compare_trajectories(
            actual_steps,
            &expected,
            &template(Some(ordering)),
            truthy(Some(allow)),
        );
        let score = comparison["score"].as_f64().unwrap_or(0.0);
        Ok((
            score,
            json!({
                "actualTrajectory": &*actual,
                "expectedTrajectory": { "steps": &expected },
                "comparison": comparison,
                "actualStepNames": names(actual_steps),
                "expectedStepNames": names(&expected),
            }),
        ))
    }
}

crate::impl_scorer!(TrajectoryAccuracyCode, sync);

#[cfg(test)]
mod tests {
    use super::*;

    fn run(v: Value) -> RunInput {
        RunInput::from_value(v).unwrap()
    }

    #[test]
    fn table() {
        let tr = json!({"steps": [{"stepType": "tool_call", "name": "s", "durationMs": 3}, {"stepType": "tool_call", "name": "m"}]});
        let s = TrajectoryAccuracyCode::build(&json!({"expectedTrajectory": tr})).unwrap();
        assert_eq!(s.meta.description, "Evaluates whether the trajectory matches the expected path: [s → m] (relaxed ordering)");
        let (score, pre) = s.evaluate(&run(json!({"output": tr}))).ok().unwrap();
        assert_eq!(score, 1.0);
        // durationMs dropped from the expected steps
        assert_eq!(
            pre["expectedTrajectory"]["steps"][0],
            json!({"stepType": "tool_call", "name": "s"})
        );
        // the item's ordering wins
        let rev = json!({"steps": [{"stepType": "tool_call", "name": "m"}, {"stepType": "tool_call", "name": "s"}]});
        let (score, _) = s
            .evaluate(&run(
                json!({"output": rev, "expectedTrajectory": {"ordering": "unordered"}}),
            ))
            .ok()
            .unwrap();
        assert_eq!(score, 1.0);
        let none = TrajectoryAccuracyCode::build(&json!({})).unwrap();
        let (score, pre) = none.evaluate(&run(json!({"output": tr}))).ok().unwrap();
        assert_eq!(score, 0.0);
        assert!(pre["error"]
            .as_str()
            .unwrap()
            .starts_with("No expected trajectory"));
        let (score, _) = none
            .evaluate(&run(
                json!({"output": tr, "expectedTrajectory": {"steps": [{"name": "m"}]}}),
            ))
            .ok()
            .unwrap();
        assert_eq!(score, 1.0);
        // messages are read through extractTrajectory
        let msgs = json!([{"role": "assistant", "content": {"format": 2, "parts": [
            {"type": "tool-invocation", "toolInvocation": {"toolName": "s", "state": "result", "result": {}}}]}}]);
        let (score, pre) = s.evaluate(&run(json!({"output": msgs}))).ok().unwrap();
        assert_eq!(score, 0.5);
        assert_eq!(pre["actualStepNames"], json!(["s"]));
        assert!(TrajectoryAccuracyCode::build(
            &json!({"comparisonOptions": {"ordering": "loose"}})
        )
        .is_err());
    }
}
