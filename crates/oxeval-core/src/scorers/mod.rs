//! Scorers. One folder per scorer, prompts beside the code.

pub mod llm;
pub mod registry;
pub mod spec;

pub use spec::{Kind, ScorerSpec, StepMeta};

use crate::engine::RunContext;
use crate::pipeline::{RunError, ScoreResult};
use crate::run::RunInput;
use futures::future::BoxFuture;
use serde::Serialize;

/// `scorer.judge`.
#[derive(Debug, Clone, Serialize)]
pub struct JudgeMeta {
    /// The model id (`provider/model`); never the API key.
    pub model: String,
    pub instructions: &'static str,
}

/// What a scorer object exposes besides `run()`.
#[derive(Debug, Clone, Serialize)]
pub struct ScorerMeta {
    /// The spec's id, or the factory's `id` option.
    pub id: std::borrow::Cow<'static, str>,
    /// The spec's name, or the factory's `name` option.
    pub name: std::borrow::Cow<'static, str>,
    pub description: &'static str,
    #[serde(rename = "type")]
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judge: Option<JudgeMeta>,
    pub steps: &'static [StepMeta],
    /// Which way is better: `higher` (most scorers) or `lower` (hallucination, bias, toxicity).
    /// Worst items, threshold wording and report colours follow it.
    pub direction: Direction,
    /// Scores lie in `[0, scale]` (the scorer's `scale` option; 1 without one). Intervals
    /// respect this range.
    pub scale: f64,
}

/// Which way a scorer's score is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    #[default]
    Higher,
    Lower,
}

impl ScorerMeta {
    /// The metadata of an LLM-judged (`agent`) scorer: identity and steps from its spec.
    pub fn agent(
        spec: &'static ScorerSpec,
        judge: &crate::engine::Judge,
        instructions: &'static str,
    ) -> Self {
        ScorerMeta {
            judge: Some(JudgeMeta {
                model: judge.model_ref().to_string(),
                instructions,
            }),
            ..Self::code(spec, "agent")
        }
    }

    /// The metadata of a scorer without a judge (`code` kind): no `judge` key; `kind` is
    /// Mastra's `type` for it (`agent` for most of Mastra's code scorers, `trajectory`).
    pub fn code(spec: &'static ScorerSpec, kind: &'static str) -> Self {
        ScorerMeta {
            id: spec.id.into(),
            name: spec.name.into(),
            description: spec.description,
            kind,
            judge: None,
            steps: spec.steps,
            direction: Direction::Higher,
            scale: 1.0,
        }
    }

    /// Scores lie in `[0, scale]`.
    pub fn scaled(mut self, scale: f64) -> Self {
        self.scale = scale;
        self
    }

    /// A score where lower is better.
    pub fn lower_is_better(mut self) -> Self {
        self.direction = Direction::Lower;
        self
    }
}

pub trait Scorer: Send + Sync {
    fn meta(&self) -> &ScorerMeta;
    fn meta_mut(&mut self) -> &mut ScorerMeta;
    /// The scorer's judge (its cache statistics and pending warnings live there); `None` for
    /// a scorer without one (`code` kind).
    fn judge(&self) -> Option<&crate::engine::Judge>;
    fn run<'a>(
        &'a self,
        run: RunInput,
        ctx: RunContext,
    ) -> BoxFuture<'a, Result<ScoreResult, RunError>>;
}

/// `impl Scorer` for a scorer struct with a `meta: ScorerMeta` field and an
/// `async fn run_inner(&self, RunInput, RunContext) -> Result<ScoreResult, RunError>`.
#[macro_export]
macro_rules! impl_scorer {
    ($t:ty) => {
        impl $crate::scorers::Scorer for $t {
            fn meta(&self) -> &$crate::scorers::ScorerMeta {
                &self.meta
            }

            fn meta_mut(&mut self) -> &mut $crate::scorers::ScorerMeta {
                &mut self.meta
            }

            fn judge(&self) -> Option<&$crate::engine::Judge> {
                Some(&self.judge)
            }

            fn run<'a>(
                &'a self,
                run: $crate::run::RunInput,
                ctx: $crate::engine::RunContext,
            ) -> ::futures::future::BoxFuture<
                'a,
                Result<$crate::pipeline::ScoreResult, $crate::pipeline::RunError>,
            > {
                let ctx = ctx.for_scorer(&self.meta.id, &run);
                Box::pin(self.run_inner(run, ctx))
            }
        }
    };
}
