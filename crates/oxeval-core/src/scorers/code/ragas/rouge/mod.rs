//! Ragas's `RougeScore`: rouge_score 0.1.2's `RougeScorer([rouge_type], use_stemmer=True)`
//! of the response (prediction) against the reference (target): lowercased, split on
//! `[^a-z0-9]+`, tokens longer than 3 characters Porter-stemmed (NLTK's, `porter.rs`);
//! `rouge1` = unigram overlap, `rougeL` = longest common subsequence; precision, recall or F1.

mod porter;

use super::{result, steps, texts, Texts, INPUTS};
use crate::error::InvalidArgument;
use crate::options::scorer_choice;
use crate::pipeline::{RunError, ScoreResult};
use crate::run::RunInput;
use crate::scorers::spec::{boxed, schema_of, Kind, ScorerSpec, StepMeta};
use crate::scorers::ScorerMeta;
use schemars::JsonSchema;
use std::collections::HashMap;

pub use porter::stem;

const STEPS: [StepMeta; 2] = steps(
    "ROUGE-1 or ROUGE-L (rouge_score, Porter stems) precision, recall or F1 of the response against the reference",
);

pub const SPEC: ScorerSpec = ScorerSpec {
    factory: "createRougeScorer",
    id: "ragas-rouge-score",
    name: "ROUGE Score (Ragas)",
    description: "Ragas's RougeScore: rouge_score's ROUGE-1 or ROUGE-L (stemmed) of the output against the ground truth",
    family: "ragas",
    type_name: "RagasRouge",
    kind: Kind::Code,
    inputs: INPUTS,
    run_fields: None,
    extractors: &[],
    options: schema_of::<JsOptions>,
    nested_options: None,
    preprocess: Some(schema_of::<Texts>),
    analyze: None,
    steps: &STEPS,
    build: |v, _| boxed(Rouge::build(v)),
};

/// The factory's options (Ragas's names in camelCase, its defaults).
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct JsOptions {
    /// `'rouge1'` (unigrams) or `'rougeL'` (longest common subsequence). Default `'rougeL'`.
    rouge_type: Option<RougeType>,
    /// Which figure is the score. Default `'fmeasure'`.
    mode: Option<RougeMode>,
}

#[derive(JsonSchema)]
#[allow(dead_code, non_camel_case_types)]
enum RougeType {
    rouge1,
    rougeL,
}

#[derive(JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum RougeMode {
    Fmeasure,
    Precision,
    Recall,
}

pub struct Rouge {
    meta: ScorerMeta,
    lcs: bool,
    mode: &'static str,
}

impl Rouge {
    fn build(v: &serde_json::Value) -> Result<Self, InvalidArgument> {
        let kind = scorer_choice(v, "rougeType", &["rouge1", "rougeL"], "rougeL")?;
        let mode = scorer_choice(v, "mode", &["fmeasure", "precision", "recall"], "fmeasure")?;
        Ok(Rouge {
            meta: ScorerMeta::code(&SPEC, "agent"),
            lcs: kind == "rougeL",
            mode,
        })
    }

    pub(crate) fn run_sync(&self, run: RunInput) -> Result<ScoreResult, RunError> {
        let t = texts(SPEC.id, &run)?;
        let [p, r, f] = rouge(self.lcs, &t.reference, &t.response);
        let score = match self.mode {
            "precision" => p,
            "recall" => r,
            _ => f,
        };
        Ok(result(run, score, &t))
    }
}

crate::impl_scorer!(Rouge, sync);

/// rouge_score's tokenizer with the stemmer.
pub fn tokenize(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit()))
        .filter(|t| !t.is_empty())
        .map(|t| if t.len() > 3 { stem(t) } else { t.to_string() })
        .filter(|t| !t.is_empty())
        .collect()
}

/// `[precision, recall, fmeasure]` of the response (prediction) against the reference.
pub fn rouge(lcs: bool, reference: &str, response: &str) -> [f64; 3] {
    let target = tokenize(reference);
    let pred = tokenize(response);
    if lcs {
        if target.is_empty() || pred.is_empty() {
            return [0.0; 3];
        }
        let l = lcs_len(&target, &pred) as f64;
        let (p, r) = (l / pred.len() as f64, l / target.len() as f64);
        return [p, r, fmeasure(p, r)];
    }
    let (tc, pc) = (counts(&target), counts(&pred));
    let inter: usize = tc
        .iter()
        .map(|(k, c)| (*c).min(pc.get(k).copied().unwrap_or(0)))
        .sum();
    let p = inter as f64 / pred.len().max(1) as f64;
    let r = inter as f64 / target.len().max(1) as f64;
    [p, r, fmeasure(p, r)]
}

fn counts(toks: &[String]) -> HashMap<&str, usize> {
    let mut m: HashMap<&str, usize> = HashMap::new();
    for t in toks {
        *m.entry(t.as_str()).or_insert(0) += 1;
    }
    m
}

fn fmeasure(p: f64, r: f64) -> f64 {
    if p + r > 0.0 {
        2.0 * p * r / (p + r)
    } else {
        0.0
    }
}

fn lcs_len(a: &[String], b: &[String]) -> usize {
    let mut prev = vec![0usize; b.len() + 1];
    let mut cur = vec![0usize; b.len() + 1];
    for x in a {
        for (j, y) in b.iter().enumerate() {
            cur[j + 1] = if x == y {
                prev[j] + 1
            } else {
                prev[j + 1].max(cur[j])
            };
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_and_edges() {
        assert_eq!(
            tokenize("The cats' running-shoes, 2024!"),
            ["the", "cat", "run", "shoe", "2024"]
        );
        assert_eq!(rouge(true, "", "x"), [0.0; 3]);
        assert_eq!(rouge(false, "", ""), [0.0; 3]);
        assert_eq!(rouge(false, "a b", "a b"), [1.0; 3]);
        assert!(Rouge::build(&serde_json::json!({ "rougeType": "rouge2" })).is_err());
    }
}
