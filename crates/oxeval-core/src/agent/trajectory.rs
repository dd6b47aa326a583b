//! Trajectory comparisons (`@mastra/evals/scorers/utils` and the trajectory scorer), exact:
//! every score, list and record as Mastra computes it, keys in Mastra's order.

use super::js::{
    is_measurement, nullish, num, round2_plain, round_to_two_decimals, strict_eq, stringify,
    template, truthy,
};
use serde_json::{json, Map, Value};

/// `s.name` of each step (`None`: undefined).
fn names(steps: &[Value]) -> Vec<Option<&Value>> {
    steps.iter().map(|s| s.get("name")).collect()
}

fn name_list(names: &[Option<&Value>]) -> Value {
    Value::Array(
        names
            .iter()
            .map(|n| n.cloned().unwrap_or(Value::Null))
            .collect(),
    )
}

/// `array.includes(v)` (SameValueZero; for JSON values `===` with `undefined` found).
fn includes(list: &[Option<&Value>], v: Option<&Value>) -> bool {
    list.iter().any(|x| strict_eq(*x, v))
}

/// The comparable data fields of an expected step, by its `stepType`.
fn comparable_fields(step_type: &str) -> &'static [&'static str] {
    match step_type {
        "tool_call" => &["toolArgs", "toolResult", "success"],
        "mcp_tool_call" => &["toolArgs", "toolResult", "mcpServer", "success"],
        "model_generation" => &[
            "modelId",
            "promptTokens",
            "completionTokens",
            "finishReason",
        ],
        "agent_run" => &["agentId"],
        "workflow_step" => &["stepId", "status", "output"],
        "workflow_run" => &["workflowId", "status"],
        "workflow_conditional" => &["conditionCount", "selectedSteps"],
        "workflow_parallel" => &["branchCount", "parallelSteps"],
        "workflow_loop" => &["loopType", "totalIterations"],
        "workflow_sleep" => &["sleepDurationMs", "sleepType"],
        "workflow_wait_event" => &["eventName", "eventReceived"],
        "processor_run" => &["processorId"],
        _ => &[],
    }
}

/// `expectedStepMatches(actual, expected)`: same name; with a `stepType`, the same type and
/// every comparable field the expected step defines equal as `JSON.stringify` text.
pub fn expected_step_matches(actual: &Value, expected: &Value) -> bool {
    if !strict_eq(actual.get("name"), expected.get("name")) {
        return false;
    }
    let et = expected.get("stepType");
    if !truthy(et) {
        return true;
    }
    if !strict_eq(actual.get("stepType"), et) {
        return false;
    }
    let Some(t) = et.and_then(Value::as_str) else {
        return true;
    };
    comparable_fields(t).iter().all(|f| match expected.get(*f) {
        None => true,
        Some(e) => match actual.get(*f) {
            None => false,
            Some(a) => stringify(Some(a)) == stringify(Some(e)),
        },
    })
}

