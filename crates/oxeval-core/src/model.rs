//! Model configuration: `'provider/model'` strings and `{ id | providerId+modelId, url?,
//! apiKey?, headers? }` objects, resolved ONCE per scorer against the provider registry
//! and the environment (API key variable, `<PROVIDER>_BASE_URL`).

use crate::error::{ErrorCode, InvalidArgument, JudgeError};
use crate::options::{opt_string, wrong_type};
use serde_json::Value;
use std::fmt;

/// How a step's JSON schema reaches the judge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StructuredOutput {
    /// OpenAI `response_format: { type: 'json_schema', json_schema: { strict: true, ... } }`.
    JsonSchema,
    /// The schema is described in the prompt (for providers without native support).
    Prompt,
}

/// One entry of the provider registry (all speak OpenAI chat completions).
#[derive(Debug, Clone, Copy)]
pub struct ProviderInfo {
    pub id: &'static str,
    pub base_url: &'static str,
    /// Env var holding the key; `None` = the provider needs no key (local servers).
    pub key_var: Option<&'static str>,
    pub structured: StructuredOutput,
}

const fn p(
    id: &'static str,
    base_url: &'static str,
    key_var: Option<&'static str>,
    structured: StructuredOutput,
) -> ProviderInfo {
    ProviderInfo {
        id,
        base_url,
        key_var,
        structured,
    }
}

use StructuredOutput::{JsonSchema, Prompt};

/// Providers reachable with a `'provider/model'` string.
pub const PROVIDERS: &[ProviderInfo] = &[
    p(
        "openai",
        "https://api.openai.com/v1",
        Some("OPENAI_API_KEY"),
        JsonSchema,
    ),
    p(
        "groq",
        "https://api.groq.com/openai/v1",
        Some("GROQ_API_KEY"),
        Prompt,
    ),
    p(
        "mistral",
        "https://api.mistral.ai/v1",
        Some("MISTRAL_API_KEY"),
        Prompt,
    ),
    p(
        "deepseek",
        "https://api.deepseek.com/v1",
        Some("DEEPSEEK_API_KEY"),
        Prompt,
    ),
    p(
        "openrouter",
        "https://openrouter.ai/api/v1",
        Some("OPENROUTER_API_KEY"),
        Prompt,
    ),
    p(
        "togetherai",
        "https://api.together.xyz/v1",
        Some("TOGETHER_API_KEY"),
        Prompt,
    ),
    p(
        "xai",
        "https://api.x.ai/v1",
        Some("XAI_API_KEY"),
        JsonSchema,
    ),
    p(
        "cerebras",
        "https://api.cerebras.ai/v1",
        Some("CEREBRAS_API_KEY"),
        Prompt,
    ),
    p(
        "deepinfra",
        "https://api.deepinfra.com/v1/openai",
        Some("DEEPINFRA_API_KEY"),
        Prompt,
    ),
    p(
        "fireworks",
        "https://api.fireworks.ai/inference/v1",
        Some("FIREWORKS_API_KEY"),
        Prompt,
    ),
    p(
        "perplexity",
        "https://api.perplexity.ai",
        Some("PERPLEXITY_API_KEY"),
        Prompt,
    ),
    p("lmstudio", "http://127.0.0.1:1234/v1", None, Prompt),
    p("ollama", "http://127.0.0.1:11434/v1", None, Prompt),
];

pub fn provider_info(id: &str) -> Option<&'static ProviderInfo> {
    PROVIDERS.iter().find(|p| p.id == id)
}

/// An API key. Its `Debug`/`Display` never show the value.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(s: impl Into<String>) -> Self {
        Secret(s.into())
    }
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// A fully resolved model: where to send requests and how.
#[derive(Debug, Clone)]
pub struct ModelConfig {
    /// `provider/model`, as shown in results (`judgeModelId` is the model part).
    pub id: String,
    pub provider_id: String,
    pub model_id: String,
    pub base_url: String,
    /// `Err` keeps the missing-key error to report at run time (before any request).
    pub api_key: Result<Option<Secret>, JudgeError>,
    pub headers: Vec<(String, String)>,
    pub structured: StructuredOutput,
}

impl ModelConfig {
    /// A model the host supplies (an AI SDK model object or a function): no URL, no key;
    /// `provider/model` names it in results and keys its limits and cache entries.
    pub fn external(provider_id: &str, model_id: &str) -> Self {
        let provider_id = if provider_id.is_empty() {
            "custom"
        } else {
            provider_id
        };
        let model_id = if model_id.is_empty() {
            "function"
        } else {
            model_id
        };
        let id = format!("{provider_id}/{model_id}");
        ModelConfig {
            base_url: format!("external:{id}"),
            id,
            provider_id: provider_id.to_string(),
            model_id: model_id.to_string(),
            api_key: Ok(None),
            headers: Vec::new(),
            structured: StructuredOutput::JsonSchema,
        }
    }

