//! `createRubricScorer`: Mastra's rubric grader (`type` undefined). analyze (LLM: each
//! criterion satisfied or not) → generateScore (pure: 1 only when every required criterion
//! is satisfied, × scale) → generateReason (pure: a checklist). 1 judge call.
//!
//! The rubric is the factory's `criteria` (a list, or text with one criterion per line), else
//! per run the first `rubric` (text or list) of `run.requestContext`, `run.additionalContext`,
//! `run.input`.

mod prompts;

use super::common::{judge_from_options, judge_json};
use crate::agent::messages::{assistant_message, user_message};
use crate::engine::schema::StepOutput;
use crate::engine::{Judge, RunContext};
use crate::error::{type_name, InvalidArgument};
use crate::options::{scorer_number_in, scorer_value};
use crate::pipeline::{Pipeline, RunError, ScoreResult};
use crate::run::RunInput;
use crate::scorers::spec::{
    boxed, schema_of, BuildContext, Inputs, Kind, Need, ScorerSpec, StepMeta,
};
use crate::scorers::ScorerMeta;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use prompts::INSTRUCTIONS;

pub const ID: &str = "rubric-scorer";

/// Largest accepted `scale`.
pub const MAX_SCALE: f64 = 1e6;
/// Most criteria a rubric may have.
pub const MAX_CRITERIA: usize = 200;

/// The registry entry.
pub const SPEC: ScorerSpec = ScorerSpec {
    factory: "createRubricScorer",
    id: ID,
    name: "Rubric (LLM)",
    description: "Grades an agent output against a rubric of criteria, returning 1 only when every required criterion is satisfied",
    family: "mastra",
    type_name: "Rubric",
    kind: Kind::Llm,
    inputs: Inputs {
        input: Need::Optional,
        output: Need::Required,
        ground_truth: Need::Unused,
        context: Need::Unused,
    },
    run_fields: Some(schema_of::<JsRunFields>),
    extractors: &[],
    nested_options: Some("Mastra's form (`options.scale`); merged with the defaults (top-level keys win)."),
    options: schema_of::<JsOptions>,
    preprocess: None,
    analyze: Some(schema_of::<Analysis>),
    steps: &[
        StepMeta::judge(
            "analyze",
            "Judge the output against each rubric criterion",
            <Analysis as StepOutput>::schema,
        ),
        StepMeta::function(
            "generateScore",
            "1 when every required criterion is satisfied, else 0, times the scale",
        ),
        StepMeta::function("generateReason", "A checklist of the criteria"),
    ],
    build: |v, cx| boxed(Rubric::build(v, cx)),
};

/// A rubric criterion (Mastra's `RubricCriterion`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Criterion {
    /// An identifier of your own (not sent to the judge).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// What the output must do.
    pub description: String,
    /// Whether the score needs it. Default true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
}

/// `criteria`: a list, or text with one criterion per line (list markers stripped; every
/// line required).
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
pub enum CriteriaOption {
    Text(String),
    List(Vec<Criterion>),
}

/// The scorer's own factory options.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct JsOptions {
    /// The rubric. Without one (or empty), each run's `rubric` (request context, additional
    /// context, input) is used; none at all scores 1.
    criteria: Option<CriteriaOption>,
    /// Multiplies the score, at least 0 and at most 1e6. Default 1.
    scale: Option<f64>,
}

/// The run fields the scorer reads besides input and output.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct JsRunFields {
    /// `{ rubric }`: a per-run rubric (text or criteria) when the factory has none.
    additional_context: Option<Value>,
}

/// One graded criterion as the judge sends it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Graded {
    pub criterion: String,
    pub satisfied: bool,
    pub required: bool,
    pub reasoning: String,
}

/// analyze output (`analyzeStepResult`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Analysis {
    pub criteria: Vec<Graded>,
    pub overall_assessment: String,
}
crate::step_output!(Analysis, "rubric_analysis");

/// A criterion as the judge is shown it: its text and whether it is required.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Shown {
    pub criterion: String,
    pub required: bool,
}

