//! The capability table: what one model accepts — how a step's schema reaches it
//! (`json_schema`, `json_object` or `prompt`), the output budget parameter, `temperature`
//! and the system message — by provider, model family and endpoint.

use super::provider_info;
use StructuredOutput::{JsonObject, JsonSchema, Prompt};

/// How a step's JSON schema reaches the judge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StructuredOutput {
    /// Native structured output with the step's schema: OpenAI `response_format: { type:
    /// 'json_schema', json_schema: { strict: true, ... } }`, an Anthropic forced tool call,
    /// Gemini `responseJsonSchema`.
    JsonSchema,
    /// OpenAI JSON mode (`response_format: { type: 'json_object' }`) with the schema described
    /// in the prompt: for providers and models that guarantee JSON but take no schema.
    JsonObject,
    /// The schema is described in the prompt (for providers without native support).
    Prompt,
}

impl StructuredOutput {
    /// The option value (`structuredOutput`) and README name.
    pub fn as_str(self) -> &'static str {
        match self {
            StructuredOutput::JsonSchema => "json_schema",
            StructuredOutput::JsonObject => "json_object",
            StructuredOutput::Prompt => "prompt",
        }
    }
}

/// The request parameter that carries the output budget on the OpenAI wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenParam {
    /// `max_tokens` (OpenAI-compatible servers, older OpenAI models).
    MaxTokens,
    /// `max_completion_tokens` (OpenAI: every model; the only one reasoning models accept).
    MaxCompletionTokens,
}

impl TokenParam {
    pub fn as_str(self) -> &'static str {
        match self {
            TokenParam::MaxTokens => "max_tokens",
            TokenParam::MaxCompletionTokens => "max_completion_tokens",
        }
    }
}

/// What one model accepts: the capability table's answer for a provider and model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    /// How step schemas reach it (unless `structuredOutput` says otherwise).
    pub structured: StructuredOutput,
    /// It accepts `temperature` (OpenAI reasoning models accept only the default: oxeval
    /// leaves it out).
    pub temperature: bool,
    /// The output budget parameter on the OpenAI wire.
    pub token_param: TokenParam,
    /// It accepts a system message / system instruction (else the system text is put
    /// before the user message).
    pub system_prompt: bool,
}

/// The model name the capability table matches: lowercase, without a fine-tune prefix
/// (`ft:`) and without a vendor path (`openai/o3-mini` → `o3-mini`).
fn table_name(model_id: &str) -> String {
    let m = model_id.trim().to_ascii_lowercase();
    let m = m.strip_prefix("ft:").unwrap_or(&m);
    // a fine-tune id is `ft:<base>:<org>::<id>`
    let m = m.split(':').next().unwrap_or(m);
    m.rsplit('/').next().unwrap_or(m).to_string()
}

/// `name` is `family` or `family-…` (`o1`, `o1-2024-12-17`; not `o10`).
fn family(name: &str, family: &str) -> bool {
    name == family
        || name
            .strip_prefix(family)
            .is_some_and(|rest| rest.starts_with('-'))
}

/// OpenAI's reasoning models: the o1, o3 and o4 families and GPT-5 (`gpt-5`, `gpt-5-mini`,
/// `gpt-5.1`, …). They reject a non-default `temperature` and `max_tokens`.
pub fn is_openai_reasoning_model(model_id: &str) -> bool {
    let m = table_name(model_id);
    ["o1", "o3", "o4"].iter().any(|f| family(&m, f)) || m.starts_with("gpt-5")
}

/// The host of `url` (`https://user@api.openai.com:443/v1` → `api.openai.com`).
fn host_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = authority.rsplit('@').next().unwrap_or(authority);
    host.split(':').next().unwrap_or(host)
}

