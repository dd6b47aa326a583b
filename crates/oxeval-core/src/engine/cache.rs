//! Opt-in response cache keyed by the full request (provider, model, messages, schema,
//! sampling settings): in memory (quick_cache) and optionally on disk (cacache, safe for
//! several processes sharing one directory). Only validated successful responses are stored;
//! errors never are. A hit costs no HTTP call and no tokens.

use crate::error::{type_name, InvalidArgument};
use crate::provider::{ChatRequest, ChatResponse, Usage};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::PathBuf;
use std::sync::{Arc, LazyLock};

/// Bump when the meaning of a cached entry changes.
const VERSION: &str = "oxeval-cache-v2";

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct Entry {
    text: String,
    finish_reason: Option<String>,
}

/// Process-wide in-memory layer shared by every cached judge.
fn memory() -> &'static quick_cache::sync::Cache<String, Arc<Entry>> {
    static MEM: LazyLock<quick_cache::sync::Cache<String, Arc<Entry>>> =
        LazyLock::new(|| quick_cache::sync::Cache::new(50_000));
    &MEM
}

#[derive(Debug, Clone, PartialEq)]
pub struct ResponseCache {
    memory: bool,
    dir: Option<PathBuf>,
}

impl ResponseCache {
    /// Parse `options.cache`: `true` (memory), `{ dir?, memory? }`, or `false`. Without the
    /// option, `OXEVAL_CACHE_DIR` enables a disk (and memory) cache.
    pub fn from_options(
        v: Option<&Value>,
        env_dir: Option<String>,
    ) -> Result<Option<Self>, InvalidArgument> {
        let from_env = || {
            env_dir
                .clone()
                .filter(|d| !d.is_empty())
                .map(|d| ResponseCache {
                    memory: true,
                    dir: Some(d.into()),
                })
        };
        match v {
            None | Some(Value::Null) => Ok(from_env()),
            Some(Value::Bool(false)) => Ok(None),
            Some(Value::Bool(true)) => Ok(Some(from_env().unwrap_or(ResponseCache {
                memory: true,
                dir: None,
            }))),
            Some(Value::Object(m)) => {
                let dir = match m.get("dir") {
                    None | Some(Value::Null) => {
                        env_dir.filter(|d| !d.is_empty()).map(PathBuf::from)
                    }
                    Some(Value::String(s)) if !s.is_empty() => Some(PathBuf::from(s)),
                    Some(other) => {
                        return Err(InvalidArgument::options(format!(
                            "options.cache.dir must be a non-empty string; got {}",
                            type_name(other)
                        )))
                    }
                };
                let memory = match m.get("memory") {
                    None | Some(Value::Null) => true,
                    Some(Value::Bool(b)) => *b,
                    Some(other) => {
                        return Err(InvalidArgument::options(format!(
                            "options.cache.memory must be a boolean; got {}",
                            type_name(other)
                        )))
                    }
                };
                Ok(Some(ResponseCache { memory, dir }))
            }
            Some(other) => Err(InvalidArgument::options(format!(
                "options.cache must be true, false or {{ dir?: string, memory?: boolean }}; got {}",
                type_name(other)
            ))),
        }
    }

