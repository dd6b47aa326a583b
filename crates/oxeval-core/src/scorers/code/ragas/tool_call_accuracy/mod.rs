//! Ragas's `ToolCallAccuracy`: the predicted calls against the reference calls. Strict order
//! (default): the name sequences must be equal; flexible: equal once both lists are sorted by
//! Ragas's key (name, then each argument name and `str(value)`, names sorted). Not aligned → 0;
//! aligned → the mean over the reference calls of the argument match (pairs zipped in order,
//! same name: the share of the reference's arguments whose `str()` the prediction equals).
//! No calls on either side → 1; calls on one side only → 0.

use super::pyrepr::py_str;
use super::tool_calls::{calls, steps, Calls, RunFields, ToolCall, INPUTS};
use crate::error::InvalidArgument;
use crate::options::scorer_bool;
use crate::pipeline::{RunError, ScoreResult};
use crate::run::RunInput;
use crate::scorers::spec::{boxed, schema_of, Kind, ScorerSpec, StepMeta};
use crate::scorers::ScorerMeta;
use schemars::JsonSchema;
use serde_json::{Map, Value};

const STEPS: [StepMeta; 2] = steps(
    "0 unless the call sequences align; else the mean argument match over the reference calls",
);

pub const SPEC: ScorerSpec = ScorerSpec {
    factory: "createToolCallAccuracyScorer",
    id: "ragas-tool-call-accuracy",
    name: "Tool Call Accuracy (Ragas)",
    description: "Ragas's ToolCallAccuracy: the tool call sequence and arguments of the output against run.referenceToolCalls",
    family: "ragas",
    type_name: "RagasToolCallAccuracy",
    kind: Kind::Code,
    inputs: INPUTS,
    run_fields: Some(schema_of::<RunFields>),
    extractors: &[],
    options: schema_of::<JsOptions>,
    nested_options: None,
    preprocess: Some(schema_of::<Calls>),
    analyze: None,
    steps: &STEPS,
    build: |v, _| boxed(ToolCallAccuracy::build(v)),
};

/// The factory's options (Ragas's names in camelCase, its defaults).
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct JsOptions {
    /// `true` (default): the calls must come in the reference's order; `false`: any order.
    strict_order: Option<bool>,
}

pub struct ToolCallAccuracy {
    meta: ScorerMeta,
    strict_order: bool,
}

impl ToolCallAccuracy {
    fn build(v: &Value) -> Result<Self, InvalidArgument> {
        Ok(ToolCallAccuracy {
            meta: ScorerMeta::code(&SPEC, "agent"),
            strict_order: scorer_bool(v, "strictOrder", true)?,
        })
    }

    pub(crate) fn run_sync(&self, run: RunInput) -> Result<ScoreResult, RunError> {
        let c = calls(SPEC.id, &run)?;
        let score = accuracy(&c.predicted, &c.reference, self.strict_order);
        Ok(super::super::text_result::<_, ()>(
            run.run_id, score, &c, None,
        ))
    }
}

crate::impl_scorer!(ToolCallAccuracy, sync);

/// `sorted_key_for_tool_call`: the name, then per argument name (sorted) the name and `str()`.
fn sort_key(tc: &ToolCall) -> Vec<String> {
    let mut names: Vec<&String> = tc.args.keys().collect();
    names.sort();
    let mut key = vec![tc.name.clone()];
    for n in names {
        key.push(n.clone());
        key.push(py_str(&tc.args[n]));
    }
    key
}

/// `exact_match_args(pred_args, ref_args)`.
pub fn exact_match_args(pred: &Map<String, Value>, reference: &Map<String, Value>) -> f64 {
    if reference.is_empty() && pred.is_empty() {
        return 1.0;
    }
    if reference.is_empty() {
        return 0.0;
    }
    let mut score = 0.0;
    for (k, want) in reference {
        if pred.get(k).is_some_and(|got| py_str(got) == py_str(want)) {
            score += 1.0;
        }
    }
    score / reference.len() as f64
}

/// `ToolCallAccuracy.ascore`'s value.
pub fn accuracy(pred: &[ToolCall], reference: &[ToolCall], strict_order: bool) -> f64 {
    if pred.is_empty() && reference.is_empty() {
        return 1.0;
    }
    if pred.is_empty() || reference.is_empty() {
        return 0.0;
    }
    let (mut pred, mut reference) = (pred.to_vec(), reference.to_vec());
    if !strict_order {
        pred.sort_by_cached_key(sort_key); // stable, as Python's sorted
        reference.sort_by_cached_key(sort_key);
    }
    let names = |l: &[ToolCall]| l.iter().map(|c| c.name.clone()).collect::<Vec<_>>();
    let (pn, rn) = (names(&pred), names(&reference));
    let aligned = if strict_order {
        pn == rn
    } else {
        let (mut a, mut b) = (pn, rn);
        a.sort();
        b.sort();
        a == b
    };
    let mut score = 0.0;
    for (r, p) in reference.iter().zip(&pred) {
        if r.name == p.name {
            score += exact_match_args(&p.args, &r.args);
        }
    }
    score /= reference.len() as f64;
    let compared = pred.len().min(reference.len());
    if compared < reference.len() {
        score *= compared as f64 / reference.len() as f64;
    }
    score * f64::from(u8::from(aligned))
}

#[cfg(test)]
mod tests {
    use super::super::tool_calls::tc;
    use super::*;
    use serde_json::json;

    #[test]
    fn ragas_cases() {
        let w = |city: Value| tc("weather", json!({ "city": city }));
        assert_eq!(accuracy(&[], &[], true), 1.0);
        assert_eq!(accuracy(&[w(json!("Paris"))], &[], true), 0.0);
        assert_eq!(
            accuracy(&[w(json!("Paris"))], &[w(json!("Paris"))], true),
            1.0
        );
        // str(1) == str("1") in Python: a string and a number can match
        assert_eq!(accuracy(&[w(json!(1))], &[w(json!("1"))], true), 1.0);
        assert_eq!(accuracy(&[w(json!(1))], &[w(json!(1.5))], true), 0.0);
        let (a, b) = (tc("a", json!({ "x": 1, "y": 2 })), tc("b", json!({})));
        assert_eq!(
            accuracy(&[b.clone(), a.clone()], &[a.clone(), b.clone()], true),
            0.0
        );
        assert_eq!(
            accuracy(&[b.clone(), a.clone()], &[a.clone(), b.clone()], false),
            1.0
        );
        let half = tc("a", json!({ "y": 2, "x": 3 }));
        assert_eq!(
            accuracy(&[half, b.clone()], &[a.clone(), b.clone()], true),
            0.75
        );
        // a length mismatch never aligns
        assert_eq!(
            accuracy(std::slice::from_ref(&a), &[a.clone(), b], true),
            0.0
        );
    }
}
