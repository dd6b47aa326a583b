//! The claim/verdict family of Mastra's scorers (faithfulness, hallucination, context
//! recall): preprocess (LLM: the claims of a text) → analyze (LLM: one verdict per claim,
//! judged against a context) → generateScore (pure) → generateReason (LLM).
//!
//! One scorer, [`ClaimScorer`], runs every member; a member is its folder: its registry entry
//! (`SPEC`, its steps from [`steps`]), a small [`ClaimMetric`] (labels, how it reads a run
//! into [`Texts`]: the claim text and the context source, the score function, its prompts)
//! and its wire types, declared with
//! [`claim_steps!`](crate::claim_steps) so each keeps its own schema names.
//!
//! Context precision is not a member: its verdicts are per retrieved context piece (by
//! `context_index`, sorted before scoring), with no preprocess step; see its folder.

pub mod prompts;

use super::common::judge_from_options;
use super::context::{context_option, nonempty_context_option};
pub use super::verdicts::{label_problem, normalize_labels};
use crate::engine::schema::StepOutput;
use crate::engine::{Judge, RunContext};
use crate::error::{ErrorCode, InvalidArgument, JudgeError};
use crate::options::scorer_number_in;
use crate::pipeline::{count_mismatch, Pipeline, RunError, ScoreResult};
use crate::run::RunInput;
use crate::scorers::spec::BuildContext;
use crate::scorers::spec::{ScorerSpec, StepMeta};
use crate::scorers::ScorerMeta;
use crate::text::{assistant_text, user_text};
use futures::future::BoxFuture;
use serde::Serialize;
use serde_json::{json, Value};

/// The judge's claims (`{ claims }`).
pub trait ClaimList: StepOutput {
    fn claims(self) -> Vec<String>;
}

/// One verdict as the judge sends it: its label is free text on the wire (as in Mastra).
pub trait VerdictItem: Serialize + Send + Sync {
    fn label(&self) -> &str;
    /// The claim the judge repeated in this verdict, for members whose prompt asks for it
    /// (faithfulness); `None` otherwise.
    fn claim(&self) -> Option<&str> {
        None
    }
}

/// A claim as compared for alignment: case, surrounding space, inner runs of whitespace and
/// trailing punctuation or quotes do not matter.
fn claim_key(s: &str) -> String {
    s.trim()
        .trim_end_matches(['.', '!', '?', '"', '\'', ' '])
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// How the verdicts line up with the claims, by the claim each verdict repeats: `None` to keep
/// them as sent, `Some(order)` for the verdict indices in claim order.
///
/// - No verdict, or some verdict repeats no claim: kept as sent (positional, Mastra's
///   behaviour; the count check warns).
/// - Every claim has a verdict with its text: the verdicts in claim order; verdicts naming
///   no claim (a duplicate or an invented one) are left out, so none shifts another.
/// - A claim has no verdict while the count differs from the claims': an error naming the
///   claims left without a verdict (positional verdicts would be shifted onto wrong claims).
/// - The counts agree but some text differs (the judge reworded a claim): positional.
pub fn alignment<I: VerdictItem>(
    claims: &[String],
    verdicts: &[I],
) -> Result<Option<Vec<usize>>, String> {
    if verdicts.is_empty() {
        return Ok(None);
    }
    let Some(texts) = verdicts
        .iter()
        .map(|v| v.claim().map(claim_key))
        .collect::<Option<Vec<String>>>()
    else {
        return Ok(None);
    };
    let wanted: Vec<String> = claims.iter().map(|c| claim_key(c)).collect();
    if texts == wanted {
        return Ok(None);
    }
    let mut used = vec![false; texts.len()];
    let mut order = Vec::with_capacity(wanted.len());
    let mut missing = Vec::new();
    for (i, w) in wanted.iter().enumerate() {
        match (0..texts.len()).find(|&j| !used[j] && texts[j] == *w) {
            Some(j) => {
                used[j] = true;
                order.push(j);
            }
            None => missing.push(i),
        }
    }
    if missing.is_empty() {
        return Ok(Some(order));
    }
    if verdicts.len() == claims.len() {
        return Ok(None);
    }
    let named: Vec<String> = missing
        .iter()
        .map(|&i| format!("claim {} ({:?})", i + 1, claims[i]))
        .collect();
    Err(format!(
        "the judge gave {} for {} and no verdict for {}",
        plural(verdicts.len(), "verdict"),
        plural(claims.len(), "claim"),
        named.join(", ")
    ))
}

/// The verdicts in claim order (see [`alignment`]).
pub fn align_verdicts<I: VerdictItem>(
    claims: &[String],
    verdicts: Vec<I>,
) -> Result<Vec<I>, String> {
    match alignment(claims, &verdicts)? {
        None => Ok(verdicts),
        Some(order) => {
            let mut slots: Vec<Option<I>> = verdicts.into_iter().map(Some).collect();
            Ok(order.into_iter().filter_map(|j| slots[j].take()).collect())
        }
    }
}

fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("{n} {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// The judge's verdicts (`{ verdicts: [...] }`).
pub trait VerdictList: StepOutput {
    type Item: VerdictItem;
    fn items(&self) -> &[Self::Item];
    fn into_items(self) -> Vec<Self::Item>;
}

/// What a member's prompts see of a run: the input text (the user message, if read), the
/// text whose claims are extracted, and where the context comes from.
pub struct Texts<C> {
    pub input: String,
    pub text: String,
    pub context: C,
}

/// Where a member's context comes from, per step (`analyze`, then `generateReason`); `args`
/// are the step results so far (what a host callback receives).
pub trait ContextSource: Send + Sync {
    fn for_step<'a>(
        &'a self,
        p: &'a Pipeline<'_>,
        step: &'static str,
        args: Value,
    ) -> BoxFuture<'a, Result<Vec<String>, RunError>>;
}

/// A context known before any judge call.
impl ContextSource for Vec<String> {
    fn for_step<'a>(
        &'a self,
        _: &'a Pipeline<'_>,
        _: &'static str,
        _: Value,
    ) -> BoxFuture<'a, Result<Vec<String>, RunError>> {
        Box::pin(async move { Ok(self.clone()) })
    }
}