/// JavaScript's `\s` at the start of a line, then a list marker (`-`, `*`, `•`, `1.`, `1)`),
/// then spaces: Mastra's `^\s*(?:[-*•]|\d+[.)])\s*`.
fn strip_marker(line: &str) -> &str {
    let s = line.trim_start_matches(crate::agent::js::is_js_space);
    let rest = if let Some(r) = s.strip_prefix(['-', '*', '•']) {
        Some(r)
    } else {
        let digits = s.len() - s.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        (digits > 0)
            .then(|| s[digits..].strip_prefix(['.', ')']))
            .flatten()
    };
    match rest {
        Some(r) => r.trim_start_matches(crate::agent::js::is_js_space),
        None => line,
    }
}

/// A text rubric: one required criterion per non-empty line (Mastra's `parseRubricString`).
pub fn parse_text(text: &str) -> Vec<Shown> {
    text.split('\n')
        .map(|l| crate::agent::js::trim(strip_marker(l)))
        .filter(|l| !l.is_empty())
        .map(|l| Shown {
            criterion: l.to_string(),
            required: true,
        })
        .collect()
}

/// A rubric value (text or list) as the judge is shown it; `path` names it in errors.
pub fn rubric_of(v: &Value, path: &str) -> Result<Vec<Shown>, InvalidArgument> {
    let out = match v {
        Value::String(s) => parse_text(s),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let description =
                    c.get("description")
                        .and_then(Value::as_str)
                        .ok_or_else(|| {
                            InvalidArgument::options(format!(
                        "{path}[{i}] must be {{ description: string, required?: boolean }}; got {}",
                        type_name(c)
                    ))
                        })?;
                let required = match c.get("required") {
                    None | Some(Value::Null) => true,
                    Some(Value::Bool(b)) => *b,
                    Some(other) => {
                        return Err(InvalidArgument::options(format!(
                            "{path}[{i}].required must be a boolean; got {}",
                            type_name(other)
                        )))
                    }
                };
                Ok(Shown {
                    criterion: description.to_string(),
                    required,
                })
            })
            .collect::<Result<_, _>>()?,
        other => {
            return Err(InvalidArgument::options(format!(
                "{path} must be a string or a list of criteria; got {}",
                type_name(other)
            )))
        }
    };
    if out.len() > MAX_CRITERIA {
        return Err(InvalidArgument::options(format!(
            "{path} has {} criteria; at most {MAX_CRITERIA}",
            out.len()
        )));
    }
    Ok(out)
}

/// `pickRubric(source)`: a string or array `rubric` of an object; else none.
fn pick(source: Option<&Value>) -> Option<&Value> {
    source
        .filter(|s| s.is_object() || s.is_array())
        .and_then(|s| s.get("rubric"))
        .filter(|r| r.is_string() || r.is_array())
}

/// Mastra's formula: no graded criteria → 1 (not scaled); else 1 × scale when every
/// criterion the JUDGE marked required is satisfied (all of them when it marked none), else 0.
pub fn score(criteria: &[Graded], scale: f64) -> f64 {
    if criteria.is_empty() {
        return 1.0;
    }
    let required: Vec<&Graded> = criteria.iter().filter(|c| c.required).collect();
    let pass = if required.is_empty() {
        criteria.iter().all(|c| c.satisfied)
    } else {
        required.iter().all(|c| c.satisfied)
    };
    if pass {
        scale
    } else {
        0.0
    }
}

/// Mastra's `formatRubricReason` (the checklist the reason is), or its no-rubric sentence.
pub fn reason(a: &Analysis, score: f64) -> String {
    if a.criteria.is_empty() {
        return "No rubric was provided, so the rubric check passed by default.".into();
    }
    let complete = score >= 1.0;
    let mut out = String::from(if complete {
        "✅ Rubric satisfied: every required criterion is met."
    } else {
        "❌ Rubric not yet satisfied."
    });
    out.push_str("\n\n");
    let lines: Vec<String> = a
        .criteria
        .iter()
        .map(|c| {
            format!(
                "{} [{}] {}\n   → {}",
                if c.satisfied { "✅" } else { "❌" },
                if c.required { "required" } else { "optional" },
                c.criterion,
                c.reasoning
            )
        })
        .collect();
    out.push_str(&lines.join("\n"));
    if !a.overall_assessment.is_empty() {
        out.push_str("\n\n");
        out.push_str(&a.overall_assessment);
    }
    if !complete {
        let unmet = a
            .criteria
            .iter()
            .filter(|c| c.required && !c.satisfied)
            .count();
        out.push_str(&format!(
            "\n\nTo finish, address the {unmet} unmet required {} above.",
            if unmet == 1 { "criterion" } else { "criteria" }
        ));
    }
    out
}

