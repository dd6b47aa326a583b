//! The dual-judge core shared by the NVIDIA metrics: rating replies and their scales, one
//! judge asked until it gives a valid rating ([`rate`]), the mean of the valid ratings
//! ([`average`]), the reason text ([`reason`]), the failure cause when no rating is valid,
//! and the whole run with its records (`score_dual`).

use crate::engine::schema::{StepOutput, StepSchema};
use crate::engine::{Execution, Judge, RunContext};
use crate::error::{ErrorCode, JudgeError};
use crate::pipeline::{Pipeline, RunError, ScoreResult};
use crate::scorers::llm::common::{fmt_score, join_prompts};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// Default attempts per judge (Ragas: 5).
pub const DEFAULT_MAX_ATTEMPTS: u32 = 5;
/// Largest accepted `maxRetries` (attempts per judge).
pub const MAX_ATTEMPTS_LIMIT: u32 = 20;

/// A rating as the judge sent it. The wire schema asks for an integer; a string is also
/// accepted when it is exactly the decimal form of an allowed rating (`"4"`), so judges
/// that quote numbers still count. `"4.0"`, `" 4"`, `"+4"`, `4.5`, `4.0` and `true` are not
/// ratings: strings of that kind are invalid ratings (the judge is asked again), and
/// non-integer numbers and booleans fail the output schema (the engine's format fallback
/// runs, then the judge is asked again).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RatingValue {
    Int(i64),
    Text(String),
}

/// The rating scale of a metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RatingScale {
    /// {0, 2, 4}: AnswerAccuracy.
    ZeroTwoFour,
    /// {0, 1, 2}: ContextRelevance, ResponseGroundedness.
    ZeroOneTwo,
}

impl RatingScale {
    pub fn allowed(self) -> &'static [i64] {
        match self {
            RatingScale::ZeroTwoFour => &[0, 2, 4],
            RatingScale::ZeroOneTwo => &[0, 1, 2],
        }
    }

    pub fn max(self) -> i64 {
        match self {
            RatingScale::ZeroTwoFour => 4,
            RatingScale::ZeroOneTwo => 2,
        }
    }

    fn describe(self) -> &'static str {
        match self {
            RatingScale::ZeroTwoFour => "0, 2 or 4",
            RatingScale::ZeroOneTwo => "0, 1 or 2",
        }
    }
}

/// The rating if it is valid on `scale` (see [`RatingValue`] for the accepted forms).
pub fn valid_rating(value: &RatingValue, scale: RatingScale) -> Option<i64> {
    let n = match value {
        RatingValue::Int(n) => *n,
        RatingValue::Text(s) => {
            let n: i64 = s.parse().ok()?;
            // canonical decimal only: rejects "+4", "04", " 4"
            if n.to_string() != *s {
                return None;
            }
            n
        }
    };
    scale.allowed().contains(&n).then_some(n)
}

/// A judge's reply `{ "rating": … }` on its scale.
pub trait RatingOutput: StepOutput {
    const SCALE: RatingScale;
    fn rating(&self) -> &RatingValue;
}

/// The step schema of a rating type: the STRICT wire schema says `rating: integer`, while
/// validation accepts an integer or a string (see [`RatingValue`]).
fn rating_schema<T: JsonSchema>(name: &'static str) -> StepSchema {
    let mut schema = StepSchema::build::<T>(name);
    let lenient = json!({
        "type": "object",
        "properties": {"rating": {"type": ["integer", "string"]}},
        "required": ["rating"]
    });
    if let Ok(validator) = jsonschema::validator_for(&lenient) {
        schema.validator = validator;
    }
    schema
}

macro_rules! rating_output {
    ($(#[$doc:meta])* $t:ident, $name:literal, $scale:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
        pub struct $t {
            #[schemars(with = "i64")]
            pub rating: RatingValue,
        }

        impl StepOutput for $t {
            fn schema() -> &'static StepSchema {
                static SCHEMA: std::sync::OnceLock<StepSchema> = std::sync::OnceLock::new();
                SCHEMA.get_or_init(|| rating_schema::<$t>($name))
            }

            /// An out-of-set rating is rejected inside the engine: the fallback attempt tells
            /// the judge the allowed values, and the reply is never cached.
            fn check(&self) -> Result<(), String> {
                match valid_rating(&self.rating, $scale) {
                    Some(_) => Ok(()),
                    None => Err(format!("rating {} is not one of {}", serde_json::to_string(&self.rating).unwrap_or_default(), $scale.describe())),
                }
            }
        }

        impl RatingOutput for $t {
            const SCALE: RatingScale = $scale;

            fn rating(&self) -> &RatingValue {
                &self.rating
            }
        }
    };
}