/// A member's options after defaults (read top-level or under `options`).
pub trait ClaimOptions: Sized + Send + Sync {
    fn from_value(v: &Value, cx: &BuildContext) -> Result<Self, InvalidArgument>;
    /// The `scale` option: scores lie in `[0, scale]`.
    fn scale(&self) -> f64;
}

/// Largest accepted `scale` (keeps every score finite).
pub const MAX_SCALE: f64 = 1e6;

/// `{ scale = 1, context? }` (faithfulness, context recall); `NONEMPTY`: an empty `context`
/// option is a TypeError (as in Mastra's context scorers).
#[derive(Debug, Clone, PartialEq)]
pub struct ScaleOptions<const NONEMPTY: bool> {
    pub scale: f64,
    pub context: Option<Vec<String>>,
}

impl<const NONEMPTY: bool> Default for ScaleOptions<NONEMPTY> {
    fn default() -> Self {
        ScaleOptions {
            scale: 1.0,
            context: None,
        }
    }
}

impl<const NONEMPTY: bool> ClaimOptions for ScaleOptions<NONEMPTY> {
    fn from_value(v: &Value, _: &BuildContext) -> Result<Self, InvalidArgument> {
        Ok(ScaleOptions {
            scale: scale_option(v)?,
            context: match NONEMPTY {
                true => nonempty_context_option(v)?,
                false => context_option(v)?,
            },
        })
    }

    fn scale(&self) -> f64 {
        self.scale
    }
}

/// The `scale` option: greater than 0 and at most [`MAX_SCALE`], 1 by default.
pub fn scale_option(v: &Value) -> Result<f64, InvalidArgument> {
    scorer_number_in(v, "scale", (0.0, true), MAX_SCALE, 1.0)
}

/// The user's question (`""` without one) and the output's assistant text, whose claims
/// are judged; no assistant message is a TypeError naming the scorer.
pub fn output_texts(run: &RunInput, id: &str) -> Result<(String, String), InvalidArgument> {
    let text = assistant_text(&run.output).ok_or_else(|| {
        InvalidArgument::input(format!(
            "{id}: run.output has no assistant message to judge (only other roles); pass the agent's answer as a string or as assistant messages"
        ))
    })?;
    Ok((
        run.input.as_ref().and_then(user_text).unwrap_or_default(),
        text,
    ))
}

