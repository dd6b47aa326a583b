//! Judge prices: the dated table shipped with oxeval (`data/prices.json`: list prices per 1M
//! tokens with their sources, the batch discount per provider), the user's overrides
//! (runEvals' / the config's `prices`, `--price-in/--price-out`), and the cost of billed usage.
//! An unknown model has no price: nothing here guesses.

use crate::error::InvalidArgument;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The shipped table, as text (one data file; docs/cost.md describes it).
pub const PRICES_JSON: &str = include_str!("../data/prices.json");

/// A model's price in USD per 1M tokens, and the share a provider batch takes off.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    pub input: f64,
    pub output: f64,
    /// 0.5: batch calls bill half.
    pub batch_discount: f64,
}

impl Price {
    /// Dollars for `input`/`output` tokens, direct or through a provider batch.
    pub fn cost(&self, input: u64, output: u64, batch: bool) -> f64 {
        let full = (input as f64 * self.input + output as f64 * self.output) / 1e6;
        if batch {
            full * (1.0 - self.batch_discount)
        } else {
            full
        }
    }
}

#[derive(Deserialize)]
struct Entry {
    input: f64,
    output: f64,
}

#[derive(Deserialize)]
struct Table {
    date: String,
    #[serde(rename = "batchDiscount")]
    batch_discount: BTreeMap<String, f64>,
    aliases: BTreeMap<String, String>,
    models: BTreeMap<String, Entry>,
}

fn table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| serde_json::from_str(PRICES_JSON).expect("data/prices.json parses"))
}

/// The date of the shipped table.
pub fn table_date() -> &'static str {
    &table().date
}

/// `provider/model` with the provider normalized (`openai.chat` → `openai`), or the bare
/// model when no provider is given.
fn split(model: &str) -> (Option<String>, &str) {
    match model.split_once('/') {
        Some((p, m)) => {
            let p = p.split('.').next().unwrap_or(p).to_ascii_lowercase();
            (Some(p), m)
        }
        None => (None, model),
    }
}

/// A date suffix (`-20241022`, `-2024-10-22`) taken off, when there is one.
fn undated(model: &str) -> Option<&str> {
    let b = model.as_bytes();
    let digits = |s: &[u8]| s.iter().all(u8::is_ascii_digit);
    if b.len() > 9 && b[b.len() - 9] == b'-' && digits(&b[b.len() - 8..]) {
        return Some(&model[..model.len() - 9]);
    }
    let n = b.len();
    if n > 11
        && b[n - 11] == b'-'
        && digits(&b[n - 10..n - 6])
        && b[n - 6] == b'-'
        && digits(&b[n - 5..n - 3])
        && b[n - 3] == b'-'
        && digits(&b[n - 2..])
    {
        return Some(&model[..n - 11]);
    }
    None
}

/// The shipped price of `model` (`provider/model`; a bare model id matches when one provider
/// lists it), or `None`.
pub fn shipped(model: &str) -> Option<Price> {
    let t = table();
    let (provider, name) = split(model);
    let providers: Vec<String> = match provider {
        Some(p) => vec![p],
        None => {
            let owners: Vec<String> = t
                .models
                .keys()
                .chain(t.aliases.keys())
                .filter_map(|k| k.split_once('/'))
                .filter(|(_, m)| *m == name || undated(name) == Some(*m))
                .map(|(p, _)| p.to_string())
                .collect();
            match owners.first() {
                Some(p) if owners.iter().all(|o| o == p) => vec![p.clone()],
                _ => return None,
            }
        }
    };
    let p = &providers[0];
    let mut key = format!("{p}/{name}");
    if let Some(a) = t.aliases.get(&key) {
        key = a.clone();
    }
    let entry = t.models.get(&key).or_else(|| {
        // OpenAI's dated ids are listed one by one (their prices moved between snapshots)
        (p != "openai")
            .then(|| undated(name))
            .flatten()
            .and_then(|u| t.models.get(&format!("{p}/{u}")))
    })?;
    Some(Price {
        input: entry.input,
        output: entry.output,
        batch_discount: t.batch_discount.get(p).copied().unwrap_or(0.0),
    })
}

/// The prices of a run: the user's overrides over the shipped table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Prices {
    /// `{ in?, out? }` (the CLI's `--price-in/--price-out`): every model.
    all: Option<(Option<f64>, Option<f64>)>,
    /// `{ 'provider/model': { input, output, batchDiscount? } }`.
    models: BTreeMap<String, Price>,
}

fn dollars(v: &Value, at: &str) -> Result<f64, InvalidArgument> {
    match v.as_f64() {
        Some(x) if x.is_finite() && x >= 0.0 => Ok(x),
        _ => Err(InvalidArgument::options(format!(
            "{at} must be a number ≥ 0 (USD per 1M tokens), got {}",
            crate::error::type_name(v)
        ))),
    }
}