rating_output!(
    /// AnswerAccuracy judge reply (rating 0, 2 or 4).
    Rating024,
    "nv_rating_0_2_4",
    RatingScale::ZeroTwoFour
);
rating_output!(
    /// ContextRelevance / ResponseGroundedness judge reply (rating 0, 1 or 2).
    Rating012,
    "nv_rating_0_1_2",
    RatingScale::ZeroOneTwo
);

/// Everything one judge did: its attempts, their records and the valid rating if any.
#[derive(Debug, Clone, Default)]
pub struct JudgeRun {
    pub rating: Option<i64>,
    pub attempts: u32,
    /// The judge's reply text of every attempt that got a reply (a transport failure has
    /// none).
    pub raw_outputs: Vec<String>,
    pub executions: Vec<Execution>,
    /// Per attempt: the call's error, `None` when the judge replied with a rating object.
    pub errors: Vec<Option<JudgeError>>,
    /// Why the last attempt gave no valid rating.
    pub last_problem: Option<String>,
}

/// Errors that will not change on another attempt in this run.
fn is_final(e: &JudgeError) -> bool {
    match e.code {
        ErrorCode::Aborted
        | ErrorCode::Deadline
        | ErrorCode::MissingApiKey
        | ErrorCode::CacheMiss => true,
        ErrorCode::JudgeHttp => e
            .status
            .is_some_and(|s| (400..500).contains(&s) && !matches!(s, 408 | 409 | 429)),
        _ => false,
    }
}

fn is_format_error(code: ErrorCode) -> bool {
    matches!(code, ErrorCode::JudgeOutput | ErrorCode::JudgeTruncated)
}

/// Ask one judge until it gives a valid rating, at most `max_attempts` times. Stops early
/// on errors another attempt cannot fix (cancellation, deadline, missing API key, HTTP
/// 4xx other than 408/409/429).
pub async fn rate<T: RatingOutput>(
    judge: &Judge,
    ctx: &RunContext,
    system: &str,
    prompt: &str,
    scale: RatingScale,
    max_attempts: u32,
) -> JudgeRun {
    let mut run = JudgeRun::default();
    for _ in 0..max_attempts.max(1) {
        let call = judge.structured::<T>(system, prompt, ctx).await;
        run.attempts += 1;
        let raw = call.raw;
        run.executions.push(call.execution);
        match call.result {
            Ok(reply) => {
                run.raw_outputs.extend(raw);
                run.errors.push(None);
                match valid_rating(reply.value.rating(), scale) {
                    Some(r) => {
                        run.rating = Some(r);
                        run.last_problem = None;
                        break;
                    }
                    None => {
                        run.last_problem = Some(format!(
                            "rating {} is not one of {}",
                            serde_json::to_string(reply.value.rating()).unwrap_or_default(),
                            scale.describe()
                        ));
                    }
                }
            }
            Err(e) => {
                if is_format_error(e.code) {
                    run.raw_outputs.extend(raw);
                }
                run.last_problem = Some(e.message.clone());
                let stop = is_final(&e);
                run.errors.push(Some(e));
                if stop {
                    break;
                }
            }
        }
    }
    run
}

/// Mean of the valid normalized ratings (`rating / max`); `None` when none is valid.
pub fn average(ratings: [Option<i64>; 2], scale: RatingScale) -> Option<f64> {
    let valid: Vec<f64> = ratings
        .iter()
        .flatten()
        .map(|&r| r as f64 / scale.max() as f64)
        .collect();
    (!valid.is_empty()).then(|| valid.iter().sum::<f64>() / valid.len() as f64)
}

fn attempts_text(n: u32) -> String {
    if n == 1 {
        "1 attempt".into()
    } else {
        format!("{n} attempts")
    }
}

/// "Judge 1 rated 4/4, judge 2 rated 2/4 → 0.75." (no LLM call).
pub fn reason(
    ratings: [Option<i64>; 2],
    attempts: [u32; 2],
    scale: RatingScale,
    score: f64,
) -> String {
    let part = |i: usize| match ratings[i] {
        Some(r) => format!("judge {} rated {r}/{}", i + 1, scale.max()),
        None => format!(
            "judge {} gave no valid rating in {}",
            i + 1,
            attempts_text(attempts[i])
        ),
    };
    let sep = if ratings.iter().all(Option::is_some) {
        ", "
    } else {
        "; "
    };
    let text = format!("{}{sep}{}", part(0), part(1));
    format!(
        "{}{} → {}.",
        text[..1].to_uppercase(),
        &text[1..],
        fmt_score(score)
    )
}