/// `compareTrajectories(actual, { steps: expected }, { ordering, allowRepeatedSteps })`;
/// `ordering` other than `strict` / `unordered` is relaxed.
pub fn compare_trajectories(
    actual: &[Value],
    expected: &[Value],
    ordering: &str,
    allow_repeated: bool,
) -> Value {
    let an = names(actual);
    if expected.is_empty() {
        return json!({
            "score": if actual.is_empty() { 1 } else { 0 },
            "matchedSteps": 0,
            "totalExpectedSteps": 0,
            "totalActualSteps": actual.len(),
            "missingSteps": [],
            "extraSteps": name_list(&an),
            "outOfOrderSteps": [],
            "repeatedSteps": [],
        });
    }
    let en = names(expected);
    // names seen more than once, in first-seen order (a JS Map)
    let mut counts: Vec<(Option<&Value>, usize)> = Vec::new();
    for n in &an {
        match counts.iter_mut().find(|(k, _)| strict_eq(*k, *n)) {
            Some(slot) => slot.1 += 1,
            None => counts.push((*n, 1)),
        }
    }
    let repeated: Vec<Option<&Value>> = counts
        .into_iter()
        .filter(|(_, c)| *c > 1)
        .map(|(n, _)| n)
        .collect();
    let mut matched = 0usize;
    let mut matched_expected = vec![false; expected.len()];
    let mut out_of_order: Vec<Option<&Value>> = Vec::new();
    let mut score;
    match ordering {
        "strict" => {
            for i in 0..an.len().max(en.len()) {
                let a = an.get(i).copied().flatten();
                let e = en.get(i).copied().flatten();
                if strict_eq(a, e) {
                    let both = actual
                        .get(i)
                        .filter(|s| truthy(Some(s)))
                        .zip(expected.get(i).filter(|s| truthy(Some(s))));
                    let ok = match both {
                        Some((x, y)) => expected_step_matches(x, y),
                        None => true,
                    };
                    if ok {
                        matched += 1;
                        if i < matched_expected.len() {
                            matched_expected[i] = true;
                        }
                    }
                } else if truthy(a) && includes(&en, a) {
                    out_of_order.push(a);
                }
            }
            score = matched as f64 / expected.len() as f64;
            if an.len() > en.len() {
                let extra = (an.len() - en.len()) as f64 / en.len() as f64;
                score = (score - extra * 0.5).max(0.0);
            }
        }
        "unordered" => {
            let mut used = vec![false; actual.len()];
            for (i, e) in expected.iter().enumerate() {
                if let Some(j) =
                    (0..actual.len()).find(|&j| !used[j] && expected_step_matches(&actual[j], e))
                {
                    matched += 1;
                    matched_expected[i] = true;
                    used[j] = true;
                }
            }
            score = matched as f64 / expected.len() as f64;
        }
        _ => {
            let mut last: isize = -1;
            for (i, e) in en.iter().enumerate() {
                let mut found = false;
                for j in (last + 1) as usize..an.len() {
                    if !strict_eq(an[j], *e) {
                        continue;
                    }
                    let ok = if truthy(Some(&actual[j])) && truthy(Some(&expected[i])) {
                        expected_step_matches(&actual[j], &expected[i])
                    } else {
                        true
                    };
                    if ok {
                        matched += 1;
                        last = j as isize;
                        matched_expected[i] = true;
                        found = true;
                        break;
                    }
                }
                if !found && includes(&an, *e) {
                    out_of_order.push(*e);
                }
            }
            score = matched as f64 / expected.len() as f64;
        }
    }
    if !allow_repeated && !repeated.is_empty() {
        score = (score - repeated.len() as f64 * 0.1).max(0.0);
    }
    let missing: Vec<Option<&Value>> = en
        .iter()
        .enumerate()
        .filter(|(i, _)| !matched_expected[*i])
        .map(|(_, n)| *n)
        .collect();
    let extra: Vec<Option<&Value>> = an.iter().filter(|n| !includes(&en, **n)).copied().collect();
    json!({
        "score": num(round_to_two_decimals(score.clamp(0.0, 1.0))),
        "matchedSteps": matched,
        "totalExpectedSteps": expected.len(),
        "totalActualSteps": actual.len(),
        "missingSteps": name_list(&missing),
        "extraSteps": name_list(&extra),
        "outOfOrderSteps": name_list(&out_of_order),
        "repeatedSteps": name_list(&repeated),
    })
}

/// The efficiency budgets (`None`: not configured; `Some(null)` is configured and invalid,
/// as in Mastra where only `undefined` is "not set").
#[derive(Debug, Clone, Copy, Default)]
pub struct Budgets<'a> {
    pub max_steps: Option<&'a Value>,
    pub max_total_tokens: Option<&'a Value>,
    pub max_total_duration_ms: Option<&'a Value>,
    pub no_redundant_calls: bool,
}

fn f(v: Option<&Value>) -> f64 {
    v.and_then(Value::as_f64).unwrap_or(0.0)
}

