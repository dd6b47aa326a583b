//! Ragas 0.4.3's `SemanticSimilarity` (`ragas.metrics.collections`): the cosine of the
//! embeddings of the response and the reference. As Ragas computes it: an empty text is
//! embedded as `" "`; each vector divided by its norm, then their dot product; with a
//! (non-zero) `threshold`, the score is `1` when the cosine is `>= threshold`, else `0`.
//! A vector of norm 0 would make Ragas's score NaN: here the run fails at `generateScore`.

use crate::embed::options::embedder_from_options;
use crate::embed::{EmbedRecord, Embedder};
use crate::engine::{Execution, RunContext};
use crate::error::{ErrorCode, InvalidArgument, JudgeError};
use crate::pipeline::{RunError, ScoreResult, ScorerFailure, StepJudge};
use crate::run::RunInput;
use crate::scorers::code::ragas::{texts, Texts, INPUTS};
use crate::scorers::spec::{boxed, schema_of, BuildContext, Kind, ScorerSpec, StepMeta};
use crate::scorers::ScorerMeta;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

const STEPS: [StepMeta; 3] = [
    StepMeta::function(
        "preprocess",
        "Read the response (output) and the reference (groundTruth)",
    ),
    StepMeta::function(
        "embed",
        "Embed the reference and the response (the embedder)",
    ),
    StepMeta::function(
        "generateScore",
        "The cosine of the two embeddings (1/0 by `threshold` when set)",
    ),
];

pub const SPEC: ScorerSpec = ScorerSpec {
    factory: "createSemanticSimilarityScorer",
    id: "ragas-semantic-similarity",
    name: "Semantic Similarity (Ragas)",
    description: "Ragas's SemanticSimilarity: the cosine similarity of the embeddings of the output and the ground truth",
    family: "ragas",
    type_name: "RagasSemanticSimilarity",
    kind: Kind::Code,
    inputs: INPUTS,
    run_fields: None,
    extractors: &[],
    options: schema_of::<JsOptions>,
    nested_options: None,
    preprocess: Some(schema_of::<Texts>),
    analyze: Some(schema_of::<Embedded>),
    steps: &STEPS,
    build: |v, cx| boxed(SemanticSimilarity::build(v, cx)),
};

/// The host calls it makes: the embedder, when it is a JS value.
pub const HOST_CALLS: &[crate::provider::external::HostCall] =
    &[crate::provider::external::HostCall::Embed];

#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct JsOptions {
    /// What embeds the texts (required): a model string such as
    /// `'openai/text-embedding-3-small'`, a model object `{ id, url, apiKey, headers }`
    /// (OpenAI, Azure OpenAI, Gemini, any OpenAI-compatible URL), an AI SDK `EmbeddingModel`
    /// or a function `(texts: string[]) => number[][] | Promise<number[][]>`.
    #[schemars(extend("x-oxeval-ts" = "import('../index').EmbedderOption"))]
    embedder: Value,
    /// Ragas's `threshold`: when set (and not 0, as in Ragas), the score is 1 when the
    /// cosine similarity is `>= threshold`, else 0. Default: none (the cosine itself).
    threshold: Option<f64>,
    /// Timeouts, retries and rate limits of the embeddings requests.
    #[schemars(extend("x-oxeval-ts" = "import('../index').ModelSettings"))]
    model_settings: Option<Value>,
    /// The response cache (one entry per text and model).
    #[schemars(extend("x-oxeval-ts" = "import('../index').CacheOption"))]
    cache: Option<Value>,
}

/// `analyzeStepResult`: what the embedder gave.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Embedded {
    /// The vectors' dimension.
    pub dimensions: usize,
    /// The cosine similarity (the score without `threshold`).
    pub similarity: f64,
}

pub struct SemanticSimilarity {
    meta: ScorerMeta,
    embedder: Embedder,
    threshold: Option<f64>,
}

impl SemanticSimilarity {
    fn build(v: &Value, cx: &BuildContext) -> Result<Self, InvalidArgument> {
        crate::options::options_object(v, SPEC.factory)?;
        let threshold = match v.get("threshold") {
            None | Some(Value::Null) => None,
            Some(t) => match t.as_f64() {
                Some(x) if x.is_finite() => Some(x),
                _ => {
                    return Err(InvalidArgument::options(format!(
                        "{}(): options.threshold must be a finite number; got {}",
                        SPEC.factory,
                        crate::error::type_name(t)
                    )))
                }
            },
        };
        Ok(SemanticSimilarity {
            meta: ScorerMeta::code(&SPEC, "agent"),
            embedder: embedder_from_options(v, SPEC.factory, cx)?,
            threshold,
        })
    }

