//! Ragas's `QuotedSpansAlignment`: the share of the response's quoted spans (text between two
//! quote marks of `"“”„‟'‘’`´` on one line, at least `minSpanWords` words) found verbatim in
//! the retrieved contexts joined by spaces; with `casefold` (default) both sides have
//! whitespace runs collapsed, are trimmed and lowercased. No quoted span → 1.

use super::{py_space, py_split};
use crate::error::InvalidArgument;
use crate::options::{scorer_bool, scorer_int_in};
use crate::pipeline::{RunError, ScoreResult};
use crate::run::RunInput;
use crate::scorers::llm::context::{retrieved_contexts, ContextSource};
use crate::scorers::spec::{boxed, schema_of, Inputs, Kind, Need, ScorerSpec, StepMeta};
use crate::scorers::ScorerMeta;
use crate::text::assistant_text;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

const STEPS: [StepMeta; 2] = [
    StepMeta::function(
        "preprocess",
        "Read the response (output), its quoted spans and the retrieved contexts",
    ),
    StepMeta::function(
        "generateScore",
        "The share of quoted spans found in the contexts (1 without quoted spans)",
    ),
];

pub const SPEC: ScorerSpec = ScorerSpec {
    factory: "createQuotedSpansAlignmentScorer",
    id: "ragas-quoted-spans-alignment",
    name: "Quoted Spans Alignment (Ragas)",
    description: "Ragas's QuotedSpansAlignment: the share of the output's quoted spans found verbatim in the retrieved contexts",
    family: "ragas",
    type_name: "RagasQuotedSpansAlignment",
    kind: Kind::Code,
    inputs: Inputs {
        input: Need::Unused,
        output: Need::Required,
        ground_truth: Need::Unused,
        context: Need::Required,
    },
    run_fields: None,
    extractors: &[],
    options: schema_of::<JsOptions>,
    nested_options: None,
    preprocess: Some(schema_of::<Preprocess>),
    analyze: None,
    steps: &STEPS,
    build: |v, _| boxed(QuotedSpansAlignment::build(v)),
};

/// The factory's options (Ragas's names in camelCase, its defaults).
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct JsOptions {
    /// Collapse whitespace and lowercase both sides before matching. Default `true`.
    casefold: Option<bool>,
    /// The fewest words a quoted span needs to count. Default 3.
    min_span_words: Option<u32>,
}

/// `preprocessStepResult`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Preprocess {
    /// The assistant's text of `run.output`.
    pub response: String,
    /// The quoted spans counted (trimmed).
    pub spans: Vec<String>,
    /// Per span, whether the contexts hold it.
    pub matched: Vec<bool>,
}

pub struct QuotedSpansAlignment {
    meta: ScorerMeta,
    casefold: bool,
    min_span_words: usize,
}

impl QuotedSpansAlignment {
    fn build(v: &Value) -> Result<Self, InvalidArgument> {
        Ok(QuotedSpansAlignment {
            meta: ScorerMeta::code(&SPEC, "agent"),
            casefold: scorer_bool(v, "casefold", true)?,
            min_span_words: scorer_int_in(v, "minSpanWords", 0, 100_000, 3)? as usize,
        })
    }

    pub(crate) fn run_sync(&self, run: RunInput) -> Result<ScoreResult, RunError> {
        let id = SPEC.id;
        let response = assistant_text(&run.output).ok_or_else(|| {
            InvalidArgument::input(format!(
                "{id}: run.output must be the response text (a string or assistant messages); got {}",
                crate::error::type_name(&run.output)
            ))
        })?;
        let contexts = retrieved_contexts(&run, None)?;
        if contexts.source == ContextSource::ToolResults && contexts.items.is_empty() {
            return Err(InvalidArgument::input(format!(
                "{id}: the retrieved contexts are missing: pass run.context (string[]) or tool results in run.output"
            ))
            .into());
        }
        let spans = extract_quoted_spans(&response, self.min_span_words);
        let matched = match_spans(&spans, &contexts.items, self.casefold);
        let hits = matched.iter().filter(|m| **m).count();
        let score = if spans.is_empty() {
            1.0
        } else {
            hits as f64 / spans.len() as f64
        };
        let pre = Preprocess {
            response,
            spans,
            matched,
        };
        Ok(super::super::text_result::<_, ()>(
            run.run_id, score, &pre, None,
        ))
    }
}

crate::impl_scorer!(QuotedSpansAlignment, sync);

fn is_quote(c: char) -> bool {
    matches!(
        c,
        '"' | '\u{201c}'
            | '\u{201d}'
            | '\u{201e}'
            | '\u{201f}'
            | '\''
            | '\u{2018}'
            | '\u{2019}'
            | '`'
            | '\u{b4}'
    )
}

/// `extract_quoted_spans`: `QUOTE_RE.finditer` (a quote, the shortest run without a newline,
/// a quote), each group trimmed, kept when it has at least `min_len` words.
pub fn extract_quoted_spans(answer: &str, min_len: usize) -> Vec<String> {
    let chars: Vec<char> = answer.chars().collect();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if is_quote(chars[i]) {
            let close = chars[i + 1..]
                .iter()
                .position(|&c| c == '\n' || is_quote(c))
                .map(|k| i + 1 + k)
                .filter(|&j| chars[j] != '\n');
            if let Some(j) = close {
                let group: String = chars[i + 1..j].iter().collect();
                let span = group.trim_matches(py_space);
                if py_split(span).count() >= min_len {
                    spans.push(span.to_string());
                }
                i = j + 1;
                continue;
            }
        }
        i += 1;
    }
    spans
}

/// `normalize_text`: whitespace runs → one space, trimmed, lowercased (Python's rules).
pub fn normalize_text(text: &str) -> String {
    py_split(text).collect::<Vec<_>>().join(" ").to_lowercase()
}

/// `count_matched_spans`' verdict per span.
pub fn match_spans(spans: &[String], sources: &[String], casefold: bool) -> Vec<bool> {
    let joined = sources.join(" ");
    let haystack = if casefold {
        normalize_text(&joined)
    } else {
        joined
    };
    spans
        .iter()
        .map(|s| {
            let needle = if casefold {
                normalize_text(s)
            } else {
                s.clone()
            };
            !needle.is_empty() && haystack.contains(&needle)
        })
        .collect()
}

/// The score of Ragas's `ascore` for texts (no quoted span → 1).
pub fn alignment(response: &str, contexts: &[String], casefold: bool, min_len: usize) -> f64 {
    let spans = extract_quoted_spans(response, min_len);
    if spans.is_empty() {
        return 1.0;
    }
    let m = match_spans(&spans, contexts, casefold);
    m.iter().filter(|b| **b).count() as f64 / spans.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ragas_cases() {
        let ctx = vec!["Machine learning models improve accuracy by 15%.".to_string()];
        let s = "The study found that \"machine learning models improve accuracy\".";
        assert_eq!(alignment(s, &ctx, true, 3), 1.0);
        assert_eq!(alignment(s, &ctx, false, 3), 0.0);
        assert_eq!(alignment("no quotes here", &ctx, true, 3), 1.0);
        assert_eq!(alignment("'two words' only", &ctx, true, 3), 1.0);
        assert_eq!(alignment("\"a b\nc\" d\"", &[], true, 1), 0.0);
        assert_eq!(extract_quoted_spans("\"a b\nc\" d\"", 1), [" d".trim()]);
        assert_eq!(extract_quoted_spans("it's 'one two three'", 3), ["s"; 0]);
    }
}
