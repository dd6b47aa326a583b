//! Scorers. One folder per scorer, prompts beside the code.

pub mod code;
pub mod custom;
pub mod embedding;
pub mod extract;
pub mod llm;
pub mod registry;
pub mod spec;

pub use spec::{BuildContext, Kind, ScorerSpec, StepMeta};

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
    /// The spec's description, or one made from the factory's arguments (Mastra's checks
    /// and tool-call scorers name what they check).
    pub description: std::borrow::Cow<'static, str>,
    /// Mastra's `type`: `agent`, `trajectory`, or `""` for none (`undefined` in JS: prompt
    /// alignment, rubric, multi-turn judge).
    #[serde(rename = "type", skip_serializing_if = "str::is_empty")]
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
            description: spec.description.into(),
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

    /// Mastra's `type` of this scorer (`""`: none, `undefined` in JS).
    pub fn typed(mut self, kind: &'static str) -> Self {
        self.kind = kind;
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
    /// A scorer that waits on nothing (a code scorer without host calls) scores the run in
    /// this call: no future, no context, no runtime (`Ok`). Every other scorer gives the run
    /// back (`Err(run)`): its run is [`Scorer::run`]. Both give the same result for a run.
    fn run_now(&self, run: RunInput) -> Result<Result<ScoreResult, RunError>, Box<RunInput>> {
        Err(Box::new(run))
    }
}

/// `impl Scorer` for a scorer struct with a `meta: ScorerMeta` field and an
/// `async fn run_inner(&self, RunInput, RunContext) -> Result<ScoreResult, RunError>`: an
/// LLM scorer has a `judge: Judge` field; `impl_scorer!(T, code)` is a scorer without one;
/// `impl_scorer!(T, sync)` a scorer without one whose whole run is
/// `fn run_sync(&self, RunInput) -> Result<ScoreResult, RunError>` (it also answers
/// [`Scorer::run_now`]).
#[macro_export]
macro_rules! impl_scorer {
    ($t:ty, sync) => {
        impl $t {
            async fn run_inner(
                &self,
                run: $crate::run::RunInput,
                _ctx: $crate::engine::RunContext,
            ) -> Result<$crate::pipeline::ScoreResult, $crate::pipeline::RunError> {
                self.run_sync(run)
            }
        }
        $crate::impl_scorer!(@impl $t, _s => None, false, sync);
    };
    ($t:ty) => {
        $crate::impl_scorer!(@impl $t, s => Some(&s.judge), true);
    };
    // no judge, so no response cache: no call site to name (its item digest hashes the run)
    ($t:ty, code) => {
        $crate::impl_scorer!(@impl $t, _s => None, false);
    };
    (@impl $t:ty, $s:ident => $judge:expr, $site:literal) => {
        $crate::impl_scorer!(@impl $t, $s => $judge, $site, async);
    };
    (@now sync) => {
        fn run_now(
            &self,
            run: $crate::run::RunInput,
        ) -> Result<
            Result<$crate::pipeline::ScoreResult, $crate::pipeline::RunError>,
            Box<$crate::run::RunInput>,
        > {
            Ok(self.run_sync(run))
        }
    };
    (@now async) => {};
    (@impl $t:ty, $s:ident => $judge:expr, $site:literal, $now:ident) => {
        impl $crate::scorers::Scorer for $t {
            $crate::impl_scorer!(@now $now);

            fn meta(&self) -> &$crate::scorers::ScorerMeta {
                &self.meta
            }

            fn meta_mut(&mut self) -> &mut $crate::scorers::ScorerMeta {
                &mut self.meta
            }

            fn judge(&self) -> Option<&$crate::engine::Judge> {
                let $s = self;
                $judge
            }

            fn run<'a>(
                &'a self,
                run: $crate::run::RunInput,
                ctx: $crate::engine::RunContext,
            ) -> ::futures::future::BoxFuture<
                'a,
                Result<$crate::pipeline::ScoreResult, $crate::pipeline::RunError>,
            > {
                let ctx = if $site {
                    ctx.for_scorer(&self.meta.id, &run)
                } else {
                    ctx
                };
                Box::pin(self.run_inner(run, ctx))
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::spec::{boxed, schema_of, Inputs, Need};
    use super::*;
    use serde_json::{json, Value};

    /// A `code` scorer: no judge, no `judge` key in its metadata or its result.
    struct Constant {
        meta: ScorerMeta,
    }

    impl Constant {
        async fn run_inner(&self, run: RunInput, _: RunContext) -> Result<ScoreResult, RunError> {
            Ok(ScoreResult {
                run_id: run.run_id,
                score: Some(1.0),
                ..Default::default()
            })
        }
    }

    crate::impl_scorer!(Constant, code);

    static SPEC: ScorerSpec = ScorerSpec {
        factory: "createConstantScorer",
        id: "constant-scorer",
        name: "Constant Scorer",
        description: "Always 1",
        family: "mastra",
        type_name: "Constant",
        kind: Kind::Code,
        inputs: Inputs {
            input: Need::Unused,
            output: Need::Required,
            ground_truth: Need::Unused,
            context: Need::Unused,
        },
        run_fields: None,
        extractors: &[],
        nested_options: None,
        options: schema_of::<()>,
        preprocess: None,
        analyze: None,
        steps: &[StepMeta::function("generateScore", "Always 1")],
        build: |_, _| {
            boxed(Ok(Constant {
                meta: ScorerMeta::code(&SPEC, "agent"),
            }))
        },
    };

    #[tokio::test]
    async fn a_code_scorer_has_no_judge() {
        let s =
            crate::scorers::registry::build_spec(&SPEC, &json!({}), &Default::default()).unwrap();
        assert!(s.judge().is_none());
        let meta = serde_json::to_value(s.meta()).unwrap();
        assert_eq!(meta["type"], "agent");
        assert!(meta.get("judge").is_none());
        assert_eq!(
            meta["steps"],
            json!([{"name": "generateScore", "type": "function", "description": "Always 1"}])
        );
        let run = RunInput::from_value(json!({"output": "a"})).unwrap();
        let r = s.run(run, RunContext::default()).await.unwrap();
        let r: Value = serde_json::to_value(&r).unwrap();
        assert_eq!(r["score"], 1.0);
        assert!(r.get("judge").is_none());
    }
}
