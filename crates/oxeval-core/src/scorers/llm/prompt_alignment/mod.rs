//! `createPromptAlignmentScorerLLM`: how well the agent's response aligns with the user's
//! prompt, the system prompt, or both (Mastra's prompt alignment, `type` undefined).
//!
//! analyze (LLM: four dimensions, each scored 0..1) → generateScore (pure: weighted by mode)
//! → generateReason (LLM). 2 judge calls. Texts are read as Mastra reads them: the user
//! message, the combined system prompt (system messages, `role: 'system'` input messages,
//! tagged system messages), the last assistant text, and (optionally) the remembered
//! conversation history.

mod prompts;

use super::common::{judge_from_options, judge_json};
use crate::agent::messages::{
    assistant_message, combined_system_prompt, conversation_history, user_message,
};
use crate::engine::schema::StepOutput;
use crate::engine::{Judge, RunContext};
use crate::error::{type_name, InvalidArgument};
use crate::options::{scorer_choice, scorer_number_in, scorer_value};
use crate::pipeline::{Pipeline, RunError, ScoreResult};
use crate::run::RunInput;
use crate::scorers::spec::{
    boxed, schema_of, BuildContext, Inputs, Kind, Need, ScorerSpec, StepMeta,
};
use crate::scorers::ScorerMeta;
use crate::text::round2_half_up;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use prompts::INSTRUCTIONS;

pub const ID: &str = "prompt-alignment-scorer";

/// Largest accepted `scale`.
pub const MAX_SCALE: f64 = 1e6;

/// The registry entry.
pub const SPEC: ScorerSpec = ScorerSpec {
    factory: "createPromptAlignmentScorerLLM",
    id: ID,
    name: "Prompt Alignment (LLM)",
    description:
        "Evaluates how well the agent response aligns with the intent and requirements of the user prompt",
    family: "mastra",
    type_name: "PromptAlignment",
    kind: Kind::Llm,
    inputs: Inputs {
        input: Need::Required,
        output: Need::Required,
        ground_truth: Need::Unused,
        context: Need::Unused,
    },
    run_fields: None,
    extractors: &[],
    nested_options: Some("Mastra's form; merged with the defaults (top-level keys win)."),
    options: schema_of::<JsOptions>,
    preprocess: None,
    analyze: Some(schema_of::<Analysis>),
    steps: &[
        StepMeta::judge(
            "analyze",
            "Analyze prompt-response alignment across multiple dimensions",
            <Analysis as StepOutput>::schema,
        ),
        StepMeta::function(
            "generateScore",
            "Weighted dimensions (by evaluation mode), times the scale",
        ),
        StepMeta::text(
            "generateReason",
            "Generate human-readable explanation of prompt alignment evaluation",
        ),
    ],
    build: |v, cx| boxed(PromptAlignment::build(v, cx)),
};

/// `includeConversationHistory`: `true` (the last 10 remembered messages) or
/// `{ maxMessages }`.
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
pub enum HistoryOption {
    Flag(bool),
    Options(HistoryOptions),
}

#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct HistoryOptions {
    /// How many of the last remembered messages to show the judge, at least 1. Default 10.
    max_messages: Option<f64>,
}

/// The scorer's own factory options, top-level or under `options`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct JsOptions {
    /// Multiplies the score, greater than 0 and at most 1e6. Default 1.
    scale: Option<f64>,
    /// What the response is judged against: `'user'`, `'system'` or `'both'`. Default `'both'`.
    evaluation_mode: Option<Mode>,
    /// Show the judge the agent's remembered conversation (agent-shaped runs), for context
    /// only. Default off.
    include_conversation_history: Option<HistoryOption>,
}

