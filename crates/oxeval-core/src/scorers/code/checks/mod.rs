//! Mastra's quick checks (`@mastra/evals/checks`): eleven micro-scorers, preprocess →
//! generateScore, no judge, type `agent`. Their factories take positional arguments
//! (`includes('Paris', { ignoreCase })`): the argument names are the options marked
//! `x-oxeval-arg` (its position) in each options schema; the generator lists them and the
//! facade maps the arguments onto the options object, so the core sees one options object.
//!
//! Texts: the assistant messages' texts (`getTextContentFromMastraDBMessage`) joined by
//! `" "` (includes, excludes, similarity) or `""` (equals, matches); tool calls:
//! `extractToolCalls` over every message. The output is widened as for every code scorer
//! (`agent::messages::output_messages`).

mod pattern;

use super::{messages, result};
use crate::agent::js::{num, number_string, strict_eq, template};
use crate::agent::messages::assistant_text_joined;
use crate::agent::tools::{is_error_invocation, merge_tool_invocations, tool_names};
use crate::error::{type_name, ErrorCode, InvalidArgument};
use crate::pipeline::{RunError, ScoreResult, ScorerFailure};
use crate::run::RunInput;
use crate::scorers::spec::{
    boxed, schema_of, BuildContext, Inputs, Kind, Need, ScorerSpec, StepMeta,
};
use crate::scorers::ScorerMeta;
use crate::similarity::compare_two_strings;
use pattern::Pattern;
use schemars::JsonSchema;
use serde_json::{json, Value};

const INPUTS: Inputs = Inputs {
    input: Need::Unused,
    output: Need::Required,
    ground_truth: Need::Unused,
    context: Need::Unused,
};

const STEPS: &[StepMeta] = &[
    StepMeta::function(
        "preprocess",
        "Read the output's text or tool calls and check it",
    ),
    StepMeta::function("generateScore", "1 when the check passed, else 0"),
];

const SIMILARITY_STEPS: &[StepMeta] = &[
    StepMeta::function(
        "preprocess",
        "Dice similarity of the output's text and the expected text",
    ),
    StepMeta::function(
        "generateScore",
        "The similarity, or 1/0 against the threshold",
    ),
];

macro_rules! check_spec {
    ($spec:ident, $factory:literal, $id:literal, $name:literal, $desc:literal, $ty:literal, $opts:ty, $pre:ty, $steps:expr, $build:expr) => {
        #[doc = concat!("`", $factory, "`: ", $desc)]
        pub const $spec: ScorerSpec = ScorerSpec {
            factory: $factory,
            id: $id,
            name: $name,
            description: $desc,
            family: "mastra",
            type_name: $ty,
            kind: Kind::Code,
            inputs: INPUTS,
            run_fields: None,
            extractors: &[],
            nested_options: None,
            options: schema_of::<$opts>,
            preprocess: Some(schema_of::<$pre>),
            analyze: None,
            steps: $steps,
            build: |v, _cx: &BuildContext| boxed(Check::build(v, &$spec, $build)),
        };
    };
}

check_spec!(
    INCLUDES,
    "includes",
    "check-includes",
    "Includes Check",
    "Scores 1 if the agent's output text contains the expected substring",
    "IncludesCheck",
    TextOptions<ExpectedArg>,
    TextPre<Found>,
    STEPS,
    text_check(TextOp::Includes, "expected")
);
check_spec!(
    EXCLUDES,
    "excludes",
    "check-excludes",
    "Excludes Check",
    "Scores 1 if the agent's output text does NOT contain the substring",
    "ExcludesCheck",
    TextOptions<UnwantedArg>,
    TextPre<Excluded>,
    STEPS,
    text_check(TextOp::Excludes, "unwanted")
);
check_spec!(
    EQUALS,
    "equals",
    "check-equals",
    "Equals Check",
    "Scores 1 if the output text exactly equals the expected string (after optional lower-casing)",
    "EqualsCheck",
    TextOptions<ExpectedArg>,
    TextPre<IsEqual>,
    STEPS,
    text_check(TextOp::Equals, "expected")
);
check_spec!(
    MATCHES,
    "matches",
    "check-matches",
    "Matches Check",
    "Scores 1 if the output matches the given regular expression (JavaScript semantics)",
    "MatchesCheck",
    MatchesOptions,
    MatchesPre,
    STEPS,
    matches_check
);
check_spec!(SIMILARITY, "similarity", "check-similarity", "Similarity Check",
    "The string similarity (0-1, Dice's coefficient of bigrams) of the output and an expected string",
    "SimilarityCheck", SimilarityOptions, SimilarityPre, SIMILARITY_STEPS, similarity_check);