/// `checkTrajectoryEfficiency(trajectory, budgets)`; `Err` with Mastra's message for an
/// invalid budget or missing measurements.
pub fn check_trajectory_efficiency(trajectory: &Value, b: Budgets<'_>) -> Result<Value, String> {
    for (name, limit) in [
        ("maxSteps", b.max_steps),
        ("maxTotalTokens", b.max_total_tokens),
        ("maxTotalDurationMs", b.max_total_duration_ms),
    ] {
        if limit.is_some() && !is_measurement(limit) {
            return Err(format!(
                "Invalid {name} budget: expected a finite nonnegative number"
            ));
        }
    }
    let steps = steps_of(trajectory);
    let total_steps = steps.len();
    let mut total_tokens = 0.0;
    let mut generations = 0usize;
    let mut remaining: Vec<&Value> = steps.iter().collect();
    while let Some(step) = remaining.pop() {
        if step.get("stepType").and_then(Value::as_str) == Some("model_generation") {
            generations += 1;
            if b.max_total_tokens.is_some()
                && (!is_measurement(step.get("promptTokens"))
                    || !is_measurement(step.get("completionTokens")))
            {
                return Err(format!(
                    "Cannot evaluate token budget: model generation \"{}\" has missing or invalid token counts",
                    template(step.get("name"))
                ));
            }
            total_tokens +=
                f(nullish(step.get("promptTokens"))) + f(nullish(step.get("completionTokens")));
        }
        if let Some(Value::Array(children)) = step.get("children") {
            remaining.extend(children.iter());
        }
    }
    if b.max_total_tokens.is_some() && (generations == 0 || !total_tokens.is_finite()) {
        return Err(
            "Cannot evaluate token budget: missing model-generation measurements or invalid total tokens"
                .into(),
        );
    }
    let declared = trajectory.get("totalDurationMs");
    let total_duration = match nullish(declared) {
        Some(d) => f(Some(d)),
        None => steps
            .iter()
            .map(|s| f(nullish(s.get("durationMs"))))
            .sum::<f64>(),
    };
    if b.max_total_duration_ms.is_some() {
        let measured = match declared {
            Some(d) => is_measurement(Some(d)),
            None => !steps.is_empty() && steps.iter().all(|s| is_measurement(s.get("durationMs"))),
        };
        if !(measured && total_duration.is_finite() && total_duration >= 0.0) {
            return Err(
                "Cannot evaluate duration budget: missing or invalid duration measurements".into(),
            );
        }
    }
    let mut redundant = Vec::new();
    if b.no_redundant_calls {
        for i in 1..steps.len() {
            let (p, c) = (&steps[i - 1], &steps[i]);
            let tool = matches!(
                p.get("stepType").and_then(Value::as_str),
                Some("tool_call" | "mcp_tool_call")
            );
            if strict_eq(p.get("name"), c.get("name"))
                && strict_eq(p.get("stepType"), c.get("stepType"))
                && tool
                && stringify(p.get("toolArgs")) == stringify(c.get("toolArgs"))
            {
                redundant.push(json!({ "name": c.get("name"), "index": i }));
            }
        }
    }
    let max_steps = b.max_steps.map(|v| f(Some(v)));
    let max_tokens = b.max_total_tokens.map(|v| f(Some(v)));
    let max_duration = b.max_total_duration_ms.map(|v| f(Some(v)));
    let over_steps = max_steps.is_some_and(|m| total_steps as f64 > m);
    let over_tokens = max_tokens.is_some_and(|m| total_tokens > m);
    let over_duration = max_duration.is_some_and(|m| total_duration > m);
    let dim = |over: bool, actual: f64, max: f64| {
        if over {
            (1.0 - (actual - max) / max).max(0.0)
        } else {
            1.0
        }
    };
    let mut dims = Vec::new();
    if let Some(m) = max_steps {
        dims.push(dim(over_steps, total_steps as f64, m));
    }
    if let Some(m) = max_tokens {
        dims.push(dim(over_tokens, total_tokens, m));
    }
    if let Some(m) = max_duration {
        dims.push(dim(over_duration, total_duration, m));
    }
    if b.no_redundant_calls {
        dims.push(if redundant.is_empty() {
            1.0
        } else {
            (1.0 - redundant.len() as f64 * 0.2).max(0.0)
        });
    }
    let score = if dims.is_empty() {
        1.0
    } else {
        dims.iter().fold(0.0, |a, b| a + b) / dims.len() as f64
    };
    Ok(json!({
        "score": num(round_to_two_decimals(score.clamp(0.0, 1.0))),
        "totalSteps": total_steps,
        "overStepBudget": over_steps,
        "totalTokens": num(total_tokens),
        "overTokenBudget": over_tokens,
        "totalDurationMs": match declared { Some(d) if !d.is_null() => d.clone(), _ => num(total_duration) },
        "overDurationBudget": over_duration,
        "redundantCalls": redundant,
    }))
}

