//! `createHallucinationScorer`: the share of the output's claims that the context contradicts
//! or does not support (higher = worse).
//!
//! preprocess (LLM: claims of the output) → analyze (LLM: per claim, `yes` = hallucinated,
//! `no` = supported, judged against the context only) → generateScore (pure) →
//! generateReason (LLM): a member of the claim/verdict family ([`super::claims`]).
//!
//! The context: `run.context`; else the `getContext({ run, results, step })` option, called
//! (as Mastra calls it) when the analyze prompt and the reason prompt are built; else the
//! `context` option; else the tool results in `run.output`. No static source and no
//! `getContext` is a TypeError before any judge call; a `getContext` that returns no context
//! fails the analyze step.

pub(super) mod prompts;

use super::callbacks::{host_function, HostFn};
use super::claims::{
    self, scale_option, ClaimMetric, ClaimOptions, ClaimScorer, ContextSource, Texts,
};
use super::context::{context_option, retrieved_contexts};
use crate::error::{type_name, ErrorCode, InvalidArgument, JudgeError};
use crate::pipeline::{Pipeline, RunError};
use crate::run::RunInput;
use crate::scorers::spec::{boxed, schema_of, BuildContext, Inputs, Kind, Need, ScorerSpec};
use crate::text::round2_half_up;
use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use prompts::INSTRUCTIONS;

pub const ID: &str = "hallucination-scorer";

/// How `getContext` is described in messages.
const GET_CONTEXT_SIGNATURE: &str =
    "({ run, results, score?, step }) => string[] | Promise<string[]>";

/// The registry entry.
pub const SPEC: ScorerSpec = ScorerSpec {
    factory: "createHallucinationScorer",
    id: ID,
    name: "Hallucination Scorer",
    description: "Evaluates how much of the output contradicts or is unsupported by the provided context, with an LLM judge (higher is worse)",
    family: "mastra",
    type_name: "Hallucination",
    kind: Kind::Llm,
    inputs: Inputs {
        input: Need::Optional,
        output: Need::Required,
        ground_truth: Need::Unused,
        context: Need::Required,
    },
    run_fields: None,
    extractors: &[],
    nested_options: Some("Mastra's form; merged with the defaults (top-level keys win)."),
    options: schema_of::<JsOptions>,
    preprocess: Some(schema_of::<Claims>),
    analyze: Some(schema_of::<AnalyzeStep>),
    steps: &claims::steps::<Claims, Verdicts>(
        "Extract the claims of the output",
        "Check each claim against the context for contradictions and unsupported assertions",
        "Share of hallucinated claims",
    ),
    build: |v, cx| boxed(Hallucination::build(v, cx)),
};

/// The TypeScript type of `getContext` (a function: the JSON schema cannot say it).
macro_rules! get_context_ts {
    () => {
        "(params: { run: ScorerRun & { runId: string }; results: Record<string, unknown>; score?: number; step: 'analyze' | 'generateReason' }) => string[] | Promise<string[]>"
    };
}

/// The scorer's own factory options, top-level or under `options` (Mastra's form).
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct JsOptions {
    /// Multiplies the score, greater than 0 and at most 1e6. Default 1.
    scale: Option<f64>,
    /// The context to check the output against, when the run has no `context` and there is
    /// no `getContext`.
    context: Option<Vec<String>>,
    /// Called (as Mastra calls it) when the analyze prompt and the reason prompt are built,
    /// with the run, the step results so far and the step; returns the context. Used when the
    /// run has no `context` of its own; wins over the `context` option.
    #[schemars(extend("tsType" = get_context_ts!()))]
    get_context: Option<Value>,
}

crate::claim_steps!(
    /// preprocess output (Mastra's `{ claims }`).
    "hallucination_claims",
    "hallucination_verdicts",
    Verdict
);

/// One verdict as the judge sends it (the label is free text on the wire, as in Mastra).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Verdict {
    pub statement: String,
    pub verdict: String,
    pub reason: String,
}

/// Whether a claim is a hallucination.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Label {
    /// Hallucinated: the context contradicts it or does not support it.
    Yes,
    /// Supported by the context.
    No,
}

