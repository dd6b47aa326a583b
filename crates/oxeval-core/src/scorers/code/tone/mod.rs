//! Mastra's `createToneScorer`: AFINN-165 sentiment (npm `sentiment` 5.0.2: its word list,
//! emoji scores and negators) of the output's text, compared with a reference tone or, without
//! one, its stability across sentences. The input is not read.

use super::js_text::{is_js_space, js_lower, run_text, Side};
use crate::error::InvalidArgument;
use crate::options::opt_string;
use crate::pipeline::{RunError, ScoreResult};
use crate::run::RunInput;
use crate::scorers::spec::{boxed, schema_of, Inputs, Kind, Need, ScorerSpec, StepMeta};
use crate::scorers::ScorerMeta;
use schemars::JsonSchema;
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

pub const SPEC: ScorerSpec = ScorerSpec {
    factory: "createToneScorer",
    id: "tone-scorer",
    name: "Tone Scorer",
    description: "Analyzes the tone and sentiment of agent responses using sentiment analysis. Can compare against a reference tone or evaluate sentiment stability.",
    family: "mastra",
    type_name: "Tone",
    kind: Kind::Code,
    inputs: Inputs {
        input: Need::Unused,
        output: Need::Required,
        ground_truth: Need::Unused,
        context: Need::Unused,
    },
    run_fields: None,
    extractors: &[],
    options: schema_of::<JsOptions>,
    nested_options: None,
    preprocess: Some(schema_of::<Tone>),
    analyze: None,
    steps: &[
        StepMeta::function("preprocess", "Sentiment of the output against the reference tone, or its variance across sentences"),
        StepMeta::function("generateScore", "The preprocess step's score"),
    ],
    build: |v, _| boxed(ToneScorer::build(v)),
};

/// The factory's options.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct JsOptions {
    /// A text whose tone the output should match: score 1 − |comparative difference|
    /// (at least 0). Without it (or empty), the score is 1 − the variance of the output's
    /// sentence sentiments.
    reference_tone: Option<String>,
}

/// `preprocessStepResult`.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Tone {
    #[serde(rename_all = "camelCase")]
    Reference {
        score: f64,
        response_sentiment: f64,
        reference_sentiment: f64,
        difference: f64,
    },
    #[serde(rename_all = "camelCase")]
    Stability {
        score: f64,
        avg_sentiment: f64,
        sentiment_variance: f64,
    },
}

impl Tone {
    pub fn score(&self) -> f64 {
        match self {
            Tone::Reference { score, .. } | Tone::Stability { score, .. } => *score,
        }
    }
}

pub struct ToneScorer {
    meta: ScorerMeta,
    reference: Option<String>,
}

impl ToneScorer {
    fn build(v: &serde_json::Value) -> Result<Self, InvalidArgument> {
        let reference = opt_string(v, "referenceTone", "options")?
            .filter(|s| !s.is_empty())
            .map(str::to_owned);
        Ok(ToneScorer {
            meta: ScorerMeta::code(&SPEC, "agent"),
            reference,
        })
    }

    pub(crate) fn run_sync(&self, run: RunInput) -> Result<ScoreResult, RunError> {
        let output = run_text(Some(&run.output), Side::Output)?;
        let tone = tone(&output, self.reference.as_deref());
        Ok(super::text_result::<_, ()>(
            run.run_id,
            tone.score(),
            &tone,
            None,
        ))
    }
}

crate::impl_scorer!(ToneScorer, sync);

/// The preprocess step.
pub fn tone(text: &str, reference: Option<&str>) -> Tone {
    if let Some(r) = reference {
        let response = comparative(text);
        let reference = comparative(r);
        let difference = (response - reference).abs();
        return Tone::Reference {
            score: (1.0 - difference).max(0.0),
            response_sentiment: response,
            reference_sentiment: reference,
            difference,
        };
    }
    let mut parts = sentences(text);
    if parts.is_empty() {
        parts.push(text);
    }
    let values: Vec<f64> = parts.iter().map(|s| comparative(s)).collect();
    let n = values.len() as f64;
    let avg = values.iter().fold(0.0, |a, b| a + b) / n;
    let variance = values.iter().fold(0.0, |a, s| a + (s - avg) * (s - avg)) / n;
    Tone::Stability {
        score: (1.0 - variance).max(0.0),
        avg_sentiment: avg,
        sentiment_variance: variance,
    }
}

/// `text.match(/[^.!?]+[.!?]+/g)`: each run of other characters with the `.`/`!`/`?` run
/// that ends it; a trailing run without one is not a sentence.
fn sentences(text: &str) -> Vec<&str> {
    let end = |c: char| matches!(c, '.' | '!' | '?');
    let mut out = Vec::new();
    let mut rest = text;
    loop {
        let start = rest.trim_start_matches(end);
        let Some(body) = start.find(end) else { break };
        if body == 0 {
            break;
        }
        let after = start[body..].trim_start_matches(end);
        let len = start.len() - after.len();
        out.push(&start[..len]);
        rest = after;
    }
    out
}