/// A trajectory's top-level steps (`[]` when `steps` is not an array).
pub fn steps_of(trajectory: &Value) -> &[Value] {
    trajectory
        .get("steps")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn list(v: Option<&Value>) -> &[Value] {
    v.and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// `checkTrajectoryBlacklist(trajectory, { blacklistedTools, blacklistedSequences })`.
pub fn check_trajectory_blacklist(
    trajectory: &Value,
    tools: Option<&Value>,
    sequences: Option<&Value>,
) -> Value {
    let sn = names(steps_of(trajectory));
    let violated_tools: Vec<Value> = list(tools)
        .iter()
        .filter(|t| includes(&sn, Some(t)))
        .cloned()
        .collect();
    let mut violated_sequences = Vec::new();
    for seq in list(sequences) {
        let Value::Array(seq_items) = seq else {
            continue;
        };
        if seq_items.is_empty() || seq_items.len() > sn.len() {
            continue;
        }
        let hit = (0..=sn.len() - seq_items.len()).any(|i| {
            seq_items
                .iter()
                .enumerate()
                .all(|(j, s)| strict_eq(sn[i + j], Some(s)))
        });
        if hit {
            violated_sequences.push(seq.clone());
        }
    }
    let any = !violated_tools.is_empty() || !violated_sequences.is_empty();
    json!({
        "score": if any { 0 } else { 1 },
        "violatedTools": violated_tools,
        "violatedSequences": violated_sequences,
    })
}

/// `analyzeToolFailures(trajectory, { maxRetriesPerTool })`.
pub fn analyze_tool_failures(trajectory: &Value, max_retries: f64) -> Value {
    let calls: Vec<&Value> = steps_of(trajectory)
        .iter()
        .filter(|s| {
            matches!(
                s.get("stepType").and_then(Value::as_str),
                Some("tool_call" | "mcp_tool_call")
            )
        })
        .collect();
    if calls.is_empty() {
        return json!({ "score": 1, "patterns": [], "totalRetries": 0, "excessiveRetryTools": [] });
    }
    let failed = |s: &Value| s.get("success") == Some(&Value::Bool(false));
    let mut patterns: Vec<(f64, Value, Value)> = Vec::new();
    let mut total = 0usize;
    let mut i = 0;
    while i < calls.len() {
        let name = calls[i].get("name");
        let mut retries = 0usize;
        let mut j = i + 1;
        while j < calls.len() && strict_eq(calls[j].get("name"), name) {
            if failed(calls[j - 1]) {
                retries += 1;
            }
            j += 1;
        }
        if retries > 0 {
            let next = calls.get(j);
            let last_success = !failed(calls[j - 1]);
            let mut p = Map::new();
            if let Some(n) = name {
                p.insert("toolName".into(), n.clone());
            }
            p.insert("retryCount".into(), json!(retries));
            p.insert(
                "fellBackToAlternative".into(),
                json!(next.is_some() && !last_success),
            );
            if let Some(n) = next.filter(|_| !last_success) {
                if let Some(nn) = n.get("name") {
                    p.insert("alternativeTool".into(), nn.clone());
                }
            }
            p.insert("eventuallySucceeded".into(), json!(last_success));
            patterns.push((
                retries as f64,
                name.cloned().unwrap_or(Value::Null),
                Value::Object(p),
            ));
            total += retries;
        }
        i = j;
    }
    let excessive: Vec<Value> = patterns
        .iter()
        .filter(|(r, _, _)| *r > max_retries)
        .map(|(_, n, _)| n.clone())
        .collect();
    let excess = patterns
        .iter()
        .fold(0.0, |sum, (r, _, _)| sum + (r - max_retries).max(0.0));
    let score = (1.0 - excess * 0.2).max(0.0);
    json!({
        "score": num(round_to_two_decimals(score.clamp(0.0, 1.0))),
        "patterns": patterns.into_iter().map(|(_, _, p)| p).collect::<Vec<_>>(),
        "totalRetries": total,
        "excessiveRetryTools": excessive,
    })
}

/// The trajectory scorer's dimension weights.
#[derive(Debug, Clone, Copy)]
pub struct Weights {
    pub accuracy: f64,
    pub efficiency: f64,
    pub tool_failures: f64,
    pub blacklist: f64,
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            accuracy: 0.4,
            efficiency: 0.3,
            tool_failures: 0.2,
            blacklist: 0.1,
        }
    }
}

