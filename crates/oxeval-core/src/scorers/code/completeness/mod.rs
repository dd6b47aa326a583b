//! Mastra's `createCompletenessScorer`: the share of the input's elements (words of its
//! nouns, infinitive verbs, topics and terms, as npm `compromise` 14 finds them) that the
//! output covers.
//!
//! compromise's tagger (its lexicon, rules and conjugations) has no Rust equivalent that
//! reaches the same elements (a tagger-free reading agreed on 10 of 400 sentences): the
//! element lists come from compromise itself, run by the host (`HostCall::Nlp`, request
//! `{ runId, texts }`, reply the four lists per text); the cleaning, the set and the score
//! are computed here.

use super::js_text::{js_lower, js_trim, run_text, Side};
use crate::engine::RunContext;
use crate::error::{ErrorCode, InvalidArgument};
use crate::pipeline::{RunError, ScoreResult, ScorerFailure};
use crate::provider::external::{Host, HostCall};
use crate::run::RunInput;
use crate::scorers::spec::{boxed, schema_of, Inputs, Kind, Need, ScorerSpec, StepMeta};
use crate::scorers::ScorerMeta;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::sync::Arc;

pub const SPEC: ScorerSpec = ScorerSpec {
    factory: "createCompletenessScorer",
    id: "completeness-scorer",
    name: "Completeness Scorer",
    description: "Leverage the nlp method from \"compromise\" to extract elements from the input and output and calculate the coverage.",
    family: "mastra",
    type_name: "Completeness",
    kind: Kind::Code,
    inputs: Inputs {
        input: Need::Required,
        output: Need::Required,
        ground_truth: Need::Unused,
        context: Need::Unused,
    },
    run_fields: None,
    extractors: &[],
    options: schema_of::<JsOptions>,
    nested_options: None,
    preprocess: Some(schema_of::<Elements>),
    analyze: None,
    steps: &[
        StepMeta::function("preprocess", "Elements of the input's and the output's texts: words of their nouns, infinitive verbs, topics and terms (compromise)"),
        StepMeta::function("generateScore", "Share of the input's elements an output element matches"),
    ],
    build: |v, cx| boxed(Completeness::build(v, cx.host.clone())),
};

/// What the scorer asks the host for.
pub const HOST_CALLS: &[HostCall] = &[HostCall::Nlp];

/// The error name of the host's reply when compromise is not installed.
pub const MISSING_DEPENDENCY: &str = "OxevalMissingDependency";

/// No options of its own (`id` and `name` only).
#[derive(JsonSchema)]
pub struct JsOptions {}

/// `preprocessStepResult`.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Elements {
    pub input_elements: Vec<String>,
    pub output_elements: Vec<String>,
    /// The input's elements the output's element list lacks (exact, before the fuzzy match).
    pub missing_elements: Vec<String>,
    pub element_counts: ElementCounts,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ElementCounts {
    pub input: u64,
    pub output: u64,
}

pub struct Completeness {
    meta: ScorerMeta,
    host: Arc<dyn Host>,
}

impl Completeness {
    fn build(_: &Value, host: Option<Arc<dyn Host>>) -> Result<Self, InvalidArgument> {
        let host = host.ok_or_else(|| {
            InvalidArgument::options(
                "createCompletenessScorer runs compromise (JavaScript) through the host: create it with oxeval's createCompletenessScorer in Node",
            )
        })?;
        Ok(Completeness {
            meta: ScorerMeta::code(&SPEC, "agent"),
            host,
        })
    }

    async fn run_inner(&self, run: RunInput, ctx: RunContext) -> Result<ScoreResult, RunError> {
        let input = run_text(run.input.as_ref(), Side::Input)?;
        let output = run_text(Some(&run.output), Side::Output)?;
        let texts = [js_trim(&input), js_trim(&output)];
        let lists = self.nlp(&ctx, &run.run_id, &texts).await?;
        let pre = elements_of(&lists[0], &lists[1]);
        let score = coverage(&pre.input_elements, &pre.output_elements);
        Ok(super::text_result::<_, ()>(run.run_id, score, &pre, None))
    }

