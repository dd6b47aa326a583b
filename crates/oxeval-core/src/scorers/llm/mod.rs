//! LLM-judged scorers.

pub mod answer_relevancy;
pub mod common;