/// `analyzeStepResult.judges[i]`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct JudgeRecord<'a> {
    rating: Option<i64>,
    normalized: Option<f64>,
    attempts: u32,
    raw_outputs: &'a [String],
    valid: bool,
}

/// `analyzeStepResult` of the NVIDIA metrics.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub struct Analysis {
    /// Judge 1, then judge 2 (roles swapped for answer accuracy).
    judges: [JudgeRating; 2],
}

/// One judge's outcome.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct JudgeRating {
    /// The valid rating (a quoted "4" is reported as 4); null when no attempt gave one.
    rating: Option<i64>,
    /// rating / 4 (answer accuracy) or rating / 2.
    normalized: Option<f64>,
    /// Calls made for this judge (1..maxRetries).
    attempts: u32,
    /// The judge's reply text of every attempt that got a reply.
    raw_outputs: Vec<String>,
    valid: bool,
}

fn analysis(runs: &[JudgeRun; 2], scale: RatingScale) -> Value {
    let judges: Vec<JudgeRecord> = runs
        .iter()
        .map(|r| JudgeRecord {
            rating: r.rating,
            normalized: r.rating.map(|x| x as f64 / scale.max() as f64),
            attempts: r.attempts,
            raw_outputs: &r.raw_outputs,
            valid: r.rating.is_some(),
        })
        .collect();
    json!({ "judges": judges })
}

/// The cause when neither judge gave a valid rating: the shared transport error if every
/// attempt of both judges failed with the same one (e.g. HTTP 401), else
/// [`ErrorCode::NoValidJudgment`].
fn no_valid_cause(runs: &[JudgeRun; 2], scale: RatingScale) -> JudgeError {
    let errors: Vec<Option<&JudgeError>> = runs
        .iter()
        .flat_map(|r| r.errors.iter().map(Option::as_ref))
        .collect();
    // A run that was cancelled or ran out of time says so, whatever the judges did before.
    for code in [ErrorCode::Aborted, ErrorCode::Deadline] {
        if let Some(e) = errors.iter().flatten().find(|e| e.code == code) {
            return (*e).clone();
        }
    }
    if let Some(Some(first)) = errors.first() {
        let same = errors
            .iter()
            .all(|e| e.is_some_and(|e| e.code == first.code && e.status == first.status));
        if same && !is_format_error(first.code) {
            if let Some(Some(last)) = errors.last() {
                return (*last).clone();
            }
        }
    }
    let problem = |r: &JudgeRun| {
        r.last_problem
            .clone()
            .unwrap_or_else(|| "no attempt".into())
    };
    JudgeError::new(
        ErrorCode::NoValidJudgment,
        format!(
            "neither judge gave a valid rating ({}): judge 1 after {} ({}); judge 2 after {} ({})",
            scale.describe(),
            attempts_text(runs[0].attempts),
            problem(&runs[0]),
            attempts_text(runs[1].attempts),
            problem(&runs[1]),
        ),
    )
}

/// The two judges of one run: their system message, their prompts, and how often each is
/// asked at most.
pub(super) struct DualJudge<'s> {
    pub system: &'s str,
    pub prompts: [String; 2],
    pub max_attempts: u32,
}

