//! LLM-judged scorers.

pub mod answer_relevancy;
pub mod answer_similarity;
pub mod callbacks;
pub mod claims;
pub mod common;
pub mod context;
pub mod context_precision;
pub mod context_recall;
pub mod context_relevance_llm;
pub mod factual_correctness;
pub mod faithfulness;
pub mod hallucination;
pub mod noise_sensitivity;
pub mod nvidia;
pub mod summarization;
pub mod verdicts;