    /// The endpoint part of cache keys (hex SHA-256 of provider, base URL and the custom
    /// headers, so header values such as Azure `api-key`s are never kept in clear).
    pub fn scope(provider: &str, base_url: &str, headers: &[(String, String)]) -> String {
        let mut sorted: Vec<&(String, String)> = headers.iter().collect();
        sorted.sort();
        let mut h = Sha256::new();
        for part in [provider, base_url] {
            h.update((part.len() as u64).to_le_bytes());
            h.update(part.as_bytes());
        }
        for (k, v) in sorted {
            for part in [k, v] {
                h.update((part.len() as u64).to_le_bytes());
                h.update(part.as_bytes());
            }
        }
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The cache key of a request (hex SHA-256). `endpoint` identifies where the request
    /// goes (provider, base URL, custom headers): the same model name behind another endpoint
    /// (a proxy, a local mock, another deployment) must not share entries.
    pub fn key(endpoint: &str, model: &str, req: &ChatRequest) -> String {
        let mut h = Sha256::new();
        for part in [VERSION, endpoint, model, &req.system, &req.user] {
            h.update((part.len() as u64).to_le_bytes());
            h.update(part.as_bytes());
        }
        let schema = req
            .schema
            .as_ref()
            .map(|(name, s)| format!("{name}:{s}"))
            .unwrap_or_default();
        let settings = format!("{:?}|{:?}|{schema}", req.temperature, req.max_tokens);
        h.update(settings.as_bytes());
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    pub async fn get(&self, key: &str) -> Option<ChatResponse> {
        if self.memory {
            if let Some(e) = memory().get(key) {
                return Some(to_response(&e));
            }
        }
        let dir = self.dir.clone()?;
        let k = key.to_string();
        let bytes = tokio::task::spawn_blocking(move || cacache::read_sync(&dir, &k).ok())
            .await
            .ok()
            .flatten()?;
        let entry: Entry = serde_json::from_slice(&bytes).ok()?;
        if self.memory {
            memory().insert(key.to_string(), Arc::new(entry.clone()));
        }
        Some(to_response(&entry))
    }

    pub async fn put(&self, key: &str, resp: &ChatResponse) {
        let entry = Entry {
            text: resp.text.clone(),
            finish_reason: resp.finish_reason.clone(),
        };
        if let Some(dir) = self.dir.clone() {
            if let Ok(bytes) = serde_json::to_vec(&entry) {
                let k = key.to_string();
                // A cache write failure (read-only dir, full disk) must never fail the run.
                let _ =
                    tokio::task::spawn_blocking(move || cacache::write_sync(&dir, &k, bytes)).await;
            }
        }
        if self.memory {
            memory().insert(key.to_string(), Arc::new(entry));
        }
    }
}

fn to_response(e: &Entry) -> ChatResponse {
    ChatResponse {
        text: e.text.clone(),
        refusal: None,
        reasoning: None,
        finish_reason: e.finish_reason.clone(),
        usage: Usage {
            input_tokens: Some(0),
            output_tokens: Some(0),
            total_tokens: Some(0),
            ..Default::default()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn req(user: &str) -> ChatRequest {
        ChatRequest {
            system: "s".into(),
            user: user.into(),
            schema: None,
            temperature: Some(0.0),
            max_tokens: None,
            max_response_bytes: crate::provider::DEFAULT_MAX_RESPONSE_BYTES,
        }
    }

    #[test]
    fn options() {
        assert_eq!(ResponseCache::from_options(None, None).unwrap(), None);
        assert_eq!(
            ResponseCache::from_options(Some(&json!(true)), None).unwrap(),
            Some(ResponseCache {
                memory: true,
                dir: None
            })
        );
        assert_eq!(
            ResponseCache::from_options(None, Some("/tmp/x".into())).unwrap(),
            Some(ResponseCache {
                memory: true,
                dir: Some("/tmp/x".into())
            })
        );
        assert_eq!(
            ResponseCache::from_options(Some(&json!(false)), Some("/tmp/x".into())).unwrap(),
            None
        );
        assert_eq!(
            ResponseCache::from_options(Some(&json!({"dir": "/d", "memory": false})), None)
                .unwrap(),
            Some(ResponseCache {
                memory: false,
                dir: Some("/d".into())
            })
        );
        assert!(ResponseCache::from_options(Some(&json!(3)), None).is_err());
        assert!(ResponseCache::from_options(Some(&json!({"dir": 3})), None).is_err());
    }

    #[test]
    fn keys_depend_on_every_part() {
        let a = ResponseCache::key("openai", "m", &req("u"));
        assert_eq!(a, ResponseCache::key("openai", "m", &req("u")));
        assert_ne!(a, ResponseCache::key("openai", "m2", &req("u")));
        assert_ne!(a, ResponseCache::key("groq", "m", &req("u")));
        assert_ne!(a, ResponseCache::key("openai", "m", &req("u2")));
        let mut hot = req("u");
        hot.temperature = Some(1.0);
        assert_ne!(a, ResponseCache::key("openai", "m", &hot));
        assert_eq!(a.len(), 64);
        // the same model behind another endpoint or with other headers is another scope
        let s1 = ResponseCache::scope("openai", "http://a/v1", &[]);
        assert_ne!(s1, ResponseCache::scope("openai", "http://b/v1", &[]));
        let h = |k: &str, v: &str| (k.to_string(), v.to_string());
        assert_ne!(
            s1,
            ResponseCache::scope("openai", "http://a/v1", &[h("api-version", "1")])
        );
        assert_eq!(
            ResponseCache::scope("p", "u", &[h("a", "1"), h("b", "2")]),
            ResponseCache::scope("p", "u", &[h("b", "2"), h("a", "1")])
        );
    }

    #[tokio::test]
    async fn disk_round_trip_survives_a_new_cache_object() {
        let dir = std::env::temp_dir().join(format!("oxeval-cache-test-{}", uuid::Uuid::new_v4()));
        let c = ResponseCache {
            memory: false,
            dir: Some(dir.clone()),
        };
        let key = ResponseCache::key("p", "m", &req("disk"));
        assert!(c.get(&key).await.is_none());
        c.put(
            &key,
            &ChatResponse {
                text: "{\"a\":1}".into(),
                refusal: None,
                reasoning: None,
                finish_reason: Some("stop".into()),
                usage: Usage::default(),
            },
        )
        .await;
        let c2 = ResponseCache {
            memory: false,
            dir: Some(dir.clone()),
        };
        let hit = c2.get(&key).await.unwrap();
        assert_eq!(hit.text, "{\"a\":1}");
        assert_eq!(hit.usage.total_tokens, Some(0));
        let _ = std::fs::remove_dir_all(dir);
    }
}