/// Run both judges concurrently, record every attempt under `analyze`, then score and
/// explain (steps analyze → generateScore → generateReason).
async fn run_dual<T: RatingOutput>(
    p: &mut Pipeline<'_>,
    spec: DualJudge<'_>,
) -> Result<(), RunError> {
    let (judge, ctx) = (p.judge, p.ctx);
    let scale = T::SCALE;
    let [first, second] = &spec.prompts;
    // each judge has its own name (the response cache's locator)
    let (ctx1, ctx2) = (
        ctx.at_call("analyze", "judge1"),
        ctx.at_call("analyze", "judge2"),
    );
    let (a, b) = futures::join!(
        rate::<T>(judge, &ctx1, spec.system, first, scale, spec.max_attempts),
        rate::<T>(judge, &ctx2, spec.system, second, scale, spec.max_attempts),
    );
    let mut runs = [a, b];
    for run in &mut runs {
        for execution in std::mem::take(&mut run.executions) {
            p.record("analyze", execution);
        }
    }
    p.result.analyze_prompt = join_prompts(&spec.prompts);
    p.result.analyze_step_result = Some(analysis(&runs, scale));
    if ctx.cancel.is_cancelled() {
        let cause = runs
            .iter()
            .flat_map(|r| r.errors.iter().flatten())
            .find(|e| e.code == ErrorCode::Aborted)
            .cloned()
            .unwrap_or_else(|| JudgeError::new(ErrorCode::Aborted, "the run was aborted"));
        return Err(p.fail("analyze", cause));
    }
    // a replay that could not replay one judge fails, even if the other one's rating
    // could score alone: a replay reproduces the recorded run or says why not
    if let Some(miss) = runs
        .iter()
        .flat_map(|r| r.errors.iter().flatten())
        .find(|e| e.code == ErrorCode::CacheMiss)
        .cloned()
    {
        return Err(p.fail("analyze", miss));
    }
    let ratings = [runs[0].rating, runs[1].rating];
    let Some(score) = average(ratings, scale) else {
        return Err(p.fail("analyze", no_valid_cause(&runs, scale)));
    };
    p.complete("analyze");
    p.result.score = Some(score);
    p.complete("generateScore");
    p.result.reason = Some(reason(
        ratings,
        [runs[0].attempts, runs[1].attempts],
        scale,
        score,
    ));
    p.complete("generateReason");
    Ok(())
}

/// A 0.0 result without any judge call (degenerate input), with its explanation.
fn shortcut(p: &mut Pipeline<'_>, why: &str) {
    p.result.score = Some(0.0);
    p.result.reason = Some(format!("The score is 0 because {why}."));
}