/// One claim's verdict in `analyzeStepResult`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct StepVerdict {
    pub statement: String,
    pub verdict: Label,
    pub reason: String,
}

/// `analyzeStepResult`: the judge's verdicts, labels normalized (a label the fallback did not
/// fix is recorded as `no`, with a warning; Mastra's math does not count it either).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct AnalyzeStep {
    pub verdicts: Vec<StepVerdict>,
}

/// Scorer options after defaults.
#[derive(Debug, Clone)]
pub struct Options {
    pub scale: f64,
    pub context: Option<Vec<String>>,
    pub get_context: Option<HostFn>,
}

impl ClaimOptions for Options {
    fn from_value(v: &Value, cx: &BuildContext) -> Result<Self, InvalidArgument> {
        Ok(Options {
            scale: scale_option(v)?,
            context: context_option(v)?,
            get_context: host_function(v, cx, "getContext", GET_CONTEXT_SIGNATURE)?,
        })
    }

    fn scale(&self) -> f64 {
        self.scale
    }
}

/// Mastra's formula: #yes (hallucinated) / #verdicts × scale, rounded half up to 2
/// decimals; 0 without verdicts. Labels are compared trimmed and lowercased.
pub fn score(verdicts: &[Verdict], scale: f64) -> f64 {
    if verdicts.is_empty() {
        return 0.0;
    }
    let yes = verdicts
        .iter()
        .filter(|v| v.verdict.trim().eq_ignore_ascii_case("yes"))
        .count();
    round2_half_up(yes as f64 / verdicts.len() as f64 * scale)
}

/// Where the run's context comes from.
pub enum Source {
    /// Known before any judge call.
    Fixed(Vec<String>),
    /// `getContext`, called per step.
    Callback(HostFn),
}

/// Where the run's context comes from: the run's own, else `getContext`, else the
/// `context` option or the tool results.
fn source(opts: &Options, run: &RunInput) -> Result<Source, InvalidArgument> {
    let own = run.raw.get("context").is_some_and(|c| !c.is_null());
    if let (false, Some(f)) = (own, &opts.get_context) {
        return Ok(Source::Callback(f.clone()));
    }
    let contexts = retrieved_contexts(run, opts.context.as_deref())?;
    if contexts.items.is_empty() {
        return Err(InvalidArgument::input(format!(
            "{ID}: there is no context to check the output against ({} gave none); looked at run.context, the scorer's getContext and context options and the tool results in run.output",
            contexts.source.describe()
        )));
    }
    Ok(Source::Fixed(contexts.items))
}

/// `createHallucinationScorer({ model, scale?, context?, getContext? })`.
pub type Hallucination = ClaimScorer<HallucinationMetric>;

/// The hallucination member of the claim/verdict family.
pub struct HallucinationMetric;

impl ContextSource for Source {
    fn for_step<'a>(
        &'a self,
        p: &'a Pipeline<'_>,
        step: &'static str,
        args: Value,
    ) -> BoxFuture<'a, Result<Vec<String>, RunError>> {
        Box::pin(context_for(self, p, step, args))
    }
}

/// The context for `step`: the fixed one, or what `getContext` returns for it.
async fn context_for(
    source: &Source,
    p: &Pipeline<'_>,
    step: &str,
    args: Value,
) -> Result<Vec<String>, RunError> {
    let f = match source {
        Source::Fixed(items) => return Ok(items.clone()),
        Source::Callback(f) => f,
    };
    let value = f
        .call(p.ctx, &p.result.run_id, args)
        .await
        .map_err(|e| p.fail(step, e))?;
    let bad = |m: String| p.fail(step, JudgeError::new(ErrorCode::ContextExtractor, m));
    let Value::Array(items) = value else {
        return Err(bad(format!(
            "getContext must return an array of strings (or a promise of one); got {}",
            type_name(&value)
        )));
    };
    let items = items
        .into_iter()
        .enumerate()
        .map(|(i, v)| match v {
            Value::String(s) => Ok(s),
            other => Err(bad(format!(
                "getContext's result[{i}] must be a string; got {}",
                type_name(&other)
            ))),
        })
        .collect::<Result<Vec<String>, RunError>>()?;
    if items.is_empty() && step == "analyze" {
        return Err(bad(format!(
            "{ID}: getContext returned no context for the analyze step; there is nothing to check the claims against"
        )));
    }
    Ok(items)
}