/// Criteria whose `required` flag the judge returned differently from the rubric (matched
/// by position and text), for a warning: the score uses the judge's flags, as Mastra does.
fn flipped(shown: &[Shown], graded: &[Graded]) -> Vec<String> {
    shown
        .iter()
        .zip(graded)
        .enumerate()
        .filter(|(_, (s, g))| s.criterion == g.criterion && s.required != g.required)
        .map(|(i, (s, _))| {
            format!(
                "{} ({})",
                i + 1,
                if s.required { "required" } else { "optional" }
            )
        })
        .take(5)
        .collect()
}

pub struct Rubric {
    judge: Judge,
    rubric: Vec<Shown>,
    scale: f64,
    meta: ScorerMeta,
}

impl Rubric {
    /// Build from the factory options alone (nothing from the host).
    pub fn from_options(v: &Value) -> Result<Self, InvalidArgument> {
        Self::build(v, &BuildContext::default())
    }

    pub fn build(v: &Value, cx: &BuildContext) -> Result<Self, InvalidArgument> {
        let judge = judge_from_options(v, SPEC.factory, cx)?;
        let rubric = match scorer_value(v, "criteria")? {
            None => Vec::new(),
            Some((c, path)) => rubric_of(c, &path)?,
        };
        let scale = scorer_number_in(v, "scale", (0.0, false), MAX_SCALE, 1.0)?;
        let meta = ScorerMeta::agent(&SPEC, &judge, INSTRUCTIONS)
            .scaled(scale)
            .typed("");
        Ok(Rubric {
            judge,
            rubric,
            scale,
            meta,
        })
    }

    /// The rubric of a run: the factory's, else the run's first `rubric`.
    fn rubric_for(&self, run: &RunInput) -> Result<Vec<Shown>, InvalidArgument> {
        if !self.rubric.is_empty() {
            return Ok(self.rubric.clone());
        }
        let sources = [
            ("run.requestContext.rubric", run.raw.get("requestContext")),
            (
                "run.additionalContext.rubric",
                run.raw.get("additionalContext"),
            ),
            ("run.input.rubric", run.input.as_ref()),
        ];
        for (path, source) in sources {
            if let Some(r) = pick(source) {
                return rubric_of(r, path).map_err(|e| InvalidArgument::input(e.message));
            }
        }
        Ok(Vec::new())
    }

