//! The provider table: one row per provider id — its wire format, default base URL, the
//! environment variables of its API key and base URL, and its default structured output.

use super::StructuredOutput::{self, JsonObject, JsonSchema, Prompt};

/// The wire format a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// OpenAI chat completions (`{base}/chat/completions`, `Authorization: Bearer`).
    OpenAi,
    /// Azure OpenAI: chat completions at `{base}/deployments/{deployment}/chat/completions?api-version=…`
    /// with an `api-key` header.
    Azure,
    /// Anthropic Messages (`{base}/messages`, `x-api-key`, `anthropic-version`).
    Anthropic,
    /// Google Gemini `generateContent` (`{base}/models/{model}:generateContent`, `x-goog-api-key`).
    Google,
}

/// One entry of the provider table.
#[derive(Debug, Clone, Copy)]
pub struct ProviderInfo {
    pub id: &'static str,
    pub wire: Wire,
    /// The default base URL; empty for Azure (built from the resource name).
    pub base_url: &'static str,
    /// Env var holding the key; `None` = the provider needs no key (local servers).
    pub key_var: Option<&'static str>,
    /// Env var overriding the base URL.
    pub base_url_var: &'static str,
    /// How step schemas reach this provider's models (see [`capabilities`] for the
    /// per-model exceptions).
    pub structured: StructuredOutput,
}

const fn p(
    id: &'static str,
    wire: Wire,
    base_url: &'static str,
    key_var: Option<&'static str>,
    base_url_var: &'static str,
    structured: StructuredOutput,
) -> ProviderInfo {
    ProviderInfo {
        id,
        wire,
        base_url,
        key_var,
        base_url_var,
        structured,
    }
}

use Wire::{Anthropic, Azure, Google, OpenAi};

/// Providers reachable with a `'provider/model'` string.
pub const PROVIDERS: &[ProviderInfo] = &[
    p(
        "openai",
        OpenAi,
        "https://api.openai.com/v1",
        Some("OPENAI_API_KEY"),
        "OPENAI_BASE_URL",
        JsonSchema,
    ),
    p(
        "anthropic",
        Anthropic,
        "https://api.anthropic.com/v1",
        Some("ANTHROPIC_API_KEY"),
        "ANTHROPIC_BASE_URL",
        JsonSchema,
    ),
    p(
        "google",
        Google,
        "https://generativelanguage.googleapis.com/v1beta",
        Some("GOOGLE_GENERATIVE_AI_API_KEY"),
        "GOOGLE_GENERATIVE_AI_BASE_URL",
        JsonSchema,
    ),
    p(
        "azure",
        Azure,
        "",
        Some("AZURE_API_KEY"),
        "AZURE_BASE_URL",
        JsonSchema,
    ),
    p(
        "groq",
        OpenAi,
        "https://api.groq.com/openai/v1",
        Some("GROQ_API_KEY"),
        "GROQ_BASE_URL",
        Prompt,
    ),
    p(
        "mistral",
        OpenAi,
        "https://api.mistral.ai/v1",
        Some("MISTRAL_API_KEY"),
        "MISTRAL_BASE_URL",
        JsonObject,
    ),
    p(
        "deepseek",
        OpenAi,
        "https://api.deepseek.com/v1",
        Some("DEEPSEEK_API_KEY"),
        "DEEPSEEK_BASE_URL",
        JsonObject,
    ),
    p(
        "openrouter",
        OpenAi,
        "https://openrouter.ai/api/v1",
        Some("OPENROUTER_API_KEY"),
        "OPENROUTER_BASE_URL",
        Prompt,
    ),
    p(
        "togetherai",
        OpenAi,
        "https://api.together.xyz/v1",
        Some("TOGETHER_API_KEY"),
        "TOGETHERAI_BASE_URL",
        Prompt,
    ),
    p(
        "xai",
        OpenAi,
        "https://api.x.ai/v1",
        Some("XAI_API_KEY"),
        "XAI_BASE_URL",
        JsonSchema,
    ),
    p(
        "cerebras",
        OpenAi,
        "https://api.cerebras.ai/v1",
        Some("CEREBRAS_API_KEY"),
        "CEREBRAS_BASE_URL",
        JsonObject,
    ),
    p(
        "deepinfra",
        OpenAi,
        "https://api.deepinfra.com/v1/openai",
        Some("DEEPINFRA_API_KEY"),
        "DEEPINFRA_BASE_URL",
        JsonObject,
    ),
    p(
        "fireworks",
        OpenAi,
        "https://api.fireworks.ai/inference/v1",
        Some("FIREWORKS_API_KEY"),
        "FIREWORKS_BASE_URL",
        JsonObject,
    ),
    p(
        "perplexity",
        OpenAi,
        "https://api.perplexity.ai",
        Some("PERPLEXITY_API_KEY"),
        "PERPLEXITY_BASE_URL",
        Prompt,
    ),
    p(
        "lmstudio",
        OpenAi,
        "http://127.0.0.1:1234/v1",
        None,
        "LMSTUDIO_BASE_URL",
        Prompt,
    ),
    p(
        "ollama",
        OpenAi,
        "http://127.0.0.1:11434/v1",
        None,
        "OLLAMA_BASE_URL",
        Prompt,
    ),
];

/// The Azure OpenAI `api-version` used when neither `apiVersion` nor `AZURE_API_VERSION` is
/// set: the latest generally available data-plane version with structured outputs.
pub const AZURE_DEFAULT_API_VERSION: &str = "2024-10-21";

/// The `anthropic-version` header sent with every Anthropic request.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

pub fn provider_info(id: &str) -> Option<&'static ProviderInfo> {
    PROVIDERS.iter().find(|p| p.id == id)
}
