//! `createClassifierScorer`: @mastra/core 1.71's classifier scorer (`@mastra/core/evals`),
//! answered by oxeval's judges. analyze (the state from the `state` function, then ONE
//! answer to the scorer's question: from an oxeval judge, one structured call, or from an
//! evaluation model given as `model`, `doEvaluate` through the host) → generateScore (pure:
//! a choice's configured score, a level / (levels − 1), P(true)) → generateReason (pure:
//! Mastra's sentence). `analyzeStepResult` is Mastra's evidence plus `probabilitySource`.

mod answer;
mod evaluate;
mod judged;
mod logprobs;
mod prompts;
mod question;

use super::callbacks::{host_function, HostFn};
use super::common::judge_from_options;
use crate::engine::schema::StepOutput;
use crate::engine::{Judge, RunContext};
use crate::error::{type_name, ErrorCode, InvalidArgument, JudgeError};
use crate::options::scorer_value;
use crate::pipeline::{Pipeline, RunError, ScoreResult};
use crate::provider::external::Host;
use crate::run::RunInput;
use crate::scorers::spec::{
    boxed, schema_of, BuildContext, Inputs, Kind, Need, ScorerSpec, StepMeta,
};
use crate::scorers::ScorerMeta;
use question::Question;
use schemars::JsonSchema;
use serde_json::{json, Value};
use std::sync::Arc;

pub use answer::{check as check_answer, Rounding};
pub use judged::Stated;
pub use prompts::INSTRUCTIONS;

pub const ID: &str = "classifier-scorer";

/// Mastra's default `maxRetries` of an evaluation call; the most accepted.
pub const DEFAULT_MAX_RETRIES: u32 = 2;
pub const MAX_RETRIES: u32 = 20;

/// The registry entry.
pub const SPEC: ScorerSpec = ScorerSpec {
    factory: "createClassifierScorer",
    id: ID,
    name: "Classifier Scorer",
    description: "Scores one question of a classifier (choice, score or boolean) about a state the scorer selects from the run",
    family: "mastra",
    type_name: "Classifier",
    kind: Kind::Llm,
    inputs: Inputs {
        input: Need::Optional,
        output: Need::Optional,
        ground_truth: Need::Optional,
        context: Need::Unused,
    },
    run_fields: None,
    extractors: &[],
    nested_options: None,
    options: schema_of::<JsOptions>,
    preprocess: None,
    analyze: Some(schema_of::<Evidence>),
    steps: &[
        StepMeta::judge(
            "analyze",
            "Answer the classifier's question about the state (a label and its probabilities)",
            <Stated as StepOutput>::schema,
        ),
        StepMeta::function(
            "generateScore",
            "A choice's configured score, a level over the top level, or P(true)",
        ),
        StepMeta::function("generateReason", "Mastra's sentence naming the answer"),
    ],
    build: |v, cx| boxed(ClassifierScorer::build(v, cx)),
};

macro_rules! state_ts {
    () => {
        "(context: { run: ScorerRun & { runId: string }; results: Record<string, unknown> }) => unknown | Promise<unknown>"
    };
}

/// The classifier: its questions (Mastra's `Classifier` with configured questions, or the
/// same as data).
#[derive(JsonSchema)]
#[allow(dead_code)]
pub struct ClassifierOption {
    /// Its id (shown in messages).
    id: Option<String>,
    /// The questions, by id: `{ type: 'choice', instructions?, criteria: { [option]: description | null } }`,
    /// `{ type: 'score', instructions?, criteria: (description | null)[] }` (levels 0..n-1, n ≥ 2) or
    /// `{ type: 'boolean', instructions?, criteria?: { true?, false? } }`. `instructions` defaults to the id.
    #[schemars(extend("tsType" = "Record<string, { type: 'choice'; instructions?: unknown; criteria: Record<string, unknown> } | { type: 'score'; instructions?: unknown; criteria: readonly unknown[] } | { type: 'boolean'; instructions?: unknown; criteria?: { true?: unknown; false?: unknown } }>"))]
    questions: Value,
}