check_spec!(
    CALLED_TOOL,
    "calledTool",
    "check-called-tool",
    "Called Tool Check",
    "Scores 1 if the agent called the tool (at least `times` times)",
    "CalledToolCheck",
    CalledToolOptions,
    CalledToolPre,
    STEPS,
    called_tool_check
);
check_spec!(
    DID_NOT_CALL,
    "didNotCall",
    "check-did-not-call",
    "Did Not Call Check",
    "Scores 1 if the agent did NOT call the tool",
    "DidNotCallCheck",
    ToolNameOptions,
    DidNotCallPre,
    STEPS,
    did_not_call_check
);
check_spec!(
    TOOL_ORDER,
    "toolOrder",
    "check-tool-order",
    "Tool Order Check",
    "Scores 1 if the tools were called in the given order (other calls may come between)",
    "ToolOrderCheck",
    ToolOrderOptions,
    ToolOrderPre,
    STEPS,
    tool_order_check
);
check_spec!(
    MAX_TOOL_CALLS,
    "maxToolCalls",
    "check-max-tool-calls",
    "Max Tool Calls Check",
    "Scores 1 if the agent made no more than `max` tool calls",
    "MaxToolCallsCheck",
    MaxToolCallsOptions,
    MaxToolCallsPre,
    STEPS,
    max_tool_calls_check
);
check_spec!(
    USED_NO_TOOLS,
    "usedNoTools",
    "check-used-no-tools",
    "Used No Tools Check",
    "Scores 1 if the agent made no tool calls at all",
    "UsedNoToolsCheck",
    NoOptions,
    UsedNoToolsPre,
    STEPS,
    |_| Ok((
        CheckKind::UsedNoTools,
        "Checks that no tools were called".into()
    ))
);
check_spec!(NO_TOOL_ERRORS, "noToolErrors", "check-no-tool-errors", "No Tool Errors Check",
    "Scores 1 if none of the tool invocations failed (output-error, an unfinished call, isError, result.error)",
    "NoToolErrorsCheck", NoOptions, NoToolErrorsPre, STEPS, |_| Ok((CheckKind::NoToolErrors, "Checks that no tool calls resulted in errors".into())));

/// Every check, in Mastra's `checks` order.
pub static ALL: [&ScorerSpec; 11] = [
    &INCLUDES,
    &EXCLUDES,
    &EQUALS,
    &MATCHES,
    &SIMILARITY,
    &CALLED_TOOL,
    &DID_NOT_CALL,
    &TOOL_ORDER,
    &MAX_TOOL_CALLS,
    &USED_NO_TOOLS,
    &NO_TOOL_ERRORS,
];

// ---- options (the first positional argument is marked `x-oxeval-arg`) ----

#[derive(JsonSchema)]
#[allow(dead_code)]
pub struct ExpectedArg {
    /// The expected text (the check's first argument).
    #[schemars(extend("x-oxeval-arg" = 0))]
    expected: String,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
pub struct UnwantedArg {
    /// The text that must not appear (the check's first argument).
    #[schemars(extend("x-oxeval-arg" = 0))]
    unwanted: String,
}

/// A text check's options: its first argument and `ignoreCase`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct TextOptions<A> {
    #[serde(flatten)]
    arg: A,
    /// Compare lower-cased texts. Default true.
    ignore_case: Option<bool>,
}

#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct MatchesOptions {
    /// The RegExp (the check's first argument; it crosses to the core as its `source` and
    /// `flags`).
    #[schemars(extend("x-oxeval-arg" = 0, "x-oxeval-ts" = "RegExp"))]
    pattern: RegexParts,
    /// Match the whole text (`^(?:source)$` as Mastra builds it: `^${source}$`). Default false.
    exact: Option<bool>,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
pub struct RegexParts {
    source: String,
    flags: String,
}

#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct SimilarityOptions {
    /// The expected text (the check's first argument).
    #[schemars(extend("x-oxeval-arg" = 0))]
    expected: String,
    /// Compare lower-cased texts. Default true.
    ignore_case: Option<bool>,
    /// With a threshold the score is 1 when the similarity reaches it, else 0; without
    /// one the score is the similarity.
    threshold: Option<f64>,
}