/// A member's verdicts as the judge sends them.
pub type Items<M> = [<<M as ClaimMetric>::Verdicts as VerdictList>::Item];

/// What makes one member: everything else (the judge, the run, count and label checks,
/// the step results) is [`ClaimScorer`]'s.
pub trait ClaimMetric: Sized + Send + Sync + 'static {
    const SPEC: &'static ScorerSpec;
    const INSTRUCTIONS: &'static str;
    /// The labels the judge may give; any other counts (and is recorded) as `COUNTED_AS`.
    const LABELS: &'static [&'static str];
    const COUNTED_AS: &'static str;
    /// Whether a lower score is better (hallucination).
    const LOWER_IS_BETTER: bool = false;
    /// The reason when the claim text is empty: a score of 0 without any judge call. `None`:
    /// the judge is asked anyway.
    const EMPTY_REASON: Option<&'static str> = None;
    /// The preprocess prompt from the claim text, and the analyze prompt.
    const EXTRACT_PROMPT: fn(&str) -> String;
    const JUDGE_PROMPT: fn(&[String], &[String]) -> String;
    type Claims: ClaimList;
    type Verdicts: VerdictList;
    /// Scorer options after defaults.
    type Options: ClaimOptions;
    type Context: ContextSource;

    /// Read the run (an input error names the scorer: a TypeError before any judge call).
    fn inputs(
        run: &RunInput,
        opts: &Self::Options,
    ) -> Result<Texts<Self::Context>, InvalidArgument>;
    fn score(claims: usize, verdicts: &Items<Self>, scale: f64) -> f64;
    /// The reason prompt from the run's texts, the context the reason step sees and the outcome.
    fn reason_prompt(t: &Texts<Self::Context>, context: &[String], o: &prompts::Outcome) -> String;
}

/// `getSteps()` of a member: its descriptions of preprocess, analyze and generateScore.
pub const fn steps<C: StepOutput, V: StepOutput>(
    preprocess: &'static str,
    analyze: &'static str,
    score: &'static str,
) -> [StepMeta; 4] {
    [
        StepMeta::judge("preprocess", preprocess, C::schema),
        StepMeta::judge("analyze", analyze, V::schema),
        StepMeta::function("generateScore", score),
        StepMeta::text("generateReason", "Explain the score"),
    ]
}

/// One verdict per claim, each label one of the member's (a soft expectation: the fallback
/// is told, then a warning).
pub fn verdict_problem<M: ClaimMetric>(v: &M::Verdicts, claims: usize) -> Option<String> {
    count_mismatch(v.items().len(), "verdict", claims, "claim").or_else(|| {
        label_problem(
            v.items().iter().map(|x| x.label()),
            M::LABELS,
            M::COUNTED_AS,
        )
    })
}

/// `analyzeStepResult`: the verdicts as sent, each label one of the member's.
fn analyze_step<M: ClaimMetric>(verdicts: &Items<M>) -> Value {
    let items = verdicts
        .iter()
        .map(|v| {
            let mut item = serde_json::to_value(v).unwrap_or_default();
            let label = M::LABELS.iter().find(|l| **l == v.label());
            item["verdict"] = json!(label.unwrap_or(&M::COUNTED_AS));
            item
        })
        .collect::<Vec<_>>();
    json!({ "verdicts": items })
}

/// The scorer of a claim/verdict member `M` (see `Faithfulness`, `Hallucination`,
/// `ContextRecall`).
pub struct ClaimScorer<M: ClaimMetric> {
    pub(crate) judge: Judge,
    pub(crate) opts: M::Options,
    meta: ScorerMeta,
}

impl<M: ClaimMetric> ClaimScorer<M> {
    /// Build from the factory options alone (nothing from the host).
    pub fn from_options(v: &Value) -> Result<Self, InvalidArgument> {
        Self::build(v, &BuildContext::default())
    }

    pub fn build(v: &Value, cx: &BuildContext) -> Result<Self, InvalidArgument> {
        let judge = judge_from_options(v, M::SPEC.factory, cx)?;
        let opts = M::Options::from_value(v, cx)?;
        Ok(Self::new(judge, opts))
    }

