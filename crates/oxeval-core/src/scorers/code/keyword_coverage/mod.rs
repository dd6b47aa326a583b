//! Mastra's `createKeywordCoverageScorer`: the share of the input's keywords (npm
//! `keyword-extractor` 0.0.28 with the SMART stop list) that the output has.

use super::js_text::{is_js_space, js_lower, js_trim, run_text, utf16_len, Side};
use crate::error::InvalidArgument;
use crate::pipeline::{RunError, ScoreResult};
use crate::run::RunInput;
use crate::scorers::spec::{boxed, schema_of, Kind, ScorerSpec, StepMeta};
use crate::scorers::ScorerMeta;
use schemars::JsonSchema;
use serde::Serialize;
use std::collections::HashSet;
use std::sync::LazyLock;

pub const SPEC: ScorerSpec = ScorerSpec {
    factory: "createKeywordCoverageScorer",
    id: "keyword-coverage-scorer",
    name: "Keyword Coverage Scorer",
    // sic: Mastra gives this scorer completeness's description
    description: "Leverage the nlp method from \"compromise\" to extract elements from the input and output and calculate the coverage.",
    family: "mastra",
    type_name: "KeywordCoverage",
    kind: Kind::Code,
    inputs: super::TEXT_INPUTS,
    run_fields: None,
    extractors: &[],
    options: schema_of::<JsOptions>,
    nested_options: None,
    preprocess: Some(schema_of::<Preprocess>),
    analyze: Some(schema_of::<Coverage>),
    steps: &[
        StepMeta::function("preprocess", "Keywords of the input's and the output's texts (stop words, digits, punctuation and HTML removed)"),
        StepMeta::function("analyze", "Count the input's keywords and those the output has"),
        StepMeta::function("generateScore", "Matched share of the input's keywords (1 when it has none)"),
    ],
    build: |v, _| boxed(KeywordCoverage::build(v)),
};

/// No options of its own (`id` and `name` only).
#[derive(JsonSchema)]
pub struct JsOptions {}

/// The two keyword sets. In JS they are `Set<string>`s as in Mastra (the core sends arrays
/// in insertion order; the facade rebuilds the Sets).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Keywords {
    #[schemars(extend("tsType" = "Set<string>"))]
    pub reference_keywords: Vec<String>,
    #[schemars(extend("tsType" = "Set<string>"))]
    pub response_keywords: Vec<String>,
}

/// `preprocessStepResult`: the keyword sets; when both texts are empty Mastra nests two
/// empty sets under `result` (kept as is).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Preprocess {
    Keywords(Keywords),
    BothEmpty { result: Keywords },
}

/// `analyzeStepResult`.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Coverage {
    pub total_keywords_length: u64,
    pub matched_keywords_length: u64,
}

pub struct KeywordCoverage {
    meta: ScorerMeta,
}

impl KeywordCoverage {
    fn build(_: &serde_json::Value) -> Result<Self, InvalidArgument> {
        Ok(KeywordCoverage {
            meta: ScorerMeta::code(&SPEC, "agent"),
        })
    }

    pub(crate) fn run_sync(&self, run: RunInput) -> Result<ScoreResult, RunError> {
        let input = run_text(run.input.as_ref(), Side::Input)?;
        let output = run_text(Some(&run.output), Side::Output)?;
        let (pre, cov, score) = coverage(&input, &output);
        Ok(super::text_result(run.run_id, score, &pre, Some(&cov)))
    }
}

crate::impl_scorer!(KeywordCoverage, sync);

/// The three steps: keyword sets, counts, score.
pub fn coverage(input: &str, output: &str) -> (Preprocess, Coverage, f64) {
    if input.is_empty() && output.is_empty() {
        let empty = Keywords {
            reference_keywords: vec![],
            response_keywords: vec![],
        };
        let cov = Coverage {
            total_keywords_length: 0,
            matched_keywords_length: 0,
        };
        return (Preprocess::BothEmpty { result: empty }, cov, 1.0);
    }
    let reference = keywords(input);
    let response = keywords(output);
    let cov = if reference.is_empty() && response.is_empty() {
        Coverage {
            total_keywords_length: 0,
            matched_keywords_length: 0,
        }
    } else {
        let have: HashSet<&str> = response.iter().map(String::as_str).collect();
        Coverage {
            total_keywords_length: reference.len() as u64,
            matched_keywords_length: reference
                .iter()
                .filter(|k| have.contains(k.as_str()))
                .count() as u64,
        }
    };
    let score = if cov.total_keywords_length == 0 {
        1.0
    } else {
        cov.matched_keywords_length as f64 / cov.total_keywords_length as f64
    };
    let pre = Preprocess::Keywords(Keywords {
        reference_keywords: reference,
        response_keywords: response,
    });
    (pre, cov, score)
}