#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct CalledToolOptions {
    /// The tool's name (the check's first argument).
    #[schemars(extend("x-oxeval-arg" = 0))]
    tool_name: String,
    /// How many calls at least. Default 1.
    times: Option<f64>,
}

#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct ToolNameOptions {
    /// The tool's name (the check's first argument).
    #[schemars(extend("x-oxeval-arg" = 0))]
    tool_name: String,
}

#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct ToolOrderOptions {
    /// The tools in the order they must be called (the check's first argument).
    #[schemars(extend("x-oxeval-arg" = 0))]
    expected_order: Vec<String>,
}

#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct MaxToolCallsOptions {
    /// The most tool calls allowed (the check's first argument).
    #[schemars(extend("x-oxeval-arg" = 0))]
    max: f64,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
pub struct NoOptions {}

// ---- step results (types for the generated TypeScript) ----

#[derive(JsonSchema)]
#[allow(dead_code)]
pub struct Found {
    found: bool,
}
#[derive(JsonSchema)]
#[allow(dead_code)]
pub struct Excluded {
    excluded: bool,
}
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct IsEqual {
    is_equal: bool,
}

/// `{ output, target, <verdict> }`: the texts as compared (lower-cased with ignoreCase).
#[derive(JsonSchema)]
#[allow(dead_code)]
pub struct TextPre<V> {
    output: String,
    target: String,
    #[serde(flatten)]
    verdict: V,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
pub struct MatchesPre {
    output: String,
    /// `pattern.toString()`.
    pattern: String,
    matched: bool,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
pub struct SimilarityPre {
    output: String,
    target: String,
    score: f64,
    threshold: Option<f64>,
}

#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct CalledToolPre {
    tool_name: String,
    expected_times: f64,
    actual_count: u32,
    passed: bool,
}

#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct DidNotCallPre {
    tool_name: String,
    count: u32,
    passed: bool,
}

#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct ToolOrderPre {
    actual_tools: Vec<String>,
    expected_order: Vec<String>,
    passed: bool,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
pub struct MaxToolCallsPre {
    count: u32,
    max: f64,
    passed: bool,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
pub struct UsedNoToolsPre {
    count: u32,
    passed: bool,
}

#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct NoToolErrorsPre {
    error_count: u32,
    total_calls: u32,
    passed: bool,
}

// ---- the scorer ----

#[derive(Debug, Clone, Copy)]
enum TextOp {
    Includes,
    Excludes,
    Equals,
}

enum CheckKind {
    Text {
        op: TextOp,
        target: String,
        ignore_case: bool,
    },
    Matches {
        pattern: Pattern,
    },
    Similarity {
        target: String,
        ignore_case: bool,
        threshold: Option<f64>,
    },
    CalledTool {
        tool: Value,
        times: f64,
    },
    DidNotCall {
        tool: Value,
    },
    ToolOrder {
        order: Vec<Value>,
    },
    MaxToolCalls {
        max: f64,
    },
    UsedNoTools,
    NoToolErrors,
}

type Built = Result<(CheckKind, String), InvalidArgument>;

/// One check: its kind and arguments.
pub struct Check {
    meta: ScorerMeta,
    kind: CheckKind,
}

fn factory_error(spec: &ScorerSpec, msg: String) -> InvalidArgument {
    InvalidArgument::options(format!("{}(): {msg}", spec.factory))
}

fn string_arg(v: &Value, key: &str, spec: &ScorerSpec) -> Result<String, InvalidArgument> {
    match v.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        other => Err(factory_error(
            spec,
            format!(
                "{key} (its first argument) must be a string; got {}",
                other.map_or("undefined", type_name)
            ),
        )),
    }
}

fn bool_opt(
    v: &Value,
    key: &str,
    default: bool,
    spec: &ScorerSpec,
) -> Result<bool, InvalidArgument> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(factory_error(
            spec,
            format!("options.{key} must be a boolean; got {}", type_name(other)),
        )),
    }
}

fn number_opt(
    v: &Value,
    key: &str,
    spec: &ScorerSpec,
    what: &str,
) -> Result<Option<f64>, InvalidArgument> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => Ok(n.as_f64()),
        Some(other) => Err(factory_error(
            spec,
            format!("{what} must be a number; got {}", type_name(other)),
        )),
    }
}

