//! Registry entries of the NVIDIA metrics.

use super::{AnswerAccuracy, ContextRelevance, ResponseGroundedness};
use crate::scorers::registry::{boxed, schema_of, Inputs, Need, ScorerSpec};
use schemars::JsonSchema;

/// `createAnswerAccuracyScorer`.
pub const ANSWER_ACCURACY: ScorerSpec = ScorerSpec {
    factory: "createAnswerAccuracyScorer",
    id: super::answer_accuracy::ID,
    name: "Answer Accuracy Scorer",
    description: "Rates the agreement of the output with the ground truth for the user's question, with two independent LLM judges (NVIDIA answer accuracy)",
    family: "ragas",
    type_name: "AnswerAccuracy",
    inputs: Inputs {
        input: Need::Required,
        output: Need::Required,
        ground_truth: Need::Required,
        context: Need::Unused,
    },
    context_extractor: false,
    options: schema_of::<JsOptions>,
    preprocess: None,
    analyze: Some(schema_of::<Analysis>),
    build: |v| boxed(AnswerAccuracy::from_options(v)),
};

/// `createContextRelevanceScorer`.
pub const CONTEXT_RELEVANCE: ScorerSpec = ScorerSpec {
    factory: "createContextRelevanceScorer",
    id: super::context_relevance::ID,
    name: "Context Relevance Scorer",
    description: "Rates how relevant the retrieved context is to the user's question, with two independent LLM judges (NVIDIA context relevance)",
    family: "ragas",
    type_name: "ContextRelevance",
    inputs: Inputs {
        input: Need::Required,
        output: Need::Unused,
        ground_truth: Need::Unused,
        context: Need::Required,
    },
    context_extractor: true,
    options: schema_of::<JsContextOptions>,
    preprocess: None,
    analyze: Some(schema_of::<Analysis>),
    build: |v| boxed(ContextRelevance::from_options(v)),
};

/// `createResponseGroundednessScorer`.
pub const RESPONSE_GROUNDEDNESS: ScorerSpec = ScorerSpec {
    factory: "createResponseGroundednessScorer",
    id: super::response_groundedness::ID,
    name: "Response Groundedness Scorer",
    description: "Rates how far the output is supported by the retrieved context, with two independent LLM judges (NVIDIA response groundedness)",
    family: "ragas",
    type_name: "ResponseGroundedness",
    inputs: Inputs {
        input: Need::Unused,
        output: Need::Required,
        ground_truth: Need::Unused,
        context: Need::Required,
    },
    context_extractor: true,
    options: schema_of::<JsContextOptions>,
    preprocess: None,
    analyze: Some(schema_of::<Analysis>),
    build: |v| boxed(ResponseGroundedness::from_options(v)),
};

/// Options of the NVIDIA metrics (besides `model`, `modelSettings`, `cache`).
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct JsOptions {
    /// Attempts per judge, an integer from 1 to 20. Default 5.
    max_retries: Option<u32>,
    /// The same option, nested (top-level wins).
    options: Option<JsNested>,
}

/// `options.options`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct JsNested {
    /// Attempts per judge, an integer from 1 to 20. Default 5.
    max_retries: Option<u32>,
}

/// Options of the context metrics.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct JsContextOptions {
    /// Attempts per judge, an integer from 1 to 20. Default 5.
    max_retries: Option<u32>,
    /// Retrieved contexts used when the run has no `context` and no `contextExtractor` result.
    context: Option<Vec<String>>,
    /// The same options, nested (top-level wins).
    options: Option<JsContextNested>,
}

/// `options.options` of the context metrics.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct JsContextNested {
    /// Attempts per judge, an integer from 1 to 20. Default 5.
    max_retries: Option<u32>,
    /// Retrieved contexts used when the run has no `context` and no `contextExtractor` result.
    context: Option<Vec<String>>,
}

/// `analyzeStepResult` of the NVIDIA metrics.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub struct Analysis {
    /// Judge 1, then judge 2 (roles swapped for answer accuracy).
    judges: [JudgeRating; 2],
}

/// One judge's outcome.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct JudgeRating {
    /// The valid rating (a quoted "4" is reported as 4); null when no attempt gave one.
    rating: Option<i64>,
    /// rating / 4 (answer accuracy) or rating / 2.
    normalized: Option<f64>,
    /// Calls made for this judge (1..maxRetries).
    attempts: u32,
    /// The judge's reply text of every attempt that got a reply.
    raw_outputs: Vec<String>,
    valid: bool,
}