impl ClaimMetric for HallucinationMetric {
    const SPEC: &'static ScorerSpec = &SPEC;
    const INSTRUCTIONS: &'static str = INSTRUCTIONS;
    const LABELS: &'static [&'static str] = &["yes", "no"];
    const COUNTED_AS: &'static str = "no";
    const LOWER_IS_BETTER: bool = true;
    const EMPTY_REASON: Option<&'static str> = Some(
        "The score is 0 because the output is empty: it makes no claim that could be a hallucination.",
    );
    const EXTRACT_PROMPT: fn(&str) -> String = prompts::extract_prompt;
    const JUDGE_PROMPT: fn(&[String], &[String]) -> String = prompts::judge_prompt;
    type Claims = Claims;
    type Verdicts = Verdicts;
    type Options = Options;
    type Context = Source;

    fn inputs(run: &RunInput, opts: &Options) -> Result<Texts<Source>, InvalidArgument> {
        let context = source(opts, run)?;
        let (input, text) = claims::output_texts(run, ID)?;
        Ok(Texts {
            input,
            text,
            context,
        })
    }

    fn score(_claims: usize, verdicts: &[Verdict], scale: f64) -> f64 {
        score(verdicts, scale)
    }

    fn reason_prompt(t: &Texts<Source>, c: &[String], o: &claims::prompts::Outcome) -> String {
        claims::prompts::output_reason_prompt(&prompts::REASON, t, c, o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::RunContext;
    use serde_json::json;

    fn verdict_problem(v: &Verdicts, claims: usize) -> Option<String> {
        super::super::claims::verdict_problem::<HallucinationMetric>(v, claims)
    }

    fn v(labels: &[&str]) -> Vec<Verdict> {
        labels
            .iter()
            .map(|l| Verdict {
                statement: String::new(),
                verdict: l.to_string(),
                reason: String::new(),
            })
            .collect()
    }

    #[test]
    fn score_table() {
        let cases: Vec<(Vec<Verdict>, f64, f64)> = vec![
            // no claims → 0 (nothing hallucinated)
            (v(&[]), 1.0, 0.0),
            (v(&[]), 7.0, 0.0),
            // all one way
            (v(&["yes", "yes"]), 1.0, 1.0),
            (v(&["no", "no", "no"]), 1.0, 0.0),
            // mixes: higher is worse
            (v(&["yes", "no", "no"]), 1.0, 0.33),
            (v(&["yes", "yes", "no"]), 1.0, 0.67),
            (v(&["yes", "no"]), 1.0, 0.5),
            // scale
            (v(&["yes", "no", "no"]), 10.0, 3.33),
            (v(&["yes", "no"]), 3.0, 1.5),
            // half up: 5/8 = 0.625 → 0.63
            (
                v(&["yes", "yes", "yes", "yes", "yes", "no", "no", "no"]),
                1.0,
                0.63,
            ),
            // trimmed and lowercased (Mastra compares exactly: a deliberate difference)
            (v(&[" YES", "No "]), 1.0, 0.5),
            // anything else is not a hallucination
            (v(&["unsure", "hallucinated"]), 1.0, 0.0),
        ];
        for (verdicts, scale, want) in cases {
            let got = score(&verdicts, scale);
            assert_eq!(
                got,
                want,
                "{:?} × {scale}",
                verdicts.iter().map(|r| &r.verdict).collect::<Vec<_>>()
            );
            assert!(got.is_finite());
        }
    }

    #[test]
    fn options() {
        let o = |v: Value| Options::from_value(&v, &BuildContext::default());
        let d = o(json!({})).unwrap();
        assert_eq!(
            (d.scale, d.context, d.get_context.is_none()),
            (1.0, None, true)
        );
        assert_eq!(o(json!({"options": {"scale": 4}})).unwrap().scale, 4.0);
        assert_eq!(
            o(json!({"scale": 2, "options": {"scale": 4}}))
                .unwrap()
                .scale,
            2.0
        );
        for (bad, want) in [
            (
                json!({"scale": 0}),
                "options.scale must be a number greater than 0 and at most 1000000; got 0",
            ),
            (
                json!({"options": {"getContext": "ctx"}}),
                "options.options.getContext must be a function ({ run, results, score?, step }) => string[] | Promise<string[]>; got string",
            ),
            (
                json!({"getContext": ["a"]}),
                "options.getContext must be a function",
            ),
            (
                json!({"context": [1]}),
                "options.context[0] must be a string; got number",
            ),
        ] {
            let e = o(bad.clone()).unwrap_err();
            assert!(e.message.contains(want), "{bad}: {}", e.message);
        }
    }

    #[test]
    fn verdict_expectations() {
        let vs = |labels: &[&str]| Verdicts {
            verdicts: v(labels),
        };
        assert_eq!(verdict_problem(&vs(&["yes", "no"]), 2), None);
        assert_eq!(
            verdict_problem(&vs(&["yes", "no"]), 3).unwrap(),
            "2 verdicts for 3 claims"
        );
        assert_eq!(
            verdict_problem(&vs(&["unsure"]), 1).unwrap(),
            "verdict 1 (\"unsure\") is not yes or no (counted as no)"
        );
    }

    fn scorer(get_context: Option<HostFn>) -> Hallucination {
        let mut s = Hallucination::from_options(
            &json!({"model": {"id": "openai/x", "url": "http://127.0.0.1:9/v1"}}),
        )
        .unwrap();
        s.opts.get_context = get_context;
        s
    }

    #[tokio::test]
    async fn context_sources() {
        let run = |v: Value| RunInput::from_value(v).unwrap();
        let s = scorer(None);
        let e = source(&s.opts, &run(json!({"output": "a"}))).err().unwrap();
        assert!(e.message.starts_with("hallucination-scorer: there is no context to check the output against (the tool results in run.output gave none)"), "{}", e.message);
        assert!(source(&s.opts, &run(json!({"output": "a", "context": []}))).is_err());
        assert!(matches!(
            source(&s.opts, &run(json!({"output": "a", "context": ["c"]}))),
            Ok(Source::Fixed(c)) if c == ["c"]
        ));
        // getContext: used when the run has no context of its own
        let f = HostFn::from_fn("getContext", |_| Ok(json!(["from getContext"])));
        let s = scorer(Some(f));
        assert!(matches!(
            source(&s.opts, &run(json!({"output": "a"}))),
            Ok(Source::Callback(_))
        ));
        assert!(matches!(
            source(&s.opts, &run(json!({"output": "a", "context": ["c"]}))),
            Ok(Source::Fixed(_))
        ));
    }

    #[tokio::test]
    async fn get_context_results_are_checked() {
        let judge_scorer = scorer(None);
        let ctx = RunContext::default();
        let p = Pipeline::new(&judge_scorer.judge, &ctx, "r".into());
        for (reply, step, want) in [
            (
                json!("ctx"),
                "analyze",
                "getContext must return an array of strings (or a promise of one); got string",
            ),
            (
                json!(["a", 2]),
                "analyze",
                "getContext's result[1] must be a string; got number",
            ),
            (
                json!([]),
                "analyze",
                "getContext returned no context for the analyze step",
            ),
        ] {
            let r = reply.clone();
            let src = Source::Callback(HostFn::from_fn("getContext", move |_| Ok(r.clone())));
            match src.for_step(&p, step, json!({})).await {
                Err(RunError::Failed(f)) => {
                    assert_eq!(
                        (f.failed_step.as_str(), f.code),
                        (step, ErrorCode::ContextExtractor)
                    );
                    assert!(f.message.contains(want), "{reply}: {}", f.message);
                }
                other => panic!("{reply}: {:?}", other.ok()),
            }
        }
        // an empty list for the reason step is accepted (the reason only explains)
        let src = Source::Callback(HostFn::from_fn("getContext", |_| Ok(json!([]))));
        assert_eq!(
            src.for_step(&p, "generateReason", json!({})).await.ok(),
            Some(vec![])
        );
    }
}