    /// compromise's four lists (nouns, infinitive verbs, topics, terms) for each text.
    async fn nlp(
        &self,
        ctx: &RunContext,
        run_id: &str,
        texts: &[&str; 2],
    ) -> Result<[Vec<String>; 2], RunError> {
        let fail = |code: ErrorCode, message: String, name: &str| {
            RunError::Failed(Box::new(ScorerFailure::outside(
                Some(run_id.to_string()),
                "preprocess",
                code,
                &message,
                name,
            )))
        };
        let request = json!({ "runId": run_id, "texts": texts }).to_string();
        let call = self.host.call(HostCall::Nlp, request);
        let deadline = async {
            match ctx.deadline {
                Some(d) => tokio::time::sleep_until(d).await,
                None => std::future::pending().await,
            }
        };
        let reply = tokio::select! {
            biased;
            _ = ctx.cancel.cancelled() => {
                return Err(fail(ErrorCode::Aborted, "The run was aborted".into(), ""));
            }
            r = call => r,
            _ = deadline => {
                return Err(fail(ErrorCode::Deadline, "the run's deadline passed while compromise was running".into(), ""));
            }
        };
        let text = reply.map_err(|why| {
            fail(
                ErrorCode::Internal,
                format!("compromise could not be called: {why}"),
                "",
            )
        })?;
        let reply: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        if reply["ok"] != Value::Bool(true) {
            let name = reply["error"]["name"].as_str().unwrap_or("Error");
            let message = reply["error"]["message"]
                .as_str()
                .unwrap_or("an error")
                .to_string();
            if name == MISSING_DEPENDENCY {
                return Err(RunError::Invalid(InvalidArgument::options(message)));
            }
            return Err(fail(
                ErrorCode::Internal,
                format!("compromise threw: {message}"),
                name,
            ));
        }
        let list = |v: &Value| -> Option<Vec<String>> {
            let mut words = Vec::new();
            for group in v.as_array()? {
                for s in group.as_array()? {
                    words.push(s.as_str()?.to_string());
                }
            }
            Some(words)
        };
        match reply["value"].as_array().map(|a| a.as_slice()) {
            Some([a, b]) => match (list(a), list(b)) {
                (Some(a), Some(b)) => Ok([a, b]),
                _ => Err(fail(
                    ErrorCode::Internal,
                    "compromise's reply is not two lists of string lists".into(),
                    "",
                )),
            },
            _ => Err(fail(
                ErrorCode::Internal,
                "compromise's reply is not two lists of string lists".into(),
                "",
            )),
        }
    }
}

crate::impl_scorer!(Completeness, code);

/// The preprocess step from compromise's strings of each text (nouns, verbs, topics, terms
/// in that order, flattened).
pub fn elements_of(input: &[String], output: &[String]) -> Elements {
    let input_elements = clean(input);
    let output_elements = clean(output);
    let have: HashSet<&str> = output_elements.iter().map(String::as_str).collect();
    let missing_elements = input_elements
        .iter()
        .filter(|e| !have.contains(e.as_str()))
        .cloned()
        .collect();
    Elements {
        element_counts: ElementCounts {
            input: input_elements.len() as u64,
            output: output_elements.len() as u64,
        },
        input_elements,
        output_elements,
        missing_elements,
    }
}

/// NFD, combining marks U+0300–U+036F removed, lowercased.
fn normalize(s: &str) -> String {
    let nfd = icu_normalizer::DecomposingNormalizerBorrowed::new_nfd().normalize(s);
    let stripped: String = nfd
        .chars()
        .filter(|c| !('\u{300}'..='\u{36F}').contains(c))
        .collect();
    js_lower(&stripped)
}

/// Each string normalized, every run of characters other than `a-z0-9` a separator, the
/// words kept once in first-seen order.
fn clean(strings: &[String]) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for s in strings {
        for w in normalize(s).split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit())) {
            if !w.is_empty() && seen.insert(w.to_string()) {
                out.push(w.to_string());
            }
        }
    }
    out
}

/// Mastra's `calculateCoverage`: no input elements → 1 when the output has none either,
/// else 0; otherwise the share of input elements some output element matches: equal for
/// an element of at most 3 characters, else the shorter inside the longer and more than 60%
/// of its length.
pub fn coverage(original: &[String], simplified: &[String]) -> f64 {
    if original.is_empty() {
        return if simplified.is_empty() { 1.0 } else { 0.0 };
    }
    let covered = original
        .iter()
        .filter(|e| {
            let e = e.as_str();
            simplified.iter().map(String::as_str).any(|s| {
                if e.len() <= 3 {
                    return e == s;
                }
                let (longer, shorter) = if e.len() > s.len() { (e, s) } else { (s, e) };
                longer.contains(shorter) && shorter.len() as f64 / longer.len() as f64 > 0.6
            })
        })
        .count();
    covered as f64 / original.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn cleaning() {
        assert_eq!(
            clean(&v(&[
                "Paris' museums",
                "Crème Brûlée",
                "don't",
                "e-mail",
                "ＡＢ"
            ])),
            v(&["paris", "museums", "creme", "brulee", "don", "t", "e", "mail"])
        );
    }

    #[test]
    fn coverage_edges() {
        assert_eq!(coverage(&[], &[]), 1.0);
        assert_eq!(coverage(&[], &v(&["a"])), 0.0);
        assert_eq!(coverage(&v(&["a"]), &[]), 0.0);
        assert_eq!(coverage(&v(&["fox", "dogs"]), &v(&["fox", "dog"])), 1.0);
        // 3 characters or fewer: equality only
        assert_eq!(coverage(&v(&["run"]), &v(&["runs"])), 0.0);
        // containment above 60% of the longer
        assert_eq!(coverage(&v(&["walking"]), &v(&["walk"])), 0.0);
        assert_eq!(coverage(&v(&["walks"]), &v(&["walk"])), 1.0);
        let e = elements_of(&v(&["the fox", "jump"]), &v(&["fox"]));
        assert_eq!(e.missing_elements, v(&["the", "jump"]));
        assert_eq!((e.element_counts.input, e.element_counts.output), (3, 1));
    }
}
