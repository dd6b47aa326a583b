//! The embeddings wire: one request of texts, one reply of vectors, in OpenAI's
//! (`/embeddings`, Azure's `/deployments/{d}/embeddings`) and Gemini's
//! (`:batchEmbedContents`) formats. The HTTP road is the chat road's ([`HttpTarget`]): bounded
//! bodies, redirects, scrubbed errors. Vectors are checked here (one per text, finite, one
//! dimension) so that no score ever sees a bad one.

use super::{CallError, Usage};
use serde_json::{json, Value};

/// Largest 2xx embeddings body accepted: 2048 vectors of 3072 floats as JSON text fit.
pub const MAX_EMBED_RESPONSE_BYTES: usize = 160 * 1024 * 1024;

/// Most texts in one OpenAI (and Azure OpenAI) embeddings request.
pub const OPENAI_MAX_INPUTS: usize = 2048;
/// Most texts in one Gemini `batchEmbedContents` request.
pub const GEMINI_MAX_INPUTS: usize = 100;

/// One successful embeddings reply: a vector per text, in the texts' order.
#[derive(Debug, Clone, Default)]
pub struct EmbedResponse {
    pub vectors: Vec<Vec<f64>>,
    pub usage: Usage,
}

/// OpenAI's request body.
pub fn openai_body(model_id: &str, texts: &[String]) -> Value {
    json!({ "model": model_id, "input": texts, "encoding_format": "float" })
}

/// Gemini's `batchEmbedContents` body (`model` as the path names it).
pub fn gemini_body(model_path: &str, texts: &[String]) -> Value {
    let requests: Vec<Value> = texts
        .iter()
        .map(|t| json!({ "model": model_path, "content": { "parts": [{ "text": t }] } }))
        .collect();
    json!({ "requests": requests })
}

fn parse_json(body: &[u8]) -> Result<Value, CallError> {
    serde_json::from_slice(body).map_err(|e| {
        CallError::bad_response(format!("the embeddings response is not JSON ({e})"), body)
    })
}

/// OpenAI's reply: `data[].embedding` by `data[].index`, `usage.prompt_tokens`.
pub fn parse_openai(body: &[u8]) -> Result<EmbedResponse, CallError> {
    let v = parse_json(body)?;
    let Some(data) = v.get("data").and_then(Value::as_array) else {
        return Err(CallError::bad_response(
            "the embeddings response has no `data` list",
            body,
        ));
    };
    let mut indexed = Vec::with_capacity(data.len());
    for (i, d) in data.iter().enumerate() {
        let index = d
            .get("index")
            .and_then(Value::as_u64)
            .map_or(i, |n| usize::try_from(n).unwrap_or(usize::MAX));
        indexed.push((index, vector(d.get("embedding"), i, body)?));
    }
    indexed.sort_by_key(|(i, _)| *i);
    if indexed.iter().enumerate().any(|(i, (j, _))| i != *j) {
        return Err(CallError::bad_response(
            "the embeddings response's `data[].index` values are not 0..n-1",
            body,
        ));
    }
    let u = v.get("usage");
    let n = |k: &str| u.and_then(|u| u.get(k)).and_then(Value::as_u64);
    Ok(EmbedResponse {
        vectors: indexed.into_iter().map(|(_, v)| v).collect(),
        usage: Usage {
            input_tokens: n("prompt_tokens"),
            total_tokens: n("total_tokens").or(n("prompt_tokens")),
            ..Usage::default()
        },
    })
}

/// Gemini's reply: `embeddings[].values`.
pub fn parse_gemini(body: &[u8]) -> Result<EmbedResponse, CallError> {
    let v = parse_json(body)?;
    let Some(list) = v.get("embeddings").and_then(Value::as_array) else {
        return Err(CallError::bad_response(
            "the embeddings response has no `embeddings` list",
            body,
        ));
    };
    let vectors = list
        .iter()
        .enumerate()
        .map(|(i, e)| vector(e.get("values"), i, body))
        .collect::<Result<_, _>>()?;
    Ok(EmbedResponse {
        vectors,
        usage: Usage::default(),
    })
}

/// One vector: a list of numbers (JSON has no NaN; a `null` or a string is refused).
fn vector(v: Option<&Value>, i: usize, body: &[u8]) -> Result<Vec<f64>, CallError> {
    let Some(items) = v.and_then(Value::as_array) else {
        return Err(CallError::bad_response(
            format!("embedding {i} of the response is not a list of numbers"),
            body,
        ));
    };
    items
        .iter()
        .map(|x| x.as_f64())
        .collect::<Option<Vec<f64>>>()
        .ok_or_else(|| {
            CallError::bad_response(
                format!("embedding {i} of the response holds a value that is not a number"),
                body,
            )
        })
}

/// Why `vectors` cannot be the embeddings of `count` texts: the count differs, a vector is
/// empty, holds a non-finite number, or has another dimension than the first.
pub fn check_vectors(vectors: &[Vec<f64>], count: usize) -> Result<(), String> {
    if vectors.len() != count {
        return Err(format!(
            "the embedder returned {} vectors for {count} texts",
            vectors.len()
        ));
    }
    let dim = vectors.first().map_or(0, Vec::len);
    for (i, v) in vectors.iter().enumerate() {
        if v.is_empty() {
            return Err(format!("vector {i} of the embedder's reply is empty"));
        }
        if v.len() != dim {
            return Err(format!(
                "vector {i} of the embedder's reply has {} dimensions, vector 0 has {dim}",
                v.len()
            ));
        }
        if let Some(j) = v.iter().position(|x| !x.is_finite()) {
            return Err(format!(
                "vector {i} of the embedder's reply holds a non-finite number at {j}"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openai_replies_in_index_order() {
        let r = parse_openai(
            br#"{"data":[{"index":1,"embedding":[3,4]},{"index":0,"embedding":[1,2]}],"usage":{"prompt_tokens":5,"total_tokens":5}}"#,
        )
        .unwrap();
        assert_eq!(r.vectors, vec![vec![1.0, 2.0], vec![3.0, 4.0]]);
        assert_eq!(r.usage.input_tokens, Some(5));
        assert!(parse_openai(br#"{"data":[{"index":3,"embedding":[1]}]}"#).is_err());
        assert!(parse_openai(br#"{"data":[{"embedding":[1,"x"]}]}"#).is_err());
        assert!(parse_openai(br#"{"object":"list"}"#).is_err());
    }

    #[test]
    fn gemini_replies() {
        let r = parse_gemini(br#"{"embeddings":[{"values":[0.5,1]}]}"#).unwrap();
        assert_eq!(r.vectors, vec![vec![0.5, 1.0]]);
        assert!(parse_gemini(br#"{"embeddings":[{}]}"#).is_err());
    }

    #[test]
    fn vectors_are_checked() {
        assert!(check_vectors(&[vec![1.0], vec![2.0]], 2).is_ok());
        assert!(check_vectors(&[vec![1.0]], 2)
            .unwrap_err()
            .contains("1 vectors for 2"));
        assert!(check_vectors(&[vec![1.0], vec![2.0, 3.0]], 2)
            .unwrap_err()
            .contains("dimensions"));
        assert!(check_vectors(&[vec![f64::NAN]], 1)
            .unwrap_err()
            .contains("non-finite"));
        assert!(check_vectors(&[vec![]], 1).unwrap_err().contains("empty"));
    }
}
