//! The estimating judge (`oxeval run --estimate`, `estimateCost`): a run whose context says
//! [`EstimateMode`] walks the scorer's real pipeline, and each judge request that the response
//! cache does not answer is answered here instead of sent: its tokens are counted (OpenAI's
//! tokenizer for OpenAI models, else an approximation of 4 characters a token, labeled) and
//! the reply is a schema-valid minimal or typical instance, so later steps are built from it.
//! Nothing is sent, stored in the cache or paid.

use crate::provider::{ChatRequest, ChatResponse, Usage};
use serde_json::{Map, Value};
use std::sync::{Arc, OnceLock};
use tiktoken_rs::CoreBPE;

/// What the estimating judge answers: the least a schema allows (empty lists, one-character
/// strings) or a stated typical reply (three list items, sentences of about twelve words).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EstimateMode {
    Minimal,
    Typical,
}

impl EstimateMode {
    /// Run option `estimate`: `'minimal'` or `'typical'`.
    pub fn parse(s: &str) -> Option<EstimateMode> {
        match s {
            "minimal" => Some(EstimateMode::Minimal),
            "typical" => Some(EstimateMode::Typical),
            _ => None,
        }
    }
}

/// A typical judge sentence (the stated typical reply's strings).
pub const TYPICAL_SENTENCE: &str =
    "The statement answers the question directly and matches the context given.";
/// Items of a list in the typical reply.
pub const TYPICAL_ITEMS: usize = 3;

/// How tokens of a model are counted: `o200k_base`, `cl100k_base`, or `chars/4`.
pub fn tokenizer_for(provider: &str, model: &str) -> &'static str {
    let p = provider.split('.').next().unwrap_or(provider);
    if !matches!(p, "openai" | "azure") {
        return "chars/4";
    }
    let m = model.to_ascii_lowercase();
    if m.starts_with("gpt-4-") || m == "gpt-4" || m.starts_with("gpt-3.5") {
        "cl100k_base"
    } else {
        // gpt-4o, gpt-4.1, gpt-5, o-series and OpenAI-compatible names: the current encoding
        "o200k_base"
    }
}

fn bpe(name: &str) -> Option<&'static CoreBPE> {
    static O200K: OnceLock<Option<CoreBPE>> = OnceLock::new();
    static CL100K: OnceLock<Option<CoreBPE>> = OnceLock::new();
    match name {
        "o200k_base" => O200K
            .get_or_init(|| tiktoken_rs::o200k_base().ok())
            .as_ref(),
        "cl100k_base" => CL100K
            .get_or_init(|| tiktoken_rs::cl100k_base().ok())
            .as_ref(),
        _ => None,
    }
}

/// Tokens of `text` by `tokenizer` (`chars/4`: characters divided by 4, rounded up).
pub fn count(tokenizer: &str, text: &str) -> u64 {
    match bpe(tokenizer) {
        Some(b) => b.encode_ordinary(text).len() as u64,
        None => text.chars().count().div_ceil(4) as u64,
    }
}

/// Input tokens of a chat request as OpenAI bills a chat completion: per message 3 tokens,
/// its role (1) and its content, and 3 for the reply's priming. Elsewhere the texts' count.
pub fn request_tokens(tokenizer: &str, req: &ChatRequest) -> u64 {
    let messages = [&req.system, &req.user]
        .into_iter()
        .filter(|t| !t.is_empty());
    if tokenizer == "chars/4" {
        return messages.map(|t| count(tokenizer, t)).sum();
    }
    messages.map(|t| 4 + count(tokenizer, t)).sum::<u64>() + 3
}

/// The estimating judge's reply to `req` (`schema`: the step's schema when the request does
/// not carry it natively), with its counted usage; `finish_reason` names the tokenizer.
pub fn reply(
    req: &ChatRequest,
    schema: Option<&Arc<Value>>,
    mode: EstimateMode,
    provider: &str,
    model: &str,
) -> ChatResponse {
    let tokenizer = tokenizer_for(provider, model);
    let schema = req.schema.as_ref().map(|(_, s)| s).or(schema);
    let text = match schema {
        Some(s) => instance(s, s, mode, 0).to_string(),
        None if mode == EstimateMode::Minimal => "x".to_string(),
        None => [TYPICAL_SENTENCE; TYPICAL_ITEMS].join(" "),
    };
    let input = request_tokens(tokenizer, req);
    let output = count(tokenizer, &text);
    ChatResponse {
        text,
        refusal: None,
        reasoning: None,
        finish_reason: Some(format!("estimate:{tokenizer}")),
        usage: Usage {
            input_tokens: Some(input),
            output_tokens: Some(output),
            total_tokens: Some(input + output),
            ..Usage::default()
        },
        warnings: Vec::new(),
        logprobs: None,
    }
}