/// The scorer's own factory options.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct JsOptions {
    /// The scorer's id (Mastra requires one). Default `classifier-scorer`.
    id: Option<String>,
    /// Default `Scores question '<question>' with a configured classifier`.
    description: Option<String>,
    /// The classifier: a Mastra `Classifier` constructed with questions (its evaluation
    /// model answers unless `model` is given), or `{ id?, questions }`.
    classifier: ClassifierOption,
    /// Which of the classifier's questions this scorer scores.
    question: String,
    /// Selects the state the classifier judges from the run (Mastra's `state`), called once
    /// per run; its value must be JSON data.
    #[schemars(extend("tsType" = state_ts!()))]
    state: Option<Value>,
    /// A choice question's score per option: every option, each a number in [0, 1]. Only for
    /// a choice question.
    scores: Option<std::collections::BTreeMap<String, f64>>,
    /// Retries of a retryable evaluation-model failure (default 2, at most 20); for an oxeval
    /// judge, `modelSettings.maxRetries` when that is not set.
    max_retries: Option<u32>,
    /// Passed to an evaluation model's `doEvaluate` as it is; an oxeval judge does not read it
    /// (a warning says so).
    #[schemars(extend("tsType" = "Record<string, Record<string, unknown>>"))]
    provider_options: Option<Value>,
}

/// `analyzeStepResult`: Mastra's evidence (`question`, `answer`, `usage`, `warnings`,
/// `rounding?`, `providerMetadata?`, `response`) and where the probabilities came from.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct Evidence {
    question: String,
    /// `{ type: 'choice', choice, probabilities? }`, `{ type: 'score', score, probabilities? }`
    /// or `{ type: 'boolean', probability }`.
    #[schemars(extend("tsType" = "{ type: 'choice'; choice: string; probabilities?: Record<string, number> } | { type: 'score'; score: number; probabilities?: Record<string, number> } | { type: 'boolean'; probability: number }"))]
    answer: Value,
    /// `{ inputTokens?, outputTokens?, totalTokens }` (total = input + output, as Mastra).
    usage: Value,
    warnings: Vec<Value>,
    rounding: Option<Value>,
    provider_metadata: Option<Value>,
    /// `{ id?, timestamp, modelId }` (timestamp: ISO text).
    response: Value,
    /// `'stated'` (the judge's stated probabilities), `'logprobs'` (the provider's token
    /// log-probabilities) or `'evaluationModel'` (the evaluation model's answer).
    #[schemars(extend("tsType" = "'stated' | 'logprobs' | 'evaluationModel'"))]
    probability_source: String,
}

/// Who answers.
enum Answerer {
    Judge,
    /// The host's evaluation model and its `modelId`.
    Evaluation(Arc<dyn Host>, String),
}

pub struct ClassifierScorer {
    judge: Judge,
    answerer: Answerer,
    questions: Vec<Question>,
    question: usize,
    scores: Option<Vec<(String, f64)>>,
    state: HostFn,
    max_retries: u32,
    provider_options: Option<Value>,
    meta: ScorerMeta,
}

fn bad(m: String) -> InvalidArgument {
    InvalidArgument::options(format!("createClassifierScorer(): {m}"))
}