fn text_check(op: TextOp, key: &'static str) -> impl Fn(&Value) -> Built {
    move |v| {
        let spec = match op {
            TextOp::Includes => &INCLUDES,
            TextOp::Excludes => &EXCLUDES,
            TextOp::Equals => &EQUALS,
        };
        let target = string_arg(v, key, spec)?;
        let ignore_case = bool_opt(v, "ignoreCase", true, spec)?;
        let description = match op {
            TextOp::Includes => format!("Checks if output includes \"{target}\""),
            TextOp::Excludes => format!("Checks that output does not include \"{target}\""),
            TextOp::Equals => format!("Checks if output equals \"{target}\""),
        };
        Ok((
            CheckKind::Text {
                op,
                target,
                ignore_case,
            },
            description,
        ))
    }
}

fn matches_check(v: &Value) -> Built {
    let spec = &MATCHES;
    let parts = v.get("pattern");
    let (Some(Value::String(source)), Some(Value::String(flags))) = (
        parts.and_then(|p| p.get("source")),
        parts.and_then(|p| p.get("flags")),
    ) else {
        return Err(factory_error(
            spec,
            format!(
                "pattern (its first argument) must be a RegExp; got {}",
                parts.map_or("undefined", type_name)
            ),
        ));
    };
    let exact = bool_opt(v, "exact", false, spec)?;
    let pattern = Pattern::new(source, flags, exact).map_err(|e| factory_error(spec, e))?;
    let description = format!("Checks if output matches pattern {}", pattern.display);
    Ok((CheckKind::Matches { pattern }, description))
}

fn similarity_check(v: &Value) -> Built {
    let spec = &SIMILARITY;
    let target = string_arg(v, "expected", spec)?;
    let ignore_case = bool_opt(v, "ignoreCase", true, spec)?;
    let threshold = number_opt(v, "threshold", spec, "options.threshold")?;
    let description = format!("Checks string similarity to \"{target}\"");
    Ok((
        CheckKind::Similarity {
            target,
            ignore_case,
            threshold,
        },
        description,
    ))
}

fn called_tool_check(v: &Value) -> Built {
    let spec = &CALLED_TOOL;
    let tool = string_arg(v, "toolName", spec)?;
    let times = number_opt(v, "times", spec, "options.times")?.unwrap_or(1.0);
    let more = if times > 1.0 {
        format!(" at least {} times", number_string(times))
    } else {
        String::new()
    };
    let description = format!("Checks that \"{tool}\" was called{more}");
    Ok((
        CheckKind::CalledTool {
            tool: json!(tool),
            times,
        },
        description,
    ))
}

fn did_not_call_check(v: &Value) -> Built {
    let tool = string_arg(v, "toolName", &DID_NOT_CALL)?;
    let description = format!("Checks that \"{tool}\" was NOT called");
    Ok((CheckKind::DidNotCall { tool: json!(tool) }, description))
}

fn tool_order_check(v: &Value) -> Built {
    let spec = &TOOL_ORDER;
    let order = match v.get("expectedOrder") {
        Some(Value::Array(a)) if a.iter().all(Value::is_string) => a.clone(),
        other => {
            return Err(factory_error(
                spec,
                format!(
                    "expectedOrder (its first argument) must be an array of tool names; got {}",
                    other.map_or("undefined", type_name)
                ),
            ))
        }
    };
    let description = format!(
        "Checks tool call order: [{}]",
        order
            .iter()
            .map(|t| template(Some(t)))
            .collect::<Vec<_>>()
            .join(" → ")
    );
    Ok((CheckKind::ToolOrder { order }, description))
}

fn max_tool_calls_check(v: &Value) -> Built {
    let spec = &MAX_TOOL_CALLS;
    let max = number_opt(v, "max", spec, "max (its first argument)")?.ok_or_else(|| {
        factory_error(
            spec,
            "max (its first argument) must be a number; got undefined".into(),
        )
    })?;
    let description = format!(
        "Checks that no more than {} tool calls were made",
        number_string(max)
    );
    Ok((CheckKind::MaxToolCalls { max }, description))
}

impl Check {
    fn build(
        v: &Value,
        spec: &'static ScorerSpec,
        make: impl Fn(&Value) -> Built,
    ) -> Result<Check, InvalidArgument> {
        crate::options::options_object(v, spec.factory)?;
        let (kind, description) = make(v)?;
        let mut meta = ScorerMeta::code(spec, "agent");
        meta.description = description.into();
        Ok(Check { meta, kind })
    }

    pub(crate) fn run_sync(&self, run: RunInput) -> Result<ScoreResult, RunError> {
        let (score, pre) = self.evaluate(&run)?;
        Ok(result(run, score, pre, None))
    }