/// A non-negative number option of an expectation (`??` default); `Err` for a non-number.
/// A non-finite number the facade carried ([`crate::options::non_finite`]) is that number
/// (`Infinity`: no retry is excessive; `-Infinity`: every one is; `NaN`: see [`dimensions`]).
pub fn retries_of(config: &Value, path: &str) -> Result<f64, String> {
    let v = nullish(config.get("maxRetriesPerTool"));
    if let Some(x) = crate::options::non_finite(v) {
        return Ok(x);
    }
    match v {
        None => Ok(2.0),
        Some(Value::Number(n)) => Ok(n.as_f64().unwrap_or(2.0)),
        Some(other) => Err(format!(
            "{path}.maxRetriesPerTool must be a number; got {}",
            crate::error::type_name(other)
        )),
    }
}

/// The four dimensions of one expectation level over `trajectory` (Mastra's preprocess /
/// nested level): `(accuracy, efficiency, blacklist, toolFailures)`.
pub struct Dimensions {
    pub accuracy: Option<Value>,
    pub efficiency: Option<Value>,
    pub blacklist: Option<Value>,
    pub tool_failures: Value,
}

fn non_empty_list(v: Option<&Value>) -> bool {
    v.and_then(Value::as_array).is_some_and(|a| !a.is_empty())
}

/// The dimensions of `config` (an expectation) over `trajectory`.
pub fn dimensions(trajectory: &Value, config: &Value, path: &str) -> Result<Dimensions, String> {
    let steps = config.get("steps");
    let accuracy = if truthy(steps) {
        let expected = steps
            .and_then(Value::as_array)
            .ok_or_else(|| format!("{path}.steps must be an array of expected steps"))?;
        let ordering = nullish(config.get("ordering"))
            .map(|o| template(Some(o)))
            .unwrap_or_else(|| "relaxed".into());
        let allow = nullish(config.get("allowRepeatedSteps")).is_none_or(|v| truthy(Some(v)));
        Some(compare_trajectories(
            steps_of(trajectory),
            expected,
            &ordering,
            allow,
        ))
    } else {
        None
    };
    let keys = [
        "maxSteps",
        "maxTotalTokens",
        "maxTotalDurationMs",
        "noRedundantCalls",
    ];
    let efficiency = if keys.iter().any(|k| config.get(*k).is_some()) {
        Some(check_trajectory_efficiency(
            trajectory,
            Budgets {
                max_steps: config.get("maxSteps"),
                max_total_tokens: config.get("maxTotalTokens"),
                max_total_duration_ms: config.get("maxTotalDurationMs"),
                no_redundant_calls: nullish(config.get("noRedundantCalls"))
                    .is_none_or(|v| truthy(Some(v))),
            },
        )?)
    } else {
        None
    };
    let bt = config.get("blacklistedTools");
    let bs = config.get("blacklistedSequences");
    let blacklist = (non_empty_list(bt) || non_empty_list(bs))
        .then(|| check_trajectory_blacklist(trajectory, bt, bs));
    let retries = retries_of(config, path)?;
    let tool_failures = analyze_tool_failures(trajectory, retries);
    // Mastra's arithmetic with a NaN allowance gives a NaN score once a tool was retried:
    // a run failure here, never a silent NaN (no retry: the allowance is not in force)
    if retries.is_nan() && non_empty_list(tool_failures.get("patterns")) {
        return Err(format!(
            "Invalid {path}.maxRetriesPerTool: expected a number, got NaN (a tool was retried, so the retry allowance is in force)"
        ));
    }
    Ok(Dimensions {
        accuracy,
        efficiency,
        blacklist,
        tool_failures,
    })
}

