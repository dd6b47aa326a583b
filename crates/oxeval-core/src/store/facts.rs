//! What the store's columns need of an item (index, id, per scorer: score, reason, error,
//! tokens, latency), read from its JSON text in one pass that builds none of the rest: the
//! prompts, step results and judge records are skipped over, not copied (the writer keeps
//! the text as it came, packed: [`super::packed`]).
//!
//! [`item_facts`] answers `None` for any text it does not read the way
//! [`super::rows::item_rows`] would (not an object, no integer `index`, invalid JSON): the
//! writer then takes the slow road (parse, [`super::rows::item_rows`]), which gives the
//! same rows or the same error.

use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;
use std::fmt;

/// One scorer's columns on one item.
#[derive(Debug, Clone, PartialEq)]
pub struct FactRow {
    pub scorer: String,
    pub score: Option<f64>,
    pub reason: Option<String>,
    /// The error's JSON text (an `errors` entry), if any.
    pub error: Option<String>,
    pub input_tokens: Option<i64>,
    pub output_tokens: Option<i64>,
    pub latency_ms: Option<f64>,
}

/// One item's columns.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemFacts {
    pub index: i64,
    pub item_id: String,
    pub rows: Vec<FactRow>,
}

/// A scorer result's score and reason (any other value: neither).
#[derive(Default)]
struct ResultFacts {
    score: Option<f64>,
    reason: Option<String>,
}

/// A map read as its (key, value) pairs in order, a later duplicate key replacing the
/// earlier one in place (as `serde_json::Map` does).
struct Pairs<T>(Vec<(String, T)>);