/// A whole NVIDIA run: Ragas's no-call 0.0 shortcut when `zero_because` is set, else the
/// two judges.
pub(super) async fn score_dual<T: RatingOutput>(
    judge: &Judge,
    ctx: &RunContext,
    run_id: String,
    zero_because: Option<&str>,
    spec: DualJudge<'_>,
) -> Result<ScoreResult, RunError> {
    let mut p = Pipeline::new(judge, ctx, run_id);
    match zero_because {
        Some(why) => shortcut(&mut p, why),
        None => run_dual::<T>(&mut p, spec).await?,
    }
    p.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::decode;

    fn rating_of<T: RatingOutput>(text: &str, scale: RatingScale) -> Result<Option<i64>, String> {
        decode::<T>(text).map(|s| valid_rating(s.value.rating(), scale))
    }

    #[test]
    fn rating_validation() {
        let s4 = RatingScale::ZeroTwoFour;
        let cases: Vec<(&str, Result<Option<i64>, ()>)> = vec![
            (r#"{"rating": 4}"#, Ok(Some(4))),
            (r#"{"rating": 0}"#, Ok(Some(0))),
            (r#"{"rating": 2}"#, Ok(Some(2))),
            (r#"{"rating": "4"}"#, Ok(Some(4))),
            (r#"{"rating": "0"}"#, Ok(Some(0))),
            // out of the set: rejected by the step's check (→ engine fallback, never cached)
            (r#"{"rating": 3}"#, Err(())),
            (r#"{"rating": 1}"#, Err(())),
            (r#"{"rating": -2}"#, Err(())),
            (r#"{"rating": 8}"#, Err(())),
            (r#"{"rating": "3"}"#, Err(())),
            // strings that are not the canonical integer
            (r#"{"rating": "4.0"}"#, Err(())),
            (r#"{"rating": " 4"}"#, Err(())),
            (r#"{"rating": "+4"}"#, Err(())),
            (r#"{"rating": "04"}"#, Err(())),
            (r#"{"rating": "four"}"#, Err(())),
            // not integers or strings: the output schema rejects them
            (r#"{"rating": 4.5}"#, Err(())),
            (r#"{"rating": 4.0}"#, Err(())),
            (r#"{"rating": true}"#, Err(())),
            (r#"{"rating": null}"#, Err(())),
            (r#"{"rating": [4]}"#, Err(())),
            (r#"{"score": 4}"#, Err(())),
            ("no json", Err(())),
        ];
        for (text, want) in cases {
            let got = rating_of::<Rating024>(text, s4).map_err(|_| ());
            assert_eq!(got, want, "{text}");
        }
        let s2 = RatingScale::ZeroOneTwo;
        for (text, want) in [
            (r#"{"rating": 1}"#, Ok(Some(1))),
            (r#"{"rating": "2"}"#, Ok(Some(2))),
            (r#"{"rating": 4}"#, Err(())),
            (r#"{"rating": 3}"#, Err(())),
        ] {
            assert_eq!(
                rating_of::<Rating012>(text, s2).map_err(|_| ()),
                want,
                "{text}"
            );
        }
        let msg = decode::<Rating024>(r#"{"rating": 3}"#).unwrap_err();
        assert_eq!(msg, "rating 3 is not one of 0, 2 or 4");
    }

    #[test]
    fn wire_schema_is_strict_integer() {
        for (schema, name) in [
            (Rating024::schema(), "nv_rating_0_2_4"),
            (Rating012::schema(), "nv_rating_0_1_2"),
        ] {
            assert_eq!(schema.name, name);
            assert_eq!(
                *schema.wire,
                json!({
                    "type": "object",
                    "properties": {"rating": {"type": "integer"}},
                    "required": ["rating"],
                    "additionalProperties": false
                })
            );
        }
        assert!(std::ptr::eq(Rating024::schema(), Rating024::schema()));
    }

    #[test]
    fn averaging() {
        let s4 = RatingScale::ZeroTwoFour;
        let s2 = RatingScale::ZeroOneTwo;
        let cases: Vec<([Option<i64>; 2], RatingScale, Option<f64>)> = vec![
            ([Some(4), Some(2)], s4, Some(0.75)),
            ([Some(4), Some(4)], s4, Some(1.0)),
            ([Some(0), Some(2)], s4, Some(0.25)),
            ([Some(0), Some(0)], s4, Some(0.0)),
            ([Some(2), None], s4, Some(0.5)),
            ([None, Some(4)], s4, Some(1.0)),
            ([None, None], s4, None),
            ([Some(1), Some(2)], s2, Some(0.75)),
            ([Some(1), Some(1)], s2, Some(0.5)),
            ([Some(0), None], s2, Some(0.0)),
            ([None, Some(1)], s2, Some(0.5)),
            ([None, None], s2, None),
        ];
        for (ratings, scale, want) in cases {
            assert_eq!(average(ratings, scale), want, "{ratings:?} {scale:?}");
        }
    }

    #[test]
    fn reasons() {
        let s4 = RatingScale::ZeroTwoFour;
        assert_eq!(
            reason([Some(4), Some(2)], [1, 1], s4, 0.75),
            "Judge 1 rated 4/4, judge 2 rated 2/4 → 0.75."
        );
        assert_eq!(
            reason([Some(4), None], [1, 5], s4, 1.0),
            "Judge 1 rated 4/4; judge 2 gave no valid rating in 5 attempts → 1.0."
        );
        assert_eq!(
            reason([None, Some(1)], [1, 2], RatingScale::ZeroOneTwo, 0.5),
            "Judge 1 gave no valid rating in 1 attempt; judge 2 rated 1/2 → 0.5."
        );
    }

    #[test]
    fn cause_selection() {
        let http =
            |s| Some(JudgeError::new(ErrorCode::JudgeHttp, format!("http {s}")).with_status(s));
        let run = |errors: Vec<Option<JudgeError>>| JudgeRun {
            attempts: errors.len() as u32,
            errors,
            last_problem: Some("p".into()),
            ..Default::default()
        };
        let s = RatingScale::ZeroTwoFour;
        let c = no_valid_cause(&[run(vec![http(401)]), run(vec![http(401)])], s);
        assert_eq!((c.code, c.status), (ErrorCode::JudgeHttp, Some(401)));
        // different statuses → no valid judgment
        let c = no_valid_cause(&[run(vec![http(401)]), run(vec![http(500)])], s);
        assert_eq!(c.code, ErrorCode::NoValidJudgment);
        // one attempt replied (invalid rating) → no valid judgment
        let c = no_valid_cause(&[run(vec![None]), run(vec![http(401)])], s);
        assert_eq!(c.code, ErrorCode::NoValidJudgment);
        // format failures are not transport errors
        let fmt = || Some(JudgeError::new(ErrorCode::JudgeOutput, "bad"));
        let c = no_valid_cause(&[run(vec![fmt()]), run(vec![fmt()])], s);
        assert_eq!(c.code, ErrorCode::NoValidJudgment);
        assert!(c.message.contains("0, 2 or 4"), "{}", c.message);
    }
}
