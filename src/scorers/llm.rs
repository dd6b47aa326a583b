//! Factories of Mastra's LLM-judged scorers. Each takes the JSON text of its options.

use crate::scorer::NativeScorer;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use oxeval_core::scorers::llm::answer_relevancy::AnswerRelevancy;

/// `{ model, modelSettings?, cache?, uncertaintyWeight?, scale?, options? }`.
#[napi(catch_unwind)]
pub fn create_answer_relevancy_scorer(options: String) -> Result<NativeScorer> {
    NativeScorer::build(&options, AnswerRelevancy::from_options)
}