impl ClassifierScorer {
    pub fn build(v: &Value, cx: &BuildContext) -> Result<Self, InvalidArgument> {
        let classifier = match scorer_value(v, "classifier")? {
            Some((c @ Value::Object(_), _)) => c,
            Some((other, path)) => return Err(bad(format!("{path} must be a classifier with questions ({{ id?, questions }} or a Mastra Classifier); got {}", type_name(other)))),
            None => return Err(bad("options.classifier is required: a classifier with questions ({ id?, questions } or a Mastra Classifier)".into())),
        };
        let cid = classifier
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or("classifier");
        let Some(qv) = classifier.get("questions").filter(|q| !q.is_null()) else {
            return Err(bad(format!("classifier '{cid}' must be constructed with questions (options.classifier.questions)")));
        };
        let questions = question::parse_questions(qv, "options.classifier.questions")
            .map_err(|e| bad(e.message))?;
        let qid = match scorer_value(v, "question")? {
            Some((Value::String(s), _)) => s.clone(),
            Some((other, path)) => {
                return Err(bad(format!(
                    "{path} must be the id of one of the classifier's questions; got {}",
                    type_name(other)
                )))
            }
            None => {
                return Err(bad(
                    "options.question is required: the id of one of the classifier's questions"
                        .into(),
                ))
            }
        };
        let question = questions.iter().position(|q| q.id == qid).ok_or_else(|| {
            let ids: Vec<&str> = questions.iter().map(|q| q.id.as_str()).collect();
            bad(format!(
                "question '{qid}' is not a question of classifier '{cid}' ({})",
                ids.join(", ")
            ))
        })?;
        let scores =
            question::check_scores(&questions[question], v.get("scores"), "options.scores")
                .map_err(|e| bad(e.message))?;
        let state = host_function(v, cx, "state", state_ts!())?
            .ok_or_else(|| bad("options.state is required: a function (context) => the state the classifier judges".into()))?;
        let max_retries = match v.get("maxRetries") {
            None | Some(Value::Null) => DEFAULT_MAX_RETRIES,
            Some(n) => n
                .as_u64()
                .filter(|n| *n <= MAX_RETRIES as u64)
                .map(|n| n as u32)
                .ok_or_else(|| {
                    bad(format!(
                        "options.maxRetries must be an integer 0 to {MAX_RETRIES}; got {n}"
                    ))
                })?,
        };
        let provider_options = match v.get("providerOptions") {
            None | Some(Value::Null) => None,
            Some(o @ Value::Object(_)) => Some(o.clone()),
            Some(other) => {
                return Err(bad(format!(
                    "options.providerOptions must be an object; got {}",
                    type_name(other)
                )))
            }
        };
        let answerer = match (&cx.host, cx.evaluation_model) {
            (Some(h), true) => Answerer::Evaluation(
                h.clone(),
                cx.model
                    .as_ref()
                    .map_or_else(String::new, |m| m.model_id.clone()),
            ),
            _ => Answerer::Judge,
        };
        // maxRetries reaches an oxeval judge as modelSettings.maxRetries unless that is set
        let mut judged = v.clone();
        if v.get("maxRetries").is_some_and(|n| !n.is_null())
            && v["modelSettings"].get("maxRetries").is_none()
        {
            if let Value::Object(o) = &mut judged {
                let settings = o.entry("modelSettings").or_insert_with(|| json!({}));
                if let Value::Object(s) = settings {
                    s.insert("maxRetries".into(), max_retries.into());
                }
            }
        }
        let judge = judge_from_options(&judged, SPEC.factory, cx)?.with_logprobs();
        let mut meta = ScorerMeta::agent(&SPEC, &judge, INSTRUCTIONS).typed("");
        meta.description = match v.get("description").and_then(Value::as_str) {
            Some(d) => d.to_string().into(),
            None => format!("Scores question '{qid}' with a configured classifier").into(),
        };
        Ok(ClassifierScorer {
            judge,
            answerer,
            questions,
            question,
            scores,
            state,
            max_retries,
            provider_options,
            meta,
        })
    }

    async fn run_inner(&self, run: RunInput, ctx: RunContext) -> Result<ScoreResult, RunError> {
        let mut p = Pipeline::new(&self.judge, &ctx, run.run_id);
        let state = self
            .state
            .call(p.ctx, &p.result.run_id, json!({"results": {}}))
            .await
            .map_err(|e| p.fail("analyze", e))?;
        let q = &self.questions[self.question];
        let evidence = match &self.answerer {
            Answerer::Judge => self.ask_judge(&mut p, q, &state).await?,
            Answerer::Evaluation(host, model_id) => {
                self.ask_model(&p, &**host, model_id, q, &state).await?
            }
        };
        let answer = evidence["answer"].clone();
        p.result.analyze_step_result = Some(evidence);
        p.complete("analyze");
        let score = answer::score(q, &answer, self.scores.as_deref());
        if !score.is_finite() {
            return Err(p.fail(
                "generateScore",
                JudgeError::new(
                    ErrorCode::Internal,
                    format!("no score for the answer {answer}"),
                ),
            ));
        }
        p.result.score = Some(score);
        p.complete("generateScore");
        p.result.reason = Some(answer::reason(&q.id, &answer, score));
        p.complete("generateReason");
        p.finish()
    }