/// The evaluation mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    User,
    System,
    Both,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::User => "user",
            Mode::System => "system",
            Mode::Both => "both",
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IntentAlignment {
    pub score: f64,
    pub primary_intent: String,
    pub is_addressed: bool,
    pub reasoning: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Requirement {
    pub requirement: String,
    pub is_fulfilled: bool,
    pub reasoning: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RequirementsFulfillment {
    pub requirements: Vec<Requirement>,
    pub overall_score: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Completeness {
    pub score: f64,
    pub missing_elements: Vec<String>,
    pub reasoning: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResponseAppropriateness {
    pub score: f64,
    pub format_alignment: bool,
    pub tone_alignment: bool,
    pub reasoning: String,
}

/// analyze output (`analyzeStepResult`): Mastra's nested object.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Analysis {
    pub intent_alignment: IntentAlignment,
    pub requirements_fulfillment: RequirementsFulfillment,
    pub completeness: Completeness,
    pub response_appropriateness: ResponseAppropriateness,
    pub overall_assessment: String,
}
crate::step_output!(Analysis, "prompt_alignment_analysis");

/// Options after defaults.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    pub scale: f64,
    pub mode: Mode,
    /// `Some(max messages)` when the history is shown.
    pub history: Option<f64>,
}

impl Options {
    pub fn from_value(v: &Value) -> Result<Self, InvalidArgument> {
        let scale = scorer_number_in(v, "scale", (0.0, true), MAX_SCALE, 1.0)?;
        let mode = match scorer_choice(v, "evaluationMode", &["user", "system", "both"], "both")? {
            "user" => Mode::User,
            "system" => Mode::System,
            _ => Mode::Both,
        };
        let history = match scorer_value(v, "includeConversationHistory")? {
            None | Some((Value::Bool(false), _)) => None,
            Some((Value::Bool(true), _)) => Some(10.0),
            Some((obj @ Value::Object(_), path)) => Some(
                match obj.get("maxMessages").filter(|m| !m.is_null()) {
                    None => 10.0,
                    Some(Value::Number(n)) if n.as_f64().is_some_and(|n| (1.0..=1e6).contains(&n)) => {
                        n.as_f64().unwrap_or(10.0)
                    }
                    Some(other) => {
                        return Err(InvalidArgument::options(format!(
                            "{path}.maxMessages must be a number at least 1 and at most 1000000; got {}",
                            match other {
                                Value::Number(n) => n.to_string(),
                                o => type_name(o).to_string(),
                            }
                        )))
                    }
                },
            ),
            Some((other, path)) => {
                return Err(InvalidArgument::options(format!(
                    "{path} must be a boolean or {{ maxMessages }}; got {}",
                    type_name(other)
                )))
            }
        };
        Ok(Options {
            scale,
            mode,
            history,
        })
    }
}

/// The weights of (intent, requirements, completeness, appropriateness) of a mode.
const USER_WEIGHTS: [f64; 4] = [0.4, 0.3, 0.2, 0.1];
const SYSTEM_WEIGHTS: [f64; 4] = [0.35, 0.35, 0.15, 0.15];

fn weighted(a: &Analysis, w: [f64; 4]) -> f64 {
    a.intent_alignment.score * w[0]
        + a.requirements_fulfillment.overall_score * w[1]
        + a.completeness.score * w[2]
        + a.response_appropriateness.score * w[3]
}

/// Mastra's formula, in the same floating-point order: user `.4/.3/.2/.1`, system
/// `.35/.35/.15/.15`; `both` is `u·0.7 + s·0.3` where Mastra's code sets `s = u` (kept for
/// parity: the system prompt has no score of its own); × scale, rounded half up to 2
/// decimals. The judge's sub-scores are used as given (not clamped).
pub fn score(a: &Analysis, mode: Mode, scale: f64) -> f64 {
    let w = match mode {
        Mode::User => weighted(a, USER_WEIGHTS),
        Mode::System => weighted(a, SYSTEM_WEIGHTS),
        Mode::Both => {
            let user = weighted(a, USER_WEIGHTS);
            let system = user;
            user * 0.7 + system * 0.3
        }
    };
    round2_half_up(w * scale)
}

/// The judge's sub-scores outside 0..1 (used as given, as Mastra does), for a warning.
fn out_of_range(a: &Analysis) -> Vec<String> {
    [
        ("intentAlignment.score", a.intent_alignment.score),
        (
            "requirementsFulfillment.overallScore",
            a.requirements_fulfillment.overall_score,
        ),
        ("completeness.score", a.completeness.score),
        (
            "responseAppropriateness.score",
            a.response_appropriateness.score,
        ),
    ]
    .iter()
    .filter(|(_, s)| !(0.0..=1.0).contains(s))
    .map(|(k, s)| format!("{k} {s}"))
    .collect()
}

/// What the prompts see of a run.
pub struct Texts {
    pub user: String,
    pub system: String,
    pub response: String,
    pub history: Option<String>,
}

pub struct PromptAlignment {
    judge: Judge,
    opts: Options,
    meta: ScorerMeta,
}

impl PromptAlignment {
    /// Build from the factory options alone (nothing from the host).
    pub fn from_options(v: &Value) -> Result<Self, InvalidArgument> {
        Self::build(v, &BuildContext::default())
    }

    pub fn build(v: &Value, cx: &BuildContext) -> Result<Self, InvalidArgument> {
        let judge = judge_from_options(v, SPEC.factory, cx)?;
        let opts = Options::from_value(v)?;
        let meta = ScorerMeta::agent(&SPEC, &judge, INSTRUCTIONS)
            .scaled(opts.scale)
            .typed("");
        Ok(PromptAlignment { judge, opts, meta })
    }

    /// The run's texts; when a needed one is missing, the run fails at `analyze` with
    /// Mastra's message (its analyze prompt throws), before any judge call.
    pub fn texts(&self, run: &RunInput) -> Result<Texts, RunError> {
        let input = run.input.as_ref().unwrap_or(&Value::Null);
        let user = user_message(input).unwrap_or_default();
        let system = combined_system_prompt(input);
        let response = assistant_message(&run.output).unwrap_or_default();
        let fail = |m: &str| Err(crate::scorers::code::step_error(run, "analyze", m));
        match self.opts.mode {
            Mode::User if user.is_empty() => {
                return fail("User prompt is required for user prompt alignment scoring")
            }
            Mode::System if system.is_empty() => {
                return fail("System prompt is required for system prompt alignment scoring")
            }
            Mode::Both if user.is_empty() && system.is_empty() => {
                return fail("A user or system prompt is required for combined alignment scoring")
            }
            _ => {}
        }
        if response.is_empty() {
            return fail("Agent response is required for prompt alignment scoring");
        }
        let history = self
            .opts
            .history
            .and_then(|max| conversation_history(input, Some(max)));
        Ok(Texts {
            user,
            system,
            response,
            history,
        })
    }

    async fn run_inner(&self, run: RunInput, ctx: RunContext) -> Result<ScoreResult, RunError> {
        let t = self.texts(&run)?;
        let mode = self.opts.mode;
        let mut p = Pipeline::new(&self.judge, &ctx, run.run_id);
        let prompt = prompts::analyze_prompt(&t, mode);
        let analysis = p
            .structured::<Analysis>("analyze", INSTRUCTIONS, &prompt)
            .await?
            .value;
        p.result.analyze_prompt = Some(prompt);
        p.result.analyze_step_result = judge_json(&p, "analyze");
        let odd = out_of_range(&analysis);
        if !odd.is_empty() {
            p.result.warnings.push(format!(
                "analyze: {} outside 0..1 (used as given, as Mastra does)",
                odd.join(", ")
            ));
        }
        p.complete("analyze");

        let s = score(&analysis, mode, self.opts.scale);
        p.result.score = Some(s);
        p.complete("generateScore");

        let recorded = p.result.analyze_step_result.clone().unwrap_or_default();
        let prompt = prompts::reason_prompt(&t, mode, s, self.opts.scale, &recorded);
        p.generate_reason(INSTRUCTIONS, prompt).await?;
        p.finish()
    }
}

crate::impl_scorer!(PromptAlignment);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn analysis(i: f64, r: f64, c: f64, a: f64) -> Analysis {
        serde_json::from_value(json!({
            "intentAlignment": {"score": i, "primaryIntent": "p", "isAddressed": true, "reasoning": "r"},
            "requirementsFulfillment": {"requirements": [], "overallScore": r},
            "completeness": {"score": c, "missingElements": [], "reasoning": "r"},
            "responseAppropriateness": {"score": a, "formatAlignment": true, "toneAlignment": true, "reasoning": "r"},
            "overallAssessment": "o"
        }))
        .unwrap()
    }

    #[test]
    fn score_table() {
        let cases = [
            // (dims, mode, scale, score)
            ((1.0, 1.0, 1.0, 1.0), Mode::Both, 1.0, 1.0),
            ((1.0, 1.0, 1.0, 1.0), Mode::User, 1.0, 1.0),
            ((1.0, 1.0, 1.0, 1.0), Mode::System, 1.0, 1.0),
            // the catalogue's observed case
            ((0.85, 0.55, 0.35, 0.15), Mode::Both, 1.0, 0.59),
            ((0.85, 0.55, 0.35, 0.15), Mode::User, 1.0, 0.59),
            ((0.85, 0.55, 0.35, 0.15), Mode::System, 1.0, 0.57),
            ((1.0, 0.0, 0.0, 0.0), Mode::User, 1.0, 0.4),
            ((1.0, 0.0, 0.0, 0.0), Mode::System, 1.0, 0.35),
            ((0.0, 0.0, 0.0, 1.0), Mode::System, 1.0, 0.15),
            ((0.5, 0.5, 0.5, 0.5), Mode::Both, 10.0, 5.0),
            ((0.0, 0.0, 0.0, 0.0), Mode::Both, 1.0, 0.0),
            // not clamped: a judge's 1.5 passes through, as in Mastra
            ((1.5, 1.0, 1.0, 1.0), Mode::User, 1.0, 1.2),
        ];
        for ((i, r, c, a), mode, scale, want) in cases {
            let got = score(&analysis(i, r, c, a), mode, scale);
            assert_eq!(got, want, "{:?} {mode:?} ×{scale}", (i, r, c, a));
        }
        assert_eq!(
            out_of_range(&analysis(1.5, 1.0, -0.1, 1.0)),
            vec!["intentAlignment.score 1.5", "completeness.score -0.1"]
        );
    }

    #[test]
    fn options() {
        let o = |v: Value| Options::from_value(&v);
        assert_eq!(
            o(json!({})).unwrap(),
            Options {
                scale: 1.0,
                mode: Mode::Both,
                history: None
            }
        );
        let v = o(json!({"options": {"evaluationMode": "system", "includeConversationHistory": true, "scale": 2}})).unwrap();
        assert_eq!(
            (v.mode, v.history, v.scale),
            (Mode::System, Some(10.0), 2.0)
        );
        assert_eq!(
            o(json!({"includeConversationHistory": {"maxMessages": 3}}))
                .unwrap()
                .history,
            Some(3.0)
        );
        assert_eq!(
            o(json!({"includeConversationHistory": {}}))
                .unwrap()
                .history,
            Some(10.0)
        );
        assert_eq!(
            o(json!({"includeConversationHistory": false}))
                .unwrap()
                .history,
            None
        );
        for (bad, want) in [
            (json!({"evaluationMode": "all"}), "evaluationMode must be"),
            (
                json!({"includeConversationHistory": 3}),
                "must be a boolean or",
            ),
            (
                json!({"includeConversationHistory": {"maxMessages": 0}}),
                "maxMessages must be a number at least 1",
            ),
            (json!({"scale": 0}), "greater than 0"),
        ] {
            let e = o(bad.clone()).unwrap_err();
            assert!(e.message.contains(want), "{bad}: {}", e.message);
        }
    }
}
