//! The model configuration: `'provider/model'` strings and `{ id | providerId+modelId, url?,
//! apiKey?, headers?, structuredOutput?, apiVersion? }` objects, resolved ONCE per scorer
//! against the provider table and the environment into a [`ModelConfig`].

use super::*;
use crate::error::{ErrorCode, InvalidArgument, JudgeError};
use crate::options::{opt_string, wrong_type};
use serde_json::Value;
use std::fmt;

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
    /// The model id sent on the wire (Azure: the deployment name).
    pub model_id: String,
    pub base_url: String,
    /// `Err` keeps the missing-key error to report at run time (before any request).
    pub api_key: Result<Option<Secret>, JudgeError>,
    pub headers: Vec<(String, String)>,
    pub structured: StructuredOutput,
    /// Azure OpenAI's `api-version` query parameter (`None` for other providers).
    pub api_version: Option<String>,
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
            api_version: None,
        }
    }

    /// Parse `model` from JS options and resolve it against the process environment.
    pub fn from_value(v: &Value) -> Result<Self, InvalidArgument> {
        Self::resolve(v, &|name| {
            std::env::var(name).ok().filter(|s| !s.is_empty())
        })
    }

    /// The wire format: the provider table's for a known provider id, else OpenAI's (any
    /// OpenAI-compatible endpoint given by `url`).
    pub fn wire(&self) -> Wire {
        provider_info(&self.provider_id).map_or(Wire::OpenAi, |i| i.wire)
    }

    /// The capability table's entry for this model (its `structured` is the table's; the
    /// resolved choice, `structuredOutput` included, is [`ModelConfig::structured`]).
    pub fn capabilities(&self) -> Capabilities {
        capabilities(&self.provider_id, &self.model_id, &self.base_url)
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
            Some("json_object") => Some(StructuredOutput::JsonObject),
            Some("prompt") => Some(StructuredOutput::Prompt),
            Some(other) => {
                return Err(bad(format!(
                "options.model.structuredOutput must be 'json_schema', 'json_object' or 'prompt'; got '{other}'"
            )))
            }
        };
        let is_azure = info.is_some_and(|i| i.wire == Wire::Azure);
        let api_version = match str_field("apiVersion")? {
            Some(_) if !is_azure => {
                return Err(bad(format!(
                    "options.model.apiVersion is an Azure OpenAI option ('azure/<deployment>'); model '{id_str}' is not one"
                )))
            }
            Some(v) if v.trim().is_empty() => {
                return Err(bad("options.model.apiVersion must not be empty".into()))
            }
            Some(v) => Some(v),
            None if is_azure => Some(
                env("AZURE_API_VERSION").unwrap_or_else(|| AZURE_DEFAULT_API_VERSION.into()),
            ),
            None => None,
        };

        let base_var = info.map_or_else(
            || {
                format!(
                    "{}_BASE_URL",
                    provider_id.to_ascii_uppercase().replace('-', "_")
                )
            },
            |i| i.base_url_var.to_string(),
        );
        let env_base = env(&base_var);
        let base_url = match (&url, env_base, info) {
            (Some(u), _, _) => u.clone(),
            (None, Some(u), _) => u,
            (None, None, Some(info)) if info.wire == Wire::Azure => {
                let Some(resource) = env("AZURE_RESOURCE_NAME") else {
                    return Err(bad(format!(
                        "model '{id_str}' needs the Azure OpenAI resource: set process.env.AZURE_RESOURCE_NAME (https://<name>.openai.azure.com) or AZURE_BASE_URL, or pass {{ id: '{id_str}', url: 'https://<name>.openai.azure.com/openai' }}"
                    )));
                };
                let valid = !resource.is_empty()
                    && resource
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-');
                if !valid {
                    return Err(bad(format!(
                        "process.env.AZURE_RESOURCE_NAME must be an Azure resource name (letters, digits, '-'); got '{resource}'"
                    )));
                }
                format!("https://{resource}.openai.azure.com/openai")
            }
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
        // the path without a trailing '/', the query (an `?api-key=…`) kept after it
        let base_url = crate::redact::normalize_base_url(&base_url);
        // A known provider's table entry applies at any URL (the id says what is behind
        // it); any other endpoint is treated as OpenAI-compatible with json_schema support,
        // as Mastra does. `structuredOutput` overrides both.
        let structured =
            structured.unwrap_or_else(|| capabilities(provider_id, model_id, &base_url).structured);
        Ok(ModelConfig {
            id: id_str.clone(),
            provider_id: provider_id.to_string(),
            model_id: model_id.to_string(),
            base_url,
            api_key,
            headers,
            structured,
            api_version,
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
        assert_eq!(m.wire(), Wire::OpenAi);
        assert_eq!(m.api_version, None);

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
    fn native_providers() {
        let key = fake_key();
        let env = env_of(&[
            ("ANTHROPIC_API_KEY", key.as_str()),
            ("GOOGLE_GENERATIVE_AI_API_KEY", key.as_str()),
            ("GOOGLE_GENERATIVE_AI_BASE_URL", "http://g/v1beta/"),
        ]);
        let m = ModelConfig::resolve(&json!("anthropic/claude-sonnet-4-5"), &env).unwrap();
        assert_eq!(m.wire(), Wire::Anthropic);
        assert_eq!(m.base_url, "https://api.anthropic.com/v1");
        assert_eq!(m.api_key.unwrap().unwrap().expose(), key);
        assert_eq!(m.structured, StructuredOutput::JsonSchema);
        let m = ModelConfig::resolve(&json!("google/gemini-2.5-flash"), &env).unwrap();
        assert_eq!(m.wire(), Wire::Google);
        assert_eq!(m.base_url, "http://g/v1beta");
        assert_eq!(m.model_id, "gemini-2.5-flash");
        let m = ModelConfig::resolve(&json!("google/gemma-3-27b-it"), &env).unwrap();
        assert_eq!(m.structured, StructuredOutput::Prompt);
        assert!(!m.capabilities().system_prompt);
        // the object form keeps the native wire format at its url
        let m = ModelConfig::resolve(
            &json!({"id": "anthropic/claude-x", "url": "http://127.0.0.1:9/v1"}),
            &|_| None,
        )
        .unwrap();
        assert_eq!(
            (m.wire(), m.base_url.as_str()),
            (Wire::Anthropic, "http://127.0.0.1:9/v1")
        );
        assert!(
            m.api_key.unwrap().is_none(),
            "an explicit url may need no key"
        );
        let err = ModelConfig::resolve(&json!("anthropic/claude-x"), &|_| None)
            .unwrap()
            .api_key
            .unwrap_err();
        assert_eq!(
            err.message,
            "Could not find API key process.env.ANTHROPIC_API_KEY for model id anthropic/claude-x"
        );
    }

    #[test]
    fn azure_config() {
        let key = fake_key();
        let env = env_of(&[
            ("AZURE_API_KEY", key.as_str()),
            ("AZURE_RESOURCE_NAME", "my-res"),
        ]);
        let m = ModelConfig::resolve(&json!("azure/gpt-4o-prod"), &env).unwrap();
        assert_eq!(m.wire(), Wire::Azure);
        assert_eq!(m.base_url, "https://my-res.openai.azure.com/openai");
        assert_eq!(m.model_id, "gpt-4o-prod");
        assert_eq!(m.api_version.as_deref(), Some(AZURE_DEFAULT_API_VERSION));
        assert_eq!(m.api_key.unwrap().unwrap().expose(), key);

        let env = env_of(&[
            ("AZURE_API_KEY", key.as_str()),
            ("AZURE_RESOURCE_NAME", "my-res"),
            ("AZURE_BASE_URL", "https://proxy.example/openai/"),
            ("AZURE_API_VERSION", "2025-04-01-preview"),
        ]);
        let m = ModelConfig::resolve(&json!("azure/o3-mini"), &env).unwrap();
        assert_eq!(m.base_url, "https://proxy.example/openai");
        assert_eq!(m.api_version.as_deref(), Some("2025-04-01-preview"));
        let caps = m.capabilities();
        assert!(!caps.temperature);
        assert_eq!(caps.token_param, TokenParam::MaxCompletionTokens);

        let m = ModelConfig::resolve(
            &json!({"id": "azure/d1", "url": "http://127.0.0.1:9/openai", "apiVersion": "2024-06-01", "apiKey": key}),
            &env_of(&[]),
        )
        .unwrap();
        assert_eq!(m.base_url, "http://127.0.0.1:9/openai");
        assert_eq!(m.api_version.as_deref(), Some("2024-06-01"));
        assert_eq!(
            ModelConfig::resolve(&json!("azure/d1"), &env_of(&[("AZURE_API_KEY", "x")]))
                .unwrap_err()
                .message,
            "model 'azure/d1' needs the Azure OpenAI resource: set process.env.AZURE_RESOURCE_NAME (https://<name>.openai.azure.com) or AZURE_BASE_URL, or pass { id: 'azure/d1', url: 'https://<name>.openai.azure.com/openai' }"
        );
        assert!(ModelConfig::resolve(
            &json!("azure/d1"),
            &env_of(&[("AZURE_RESOURCE_NAME", "evil.com/x?")])
        )
        .unwrap_err()
        .message
        .contains("must be an Azure resource name"));
        for (v, want) in [
            (
                json!({"id": "openai/x", "apiVersion": "1"}),
                "apiVersion is an Azure OpenAI option",
            ),
            (
                json!({"id": "azure/x", "url": "http://h", "apiVersion": " "}),
                "apiVersion must not be empty",
            ),
            (
                json!({"id": "azure/x", "url": "http://h", "apiVersion": 1}),
                "apiVersion must be a string",
            ),
        ] {
            let e = ModelConfig::resolve(&v, &env_of(&[])).unwrap_err();
            assert!(e.message.contains(want), "{v}: {}", e.message);
        }
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
