//! `createBiasScorer`: Mastra's bias scorer, a member of the opinion family
//! ([`super::opinions`]). preprocess (LLM: the author's opinions) → analyze (LLM: biased
//! yes/no per opinion) → generateScore (pure: share of `yes`, lower is better) →
//! generateReason (LLM).

mod prompts;

use super::opinions::{self, LabelList, Labelled, OpinionMetric, OpinionScorer, Texts};
use crate::engine::schema::StepOutput;
use crate::scorers::spec::{boxed, schema_of, Inputs, Kind, Need, ScorerSpec, StepMeta};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use prompts::INSTRUCTIONS;

pub const ID: &str = "bias-scorer";

/// The registry entry.
pub const SPEC: ScorerSpec = ScorerSpec {
    factory: "createBiasScorer",
    id: ID,
    name: "Bias Scorer",
    description: "A scorer that evaluates the bias of an LLM output to an input",
    family: "mastra",
    type_name: "Bias",
    kind: Kind::Llm,
    inputs: Inputs {
        input: Need::Unused,
        output: Need::Required,
        ground_truth: Need::Unused,
        context: Need::Unused,
    },
    run_fields: None,
    extractors: &[],
    nested_options: Some("Mastra's form; merged with the defaults (top-level keys win)."),
    options: schema_of::<opinions::JsOptions>,
    preprocess: Some(schema_of::<opinions::Opinions>),
    analyze: Some(schema_of::<Verdicts>),
    steps: &[
        StepMeta::judge(
            "preprocess",
            "Extract relevant statements from the LLM output",
            <opinions::Opinions as StepOutput>::schema,
        ),
        StepMeta::judge(
            "analyze",
            "Score the relevance of the statements to the input",
            <Verdicts as StepOutput>::schema,
        ),
        StepMeta::function(
            "generateScore",
            "Share of opinions judged biased, times the scale",
        ),
        StepMeta::text("generateReason", "Reason about the results"),
    ],
    build: |v, cx| boxed(Bias::build(v, cx)),
};

/// One analyze item: `result` is `yes` (biased) or `no`, free text on the wire as in Mastra.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Verdict {
    pub result: String,
    pub reason: String,
}

/// analyze output (`analyzeStepResult`): Mastra's `{ results: [{ result, reason }] }`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Verdicts {
    pub results: Vec<Verdict>,
}
crate::step_output!(Verdicts, "bias_verdicts");

impl Labelled for Verdict {
    fn label(&self) -> &str {
        &self.result
    }
    fn reason(&self) -> &str {
        &self.reason
    }
}

impl LabelList for Verdicts {
    type Item = Verdict;
    fn items(&self) -> &[Verdict] {
        &self.results
    }
}

pub struct BiasMetric;

impl OpinionMetric for BiasMetric {
    const SPEC: &'static ScorerSpec = &SPEC;
    const INSTRUCTIONS: &'static str = INSTRUCTIONS;
    const EMPTY_SCORE: f64 = 0.0;
    const TRIMS_LABEL: bool = false;
    const YES_MEANS: &'static str = "biased";
    const EXTRACT_PROMPT: Option<fn(&str) -> String> = Some(prompts::extract_prompt);
    type Verdicts = Verdicts;

    fn analyze_prompt(t: &Texts, opinions: Option<&[String]>) -> String {
        prompts::analyze_prompt(&t.output, opinions.unwrap_or(&[]))
    }

    fn reason_prompt(score: f64, scale: f64, reasons: &[&str]) -> String {
        prompts::reason_prompt(score, scale, reasons)
    }
}

/// The bias scorer.
pub type Bias = OpinionScorer<BiasMetric>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scorers::llm::opinions::score;
    use serde_json::json;

    #[test]
    fn score_table() {
        // (labels, scale, score): Mastra's formula, lowercased but not trimmed
        let cases: &[(&[&str], f64, f64)] = &[
            (&[], 1.0, 0.0),
            (&[], 10.0, 0.0),
            (&["yes"], 1.0, 1.0),
            (&["no"], 1.0, 0.0),
            (&["yes", "no"], 1.0, 0.5),
            (&["yes", "no", "no"], 1.0, 0.33),
            (&["yes", "yes", "no"], 1.0, 0.67),
            (&["YES", "Yes", "no"], 1.0, 0.67),
            // Mastra's compare does not trim: " yes" is not a yes (observed [' yes', 'YES'] → 0.5)
            (&[" yes", "YES"], 1.0, 0.5),
            (&["yes "], 1.0, 0.0),
            (&["Yes.", "maybe"], 1.0, 0.0),
            (&["yes", "no", "no"], 10.0, 3.33),
            (
                &["yes", "no", "no", "no", "no", "no", "no", "no"],
                1.0,
                0.13,
            ),
        ];
        for (labels, scale, want) in cases {
            let got = score::<BiasMetric>(labels, *scale);
            assert_eq!(got, *want, "{labels:?} × {scale}");
        }
    }

    #[test]
    fn options() {
        let s = |v: serde_json::Value| opinions::scale_option(&v);
        assert_eq!(s(json!({})).unwrap(), 1.0);
        assert_eq!(s(json!({"scale": 5})).unwrap(), 5.0);
        assert_eq!(s(json!({"options": {"scale": 2}})).unwrap(), 2.0);
        assert!(s(json!({"scale": 0}))
            .unwrap_err()
            .message
            .contains("greater than 0"));
        assert!(s(json!({"options": {"scale": "x"}})).is_err());
    }

    #[test]
    fn wire_schema_is_mastras() {
        let v = serde_json::to_value(schema_of::<Verdicts>()).unwrap();
        assert_eq!(v["required"], json!(["results"]), "{v}");
        let item = &v["properties"]["results"]["items"];
        assert_eq!(item["required"], json!(["result", "reason"]), "{v}");
    }
}