/// AFINN-165 with the emoji scores over it (as `sentiment` assigns them).
static LABELS: LazyLock<HashMap<&'static str, i32>> = LazyLock::new(|| {
    let mut m = HashMap::with_capacity(4200);
    for data in [
        include_str!("../../../../data/afinn-165.tsv"),
        include_str!("../../../../data/emoji-sentiment.tsv"),
    ] {
        for line in data.lines() {
            if let Some((word, score)) = line.rsplit_once('\t') {
                m.insert(word, score.parse().expect("a vendored integer score"));
            }
        }
    }
    m
});

/// The 12 negators: a scored word right after one counts negated.
static NEGATORS: LazyLock<HashSet<&'static str>> = LazyLock::new(|| {
    include_str!("../../../../data/sentiment-negators.txt")
        .lines()
        .filter(|l| !l.is_empty())
        .collect()
});

/// `sentiment.analyze(text).comparative`: the tokens' scores summed / the token count.
/// Tokens: lowercased, newlines and `.,/#!?$%^&*;:{}=_\`"~()` to spaces, runs of two or more
/// whitespace characters to one space, trimmed, split on spaces (`""` is one empty token).
/// Only the 12 negators negate (Mastra's lookup also finds `Object.prototype` names such as
/// "constructor": not copied).
pub fn comparative(text: &str) -> f64 {
    let low = js_lower(text);
    // one pass over the lowercased text: a separator is a run of two or more whitespace
    // characters, a single space, or whitespace at either end (trimmed); a single other
    // whitespace character (a tab) stays inside its token
    let chars: Vec<(usize, char)> = low.char_indices().collect();
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let mut start: Option<usize> = None;
    let mut i = 0;
    while i < chars.len() {
        let (at, c) = chars[i];
        if is_token_space(c) {
            let mut j = i + 1;
            while j < chars.len() && is_token_space(chars[j].1) {
                j += 1;
            }
            let separator = j - i > 1 || c == ' ' || c == '\n' || is_tokenizer_punct(c);
            let at_end = j == chars.len();
            if separator || start.is_none() || at_end {
                if let Some(s) = start.take() {
                    spans.push((s, at));
                }
            }
            i = j;
            continue;
        }
        if start.is_none() {
            start = Some(at);
        }
        i += 1;
    }
    if let Some(s) = start {
        spans.push((s, low.len()));
    }
    let tokens: Vec<&str> = spans.iter().map(|&(a, b)| &low[a..b]).collect();
    if tokens.is_empty() {
        // `"".split(' ')` is one empty token, and "" scores nothing
        return 0.0;
    }
    let mut score = 0i64;
    for (i, t) in tokens.iter().enumerate() {
        if let Some(&v) = LABELS.get(t) {
            let negated = i > 0 && NEGATORS.contains(tokens[i - 1]);
            score += i64::from(if negated { -v } else { v });
        }
    }
    score as f64 / tokens.len() as f64
}

/// Characters the tokenizer turns into spaces: `\n` and ``.,/#!?$%^&*;:{}=_`"~()``.
fn is_tokenizer_punct(c: char) -> bool {
    matches!(
        c,
        '.' | ','
            | '/'
            | '#'
            | '!'
            | '?'
            | '$'
            | '%'
            | '^'
            | '&'
            | '*'
            | ';'
            | ':'
            | '{'
            | '}'
            | '='
            | '_'
            | '`'
            | '"'
            | '~'
            | '('
            | ')'
    )
}

/// Whitespace after the punctuation became spaces: JS `\s` or a replaced character.
fn is_token_space(c: char) -> bool {
    is_js_space(c) || is_tokenizer_punct(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_data_is_complete() {
        // 3382 AFINN-165 words and 767 emoji (no overlap); 12 negators
        assert_eq!(LABELS.len(), 3382 + 767);
        assert_eq!(NEGATORS.len(), 12);
        assert_eq!(LABELS.get("good"), Some(&3));
        assert_eq!(LABELS.get("😂"), Some(&1));
    }

    #[test]
    fn sentiment_edges() {
        assert_eq!(comparative(""), 0.0);
        assert_eq!(comparative("good"), 3.0);
        assert_eq!(comparative("not good"), -1.5);
        assert_eq!(comparative("constructor good"), 1.5);
        assert_eq!(comparative("GOOD!!! 😂"), 2.0);
        // a tab alone stays inside the token
        assert_eq!(comparative("good\tday"), 0.0);
        assert_eq!(comparative("good \t day"), 1.5);
    }

    #[test]
    fn sentences_and_scores() {
        assert_eq!(sentences("I love it. I hate it"), vec!["I love it."]);
        assert_eq!(sentences("..a!?b"), vec!["a!?"]);
        assert_eq!(sentences("no end"), Vec::<&str>::new());
        // one sentence: variance 0
        assert_eq!(tone("I love it. I hate it", None).score(), 1.0);
        // comparatives 1 and -1: variance 1
        let t = tone("I love it. I hate it.", None);
        assert_eq!(
            t,
            Tone::Stability {
                score: 0.0,
                avg_sentiment: 0.0,
                sentiment_variance: 1.0
            }
        );
        // empty output: one empty sentence
        assert_eq!(tone("", None).score(), 1.0);
        let t = tone("good", Some("bad"));
        assert_eq!(
            t,
            Tone::Reference {
                score: 0.0,
                response_sentiment: 3.0,
                reference_sentiment: -3.0,
                difference: 6.0
            }
        );
    }
}
