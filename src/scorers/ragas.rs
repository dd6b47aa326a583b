//! Factories of the Ragas scorers (factual correctness and NVIDIA's dual-judge metrics).
//! Each takes the JSON text of its options.

use crate::scorer::NativeScorer;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use oxeval_core::scorers::llm::factual_correctness::FactualCorrectness;
use oxeval_core::scorers::llm::nvidia::{AnswerAccuracy, ContextRelevance, ResponseGroundedness};

/// `{ model, modelSettings?, cache?, mode?, beta?, atomicity?, coverage?, llmReason? }`.
#[napi(catch_unwind)]
pub fn create_factual_correctness_scorer(options: String) -> Result<NativeScorer> {
    NativeScorer::build(&options, FactualCorrectness::from_options)
}

/// `{ model, modelSettings?, cache?, maxRetries? }`.
#[napi(catch_unwind)]
pub fn create_answer_accuracy_scorer(options: String) -> Result<NativeScorer> {
    NativeScorer::build(&options, AnswerAccuracy::from_options)
}

/// `{ model, modelSettings?, cache?, maxRetries?, context? }`.
#[napi(catch_unwind)]
pub fn create_context_relevance_scorer(options: String) -> Result<NativeScorer> {
    NativeScorer::build(&options, ContextRelevance::from_options)
}

/// `{ model, modelSettings?, cache?, maxRetries?, context? }`.
#[napi(catch_unwind)]
pub fn create_response_groundedness_scorer(options: String) -> Result<NativeScorer> {
    NativeScorer::build(&options, ResponseGroundedness::from_options)
}
