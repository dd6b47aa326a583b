//! Scorers without a judge (`Kind::Code`): Mastra's code scorers, computed in Rust with the
//! exact values Mastra gives (JS string semantics from `js_text`).

pub mod completeness;
pub mod content_similarity;
pub mod js_text;
pub mod keyword_coverage;
pub mod textual_difference;
pub mod tone;

use crate::pipeline::ScoreResult;
use serde::Serialize;

/// The result of a code scorer whose steps are a preprocess and a score (and maybe an
/// analyze): Mastra's step keys, no `judge`.
pub(crate) fn result<P: Serialize, A: Serialize>(
    run_id: String,
    score: f64,
    preprocess: &P,
    analyze: Option<&A>,
) -> ScoreResult {
    ScoreResult {
        run_id,
        score: Some(score),
        preprocess_step_result: serde_json::to_value(preprocess).ok(),
        analyze_step_result: analyze.and_then(|a| serde_json::to_value(a).ok()),
        ..Default::default()
    }
}

/// The run inputs of Mastra's text code scorers: input optional, output required.
pub(crate) const TEXT_INPUTS: crate::scorers::spec::Inputs = crate::scorers::spec::Inputs {
    input: crate::scorers::spec::Need::Optional,
    output: crate::scorers::spec::Need::Required,
    ground_truth: crate::scorers::spec::Need::Unused,
    context: crate::scorers::spec::Need::Unused,
};
