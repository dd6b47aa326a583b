//! LLM-judged scorers.

pub mod answer_relevancy;
pub mod callbacks;
pub mod common;
pub mod context;
pub mod context_precision;
pub mod context_recall;
pub mod factual_correctness;
pub mod faithfulness;
pub mod hallucination;
pub mod nvidia;
pub mod verdicts;
