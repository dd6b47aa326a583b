//! Agent data: what Mastra's agent runs carry (message lists with text and tool
//! invocations, trajectories of steps) and the readers and comparisons every scorer over
//! them shares. ONE implementation, used by the code scorers and checks
//! (`scorers::code`), the agent LLM scorers, the RAG scorers' tool-result context and
//! `oxeval/utils`.
//!
//! - [`messages`]: text of a message (`getTextContentFromMastraDBMessage`), the run's
//!   output as a message list (the widening of plain strings, `{ messages }` and UI
//!   messages), system prompt, conversation history, reasoning, the agent-shape guards.
//! - [`tools`]: `mergeToolInvocations` (Mastra's order of message parts and the legacy
//!   array), `extractToolCalls` (the state filter), `extractToolResults`,
//!   `extractTrajectory` (`@mastra/core`).
//! - [`trajectory`]: `compareTrajectories`, `checkTrajectoryEfficiency`,
//!   `checkTrajectoryBlacklist`, `analyzeToolFailures`, `evaluateNestedExpectations`.
//!
//! Values stay `serde_json::Value` (with `preserve_order`: JS key order survives), so
//! Mastra's `JSON.stringify` comparisons and step results are reproduced exactly; the
//! [`js`] helpers give JavaScript's truthiness, equality and number printing.

pub mod api;
pub mod js;
pub mod messages;
pub mod tools;
pub mod trajectory;

pub use messages::{db_message_text, output_messages};
pub use tools::{
    extract_tool_calls, extract_tool_results, extract_trajectory, merge_tool_invocations,
    routed_trajectory,
};