    pub fn new(judge: Judge, opts: M::Options) -> Self {
        let mut meta = ScorerMeta::agent(M::SPEC, &judge, M::INSTRUCTIONS).scaled(opts.scale());
        if M::LOWER_IS_BETTER {
            meta = meta.lower_is_better();
        }
        ClaimScorer { judge, opts, meta }
    }

    async fn run_inner(&self, run: RunInput, ctx: RunContext) -> Result<ScoreResult, RunError> {
        let inputs = M::inputs(&run, &self.opts)?;
        let scale = self.opts.scale();
        let mut p = Pipeline::new(&self.judge, &ctx, run.run_id);
        let empty = || json!({"verdicts": []});
        if let (Some(reason), true) = (M::EMPTY_REASON, inputs.text.trim().is_empty()) {
            // nothing to check: no judge call, Mastra's empty step results, a score of 0
            p.result.preprocess_step_result = Some(json!({"claims": []}));
            p.result.analyze_step_result = Some(empty());
            p.result.score = Some(0.0);
            p.result.reason = Some(reason.into());
            return p.finish();
        }

        let extract = (M::EXTRACT_PROMPT)(&inputs.text);
        let claims = p
            .preprocess::<M::Claims>(M::INSTRUCTIONS, extract)
            .await?
            .claims();
        let verdicts = if claims.is_empty() {
            p.result.analyze_step_result = Some(empty());
            Vec::new()
        } else {
            let args = json!({
                "results": {"preprocessStepResult": p.result.preprocess_step_result},
                "step": "analyze",
            });
            let context = inputs.context.for_step(&p, "analyze", args).await?;
            let prompt = (M::JUDGE_PROMPT)(&context, &claims);
            let want = claims.len();
            let judged = p
                .structured_expect::<M::Verdicts>("analyze", M::INSTRUCTIONS, &prompt, |v| {
                    // the re-ask names a skipped claim when the verdicts repeat theirs
                    alignment(&claims, v.items())
                        .err()
                        .or_else(|| verdict_problem::<M>(v, want))
                })
                .await?;
            p.result.analyze_prompt = Some(prompt);
            let items = align_verdicts(&claims, judged.value.into_items())
                .map_err(|msg| p.fail("analyze", JudgeError::new(ErrorCode::JudgeOutput, msg)))?;
            p.result.analyze_step_result = Some(analyze_step::<M>(&items));
            items
        };
        p.complete("analyze");

        let s = M::score(claims.len(), &verdicts, scale);
        p.result.score = Some(s);
        p.complete("generateScore");

        let args = json!({
            "results": {
                "preprocessStepResult": p.result.preprocess_step_result,
                "analyzeStepResult": p.result.analyze_step_result,
                "generateScoreStepResult": s,
            },
            "score": s,
            "step": "generateReason",
        });
        let context = inputs.context.for_step(&p, "generateReason", args).await?;
        let recorded = p.analyzed("verdicts");
        let outcome = prompts::Outcome {
            score: s,
            scale,
            verdicts: recorded,
        };
        let prompt = M::reason_prompt(&inputs, &context, &outcome);
        p.generate_reason(M::INSTRUCTIONS, prompt).await?;
        p.finish()
    }
}

impl<M: ClaimMetric> crate::scorers::Scorer for ClaimScorer<M> {
    fn meta(&self) -> &ScorerMeta {
        &self.meta
    }

    fn meta_mut(&mut self) -> &mut ScorerMeta {
        &mut self.meta
    }

    fn judge(&self) -> Option<&Judge> {
        Some(&self.judge)
    }

    fn run<'a>(
        &'a self,
        run: RunInput,
        ctx: RunContext,
    ) -> BoxFuture<'a, Result<ScoreResult, RunError>> {
        let ctx = ctx.for_scorer(&self.meta.id, &run);
        Box::pin(self.run_inner(run, ctx))
    }
}