impl Prices {
    /// `prices` of a runEvals config: `{ in?, out? }` for every model, and/or
    /// `{ 'provider/model': { input, output, batchDiscount? } }` per model.
    pub fn from_config(v: Option<&Value>) -> Result<Prices, InvalidArgument> {
        let mut p = Prices::default();
        let o = match v {
            None | Some(Value::Null) => return Ok(p),
            Some(Value::Object(o)) => o,
            Some(other) => {
                return Err(InvalidArgument::options(format!(
                    "prices must be an object {{ 'provider/model': {{ input, output }} }} (USD per 1M tokens), got {}",
                    crate::error::type_name(other)
                )))
            }
        };
        for (k, v) in o {
            if k == "in" || k == "out" {
                let x = Some(dollars(v, &format!("prices.{k}"))?);
                let all = p.all.get_or_insert((None, None));
                if k == "in" {
                    all.0 = x
                } else {
                    all.1 = x
                }
                continue;
            }
            let at = format!("prices['{k}']");
            let get = |f: &str| {
                v.get(f)
                    .ok_or_else(|| {
                        InvalidArgument::options(format!("{at} needs {f} (USD per 1M tokens)"))
                    })
                    .and_then(|x| dollars(x, &format!("{at}.{f}")))
            };
            let discount = match v.get("batchDiscount") {
                // the provider's batch discount (its batch API bills any model at it)
                None | Some(Value::Null) => shipped_discount(k),
                Some(d) => match d.as_f64() {
                    Some(x) if (0.0..=1.0).contains(&x) => x,
                    _ => {
                        return Err(InvalidArgument::options(format!(
                            "{at}.batchDiscount must be a number in [0, 1]"
                        )))
                    }
                },
            };
            let price = Price {
                input: get("input")?,
                output: get("output")?,
                batch_discount: discount,
            };
            p.models.insert(k.clone(), price);
        }
        Ok(p)
    }

    /// Whether any price was given.
    pub fn is_empty(&self) -> bool {
        self.all.is_none() && self.models.is_empty()
    }

    /// The price of `model`: a per-model override, else `{ in, out }` over the shipped price
    /// (a side not given comes from the table; without a table entry it is 0), else the
    /// table's. `None`: no price.
    pub fn lookup(&self, model: &str) -> Option<Price> {
        if let Some(p) = self.models.get(model) {
            return Some(*p);
        }
        let base = shipped(model);
        match self.all {
            Some((i, o)) => {
                let b = base.unwrap_or(Price {
                    input: 0.0,
                    output: 0.0,
                    batch_discount: shipped_discount(model),
                });
                Some(Price {
                    input: i.unwrap_or(b.input),
                    output: o.unwrap_or(b.output),
                    batch_discount: b.batch_discount,
                })
            }
            None => base,
        }
    }
}

/// The batch discount of a model's provider (0 when the provider has no batch API known).
fn shipped_discount(model: &str) -> f64 {
    let (p, _) = split(model);
    p.and_then(|p| table().batch_discount.get(&p).copied())
        .unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_shipped_table_parses_and_is_dated() {
        assert_eq!(table_date().len(), 10);
        assert!(table().models.len() >= 20);
        for (k, a) in &table().aliases {
            assert!(table().models.contains_key(a), "alias {k} → {a}");
        }
    }

    #[test]
    fn lookup_table() {
        let p = |m: &str| shipped(m).map(|p| (p.input, p.output, p.batch_discount));
        type Want = Option<(f64, f64, f64)>;
        let cases: &[(&str, Want)] = &[
            ("openai/gpt-4o-mini", Some((0.15, 0.6, 0.5))),
            ("openai/gpt-4o-mini-2024-07-18", Some((0.15, 0.6, 0.5))),
            ("openai.chat/gpt-4o", Some((2.5, 10.0, 0.5))),
            ("gpt-4.1-nano", Some((0.1, 0.4, 0.5))),
            // OpenAI's older gpt-4o snapshot had other prices: not guessed
            ("openai/gpt-4o-2024-05-13", None),
            (
                "anthropic/claude-3-5-sonnet-20241022",
                Some((3.0, 15.0, 0.5)),
            ),
            ("anthropic/claude-sonnet-4-20250514", Some((3.0, 15.0, 0.5))),
            ("anthropic/claude-3-5-haiku-latest", Some((0.8, 4.0, 0.5))),
            ("google/gemini-2.5-flash", Some((0.3, 2.5, 0.5))),
            ("openai/scripted-judge", None),
            ("custom/function", None),
            ("mistral/mistral-large", None),
            ("", None),
        ];
        for (m, want) in cases {
            assert_eq!(p(m), *want, "{m}");
        }
    }

    #[test]
    fn overrides_win_and_unknown_models_stay_unpriced() {
        let pr = Prices::from_config(Some(&json!({
            "openai/gpt-4o-mini": { "input": 1, "output": 2 },
            "openai/scripted-judge": { "input": 3, "output": 4, "batchDiscount": 0 },
        })))
        .unwrap();
        assert_eq!(
            pr.lookup("openai/gpt-4o-mini")
                .map(|p| (p.input, p.output, p.batch_discount)),
            Some((1.0, 2.0, 0.5))
        );
        assert_eq!(
            pr.lookup("openai/scripted-judge").map(|p| p.batch_discount),
            Some(0.0)
        );
        assert_eq!(pr.lookup("openai/gpt-4o").map(|p| p.input), Some(2.5));
        assert_eq!(pr.lookup("custom/function"), None);
        // { in, out }: every model, the missing side from the table
        let all = Prices::from_config(Some(&json!({ "in": 1 }))).unwrap();
        assert_eq!(
            all.lookup("openai/gpt-4o").map(|p| (p.input, p.output)),
            Some((1.0, 10.0))
        );
        assert_eq!(
            all.lookup("custom/function").map(|p| (p.input, p.output)),
            Some((1.0, 0.0))
        );
        for bad in [
            json!(3),
            json!({ "in": -1 }),
            json!({ "a/b": { "input": 1 } }),
            json!({ "a/b": { "input": 1, "output": "x" } }),
            json!({ "a/b": { "input": 1, "output": 1, "batchDiscount": 2 } }),
        ] {
            assert!(Prices::from_config(Some(&bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn cost_counts_the_batch_discount() {
        let p = Price {
            input: 2.0,
            output: 8.0,
            batch_discount: 0.5,
        };
        assert!((p.cost(1_000_000, 500_000, false) - 6.0).abs() < 1e-12);
        assert!((p.cost(1_000_000, 500_000, true) - 3.0).abs() < 1e-12);
        assert_eq!(p.cost(0, 0, false), 0.0);
    }
}
