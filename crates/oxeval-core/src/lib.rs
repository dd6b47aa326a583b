//! oxeval-core: LLM-as-a-judge evaluation scorers in pure Rust (no Node dependency).
//!
//! Layers: [`model`] (model config + provider registry) → [`provider`] (wire formats) →
//! [`engine`] (structured output, parsing, validation, fallback, retries) → [`pipeline`]
//! (steps and records) → [`scorers`] (prompts and score math).

pub mod agent;
pub mod agreement;
pub mod compare;
pub mod embed;
pub mod engine;
pub mod error;
pub mod evals;
pub mod model;
pub mod options;
pub mod pipeline;
pub mod pricing;
pub mod prompt;
pub mod provider;
pub mod redact;
pub mod run;
pub mod scorers;
pub mod similarity;
pub mod store;
pub mod text;

pub use engine::{Judge, ModelSettings, RunContext};
pub use error::{ErrorCode, InvalidArgument, JudgeError};
pub use model::ModelConfig;
pub use pipeline::{RunError, ScoreResult, ScorerFailure};
pub use run::RunInput;
pub use scorers::{Scorer, ScorerMeta};