    /// Parse `model` from JS options and resolve it against the process environment.
    pub fn from_value(v: &Value) -> Result<Self, InvalidArgument> {
        Self::resolve(v, &|name| {
            std::env::var(name).ok().filter(|s| !s.is_empty())
        })
    }

    /// Same as [`from_value`](Self::from_value) with an injectable environment (tests).
    pub fn resolve(
        v: &Value,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, InvalidArgument> {
        let bad = |msg: String| InvalidArgument::options(msg);
        let (id_str, obj) = match v {
            Value::String(s) => (s.clone(), None),
            obj @ Value::Object(map) => {
                let id = match (map.get("id"), map.get("providerId"), map.get("modelId")) {
                    (Some(Value::String(id)), _, _) => id.clone(),
                    (_, Some(Value::String(p)), Some(Value::String(m))) => format!("{p}/{m}"),
                    _ => {
                        return Err(bad(
                            "options.model object needs `id: 'provider/model'` or `providerId` and `modelId` strings".into(),
                        ))
                    }
                };
                (id, Some(obj))
            }
            Value::Null => {
                return Err(bad(
                    "options.model is required (e.g. 'openai/gpt-4o-mini')".into()
                ))
            }
            other => {
                return Err(wrong_type(
                    "options.model",
                    "a 'provider/model' string or a model config object",
                    other,
                ))
            }
        };
        let Some((provider_id, model_id)) = id_str.split_once('/') else {
            return Err(bad(format!(
                "options.model '{id_str}' must have the form 'provider/model' (e.g. 'openai/gpt-4o-mini')"
            )));
        };
        if provider_id.is_empty() || model_id.is_empty() {
            return Err(bad(format!(
                "options.model '{id_str}' must have the form 'provider/model'"
            )));
        }
        let info = provider_info(provider_id);
        let str_field = |key: &str| -> Result<Option<String>, InvalidArgument> {
            match obj {
                Some(o) => Ok(opt_string(o, key, "options.model")?.map(str::to_owned)),
                None => Ok(None),
            }
        };
        let url = str_field("url")?;
        let explicit_key = str_field("apiKey")?;
        let mut headers = Vec::new();
        match obj.and_then(|o| o.get("headers")) {
            None | Some(Value::Null) => {}
            Some(Value::Object(h)) => {
                for (k, v) in h {
                    match v {
                        Value::String(s) => headers.push((k.clone(), s.clone())),
                        other => {
                            return Err(wrong_type(
                                &format!("options.model.headers['{k}']"),
                                "a string",
                                other,
                            ))
                        }
                    }
                }
            }
            Some(other) => return Err(wrong_type("options.model.headers", "an object", other)),
        }
        let structured = match str_field("structuredOutput")?.as_deref() {
            None => None,
            Some("json_schema") => Some(StructuredOutput::JsonSchema),
            Some("prompt") => Some(StructuredOutput::Prompt),
            Some(other) => {
                return Err(bad(format!(
                "options.model.structuredOutput must be 'json_schema' or 'prompt'; got '{other}'"
            )))
            }
        };

        let env_base = env(&format!(
            "{}_BASE_URL",
            provider_id.to_ascii_uppercase().replace('-', "_")
        ));
        let base_url = match (&url, env_base, info) {
            (Some(u), _, _) => u.clone(),
            (None, Some(u), _) => u,
            (None, None, Some(info)) => info.base_url.to_string(),
            (None, None, None) => {
                let known: Vec<&str> = PROVIDERS.iter().map(|p| p.id).collect();
                return Err(bad(format!(
                    "unknown provider '{provider_id}' in model '{id_str}'. Known providers: {}. For any OpenAI-compatible endpoint pass {{ id: '{id_str}', url: 'https://…/v1', apiKey }}",
                    known.join(", ")
                )));
            }
        };
        let api_key = match (explicit_key, info) {
            (Some(k), _) => Ok(Some(Secret::new(k))),
            (
                None,
                Some(ProviderInfo {
                    key_var: Some(var), ..
                }),
            ) => match env(var) {
                Some(k) => Ok(Some(Secret::new(k))),
                // With an explicit url the endpoint may need no key.
                None if url.is_some() => Ok(None),
                None => Err(JudgeError::new(
                    ErrorCode::MissingApiKey,
                    format!("Could not find API key process.env.{var} for model id {id_str}"),
                )),
            },
            (None, _) => Ok(None),
        };
        let structured = structured.unwrap_or(match (&url, info) {
            // Any explicit endpoint is treated as OpenAI-compatible with json_schema support,
            // as Mastra does; override with `structuredOutput: 'prompt'`.
            (Some(_), _) => StructuredOutput::JsonSchema,
            (None, Some(info)) => info.structured,
            (None, None) => StructuredOutput::Prompt,
        });
        Ok(ModelConfig {
            id: id_str.clone(),
            provider_id: provider_id.to_string(),
            model_id: model_id.to_string(),
            base_url: base_url.trim_end_matches('/').to_string(),
            api_key,
            headers,
            structured,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
    }

    /// A fake API key (built at run time: no key-shaped literal in the repository).
    fn fake_key() -> String {
        ["test", "key", "7"].join("-")
    }

    #[test]
    fn string_ids_and_env() {
        let key = fake_key();
        let env = env_of(&[
            ("OPENAI_API_KEY", key.as_str()),
            ("GROQ_BASE_URL", "http://proxy/v1/"),
        ]);
        let m = ModelConfig::resolve(&json!("openai/gpt-4o-mini"), &env).unwrap();
        assert_eq!(
            (m.provider_id.as_str(), m.model_id.as_str()),
            ("openai", "gpt-4o-mini")
        );
        assert_eq!(m.base_url, "https://api.openai.com/v1");
        assert_eq!(m.api_key.unwrap().unwrap().expose(), key);
        assert_eq!(m.structured, StructuredOutput::JsonSchema);

        // model ids may contain '/'
        let m = ModelConfig::resolve(&json!("openrouter/meta-llama/llama-3-8b"), &env).unwrap();
        assert_eq!(m.model_id, "meta-llama/llama-3-8b");
        let err = m.api_key.unwrap_err();
        assert_eq!(err.code, ErrorCode::MissingApiKey);
        assert_eq!(
            err.message,
            "Could not find API key process.env.OPENROUTER_API_KEY for model id openrouter/meta-llama/llama-3-8b"
        );

        // <PROVIDER>_BASE_URL override, trailing slash trimmed
        let m = ModelConfig::resolve(&json!("groq/llama"), &env).unwrap();
        assert_eq!(m.base_url, "http://proxy/v1");
        assert_eq!(m.structured, StructuredOutput::Prompt);

        // local providers need no key
        let m = ModelConfig::resolve(&json!("ollama/llama3.2"), &env).unwrap();
        assert_eq!(m.base_url, "http://127.0.0.1:11434/v1");
        assert!(m.api_key.unwrap().is_none());
        let m = ModelConfig::resolve(&json!("lmstudio/qwen"), &env).unwrap();
        assert_eq!(m.base_url, "http://127.0.0.1:1234/v1");
    }

    #[test]
    fn object_forms() {
        let env = env_of(&[]);
        let m = ModelConfig::resolve(
            &json!({"id": "openai/gpt-4o-mini", "url": "http://127.0.0.1:9/v1", "apiKey": "k", "headers": {"x-a": "1"}}),
            &env,
        )
        .unwrap();
        assert_eq!(m.base_url, "http://127.0.0.1:9/v1");
        assert_eq!(m.api_key.unwrap().unwrap().expose(), "k");
        assert_eq!(m.headers, vec![("x-a".to_string(), "1".to_string())]);

        let m = ModelConfig::resolve(
            &json!({"providerId": "custom", "modelId": "m/1", "url": "http://h/v1"}),
            &env,
        )
        .unwrap();
        assert_eq!(m.id, "custom/m/1");
        assert!(m.api_key.unwrap().is_none());
        assert_eq!(m.structured, StructuredOutput::JsonSchema);

        let m = ModelConfig::resolve(
            &json!({"id": "x/y", "url": "http://h", "structuredOutput": "prompt"}),
            &env,
        )
        .unwrap();
        assert_eq!(m.structured, StructuredOutput::Prompt);
    }

    #[test]
    fn bad_models_are_type_errors() {
        let env = env_of(&[]);
        let cases = [
            (json!(null), "options.model is required"),
            (json!(3), "got number"),
            (json!("gpt-4o"), "must have the form 'provider/model'"),
            (json!("/x"), "must have the form"),
            (json!("nosuch/model"), "unknown provider 'nosuch'"),
            (json!({"url": "http://h"}), "needs `id"),
            (
                json!({"id": "openai/x", "apiKey": 5}),
                "apiKey must be a string",
            ),
            (
                json!({"id": "openai/x", "headers": {"a": 1}}),
                "headers['a'] must be a string",
            ),
            (
                json!({"id": "openai/x", "structuredOutput": "xml"}),
                "structuredOutput must be",
            ),
        ];
        for (v, want) in cases {
            let err = ModelConfig::resolve(&v, &env).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidOptions);
            assert!(err.message.contains(want), "{v}: {}", err.message);
        }
    }

    #[test]
    fn secret_debug_is_redacted() {
        let key = fake_key();
        let s = Secret::new(key.clone());
        assert_eq!(format!("{s:?}"), "Secret(***)");
        let m = ModelConfig::resolve(&json!({"id": "openai/x", "apiKey": key}), &|_| None).unwrap();
        assert!(!format!("{m:?}").contains(&key));
    }
}
