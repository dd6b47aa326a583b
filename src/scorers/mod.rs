//! One small file per scorer family.

mod llm;
mod ragas;