impl<T> Pairs<T> {
    fn get(&self, k: &str) -> Option<&T> {
        self.0.iter().find(|(x, _)| x == k).map(|(_, v)| v)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Pairs<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Pairs<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
                let mut out: Vec<(String, T)> = Vec::new();
                while let Some(k) = m.next_key::<String>()? {
                    let v = m.next_value::<T>()?;
                    match out.iter_mut().find(|(x, _)| *x == k) {
                        Some(slot) => slot.1 = v,
                        None => out.push((k, v)),
                    }
                }
                Ok(Pairs(out))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// Any JSON value: an object gives its `score` (a number) and `reason` (a string).
impl<'de> Deserialize<'de> for ResultFacts {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ResultFacts;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a scorer result")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<ResultFacts, A::Error> {
                let mut out = ResultFacts::default();
                while let Some(k) = m.next_key::<Key>()? {
                    match k {
                        Key::Score => out.score = m.next_value::<Value>()?.as_f64(),
                        Key::Reason => {
                            out.reason = match m.next_value::<Value>()? {
                                Value::String(s) => Some(s),
                                _ => None,
                            }
                        }
                        Key::Other => {
                            m.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(out)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<ResultFacts, A::Error> {
                while s.next_element::<IgnoredAny>()?.is_some() {}
                Ok(ResultFacts::default())
            }
            fn visit_bool<E>(self, _: bool) -> Result<ResultFacts, E> {
                Ok(ResultFacts::default())
            }
            fn visit_i64<E>(self, _: i64) -> Result<ResultFacts, E> {
                Ok(ResultFacts::default())
            }
            fn visit_u64<E>(self, _: u64) -> Result<ResultFacts, E> {
                Ok(ResultFacts::default())
            }
            fn visit_f64<E>(self, _: f64) -> Result<ResultFacts, E> {
                Ok(ResultFacts::default())
            }
            fn visit_str<E>(self, _: &str) -> Result<ResultFacts, E> {
                Ok(ResultFacts::default())
            }
            fn visit_unit<E>(self) -> Result<ResultFacts, E> {
                Ok(ResultFacts::default())
            }
        }
        d.deserialize_any(V)
    }
}

/// A result's key: the two the columns need, every other skipped.
enum Key {
    Score,
    Reason,
    Other,
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E>(self, k: &str) -> Result<Key, E> {
                Ok(match k {
                    "score" => Key::Score,
                    "reason" => Key::Reason,
                    _ => Key::Other,
                })
            }
        }
        d.deserialize_str(V)
    }
}

/// The item's top level: what the columns need, the rest skipped.
#[derive(Deserialize)]
struct Top {
    index: Option<Value>,
    id: Option<Value>,
    results: Option<Maybe<Pairs<ResultFacts>>>,
    errors: Option<Maybe<Pairs<Value>>>,
    usage: Option<Maybe<Pairs<Value>>>,
    #[serde(rename = "durationMs")]
    duration_ms: Option<Value>,
}

/// A value that is read when it is an object, else skipped (as `Value::as_object` gives
/// `None`).
enum Maybe<T> {
    Is(T),
    Not,
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Maybe<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Maybe<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            // an object is read in place (never buffered: it holds the prompts)
            fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<Maybe<T>, A::Error> {
                T::deserialize(serde::de::value::MapAccessDeserializer::new(m)).map(Maybe::Is)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Maybe<T>, A::Error> {
                while s.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Maybe::Not)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Maybe<T>, E> {
                Ok(Maybe::Not)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Maybe<T>, E> {
                Ok(Maybe::Not)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Maybe<T>, E> {
                Ok(Maybe::Not)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Maybe<T>, E> {
                Ok(Maybe::Not)
            }
            fn visit_str<E>(self, _: &str) -> Result<Maybe<T>, E> {
                Ok(Maybe::Not)
            }
            fn visit_unit<E>(self) -> Result<Maybe<T>, E> {
                Ok(Maybe::Not)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

fn is<T>(m: Option<Maybe<T>>) -> Option<T> {
    match m {
        Some(Maybe::Is(t)) => Some(t),
        _ => None,
    }
}

/// The columns of one item's JSON text, or `None` when only a full parse can tell (see the
/// module's comment).
pub fn item_facts(text: &str) -> Option<ItemFacts> {
    let top: Top = serde_json::from_str(text).ok()?;
    let index = top.index.as_ref().and_then(Value::as_i64)?;
    let item_id = match &top.id {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => format!("#{index}"),
    };
    let errors = is(top.errors).unwrap_or(Pairs(Vec::new()));
    let usage = is(top.usage).unwrap_or(Pairs(Vec::new()));
    let latency = top.duration_ms.as_ref().and_then(Value::as_f64);
    let tokens = |scorer: &str, key: &str| {
        usage
            .get(scorer)
            .and_then(|u| u.get(key))
            .and_then(Value::as_i64)
    };
    let error_of = |scorer: &str| {
        errors
            .get(scorer)
            .filter(|e| !e.is_null())
            .map(Value::to_string)
    };
    let mut rows: Vec<FactRow> = Vec::new();
    let row = |scorer: String, score, reason| FactRow {
        error: error_of(&scorer),
        input_tokens: tokens(&scorer, "inputTokens"),
        output_tokens: tokens(&scorer, "outputTokens"),
        latency_ms: latency,
        scorer,
        score,
        reason,
    };
    for (scorer, r) in is(top.results).map(|p| p.0).unwrap_or_default() {
        rows.push(row(scorer, r.score, r.reason));
    }
    for (scorer, _) in &errors.0 {
        if !rows.iter().any(|r| &r.scorer == scorer) {
            rows.push(row(scorer.clone(), None, None));
        }
    }
    Some(ItemFacts {
        index,
        item_id,
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redact::Redactor;
    use crate::store::rows::item_rows;
    use serde_json::json;

    /// The facts agree with the rows the full parse makes (item_rows).
    fn agrees(item: Value) {
        agrees_text(&item.to_string())
    }

    fn agrees_text(text: &str) {
        let facts = item_facts(text).expect("facts");
        let item: Value = serde_json::from_str(text).unwrap();
        let rows = item_rows(item, &Redactor::default(), true).unwrap();
        assert_eq!((facts.index, &facts.item_id), (rows.index, &rows.item_id));
        let got: Vec<_> = facts
            .rows
            .iter()
            .map(|r| (&r.scorer, r.score, &r.reason, &r.error, r.latency_ms))
            .collect();
        let want: Vec<_> = rows
            .results
            .iter()
            .map(|r| (&r.scorer, r.score, &r.reason, &r.error, r.latency_ms))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn the_same_columns_as_the_full_parse() {
        agrees(json!({
            "index": 3, "id": "q-7", "input": "x",
            "results": {
                "faith": { "score": 0.5, "reason": "half", "analyzePrompt": "P1", "judge": { "a": { "executions": [{ "prompt": "P1" }] } } },
                "tox": { "score": "high", "reason": 7 },
                "nul": null, "arr": [1, { "score": 2 }], "num": 4
            },
            "errors": { "rel": { "code": "OXEVAL_JUDGE_HTTP", "message": "boom" }, "tox": "also" },
            "usage": { "faith": { "inputTokens": 10, "outputTokens": 2 } },
            "durationMs": 12.5
        }));
        agrees(json!({ "index": 0, "id": 12, "results": [], "errors": null }));
        agrees_text(r#"{"index":1,"results":{"a":{"score":1},"b":{},"a":{"score":0}}}"#);
        let f = item_facts(r#"{"index":0,"usage":{"s":{"inputTokens":5,"outputTokens":1}},"results":{"s":{"score":1}}}"#).unwrap();
        assert_eq!(
            (f.rows[0].input_tokens, f.rows[0].output_tokens),
            (Some(5), Some(1))
        );
    }

    #[test]
    fn anything_else_is_left_to_the_full_parse() {
        for text in [
            "[]",
            "{\"id\":1}",
            "{\"index\":1.5}",
            "{\"index\":1",
            "nope",
        ] {
            assert!(item_facts(text).is_none(), "{text}");
        }
    }
}