    /// The score and `preprocessStepResult` of one run.
    pub fn evaluate(&self, run: &RunInput) -> Result<(f64, Value), RunError> {
        let msgs = messages(run)?;
        let pass = |b: bool| if b { 1.0 } else { 0.0 };
        Ok(match &self.kind {
            CheckKind::Text {
                op,
                target,
                ignore_case,
            } => {
                let sep = if matches!(op, TextOp::Equals) {
                    ""
                } else {
                    " "
                };
                let mut output = assistant_text_joined(&msgs, sep);
                let mut target = target.clone();
                if *ignore_case {
                    output = output.to_lowercase();
                    target = target.to_lowercase();
                }
                let (key, verdict) = match op {
                    TextOp::Includes => ("found", output.contains(&target)),
                    TextOp::Excludes => ("excluded", !output.contains(&target)),
                    TextOp::Equals => ("isEqual", output == target),
                };
                let mut pre = json!({ "output": output, "target": target });
                pre[key] = json!(verdict);
                (pass(verdict), pre)
            }
            CheckKind::Matches { pattern } => {
                let output = assistant_text_joined(&msgs, "");
                let matched = pattern.test(&output).map_err(|e| {
                    RunError::Failed(Box::new(ScorerFailure::outside(
                        Some(run.run_id.clone()),
                        "preprocess",
                        ErrorCode::PatternBudget,
                        &e.message(&pattern.display),
                        "PatternBudgetError",
                    )))
                })?;
                (
                    pass(matched),
                    json!({ "output": output, "pattern": pattern.display, "matched": matched }),
                )
            }
            CheckKind::Similarity {
                target,
                ignore_case,
                threshold,
            } => {
                let mut output = assistant_text_joined(&msgs, " ");
                let mut target = target.clone();
                if *ignore_case {
                    output = output.to_lowercase();
                    target = target.to_lowercase();
                }
                let s = compare_two_strings(&output, &target);
                let mut pre = json!({ "output": output, "target": target, "score": num(s) });
                if let Some(t) = threshold {
                    pre["threshold"] = num(*t);
                }
                let score = match threshold {
                    Some(t) => pass(s >= *t),
                    None => s,
                };
                (score, pre)
            }
            CheckKind::CalledTool { tool, times } => {
                let count = tool_names(&msgs)
                    .into_iter()
                    .filter(|t| strict_eq(Some(t), Some(tool)))
                    .count();
                let passed = count as f64 >= *times;
                (
                    pass(passed),
                    json!({ "toolName": tool, "expectedTimes": num(*times), "actualCount": count, "passed": passed }),
                )
            }
            CheckKind::DidNotCall { tool } => {
                let count = tool_names(&msgs)
                    .into_iter()
                    .filter(|t| strict_eq(Some(t), Some(tool)))
                    .count();
                (
                    pass(count == 0),
                    json!({ "toolName": tool, "count": count, "passed": count == 0 }),
                )
            }
            CheckKind::ToolOrder { order } => {
                let tools = tool_names(&msgs);
                let mut idx = 0;
                for t in &tools {
                    if idx < order.len() && strict_eq(Some(t), Some(&order[idx])) {
                        idx += 1;
                    }
                }
                let passed = idx == order.len();
                (
                    pass(passed),
                    json!({ "actualTools": tools, "expectedOrder": order, "passed": passed }),
                )
            }
            CheckKind::MaxToolCalls { max } => {
                let count = tool_names(&msgs).len();
                let passed = count as f64 <= *max;
                (
                    pass(passed),
                    json!({ "count": count, "max": num(*max), "passed": passed }),
                )
            }
            CheckKind::UsedNoTools => {
                let count = tool_names(&msgs).len();
                (
                    pass(count == 0),
                    json!({ "count": count, "passed": count == 0 }),
                )
            }
            CheckKind::NoToolErrors => {
                let (mut total, mut errors) = (0usize, 0usize);
                for m in msgs.iter() {
                    for inv in merge_tool_invocations(m) {
                        total += 1;
                        if is_error_invocation(inv.value) {
                            errors += 1;
                        }
                    }
                }
                (
                    pass(errors == 0),
                    json!({ "errorCount": errors, "totalCalls": total, "passed": errors == 0 }),
                )
            }
        })
    }
}

crate::impl_scorer!(Check, sync);

#[cfg(test)]
mod tests;