/// A number the schema allows: its minimum, else 0 (clamped to a maximum). The same in both
/// modes: a number is a token or two, and a "typical" value could miss a step's own rule
/// (e.g. a rating of 0, 2 or 4).
fn num_in(s: &Value, integer: bool) -> Value {
    let lo = s.get("minimum").and_then(Value::as_f64);
    let hi = s.get("maximum").and_then(Value::as_f64);
    let x = lo.unwrap_or_else(|| hi.map_or(0.0, |h| h.min(0.0)));
    if integer {
        Value::from(x.round() as i64)
    } else {
        serde_json::Number::from_f64(x).map_or(Value::from(0), Value::Number)
    }
}

/// A schema-valid instance of `s` (`root` resolves `$ref`s), minimal or typical.
fn instance(s: &Value, root: &Value, mode: EstimateMode, depth: usize) -> Value {
    let typical = mode == EstimateMode::Typical;
    if depth > 12 {
        return Value::Null;
    }
    if let Some(r) = s.get("$ref").and_then(Value::as_str) {
        let target = r.strip_prefix('#').and_then(|p| root.pointer(p));
        return target.map_or(Value::Null, |t| instance(t, root, mode, depth + 1));
    }
    if let Some(c) = s.get("const") {
        return c.clone();
    }
    if let Some(e) = s
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
    {
        return e.clone();
    }
    for k in ["anyOf", "oneOf", "allOf"] {
        let first = s.get(k).and_then(Value::as_array).and_then(|a| {
            a.iter()
                .find(|x| x.get("type").and_then(Value::as_str) != Some("null"))
        });
        if let Some(f) = first {
            return instance(f, root, mode, depth + 1);
        }
    }
    let ty = match s.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null"),
        _ if s.get("properties").is_some() => "object",
        _ => "null",
    };
    match ty {
        "object" => {
            let mut o = Map::new();
            if let Some(props) = s.get("properties").and_then(Value::as_object) {
                for (k, p) in props {
                    o.insert(k.clone(), instance(p, root, mode, depth + 1));
                }
            }
            Value::Object(o)
        }
        "array" => {
            let least = s.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
            let n = if typical {
                least.max(TYPICAL_ITEMS)
            } else {
                least
            };
            let item = s.get("items").cloned().unwrap_or(Value::Null);
            Value::Array(
                (0..n)
                    .map(|_| instance(&item, root, mode, depth + 1))
                    .collect(),
            )
        }
        "string" if typical => Value::from(TYPICAL_SENTENCE),
        "string" => Value::from("x"),
        "number" => num_in(s, false),
        "integer" => num_in(s, true),
        "boolean" => Value::Bool(true),
        _ => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn instances_follow_the_schema() {
        let s = json!({ "type": "object", "properties": {
            "verdicts": { "type": "array", "items": { "type": "object", "properties": {
                "verdict": { "type": "string", "enum": ["yes", "no"] }, "reason": { "type": "string" } } } },
            "score": { "type": "number", "minimum": 0, "maximum": 1 },
            "n": { "type": ["integer", "null"] } } });
        let min = instance(&s, &s, EstimateMode::Minimal, 0);
        assert_eq!(min, json!({ "verdicts": [], "score": 0.0, "n": 0 }));
        let typ = instance(&s, &s, EstimateMode::Typical, 0);
        assert_eq!(typ["verdicts"].as_array().unwrap().len(), 3);
        assert_eq!(typ["verdicts"][0]["verdict"], "yes");
        assert_eq!(typ["score"], 0.0);
    }

    #[test]
    fn tokens_by_model() {
        assert_eq!(tokenizer_for("openai", "gpt-4o-mini"), "o200k_base");
        assert_eq!(tokenizer_for("openai", "gpt-4-turbo"), "cl100k_base");
        assert_eq!(tokenizer_for("anthropic", "claude-3-5-sonnet"), "chars/4");
        assert_eq!(count("o200k_base", "hello world"), 2);
        assert_eq!(count("chars/4", "hello world"), 3);
        let req = ChatRequest {
            system: "You are a judge.".into(),
            user: "hello world".into(),
            schema: None,
            temperature: None,
            max_tokens: None,
            max_response_bytes: 0,
            logprobs: false,
        };
        // 2 messages × (3 + role) + contents + 3
        assert_eq!(
            request_tokens("o200k_base", &req),
            8 + count("o200k_base", "You are a judge.") + 2 + 3
        );
    }
}