    async fn run_inner(&self, run: RunInput, ctx: RunContext) -> Result<ScoreResult, RunError> {
        let t = texts(SPEC.id, &run)?;
        // Ragas: `reference or " "`, `response or " "`
        let reference = if t.reference.is_empty() {
            " "
        } else {
            &t.reference
        };
        let response = if t.response.is_empty() {
            " "
        } else {
            &t.response
        };
        let started = std::time::Instant::now();
        let mut record = EmbedRecord::default();
        let asked = [
            (reference, ctx.at_call("embed", "reference")),
            (response, ctx.at_call("embed", "response")),
        ];
        let judge = self.embedder.judge();
        let mut exec = Execution::pending("", judge.model_ref(), "embeddings");
        exec.judge_model_id = judge.model_ref().to_string();
        let vectors = self.embedder.embed(&asked, &mut record).await;
        exec.usage = record.usage.clone();
        exec.model_call_count = record.calls;
        exec.attempt_count = 1;
        exec.cached = record.cached == asked.len();
        let call = exec.finish(started, vectors.as_ref().map(|_| ()).map_err(Clone::clone));
        let mut partial = ScoreResult {
            run_id: run.run_id.clone(),
            preprocess_step_result: serde_json::to_value(&t).ok(),
            ..Default::default()
        };
        partial.judge.insert(
            "embed".into(),
            StepJudge {
                executions: vec![call.execution],
            },
        );
        let vectors = match vectors {
            Ok(v) => v,
            Err(e) => return Err(failure(partial, "embed", &["preprocess"], e)),
        };
        let similarity = match cosine(&vectors[0], &vectors[1]) {
            Ok(s) => s,
            Err(why) => {
                let e = JudgeError::new(ErrorCode::EmbedOutput, why);
                return Err(failure(
                    partial,
                    "generateScore",
                    &["preprocess", "embed"],
                    e,
                ));
            }
        };
        let score = score(similarity, self.threshold);
        partial.score = Some(score);
        partial.analyze_step_result = serde_json::to_value(Embedded {
            dimensions: vectors[0].len(),
            similarity,
        })
        .ok();
        Ok(partial)
    }
}

fn failure(result: ScoreResult, step: &str, done: &[&str], cause: JudgeError) -> RunError {
    RunError::Failed(Box::new(ScorerFailure {
        code: cause.code,
        message: format!("Scorer Run Failed: step '{step}' failed: {}", cause.message),
        failed_step: step.to_string(),
        completed_steps: done.iter().map(|s| s.to_string()).collect(),
        result,
        cause,
    }))
}

impl crate::scorers::Scorer for SemanticSimilarity {
    fn meta(&self) -> &ScorerMeta {
        &self.meta
    }

    fn meta_mut(&mut self) -> &mut ScorerMeta {
        &mut self.meta
    }

    /// The embedder's engine (its cache's stats and warnings).
    fn judge(&self) -> Option<&crate::engine::Judge> {
        Some(self.embedder.judge())
    }

    fn run<'a>(
        &'a self,
        run: RunInput,
        ctx: RunContext,
    ) -> futures::future::BoxFuture<'a, Result<ScoreResult, RunError>> {
        let ctx = ctx.for_scorer(&self.meta.id, &run);
        Box::pin(self.run_inner(run, ctx))
    }
}

/// numpy's `(a / ‖a‖) @ (b / ‖b‖)`; a zero vector is an error (Ragas: NaN).
pub fn cosine(a: &[f64], b: &[f64]) -> Result<f64, String> {
    let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
    let (na, nb) = (norm(a), norm(b));
    if na == 0.0 || nb == 0.0 || !na.is_finite() || !nb.is_finite() {
        return Err(format!(
            "an embedding has norm {}: its cosine similarity is undefined",
            if na == 0.0 || !na.is_finite() { na } else { nb }
        ));
    }
    let s: f64 = a.iter().zip(b).map(|(x, y)| (x / na) * (y / nb)).sum();
    if s.is_finite() {
        Ok(s)
    } else {
        Err("the cosine similarity is not a finite number".into())
    }
}

/// Ragas's score: the cosine, or with a truthy threshold `float(cosine >= threshold)`.
pub fn score(similarity: f64, threshold: Option<f64>) -> f64 {
    match threshold {
        Some(t) if t != 0.0 => f64::from(u8::from(similarity >= t)),
        _ => similarity,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cosine_and_threshold() {
        assert!((cosine(&[1.0, 0.0], &[1.0, 0.0]).unwrap() - 1.0).abs() < 1e-15);
        assert!(cosine(&[1.0, 0.0], &[0.0, 2.0]).unwrap().abs() < 1e-15);
        assert!((cosine(&[3.0, 4.0], &[4.0, 3.0]).unwrap() - 0.96).abs() < 1e-12);
        assert!(cosine(&[0.0, 0.0], &[1.0, 0.0]).is_err());
        assert_eq!(score(0.5, Some(0.5)), 1.0);
        assert_eq!(score(0.49, Some(0.5)), 0.0);
        // Ragas's `if self.threshold:`: 0 means no threshold
        assert_eq!(score(0.3, Some(0.0)), 0.3);
        assert_eq!(score(0.3, None), 0.3);
    }
}
