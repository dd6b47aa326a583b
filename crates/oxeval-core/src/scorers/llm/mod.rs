//! LLM-judged scorers.

pub mod answer_relevancy;
pub mod common;
pub mod context;
pub mod factual_correctness;
pub mod faithfulness;
pub mod nvidia;
pub mod verdicts;