/// The capability table: what `model_id` of `provider_id`, served at `base_url`, accepts.
///
/// | provider | structured output | exceptions |
/// |---|---|---|
/// | openai, azure | json_schema | `gpt-3.5-turbo*`, `gpt-4-turbo*`, `gpt-4-1106*`, `gpt-4-0125*`, `gpt-4o-2024-05-13`, `chatgpt-4o*`: json_object; `gpt-4`, `gpt-4-0314`, `gpt-4-0613`, `gpt-4-32k*`, `o1-mini*`, `o1-preview*`: prompt |
/// | anthropic | json_schema (forced tool call) | |
/// | google | json_schema (`responseJsonSchema`; `responseSchema` for Gemini 1.x/2.0) | `gemma*`: prompt, no system instruction |
/// | xai | json_schema | |
/// | mistral, deepseek, cerebras, deepinfra, fireworks | json_object | `deepseek-reasoner`: prompt |
/// | groq, openrouter, togetherai, perplexity, lmstudio, ollama | prompt | |
/// | any other id (with `url`) | json_schema | |
///
/// OpenAI reasoning models ([`is_openai_reasoning_model`]) with an `openai/` or `azure/` id,
/// at any URL: no `temperature`, `max_completion_tokens`. Every model served by
/// `api.openai.com` gets `max_completion_tokens`; other OpenAI-compatible servers (custom
/// URLs included) get `max_tokens`. `o1-mini` and `o1-preview` take no system message.
pub fn capabilities(provider_id: &str, model_id: &str, base_url: &str) -> Capabilities {
    let m = table_name(model_id);
    let info = provider_info(provider_id);
    let mut caps = Capabilities {
        structured: info.map_or(JsonSchema, |i| i.structured),
        temperature: true,
        token_param: TokenParam::MaxTokens,
        system_prompt: true,
    };
    let real_openai = host_of(base_url) == "api.openai.com";
    let openai_models = real_openai || provider_id == "openai" || provider_id == "azure";
    if openai_models {
        let reasoning = is_openai_reasoning_model(&m);
        if reasoning {
            caps.temperature = false;
        }
        if real_openai || reasoning {
            caps.token_param = TokenParam::MaxCompletionTokens;
        }
        let starts = |prefixes: &[&str]| prefixes.iter().any(|p| m.starts_with(p));
        if starts(&["o1-mini", "o1-preview"]) {
            caps.structured = Prompt;
            caps.system_prompt = false;
        } else if m == "gpt-4" || starts(&["gpt-4-0314", "gpt-4-0613", "gpt-4-32k"]) {
            caps.structured = Prompt;
        } else if starts(&[
            "gpt-3.5-turbo",
            "gpt-4-turbo",
            "gpt-4-1106",
            "gpt-4-0125",
            "gpt-4o-2024-05-13",
            "chatgpt-4o",
        ]) {
            caps.structured = JsonObject;
        }
    }
    match provider_id {
        "deepseek" if m.contains("reasoner") => caps.structured = Prompt,
        "google" if m.starts_with("gemma") => {
            caps.structured = Prompt;
            caps.system_prompt = false;
        }
        _ => {}
    }
    caps
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ModelConfig;
    use serde_json::json;

    #[test]
    fn capability_table() {
        use StructuredOutput::*;
        use TokenParam::*;
        let api = "https://api.openai.com/v1";
        let c = |p: &str, m: &str| {
            let base = provider_info(p).map_or("http://h/v1", |i| i.base_url);
            capabilities(p, m, base)
        };
        // (provider, model, structured, temperature, token param, system prompt)
        let rows = [
            (
                "openai",
                "gpt-4o-mini",
                JsonSchema,
                true,
                MaxCompletionTokens,
                true,
            ),
            (
                "openai",
                "gpt-4.1",
                JsonSchema,
                true,
                MaxCompletionTokens,
                true,
            ),
            (
                "openai",
                "o3-mini",
                JsonSchema,
                false,
                MaxCompletionTokens,
                true,
            ),
            (
                "openai",
                "o4-mini-2025-04-16",
                JsonSchema,
                false,
                MaxCompletionTokens,
                true,
            ),
            ("openai", "o1", JsonSchema, false, MaxCompletionTokens, true),
            (
                "openai",
                "o1-mini",
                Prompt,
                false,
                MaxCompletionTokens,
                false,
            ),
            (
                "openai",
                "gpt-5",
                JsonSchema,
                false,
                MaxCompletionTokens,
                true,
            ),
            (
                "openai",
                "gpt-5-mini",
                JsonSchema,
                false,
                MaxCompletionTokens,
                true,
            ),
            (
                "openai",
                "gpt-5.1",
                JsonSchema,
                false,
                MaxCompletionTokens,
                true,
            ),
            (
                "openai",
                "ft:gpt-4o-mini:org::abc",
                JsonSchema,
                true,
                MaxCompletionTokens,
                true,
            ),
            (
                "openai",
                "gpt-3.5-turbo",
                JsonObject,
                true,
                MaxCompletionTokens,
                true,
            ),
            (
                "openai",
                "gpt-4-turbo",
                JsonObject,
                true,
                MaxCompletionTokens,
                true,
            ),
            ("openai", "gpt-4", Prompt, true, MaxCompletionTokens, true),
            ("azure", "gpt-4o", JsonSchema, true, MaxTokens, true),
            (
                "azure",
                "o3-mini",
                JsonSchema,
                false,
                MaxCompletionTokens,
                true,
            ),
            (
                "anthropic",
                "claude-sonnet-4-5",
                JsonSchema,
                true,
                MaxTokens,
                true,
            ),
            (
                "google",
                "gemini-2.5-flash",
                JsonSchema,
                true,
                MaxTokens,
                true,
            ),
            ("google", "gemma-3-27b-it", Prompt, true, MaxTokens, false),
            ("xai", "grok-4", JsonSchema, true, MaxTokens, true),
            (
                "mistral",
                "mistral-large-latest",
                JsonObject,
                true,
                MaxTokens,
                true,
            ),
            (
                "deepseek",
                "deepseek-chat",
                JsonObject,
                true,
                MaxTokens,
                true,
            ),
            (
                "deepseek",
                "deepseek-reasoner",
                Prompt,
                true,
                MaxTokens,
                true,
            ),
            ("groq", "openai/gpt-oss-120b", Prompt, true, MaxTokens, true),
            (
                "openrouter",
                "openai/o3-mini",
                Prompt,
                true,
                MaxTokens,
                true,
            ),
            ("ollama", "llama3.2", Prompt, true, MaxTokens, true),
            ("custom", "o3-mini", JsonSchema, true, MaxTokens, true),
        ];
        for (p, m, structured, temperature, token_param, system_prompt) in rows {
            assert_eq!(
                c(p, m),
                Capabilities {
                    structured,
                    temperature,
                    token_param,
                    system_prompt
                },
                "{p}/{m}"
            );
        }
        // an openai/ id at another URL: max_tokens, unless it is a reasoning model
        let local = "http://127.0.0.1:9/v1";
        assert_eq!(
            capabilities("openai", "gpt-4o", local).token_param,
            MaxTokens
        );
        let caps = capabilities("openai", "o3-mini", local);
        assert_eq!(
            (caps.temperature, caps.token_param),
            (false, MaxCompletionTokens)
        );
        // any provider id served by api.openai.com is OpenAI
        let caps = capabilities("proxy", "o3-mini", api);
        assert!(!caps.temperature);
        assert_eq!(caps.token_param, MaxCompletionTokens);
        assert_eq!(
            host_of("https://u:p@api.openai.com:443/v1"),
            "api.openai.com"
        );
        assert!(!is_openai_reasoning_model("o10"));
        assert!(is_openai_reasoning_model("openai/o3"));
        // the resolved choice: the table, or structuredOutput
        let m = ModelConfig::resolve(&json!({"id": "mistral/m", "url": "http://h/v1"}), &|_| None)
            .unwrap();
        assert_eq!(m.structured, JsonObject);
        let m = ModelConfig::resolve(
            &json!({"id": "x/y", "url": "http://h/v1", "structuredOutput": "json_object"}),
            &|_| None,
        )
        .unwrap();
        assert_eq!(m.structured, JsonObject);
    }
}