/// The SMART stop list as keyword-extractor 0.0.28 ships it (571 words; data/README.md).
static STOPWORDS: LazyLock<HashSet<&'static str>> = LazyLock::new(|| {
    include_str!("../../../../data/smart-stopwords-en.txt")
        .lines()
        .filter(|l| !l.is_empty())
        .collect()
});

/// `keyword_extractor.extract(text, { language: 'english', remove_digits: true,
/// return_changed_case: true, remove_duplicates: true })`: HTML tags removed, split on each
/// whitespace character, punctuation and edge apostrophes removed (a URL kept whole and in
/// its case), one-character `_ @ & #` and all-digit words dropped, stop words dropped,
/// lowercased, first occurrences kept.
pub fn keywords(text: &str) -> Vec<String> {
    if text.is_empty() {
        return vec![];
    }
    let stripped = strip_tags(text);
    let text = js_trim(&stripped);
    if text.is_empty() {
        return vec![];
    }
    let mut out: Vec<String> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for word in text.split(is_js_space) {
        let url = is_url(word);
        let mut w = if url {
            word.to_string()
        } else {
            strip_punctuation(word)
        };
        if utf16_len(&w) == 1 && matches!(w.as_str(), "_" | "@" | "&" | "#") {
            w.clear();
        }
        if !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit()) {
            w.clear();
        }
        if w.is_empty() {
            continue;
        }
        let low = js_lower(&w);
        if STOPWORDS.contains(low.as_str()) {
            continue;
        }
        let kept = if url { w } else { low };
        if seen.insert(kept.clone()) {
            out.push(kept);
        }
    }
    out
}

/// `/https?:\/\/.*[\r\n]*/` matches (a word holds no line terminator).
fn is_url(w: &str) -> bool {
    w.contains("http://") || w.contains("https://")
}

/// `w.replace(/\.|,|;|!|\?|\(|\)|:|"|^'|'$|“|”|‘|’/g, "")`: one pass over the original word.
fn strip_punctuation(w: &str) -> String {
    let last = w.char_indices().last().map(|(i, _)| i);
    w.char_indices()
        .filter(|&(i, c)| {
            !(matches!(
                c,
                '.' | ',' | ';' | '!' | '?' | '(' | ')' | ':' | '"' | '“' | '”' | '‘' | '’'
            ) || (c == '\'' && (i == 0 || Some(i) == last)))
        })
        .map(|(_, c)| c)
        .collect()
}

/// `s.replace(/(<([^>]+)>)/gi, "")`: a `<`, at least one character that is not `>`, a `>`.
fn strip_tags(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(lt) = rest.find('<') {
        let after = &rest[lt + 1..];
        match after.find('>') {
            Some(gt) if gt > 0 => {
                out.push_str(&rest[..lt]);
                rest = &after[gt + 1..];
            }
            Some(_) => {
                // "<>": no tag here; go on after the '<'
                out.push_str(&rest[..lt + 1]);
                rest = after;
            }
            None => break,
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stop_list_is_complete() {
        // 571 entries, one listed twice
        assert_eq!(STOPWORDS.len(), 570);
        assert!(STOPWORDS.contains("a's") && STOPWORDS.contains("zero"));
    }

    #[test]
    fn extraction() {
        assert_eq!(
            keywords(r#"The 42 quick-brown, "fox" jumps!"#),
            vec!["quick-brown", "fox", "jumps"]
        );
        assert_eq!(
            keywords("<b>Bold</b> <i>text</i> a<>b"),
            vec!["bold", "text", "a<>b"]
        );
        assert_eq!(
            keywords("See https://Example.com/X, now"),
            vec!["https://Example.com/X,"]
        );
        assert_eq!(
            keywords("'quoted' it's rock'n'roll' # _ @x"),
            vec!["quoted", "rock'n'roll", "@x"]
        );
        assert_eq!(keywords("Fox fox FOX 123 1a"), vec!["fox", "1a"]);
        assert_eq!(keywords("   "), Vec::<String>::new());
        assert_eq!(keywords("a < b"), vec!["<"]);
    }

    #[test]
    fn score_edges() {
        let (pre, cov, s) = coverage("", "");
        assert_eq!(s, 1.0);
        assert_eq!(
            (cov.total_keywords_length, cov.matched_keywords_length),
            (0, 0)
        );
        assert!(matches!(pre, Preprocess::BothEmpty { .. }));
        assert_eq!(coverage("", "some text").2, 1.0);
        assert_eq!(coverage("The quick brown fox", "").2, 0.0);
        assert_eq!(coverage("the and of", "the").2, 1.0);
        let (_, cov, s) = coverage("quick brown fox", "brown fox");
        assert_eq!(
            (cov.total_keywords_length, cov.matched_keywords_length),
            (3, 2)
        );
        assert_eq!(s, 2.0 / 3.0);
    }
}
