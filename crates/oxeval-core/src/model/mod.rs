//! Model configuration: `'provider/model'` strings and `{ id | providerId+modelId, url?,
//! apiKey?, headers?, structuredOutput?, apiVersion? }` objects, resolved ONCE per scorer
//! against the provider table ([`PROVIDERS`]) and the environment (API key variable, base
//! URL variable, Azure's resource name and API version), and the capability table
//! ([`capabilities`]): how a step's schema reaches each model, and which request
//! parameters it accepts.
//!
//! [`config`] ([`ModelConfig`], [`Secret`]), [`providers`] (the provider table) and
//! [`capabilities`] (the capability table).

pub mod capabilities;
pub mod config;
pub mod providers;

pub use capabilities::{
    capabilities, is_openai_reasoning_model, Capabilities, StructuredOutput, TokenParam,
};
pub use config::{ModelConfig, Secret};
pub use providers::{
    provider_info, ProviderInfo, Wire, ANTHROPIC_VERSION, AZURE_DEFAULT_API_VERSION, PROVIDERS,
};
