//! Cache keys: the request's parts as digests ([`KeyParts`]), the call site's stable name
//! ([`Locator`]), both together ([`CacheSlot`]), the endpoint scope
//! ([`ResponseCache::scope`]), and why a replayed request misses (the parts that changed).

use super::ResponseCache;
use crate::engine::context::CallSite;
use crate::provider::ChatRequest;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// The `format` of every file of the layout; part of every key.
pub(super) const FORMAT: &str = "oxeval-cache-v3";

pub(super) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Hex SHA-256 of length-prefixed `parts`.
pub(super) fn digest_of(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for part in parts {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    hex(&h.finalize())
}

/// The parts a cache key is made of, each as a hex SHA-256 digest (never in clear: no
/// prompt, model id, URL or header value reaches the disk). Stored with every entry and
/// locator so a replay miss can name what changed. Fields in alphabetical order: the files
/// list them so.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyParts {
    /// Provider, base URL, api-version, custom headers ([`ResponseCache::scope`]).
    pub endpoint: String,
    /// The model id sent.
    pub model: String,
    /// The native output schema (name and JSON Schema); empty when the schema is in the
    /// system message.
    pub schema: String,
    /// Temperature, output budget and the extra settings (reasoning effort).
    pub settings: String,
    /// The system message.
    pub system: String,
    /// The user message (the prompt with the judged data).
    pub user: String,
}

impl KeyParts {
    /// The parts of `req` sent to `model` at `endpoint` (a [`ResponseCache::scope`]);
    /// `extra_settings` are settings that change the answer but are not in the request
    /// body as the cache sees it (the reasoning effort).
    pub fn new(endpoint: &str, model: &str, req: &ChatRequest, extra_settings: &str) -> KeyParts {
        let schema = req
            .schema
            .as_ref()
            .map(|(name, s)| format!("{name}:{s}"))
            .unwrap_or_default();
        let settings = format!(
            "{:?}|{:?}|{extra_settings}",
            req.temperature, req.max_tokens
        );
        KeyParts {
            endpoint: digest_of(&[endpoint]),
            model: digest_of(&[model]),
            schema: digest_of(&[&schema]),
            settings: digest_of(&[&settings]),
            system: digest_of(&[&req.system]),
            user: digest_of(&[&req.user]),
        }
    }

    /// The cache key (hex SHA-256 of the format and every part).
    pub fn key(&self) -> String {
        digest_of(&[
            FORMAT,
            &self.endpoint,
            &self.model,
            &self.schema,
            &self.settings,
            &self.system,
            &self.user,
        ])
    }

    /// Why a request with these parts is not the one recorded with `recorded`: one phrase
    /// per differing part.
    pub(super) fn changes_since(&self, recorded: &KeyParts) -> Vec<&'static str> {
        let mut why = Vec::new();
        if self.endpoint != recorded.endpoint {
            why.push("the endpoint changed (provider, base URL, api-version or custom headers)");
        }
        if self.model != recorded.model {
            why.push("the model changed");
        }
        if self.settings != recorded.settings {
            why.push(
                "the model settings changed (temperature, maxOutputTokens or reasoningEffort)",
            );
        }
        if self.schema != recorded.schema {
            why.push("the output schema changed (oxeval upgrade?)");
        }
        if self.system != recorded.system {
            why.push("the system prompt changed (the scorer's instructions, or the output schema for a model that reads it from the prompt: oxeval upgrade?)");
        }
        if self.user != recorded.user {
            why.push("the prompt changed (the judged input/output/context, the scorer's options, or its prompt template)");
        }
        why
    }
}

