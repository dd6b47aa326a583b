//! LLM-judged scorers.

pub mod answer_relevancy;
pub mod answer_similarity;
pub mod common;
pub mod context;
pub mod context_relevance_llm;
pub mod factual_correctness;
pub mod noise_sensitivity;
pub mod nvidia;
pub mod summarization;
