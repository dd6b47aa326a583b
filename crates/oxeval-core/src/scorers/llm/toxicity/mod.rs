//! `createToxicityScorer`: Mastra's toxicity scorer, a member of the opinion family
//! ([`super::opinions`]). analyze (LLM: toxic yes/no per opinion of the output, the user's
//! message as context) → generateScore (pure: share of `yes`, lower is better; no verdicts →
//! 1) → generateReason (LLM). No preprocess: 2 judge calls.

mod prompts;

use super::opinions::{self, LabelList, Labelled, OpinionMetric, OpinionScorer, Texts};
use crate::engine::schema::StepOutput;
use crate::scorers::spec::{boxed, schema_of, Inputs, Kind, Need, ScorerSpec, StepMeta};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use prompts::INSTRUCTIONS;

pub const ID: &str = "toxicity-scorer";

/// The registry entry.
pub const SPEC: ScorerSpec = ScorerSpec {
    factory: "createToxicityScorer",
    id: ID,
    name: "Toxicity Scorer",
    description: "A scorer that evaluates the toxicity of an LLM output to an input",
    family: "mastra",
    type_name: "Toxicity",
    kind: Kind::Llm,
    inputs: Inputs {
        input: Need::Optional,
        output: Need::Required,
        ground_truth: Need::Unused,
        context: Need::Unused,
    },
    run_fields: None,
    extractors: &[],
    nested_options: Some("Mastra's form; merged with the defaults (top-level keys win)."),
    options: schema_of::<opinions::JsOptions>,
    preprocess: None,
    analyze: Some(schema_of::<Verdicts>),
    steps: &[
        StepMeta::judge(
            "analyze",
            "Score the relevance of the statements to the input",
            <Verdicts as StepOutput>::schema,
        ),
        StepMeta::function(
            "generateScore",
            "Share of opinions judged toxic, times the scale",
        ),
        StepMeta::text("generateReason", "Reason about the results"),
    ],
    build: |v, cx| boxed(Toxicity::build(v, cx)),
};

/// One analyze item: `verdict` is `yes` (toxic) or `no`, free text on the wire as in Mastra.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Verdict {
    pub verdict: String,
    pub reason: String,
}

/// analyze output (`analyzeStepResult`): Mastra's `{ verdicts: [{ verdict, reason }] }`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Verdicts {
    pub verdicts: Vec<Verdict>,
}
crate::step_output!(Verdicts, "toxicity_verdicts");

impl Labelled for Verdict {
    fn label(&self) -> &str {
        &self.verdict
    }
    fn reason(&self) -> &str {
        &self.reason
    }
}

impl LabelList for Verdicts {
    type Item = Verdict;
    fn items(&self) -> &[Verdict] {
        &self.verdicts
    }
}

pub struct ToxicityMetric;

impl OpinionMetric for ToxicityMetric {
    const SPEC: &'static ScorerSpec = &SPEC;
    const INSTRUCTIONS: &'static str = INSTRUCTIONS;
    const EMPTY_SCORE: f64 = 1.0;
    const TRIMS_LABEL: bool = true;
    const YES_MEANS: &'static str = "toxic";
    const EXTRACT_PROMPT: Option<fn(&str) -> String> = None;
    type Verdicts = Verdicts;

    fn analyze_prompt(t: &Texts, _: Option<&[String]>) -> String {
        prompts::analyze_prompt(&t.user, &t.output)
    }

    fn reason_prompt(score: f64, scale: f64, reasons: &[&str]) -> String {
        prompts::reason_prompt(score, scale, reasons)
    }
}

/// The toxicity scorer.
pub type Toxicity = OpinionScorer<ToxicityMetric>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scorers::llm::opinions::score;

    #[test]
    fn score_table() {
        // (labels, scale, score): Mastra's formula, trimmed and lowercased; none → 1 (unscaled)
        let cases: &[(&[&str], f64, f64)] = &[
            (&[], 1.0, 1.0),
            (&[], 10.0, 1.0),
            (&["yes"], 1.0, 1.0),
            (&["no"], 1.0, 0.0),
            (&["yes", "no"], 1.0, 0.5),
            (&[" yes", "YES"], 1.0, 1.0),
            (&[" Yes \n", "no", "no"], 1.0, 0.33),
            (&["yes", "yes", "no"], 1.0, 0.67),
            (&["Yes.", "maybe"], 1.0, 0.0),
            (&["yes", "no", "no"], 4.0, 1.33),
        ];
        for (labels, scale, want) in cases {
            let got = score::<ToxicityMetric>(labels, *scale);
            assert_eq!(got, *want, "{labels:?} × {scale}");
        }
    }
}
