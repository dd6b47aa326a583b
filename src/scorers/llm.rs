//! Factories of the LLM-judged scorers.

use crate::error::{bad_json, invalid};
use crate::scorer::NativeScorer;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use oxeval_core::scorers::llm::answer_relevancy::AnswerRelevancy;
use std::sync::Arc;

fn parse(options: &str) -> Result<serde_json::Value> {
    serde_json::from_str(options).map_err(|e| invalid(bad_json("options", e)))
}

/// `options` is the JSON text of the factory options.
#[napi]
pub fn create_answer_relevancy_scorer(options: String) -> Result<NativeScorer> {
    let scorer = AnswerRelevancy::from_options(&parse(&options)?).map_err(invalid)?;
    Ok(NativeScorer::new(Arc::new(scorer)))
}