    /// The judge road: one structured call, the statement turned into the contract's answer.
    async fn ask_judge(
        &self,
        p: &mut Pipeline<'_>,
        q: &Question,
        state: &Value,
    ) -> Result<Value, RunError> {
        let prompt = prompts::answer_prompt(q, state);
        let stated = p
            .structured_expect::<Stated>("analyze", INSTRUCTIONS, &prompt, |s| {
                judged::expectation(q, s)
            })
            .await?
            .value;
        p.result.analyze_prompt = Some(prompt);
        if self.provider_options.is_some() {
            p.result.warnings.push("analyze: providerOptions is passed to an evaluation model only; oxeval's judge did not read it".into());
        }
        let output = |m: String| p.fail("analyze", JudgeError::new(ErrorCode::JudgeOutput, m));
        let stated_answer = judged::answer_of(q, &stated).map_err(output)?;
        answer::check(q, &stated_answer, judged::STATED_ROUNDING)
            .map_err(|m| output(format!("the judge's stated probabilities: {m}")))?;
        let exec = p
            .result
            .judge
            .get("analyze")
            .and_then(|j| j.executions.last());
        let usage = exec.map(|e| e.usage.clone()).unwrap_or_default();
        let tokens = exec.and_then(|e| e.logprobs.clone());
        let (i, o) = (usage.input_tokens, usage.output_tokens);
        let stated_rounding = judged::STATED_ROUNDING.to_value();
        let (answer, source, rounding) = match tokens.map(|t| from_logprobs(q, &stated.answer, &t))
        {
            Some(Ok(a)) => (a, "logprobs", None),
            Some(Err(why)) => {
                p.result.warnings.push(format!("analyze: the token log-probabilities gave no distribution ({why}); the judge's stated probabilities are used"));
                (stated_answer, "stated", stated_rounding)
            }
            None => (stated_answer, "stated", stated_rounding),
        };
        let mut usage = json!({"totalTokens": i.unwrap_or(0) + o.unwrap_or(0)});
        if let Some(i) = i {
            usage["inputTokens"] = i.into();
        }
        if let Some(o) = o {
            usage["outputTokens"] = o.into();
        }
        let mut evidence = json!({
            "question": q.id,
            "answer": answer,
            "usage": usage,
            "warnings": [],
            "response": {"timestamp": crate::store::time::iso(crate::store::time::now_ms()), "modelId": self.judge.model_ref()},
            "probabilitySource": source,
        });
        if let Some(r) = rounding {
            evidence["rounding"] = r;
        }
        Ok(evidence)
    }

    /// The evaluation-model road: every question asked at once, the result checked, this
    /// scorer's answer kept.
    async fn ask_model(
        &self,
        p: &Pipeline<'_>,
        host: &dyn Host,
        model_id: &str,
        q: &Question,
        state: &Value,
    ) -> Result<Value, RunError> {
        let got = evaluate::evaluate(
            host,
            p.ctx,
            &p.result.run_id,
            &self.questions,
            state,
            self.provider_options.as_ref(),
            self.max_retries,
        )
        .await
        .map_err(|e| p.fail("analyze", e))?;
        let r = &got.result;
        let (i, o) = (
            r["usage"]["inputTokens"].as_f64(),
            r["usage"]["outputTokens"].as_f64(),
        );
        let mut evidence = json!({
            "question": q.id,
            "answer": r["answers"][&q.id],
            "usage": {"inputTokens": i, "outputTokens": o, "totalTokens": i.unwrap_or(0.0) + o.unwrap_or(0.0)},
            "warnings": if r["warnings"].is_array() { r["warnings"].clone() } else { json!([]) },
            "response": {
                "id": r["response"]["id"],
                "timestamp": r["response"]["timestamp"].as_str().map_or_else(|| crate::store::time::iso(crate::store::time::now_ms()), str::to_owned),
                "modelId": r["response"]["modelId"].as_str().unwrap_or(model_id),
            },
            "probabilitySource": "evaluationModel",
        });
        let e = evidence.as_object_mut().expect("an object");
        if let Some(rounding) = got.rounding.to_value() {
            e.insert("rounding".into(), rounding);
        }
        if !r["providerMetadata"].is_null() {
            e.insert("providerMetadata".into(), r["providerMetadata"].clone());
        }
        for k in ["inputTokens", "outputTokens"] {
            if e["usage"][k].is_null() {
                e["usage"].as_object_mut().map(|u| u.remove(k));
            }
        }
        if e["response"]["id"].is_null() {
            e["response"].as_object_mut().map(|r| r.remove("id"));
        }
        Ok(evidence)
    }
}

/// The contract's answer with the distribution of the provider's token log-probabilities,
/// checked like any answer.
fn from_logprobs(
    q: &Question,
    answer: &str,
    tokens: &[crate::provider::TokenLogprob],
) -> Result<Value, String> {
    let labels = q.labels();
    let d = logprobs::distribution(tokens, answer, &labels)?;
    let dist = labels
        .iter()
        .cloned()
        .zip(d.into_iter().map(Value::from))
        .collect();
    let a = judged::contract_answer(q, answer, dist);
    answer::check(q, &a, Rounding::default())?;
    Ok(a)
}

crate::impl_scorer!(ClassifierScorer);