/// Where a judge call comes from: the cache's stable name for "this call of this item", so
/// that a replay miss can be compared with what was recorded for the same call. Fields in
/// alphabetical order (the locator files list them so).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Locator {
    /// 1 for the first request of a call, 2 for its format fallback (or a text retry).
    pub attempt: u32,
    /// Which call of the step, when a step makes several (e.g. `response` / `reference`,
    /// `judge1` / `judge2`); empty otherwise.
    pub call: String,
    /// The run's `itemId`, else `input:<digest>` of the run's input (or `output:<digest>`).
    pub item: String,
    /// The scorer's id.
    pub scorer: String,
    /// The step name (`preprocess`, `analyze`, `generateReason`, …).
    pub step: String,
}

impl Locator {
    /// The locator of attempt `attempt` of a call made at `site`.
    pub fn new(site: &CallSite, attempt: u32) -> Locator {
        let s = |v: &Option<Arc<str>>| v.as_deref().unwrap_or("").to_string();
        Locator {
            attempt,
            call: site.call.to_string(),
            item: s(&site.item),
            scorer: s(&site.scorer),
            step: s(&site.step),
        }
    }

    /// The name of its locator file.
    pub(super) fn digest(&self) -> String {
        let attempt = self.attempt.to_string();
        digest_of(&[
            FORMAT,
            &self.scorer,
            &self.step,
            &self.call,
            &self.item,
            &attempt,
        ])
    }

    /// "scorer 'x', step 'analyze' (call 'reference', fallback attempt), item 'q-1'".
    pub fn describe(&self) -> String {
        let mut s = String::new();
        if !self.scorer.is_empty() {
            s.push_str(&format!("scorer '{}', ", self.scorer));
        }
        let step = if self.step.is_empty() {
            "?"
        } else {
            &self.step
        };
        s.push_str(&format!("step '{step}'"));
        let mut extra = Vec::new();
        if !self.call.is_empty() {
            extra.push(format!("call '{}'", self.call));
        }
        if self.attempt > 1 {
            extra.push("the fallback attempt".to_string());
        }
        if !extra.is_empty() {
            s.push_str(&format!(" ({})", extra.join(", ")));
        }
        if self.item.is_empty() {
            // no item identity at all (a judge used outside a scorer run)
        } else if self.item.starts_with("input:") || self.item.starts_with("output:") {
            s.push_str(&format!(
                ", the item whose {} has digest {} (pass run options.itemId to name it)",
                self.item.split(':').next().unwrap_or("input"),
                self.item.split(':').nth(1).unwrap_or("")
            ));
        } else {
            s.push_str(&format!(", item '{}'", self.item));
        }
        s
    }
}

/// One request as the cache sees it: its key, the key's parts and its call site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheSlot {
    pub key: String,
    pub parts: KeyParts,
    pub locator: Locator,
}

impl CacheSlot {
    pub fn new(parts: KeyParts, locator: Locator) -> CacheSlot {
        CacheSlot {
            key: parts.key(),
            parts,
            locator,
        }
    }
}

impl ResponseCache {
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
        hex(&h.finalize())
    }
}

/// "a, b and c".
pub(super) fn join_and(parts: &[&str]) -> String {
    match parts {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::cache::tests::*;

    #[test]
    fn keys_depend_on_every_part() {
        let key = |e: &str, m: &str, r: &ChatRequest| KeyParts::new(e, m, r, "").key();
        let a = key("openai", "m", &req("u"));
        assert_eq!(a, key("openai", "m", &req("u")));
        assert_ne!(a, key("openai", "m2", &req("u")));
        assert_ne!(a, key("groq", "m", &req("u")));
        assert_ne!(a, key("openai", "m", &req("u2")));
        let mut hot = req("u");
        hot.temperature = Some(1.0);
        assert_ne!(a, key("openai", "m", &hot));
        let mut sys = req("u");
        sys.system = "s2".into();
        assert_ne!(a, key("openai", "m", &sys));
        let mut schema = req("u");
        schema.schema = Some(("S", Arc::new(json!({"type": "object"}))));
        assert_ne!(a, key("openai", "m", &schema));
        assert_ne!(a, KeyParts::new("openai", "m", &req("u"), "effort").key());
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
}