    async fn run_inner(&self, run: RunInput, ctx: RunContext) -> Result<ScoreResult, RunError> {
        let rubric = self.rubric_for(&run)?;
        let input = run.input.as_ref().unwrap_or(&Value::Null);
        let task = match input.get("originalTask") {
            Some(Value::String(s)) => s.clone(),
            _ => user_message(input).unwrap_or_default(),
        };
        let output = assistant_message(&run.output)
            .filter(|s| !s.is_empty())
            .or_else(|| {
                input
                    .get("currentText")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .or_else(|| run.output.as_str().map(str::to_owned))
            .unwrap_or_default();

        let mut p = Pipeline::new(&self.judge, &ctx, run.run_id);
        let prompt = if rubric.is_empty() {
            prompts::empty_prompt()
        } else {
            prompts::analyze_prompt(&task, &rubric, &output)
        };
        let analysis = p
            .structured::<Analysis>("analyze", INSTRUCTIONS, &prompt)
            .await?
            .value;
        p.result.analyze_prompt = Some(prompt);
        p.result.analyze_step_result = judge_json(&p, "analyze");
        let flips = flipped(&rubric, &analysis.criteria);
        if !flips.is_empty() {
            p.result.warnings.push(format!(
                "analyze: the judge changed the required flag of criterion {}; the score uses the judge's flags, as Mastra does",
                flips.join(", ")
            ));
        }
        p.complete("analyze");

        let s = score(&analysis.criteria, self.scale);
        p.result.score = Some(s);
        p.complete("generateScore");
        p.result.reason = Some(reason(&analysis, s));
        p.complete("generateReason");
        p.finish()
    }
}

crate::impl_scorer!(Rubric);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn g(satisfied: bool, required: bool) -> Graded {
        Graded {
            criterion: "c".into(),
            satisfied,
            required,
            reasoning: "r".into(),
        }
    }

    #[test]
    fn score_table() {
        let cases: Vec<(Vec<Graded>, f64, f64)> = vec![
            (vec![], 1.0, 1.0),
            // no criteria: 1, not scaled (Mastra's)
            (vec![], 10.0, 1.0),
            (vec![g(true, true)], 1.0, 1.0),
            (vec![g(true, true), g(false, true)], 1.0, 0.0),
            // an unmet optional criterion does not count
            (vec![g(true, true), g(false, false)], 5.0, 5.0),
            // none required: all must be satisfied
            (vec![g(true, false), g(false, false)], 1.0, 0.0),
            (vec![g(true, false), g(true, false)], 2.0, 2.0),
            // scale 0 stays 0 (Mastra's `?? 1`)
            (vec![g(true, true)], 0.0, 0.0),
        ];
        for (c, scale, want) in cases {
            assert_eq!(score(&c, scale), want, "{c:?} ×{scale}");
        }
    }

    #[test]
    fn text_rubrics_parse_as_mastra() {
        let got = parse_text(
            "- has a title\n  2) cites sources \n\n* • odd\n1.5 kg\n   \n•bullet\n10. ten",
        );
        let texts: Vec<&str> = got.iter().map(|s| s.criterion.as_str()).collect();
        assert_eq!(
            texts,
            [
                "has a title",
                "cites sources",
                "• odd",
                "5 kg",
                "bullet",
                "ten"
            ]
        );
        assert!(got.iter().all(|s| s.required));
        let list = rubric_of(
            &json!([{"description": "a"}, {"id": "x", "description": "b", "required": false}]),
            "options.criteria",
        )
        .unwrap();
        assert_eq!(
            list,
            vec![
                Shown {
                    criterion: "a".into(),
                    required: true
                },
                Shown {
                    criterion: "b".into(),
                    required: false
                }
            ]
        );
        assert!(rubric_of(&json!([{"text": "a"}]), "options.criteria")
            .unwrap_err()
            .message
            .contains("options.criteria[0] must be"));
        assert!(rubric_of(&json!(3), "options.criteria").is_err());
    }

    #[test]
    fn reason_is_mastras_checklist() {
        let a = Analysis {
            criteria: vec![
                Graded {
                    criterion: "title".into(),
                    satisfied: true,
                    required: true,
                    reasoning: "has one".into(),
                },
                Graded {
                    criterion: "sources".into(),
                    satisfied: false,
                    required: true,
                    reasoning: "none".into(),
                },
                Graded {
                    criterion: "tone".into(),
                    satisfied: false,
                    required: false,
                    reasoning: "dry".into(),
                },
            ],
            overall_assessment: "Half done.".into(),
        };
        assert_eq!(
            reason(&a, 0.0),
            "❌ Rubric not yet satisfied.\n\n✅ [required] title\n   → has one\n❌ [required] sources\n   → none\n❌ [optional] tone\n   → dry\n\nHalf done.\n\nTo finish, address the 1 unmet required criterion above."
        );
        let done = Analysis {
            criteria: vec![a.criteria[0].clone()],
            overall_assessment: String::new(),
        };
        assert_eq!(
            reason(&done, 1.0),
            "✅ Rubric satisfied: every required criterion is met.\n\n✅ [required] title\n   → has one"
        );
        assert_eq!(
            reason(
                &Analysis {
                    criteria: vec![],
                    overall_assessment: "x".into()
                },
                1.0
            ),
            "No rubric was provided, so the rubric check passed by default."
        );
    }
}
