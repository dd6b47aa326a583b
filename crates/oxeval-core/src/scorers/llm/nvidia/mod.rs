//! NVIDIA's dual-judge metrics as Ragas defines them: AnswerAccuracy, ContextRelevance,
//! ResponseGroundedness.
//!
//! Each metric asks two independent judges (different prompts) for one integer rating,
//! both at once (one round trip). A judge whose rating is invalid, whose output cannot be
//! parsed or whose call fails is asked again, up to `maxRetries` attempts per judge; every
//! attempt is one [`Judge::structured`] call recorded under step `analyze`. The score is the
//! mean of the valid ratings, normalized to 0..1 (one valid → that one; none → a
//! [`ScorerFailure`](crate::pipeline::ScorerFailure) with
//! [`ErrorCode::NoValidJudgment`](crate::error::ErrorCode::NoValidJudgment), never NaN).
//! Not rounded.
//!
//! analyze (LLM: both judges) → generateScore (pure) → generateReason (pure).
//!
//! One scorer, [`NvidiaScorer`], runs every metric through the shared dual-judge core
//! ([`dual`]); a metric is its folder: its registry entry (`SPEC`) and a small
//! [`NvidiaMetric`] spec (rating scale, how it reads a run, its no-call shortcuts, its two
//! prompts), with the prompts beside it. The JS option schemas the three share are here.

pub mod answer_accuracy;
pub mod context_relevance;
pub mod dual;
pub mod response_groundedness;

pub use answer_accuracy::AnswerAccuracy;
pub use context_relevance::ContextRelevance;
pub use dual::{
    average, rate, reason, valid_rating, JudgeRun, Rating012, Rating024, RatingOutput, RatingScale,
    RatingValue, DEFAULT_MAX_ATTEMPTS, MAX_ATTEMPTS_LIMIT,
};
pub use response_groundedness::ResponseGroundedness;

use crate::engine::{Judge, RunContext};
use crate::error::InvalidArgument;
use crate::options::scorer_int_in;
use crate::pipeline::{RunError, ScoreResult};
use crate::run::RunInput;
use crate::scorers::llm::common::judge_from_options;
use crate::scorers::llm::context::context_option;
use crate::scorers::spec::BuildContext;
use crate::scorers::spec::{Need, ScorerSpec, StepMeta, StepSchemaFn};
use crate::scorers::ScorerMeta;
use dual::{score_dual, DualJudge};
use schemars::JsonSchema;
use serde_json::Value;
use std::marker::PhantomData;

/// What makes one NVIDIA metric: everything else (options, the two judges and their
/// retries, score, reason, records) is [`NvidiaScorer`]'s.
pub trait NvidiaMetric {
    /// The registry entry: factory, id, name, description, the run fields read (contexts:
    /// the `context` option is read only when they are), the steps (see [`steps`]).
    const SPEC: &'static ScorerSpec;
    /// The judges' system message (`scorer.judge.instructions`).
    const INSTRUCTIONS: &'static str;
    /// The judges' reply; its rating scale is the metric's.
    type Rating: RatingOutput;
    /// The texts the judges see, read from a run.
    type Inputs: Send + Sync;

    /// Read the run (an input error names the scorer). `context` is the factory's
    /// `context` option, for metrics that use contexts.
    fn inputs(run: &RunInput, context: Option<&[String]>) -> Result<Self::Inputs, InvalidArgument>;

    /// Why the score is 0 without any judge call (Ragas's shortcuts), if it is.
    fn trivial_zero(_inputs: &Self::Inputs) -> Option<&'static str> {
        None
    }

    /// The prompts of judge 1 and judge 2.
    fn prompts(inputs: &Self::Inputs) -> [String; 2];
}

/// The scorer of an NVIDIA metric `M` (see [`AnswerAccuracy`], [`ContextRelevance`],
/// [`ResponseGroundedness`]).
pub struct NvidiaScorer<M> {
    judge: Judge,
    max_attempts: u32,
    context: Option<Vec<String>>,
    meta: ScorerMeta,
    metric: PhantomData<fn() -> M>,
}

impl<M: NvidiaMetric> NvidiaScorer<M> {
    /// `{ model, modelSettings?, cache?, maxRetries = 5, context?: string[] }`: `maxRetries`
    /// is the attempts per judge (an integer from 1 to 20), top-level or under `options`;
    /// `context` is read only by metrics that use contexts.
    /// Build from the factory options alone (nothing from the host).
    pub fn from_options(v: &Value) -> Result<Self, InvalidArgument> {
        Self::build(v, &BuildContext::default())
    }

    pub fn build(v: &Value, cx: &BuildContext) -> Result<Self, InvalidArgument> {
        let judge = judge_from_options(v, M::SPEC.factory, cx)?;
        let max_attempts =
            scorer_int_in(v, "maxRetries", 1, MAX_ATTEMPTS_LIMIT, DEFAULT_MAX_ATTEMPTS)?;
        let context = if M::SPEC.inputs.context != Need::Unused {
            context_option(v)?
        } else {
            None
        };
        Ok(Self::new(judge, max_attempts, context))
    }

    pub fn new(judge: Judge, max_attempts: u32, context: Option<Vec<String>>) -> Self {
        let meta = ScorerMeta::agent(M::SPEC, &judge, M::INSTRUCTIONS);
        NvidiaScorer {
            judge,
            max_attempts,
            context,
            meta,
            metric: PhantomData,
        }
    }

    async fn run_inner(&self, run: RunInput, ctx: RunContext) -> Result<ScoreResult, RunError> {
        let inputs = M::inputs(&run, self.context.as_deref())?;
        score_dual::<M::Rating>(
            &self.judge,
            &ctx,
            run.run_id,
            M::trivial_zero(&inputs),
            DualJudge {
                system: M::INSTRUCTIONS,
                prompts: M::prompts(&inputs),
                max_attempts: self.max_attempts,
            },
        )
        .await
    }
}

/// Options of the NVIDIA metrics (besides `model`, `modelSettings`, `cache`).
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct JsOptions {
    /// Attempts per judge, an integer from 1 to 20. Default 5.
    max_retries: Option<u32>,
}

/// Options of the context metrics.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct JsContextOptions {
    /// Attempts per judge, an integer from 1 to 20. Default 5.
    max_retries: Option<u32>,
    /// Retrieved contexts used when the run has no `context` and no `contextExtractor` result.
    context: Option<Vec<String>>,
}

/// `getSteps()` of the three metrics: the two judges (`analyze`, replying `schema`), the
/// score and the reason.
pub(crate) const fn steps(
    analyze: &'static str,
    score: &'static str,
    schema: StepSchemaFn,
) -> [StepMeta; 3] {
    [
        StepMeta::judge("analyze", analyze, schema),
        StepMeta::function("generateScore", score),
        StepMeta::function("generateReason", "Explain the score from the two ratings"),
    ]
}

/// Fixed inputs for the tests that pin each metric's rendered prompts.
#[cfg(test)]
mod pin {
    pub const QUESTION: &str = "Who wrote \"Hamlet\"?\nAnswer briefly.";
    pub const RESPONSE: &str = "Shakespeare — in 1600.";
    pub const REFERENCE: &str = "William Shakespeare";
    pub const CONTEXT: &str = "Hamlet is a tragedy.\nIt was written by Shakespeare.";
}