fn score_of(v: &Value) -> f64 {
    v.get("score").and_then(Value::as_f64).unwrap_or(0.0)
}

/// The weighted level score: `Σ (w/Σw)·v` over the present dimensions (tool failures only
/// with patterns); `None` when no dimension is present.
pub fn level_score(d: &Dimensions, w: &Weights) -> Option<f64> {
    let mut scores: Vec<(f64, f64)> = Vec::new();
    if let Some(a) = &d.accuracy {
        scores.push((w.accuracy, score_of(a)));
    }
    if let Some(e) = &d.efficiency {
        scores.push((w.efficiency, score_of(e)));
    }
    if d.tool_failures["patterns"]
        .as_array()
        .is_some_and(|p| !p.is_empty())
    {
        scores.push((w.tool_failures, score_of(&d.tool_failures)));
    }
    if let Some(b) = &d.blacklist {
        scores.push((w.blacklist, score_of(b)));
    }
    if scores.is_empty() {
        return None;
    }
    let total = scores.iter().fold(0.0, |s, (w, _)| s + w);
    Some(if total > 0.0 {
        scores.iter().fold(0.0, |s, (w, v)| s + w / total * v)
    } else {
        1.0
    })
}

/// `hasBlacklistViolation(results)`: a blacklist hit at any depth.
pub fn has_blacklist_violation(results: &[Value]) -> bool {
    results.iter().any(|r| {
        r.get("blacklist")
            .and_then(|b| b.get("score"))
            .and_then(Value::as_f64)
            == Some(0.0)
            || has_blacklist_violation(list(r.get("nested")))
    })
}

/// The mean of the results' scores.
pub fn mean_score(results: &[Value]) -> f64 {
    results.iter().fold(0.0, |s, r| s + score_of(r)) / results.len() as f64
}

fn put(m: &mut Map<String, Value>, k: &str, v: Option<Value>) {
    if let Some(v) = v {
        m.insert(k.into(), v);
    }
}