/// A member's wire types: `Claims` (`{ claims }`, schema `$claims`) and `Verdicts`
/// (`{ verdicts: [$item] }`, schema `$verdicts`, labels trimmed and lowercased before
/// validation); `$item` has a `verdict: String` label.
#[macro_export]
macro_rules! claim_steps {
    ($(#[$claims_doc:meta])* $claims:literal, $verdicts:literal, $item:ty $(, claim: $claim:ident)?) => {
        $(#[$claims_doc])*
        #[derive(Debug, Clone, ::serde::Serialize, ::serde::Deserialize, ::schemars::JsonSchema)]
        pub struct Claims {
            pub claims: Vec<String>,
        }
        $crate::step_output!(Claims, $claims);

        impl $crate::scorers::llm::claims::ClaimList for Claims {
            fn claims(self) -> Vec<String> {
                self.claims
            }
        }

        /// analyze output as the judge sends it (Mastra's `{ verdicts: [...] }`).
        #[derive(Debug, Clone, ::serde::Serialize, ::serde::Deserialize, ::schemars::JsonSchema)]
        pub struct Verdicts {
            pub verdicts: Vec<$item>,
        }
        $crate::step_output!(Verdicts, $verdicts, normalize(json) {
            $crate::scorers::llm::claims::normalize_labels(json, "verdicts", "verdict");
        });

        impl $crate::scorers::llm::claims::VerdictList for Verdicts {
            type Item = $item;
            fn items(&self) -> &[$item] {
                &self.verdicts
            }
            fn into_items(self) -> Vec<$item> {
                self.verdicts
            }
        }

        impl $crate::scorers::llm::claims::VerdictItem for $item {
            fn label(&self) -> &str {
                &self.verdict
            }
            $(
                fn claim(&self) -> Option<&str> {
                    self.$claim.as_deref()
                }
            )?
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scorers::llm::faithfulness::Verdict;

    fn v(claim: Option<&str>, reason: &str) -> Verdict {
        Verdict {
            claim: claim.map(str::to_string),
            verdict: "yes".into(),
            reason: reason.into(),
        }
    }

    fn reasons(vs: &[Verdict]) -> Vec<&str> {
        vs.iter().map(|x| x.reason.as_str()).collect()
    }

    fn claims(cs: &[&str]) -> Vec<String> {
        cs.iter().map(|c| c.to_string()).collect()
    }

    #[test]
    fn alignment_table() {
        let cs = claims(&["A is 1.", "B is 2.", "A is 1."]);
        // in order: kept as sent
        let got = align_verdicts(
            &cs,
            vec![
                v(Some("A is 1."), "a"),
                v(Some("B is 2."), "b"),
                v(Some("A is 1."), "c"),
            ],
        )
        .unwrap();
        assert_eq!(reasons(&got), ["a", "b", "c"]);
        // out of order, case and final punctuation differ, a duplicate claim matched once each
        let got = align_verdicts(
            &cs,
            vec![
                v(Some("b is 2"), "b"),
                v(Some("A is 1"), "a1"),
                v(Some(" a  is 1. "), "a2"),
            ],
        )
        .unwrap();
        assert_eq!(reasons(&got), ["a1", "b", "a2"]);
        // an extra verdict naming no claim is left out once every claim has its own
        let got = align_verdicts(
            &cs,
            vec![
                v(Some("A is 1."), "a"),
                v(Some("C is 3."), "x"),
                v(Some("B is 2."), "b"),
                v(Some("A is 1."), "c"),
            ],
        )
        .unwrap();
        assert_eq!(reasons(&got), ["a", "b", "c"]);
        // one verdict without its claim: positional, whatever the count
        let got = align_verdicts(&cs, vec![v(Some("B is 2."), "b"), v(None, "n")]).unwrap();
        assert_eq!(reasons(&got), ["b", "n"]);
        // a reworded claim with the right count: positional
        let got = align_verdicts(
            &cs,
            vec![
                v(Some("A equals 1"), "a"),
                v(Some("B is 2."), "b"),
                v(Some("A is 1."), "c"),
            ],
        )
        .unwrap();
        assert_eq!(reasons(&got), ["a", "b", "c"]);
        // a skipped claim with a short list: the error names it
        let e = align_verdicts(&cs, vec![v(Some("A is 1."), "a"), v(Some("A is 1."), "c")])
            .unwrap_err();
        assert_eq!(
            e,
            "the judge gave 2 verdicts for 3 claims and no verdict for claim 2 (\"B is 2.\")"
        );
        // no verdict at all: nothing says which claims were meant, the count check warns instead
        assert!(align_verdicts::<Verdict>(&cs, vec![]).unwrap().is_empty());
    }
}