/// `evaluateNestedExpectations(expectedSteps, actualSteps, weights)`: per expected step with
/// `children`, the first unused actual step of its name (and type) scored on its children.
pub fn evaluate_nested_expectations(
    expected: &[Value],
    actual: &[Value],
    w: &Weights,
    path: &str,
) -> Result<Vec<Value>, String> {
    let mut results = Vec::new();
    let mut used = vec![false; actual.len()];
    for (k, e) in expected.iter().enumerate() {
        let children = e.get("children");
        if !truthy(children) {
            continue;
        }
        let children = children.unwrap();
        let et = e.get("stepType");
        let found = (0..actual.len()).find(|&i| {
            !used[i]
                && strict_eq(actual[i].get("name"), e.get("name"))
                && (!truthy(et) || strict_eq(actual[i].get("stepType"), et))
        });
        let name = e.get("name").cloned().unwrap_or(Value::Null);
        let Some(i) = found else {
            let expected_steps = list(children.get("steps"));
            let mut r = Map::new();
            r.insert("stepName".into(), name);
            r.insert("score".into(), json!(0));
            if !expected_steps.is_empty() {
                r.insert(
                    "accuracy".into(),
                    json!({
                        "score": 0, "matchedSteps": 0, "totalExpectedSteps": expected_steps.len(),
                        "totalActualSteps": 0, "missingSteps": name_list(&names(expected_steps)),
                        "extraSteps": [], "outOfOrderSteps": [], "repeatedSteps": [],
                    }),
                );
            }
            results.push(Value::Object(r));
            continue;
        };
        used[i] = true;
        let a = &actual[i];
        let mut child = Map::new();
        child.insert(
            "steps".into(),
            nullish(a.get("children"))
                .cloned()
                .unwrap_or_else(|| json!([])),
        );
        if let Some(d) = a.get("durationMs") {
            child.insert("totalDurationMs".into(), d.clone());
        }
        let child = Value::Object(child);
        let child_path = format!("{path}.steps[{k}].children");
        let d = dimensions(&child, children, &child_path)?;
        let nested = if truthy(children.get("steps")) {
            evaluate_nested_expectations(
                list(children.get("steps")),
                steps_of(&child),
                w,
                &child_path,
            )?
        } else {
            Vec::new()
        };
        let record = |score: Value, d: Dimensions, nested: Option<Vec<Value>>| {
            let mut r = Map::new();
            r.insert("stepName".into(), name.clone());
            r.insert("score".into(), score);
            put(&mut r, "accuracy", d.accuracy);
            put(&mut r, "efficiency", d.efficiency);
            put(&mut r, "blacklist", d.blacklist);
            r.insert("toolFailures".into(), d.tool_failures);
            put(&mut r, "nested", nested.map(Value::Array));
            Value::Object(r)
        };
        if d.blacklist.as_ref().is_some_and(|b| score_of(b) == 0.0) {
            results.push(record(json!(0), d, Some(nested)));
            continue;
        }
        let level = level_score(&d, w).unwrap_or(1.0);
        if !nested.is_empty() {
            if has_blacklist_violation(&nested) {
                results.push(record(json!(0), d, Some(nested)));
                continue;
            }
            let s = 0.7 * level + 0.3 * mean_score(&nested);
            results.push(record(num(round2_plain(s)), d, Some(nested)));
        } else {
            results.push(record(num(round2_plain(level)), d, None));
        }
    }
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(names: &[&str]) -> Vec<Value> {
        names
            .iter()
            .map(|n| json!({"stepType": "tool_call", "name": n}))
            .collect()
    }

    #[test]
    fn compare_table() {
        let cases = [
            // the catalogue's observed values
            (t(&["s", "v", "m"]), t(&["s", "m"]), "strict", true, 0.25),
            (t(&["s", "s", "m"]), t(&["s", "m"]), "relaxed", false, 0.9),
            (t(&["m", "s"]), t(&["s", "m"]), "unordered", true, 1.0),
            (t(&["m", "s"]), t(&["s", "m"]), "relaxed", true, 0.5),
            (t(&[]), t(&[]), "relaxed", true, 1.0),
            (t(&["a"]), t(&[]), "strict", true, 0.0),
            (t(&["a", "b", "c", "d"]), t(&["a"]), "strict", true, 0.0),
            (
                t(&["a", "a", "b", "b"]),
                t(&["a", "b"]),
                "unordered",
                false,
                0.8,
            ),
        ];
        for (a, e, ord, allow, want) in cases {
            let r = compare_trajectories(&a, &e, ord, allow);
            assert_eq!(r["score"].as_f64().unwrap(), want, "{ord} {r}");
        }
        let r = compare_trajectories(&t(&["s", "v", "m"]), &t(&["s", "m"]), "strict", true);
        assert_eq!(r["outOfOrderSteps"], json!(["m"]));
        assert_eq!(r["missingSteps"], json!(["m"]));
        assert_eq!(r["extraSteps"], json!(["v"]));
        // data comparison: JSON text, key order included
        let a = vec![json!({"stepType": "tool_call", "name": "x", "toolArgs": {"a": 1, "b": 2}})];
        let e1 = vec![json!({"stepType": "tool_call", "name": "x", "toolArgs": {"a": 1, "b": 2}})];
        let e2 = vec![json!({"stepType": "tool_call", "name": "x", "toolArgs": {"b": 2, "a": 1}})];
        let e3 = vec![json!({"name": "x", "toolArgs": {"z": 0}})];
        assert_eq!(compare_trajectories(&a, &e1, "relaxed", true)["score"], 1);
        assert_eq!(compare_trajectories(&a, &e2, "relaxed", true)["score"], 0);
        assert_eq!(compare_trajectories(&a, &e3, "relaxed", true)["score"], 1);
    }

    #[test]
    fn efficiency_blacklist_failures() {
        let tr = json!({"steps": [
            {"stepType": "tool_call", "name": "a", "toolArgs": {"q": 1}, "durationMs": 10},
            {"stepType": "tool_call", "name": "a", "toolArgs": {"q": 1}, "durationMs": 10},
            {"stepType": "model_generation", "name": "g", "promptTokens": 5, "completionTokens": 5, "durationMs": 5}
        ]});
        let n = |x: f64| json!(x);
        let (two, ten) = (n(2.0), n(10.0));
        let r = check_trajectory_efficiency(
            &tr,
            Budgets {
                max_steps: Some(&two),
                max_total_tokens: Some(&ten),
                max_total_duration_ms: None,
                no_redundant_calls: true,
            },
        )
        .unwrap();
        // steps 3 > 2 → 0.5; tokens 10 ≤ 10 → 1; one redundant call → 0.8: mean 0.7667
        assert_eq!(r["score"], json!(0.77));
        assert_eq!(r["redundantCalls"], json!([{"name": "a", "index": 1}]));
        assert_eq!(r["totalDurationMs"], json!(25));
        let bad = json!(-1);
        let e = check_trajectory_efficiency(
            &tr,
            Budgets {
                max_steps: Some(&bad),
                ..Default::default()
            },
        )
        .unwrap_err();
        assert_eq!(
            e,
            "Invalid maxSteps budget: expected a finite nonnegative number"
        );
        let none = json!({"steps": [{"stepType": "tool_call", "name": "a"}]});
        let e = check_trajectory_efficiency(
            &none,
            Budgets {
                max_total_tokens: Some(&ten),
                ..Default::default()
            },
        )
        .unwrap_err();
        assert!(e.starts_with("Cannot evaluate token budget: missing"));
        let e = check_trajectory_efficiency(
            &none,
            Budgets {
                max_total_duration_ms: Some(&ten),
                ..Default::default()
            },
        )
        .unwrap_err();
        assert!(e.starts_with("Cannot evaluate duration budget"));
        assert_eq!(
            check_trajectory_efficiency(&none, Budgets::default()).unwrap()["score"],
            1
        );

        let b = check_trajectory_blacklist(
            &tr,
            Some(&json!(["g", "zz"])),
            Some(&json!([["a", "g"], [], ["g", "a"]])),
        );
        assert_eq!(
            b,
            json!({"score": 0, "violatedTools": ["g"], "violatedSequences": [["a", "g"]]})
        );

        let f = json!({"steps": [
            {"stepType": "tool_call", "name": "x", "success": false},
            {"stepType": "tool_call", "name": "x", "success": false},
            {"stepType": "tool_call", "name": "x", "success": false},
            {"stepType": "tool_call", "name": "x", "success": false},
            {"stepType": "tool_call", "name": "y", "success": true}
        ]});
        let r = analyze_tool_failures(&f, 2.0);
        assert_eq!(r["score"], json!(0.8));
        assert_eq!(
            r["patterns"],
            json!([{"toolName": "x", "retryCount": 3, "fellBackToAlternative": true, "alternativeTool": "y", "eventuallySucceeded": false}])
        );
        assert_eq!(r["excessiveRetryTools"], json!(["x"]));
        assert_eq!(
            analyze_tool_failures(&json!({"steps": []}), 2.0)["score"],
            1
        );
    }

    #[test]
    fn nested_expectations() {
        let actual = vec![
            json!({"stepType": "agent_run", "name": "sub", "durationMs": 5, "children": [
                {"stepType": "tool_call", "name": "a"}, {"stepType": "tool_call", "name": "b"}
            ]}),
        ];
        let expected = vec![
            json!({"name": "sub", "children": {"steps": [{"name": "a"}, {"name": "c"}]}}),
            json!({"name": "missing", "children": {"steps": [{"name": "q"}]}}),
        ];
        let r = evaluate_nested_expectations(&expected, &actual, &Weights::default(), "x").unwrap();
        assert_eq!(r[0]["score"], json!(0.5));
        assert_eq!(r[0]["accuracy"]["missingSteps"], json!(["c"]));
        assert_eq!(r[1]["score"], 0);
        assert_eq!(r[1]["accuracy"]["missingSteps"], json!(["q"]));
        let bl = vec![json!({"name": "sub", "children": {"blacklistedTools": ["b"]}})];
        let r = evaluate_nested_expectations(&bl, &actual, &Weights::default(), "x").unwrap();
        assert_eq!(r[0]["score"], 0);
        assert!(has_blacklist_violation(&r));
    }
}
