//! THE decision of whether a run passed: the policy (`maxErrors`, `minCoverage`,
//! `gatePassRate`, `partial`, `stopEarly`), thresholds with Mastra's rules, what one tally
//! (a scorer or gate) says of the run ([`Judged`]), and the run's status from its reasons.
//! See the module docs of `evals` for the rules.

use super::{describe, num, stats, Stats, Tally};
use crate::error::InvalidArgument;
use serde_json::{json, Value};

/// A scorer's pass/fail threshold: a number is a minimum; `{ min?, max? }` bounds.
#[derive(Debug, Clone, PartialEq)]
pub struct Threshold {
    pub min: Option<f64>,
    pub max: Option<f64>,
    /// As the user gave it (echoed in `thresholdResults`).
    pub raw: Value,
}

fn bound(v: &Value, label: &str, id: &str) -> Result<f64, InvalidArgument> {
    match v.as_f64() {
        Some(x) if x.is_finite() && (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(InvalidArgument::options(format!(
            "the {label} threshold of scorer \"{id}\" must be a finite number in [0, 1], got {}",
            describe(v)
        ))),
    }
}

impl Threshold {
    /// Mastra's threshold rules: a number in [0, 1], or an object with at least one of
    /// `min`/`max` in [0, 1] and `min <= max`.
    pub fn parse(v: &Value, id: &str) -> Result<Threshold, InvalidArgument> {
        match v {
            Value::Number(_) | Value::String(_) => {
                let min = bound(v, "minimum", id)?;
                Ok(Threshold {
                    min: Some(min),
                    max: None,
                    raw: v.clone(),
                })
            }
            Value::Object(o) => {
                let get = |k: &str| o.get(k).filter(|v| !v.is_null());
                let min = get("min").map(|v| bound(v, "minimum", id)).transpose()?;
                let max = get("max").map(|v| bound(v, "maximum", id)).transpose()?;
                if min.is_none() && max.is_none() {
                    return Err(InvalidArgument::options(format!(
                        "the threshold of scorer \"{id}\" must give min, max or both"
                    )));
                }
                if let (Some(a), Some(b)) = (min, max) {
                    if a > b {
                        return Err(InvalidArgument::options(format!(
                            "the threshold of scorer \"{id}\" has min ({a}) above max ({b})"
                        )));
                    }
                }
                Ok(Threshold {
                    min,
                    max,
                    raw: v.clone(),
                })
            }
            other => Err(InvalidArgument::options(format!(
                "the threshold of scorer \"{id}\" must be a number or {{ min?, max? }}, got {}",
                describe(other)
            ))),
        }
    }

    /// The threshold as a person reads it: `>= 0.7`, `<= 0.3`, `0.2..0.8`.
    pub fn text(&self) -> String {
        match (self.min, self.max) {
            (Some(a), Some(b)) => format!("{}..{}", num(a), num(b)),
            (Some(a), None) => format!(">= {}", num(a)),
            (None, Some(b)) => format!("<= {}", num(b)),
            (None, None) => String::new(),
        }
    }

    /// Why `mean` misses this threshold, in words that say which side it missed on.
    pub fn missed(&self, id: &str, mean: Option<f64>) -> String {
        let Some(m) = mean else {
            return format!(
                "\"{id}\" has no mean (no item was scored), so it cannot meet its threshold {}",
                self.text()
            );
        };
        match (self.min, self.max) {
            (Some(min), _) if m < min => {
                format!("\"{id}\" mean {} is below the minimum {}", num(m), num(min))
            }
            (_, Some(max)) if m > max => {
                format!("\"{id}\" mean {} is above the maximum {}", num(m), num(max))
            }
            _ => format!(
                "\"{id}\" mean {} misses its threshold {}",
                num(m),
                self.text()
            ),
        }
    }

    /// Whether `score` passes (a non-finite score never does).
    pub fn passed(&self, score: f64) -> bool {
        score.is_finite()
            && self.min.is_none_or(|m| score >= m)
            && self.max.is_none_or(|m| score <= m)
    }
}

/// One reason of the outcome: `{ kind, scorer?, turn?, message }` (`turn`: the turn index of
/// a per-turn assertion).
pub(super) fn reason(
    kind: &str,
    scorer: Option<&str>,
    turn: Option<u64>,
    message: String,
) -> Value {
    let mut r = json!({ "kind": kind, "message": message });
    if let Some(s) = scorer {
        r["scorer"] = json!(s);
    }
    if let Some(t) = turn {
        r["turn"] = json!(t);
    }
    r
}

/// What the summary says of one tally (a scorer or gate, top-level or of one turn).
pub(super) struct Judged {
    pub(super) stats: Stats,
    pub(super) coverage: Value,
    pub(super) gate_result: Option<Value>,
    pub(super) threshold_result: Option<Value>,
    /// Reasons that fail the run.
    pub(super) reasons: Vec<Value>,
    /// Missed thresholds (the run is then `scored`).
    pub(super) threshold_reasons: Vec<Value>,
}

/// What the run allows and how it is judged (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct Policy {
    /// Items that may go unscored before the run fails (default 0).
    pub max_errors: u64,
    /// The least share of items each scorer must score (optional).
    pub min_coverage: Option<f64>,
    /// The least average a gate needs to pass (Mastra: 1).
    pub gate_pass_rate: f64,
    /// One shard of a larger run: only what a part can decide is decided (gates at pass
    /// rate 1, errors against `max_errors`, replay misses); means, thresholds, coverage and
    /// "nothing scored" are left to the merge.
    pub partial: bool,
    /// Stop when a scorer's runs fail the same persistent way several times in a row.
    pub stop_early: bool,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            max_errors: 0,
            min_coverage: None,
            gate_pass_rate: 1.0,
            partial: false,
            stop_early: true,
        }
    }
}

fn fraction(config: &Value, key: &str) -> Result<Option<f64>, InvalidArgument> {
    match config.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_f64() {
            Some(x) if x.is_finite() && (0.0..=1.0).contains(&x) => Ok(Some(x)),
            _ => Err(InvalidArgument::options(format!(
                "{key} must be a number in [0, 1], got {}",
                describe(v)
            ))),
        },
    }
}

impl Policy {
    /// `maxErrors` (an integer ≥ 0), `minCoverage` and `gatePassRate` (in [0, 1]), `partial`
    /// and `stopEarly` (booleans) from the runEvals configuration.
    pub fn from_config(config: &Value) -> Result<Policy, InvalidArgument> {
        let mut p = Policy::default();
        match config.get("maxErrors") {
            None | Some(Value::Null) => {}
            Some(v) => match v.as_f64() {
                Some(x) if x >= 0.0 && x.fract() == 0.0 && x <= 9.0e15 => p.max_errors = x as u64,
                _ => {
                    return Err(InvalidArgument::options(format!(
                    "maxErrors must be a whole number ≥ 0 (items allowed to go unscored), got {}",
                    describe(v)
                )))
                }
            },
        }
        p.min_coverage = fraction(config, "minCoverage")?;
        if let Some(r) = fraction(config, "gatePassRate")? {
            p.gate_pass_rate = r;
        }
        for (key, slot) in [
            ("partial", &mut p.partial),
            ("stopEarly", &mut p.stop_early),
        ] {
            match config.get(key) {
                None | Some(Value::Null) => {}
                Some(Value::Bool(b)) => *slot = *b,
                Some(v) => {
                    return Err(InvalidArgument::options(format!(
                        "{key} must be a boolean, got {}",
                        describe(v)
                    )))
                }
            }
        }
        Ok(p)
    }
}

/// The run's status and what it means, from the reasons that fail it and the missed
/// thresholds: `failed` when any reason fails it, else `scored` when a threshold was missed,
/// else `passed`.
pub(super) fn status(
    reasons: &[Value],
    threshold_reasons: &[Value],
    partial: bool,
) -> (&'static str, &'static str) {
    let status = if !reasons.is_empty() {
        "failed"
    } else if !threshold_reasons.is_empty() {
        "scored"
    } else {
        "passed"
    };
    let meaning = match status {
        "passed" if partial => "passed: this shard's items were scored and its gates passed (thresholds are decided by oxeval merge)",
        "passed" => "passed: every item was scored and every gate and threshold was met",
        "scored" => "scored: every item was scored and the gates passed, but a scorer missed its threshold; this is not a pass",
        _ => "failed: see the reasons",
    };
    (status, meaning)
}

impl Tally {
    /// What the summary says of this tally under `policy`: its statistics and coverage, its
    /// gate or threshold result, and the reasons it fails the run. `turn`: the turn index of
    /// a per-turn assertion (its messages name the turn).
    pub(super) fn judge(&self, id: &str, policy: &Policy, turn: Option<u64>) -> Judged {
        let partial = policy.partial;
        let at = turn.map_or(String::new(), |k| format!("turn {k}: "));
        let mut sorted = self.scores.clone();
        sorted.sort_by_key(|(i, _)| *i);
        let xs: Vec<f64> = sorted.iter().map(|(_, s)| *s).collect();
        let st = stats(&xs, self.scale);
        let mut reasons = Vec::new();
        let mut threshold_reasons = Vec::new();
        let plural = |n: u64| if n == 1 { "" } else { "s" };
        if !partial && self.total == 0 && self.not_scorable > 0 {
            // nothing was scorable: never a pass (Mastra omits such a gate or threshold)
            reasons.push(reason(
                "nothing-scored",
                Some(id),
                turn,
                format!(
                    "{at}\"{id}\" found none of its {} item{} scorable",
                    self.not_scorable,
                    plural(self.not_scorable)
                ),
            ));
        }
        if !partial && self.total > 0 && xs.is_empty() {
            reasons.push(reason(
                "nothing-scored",
                Some(id),
                turn,
                format!(
                    "{at}\"{id}\" scored none of its {} item{}",
                    self.total,
                    plural(self.total)
                ),
            ));
        }
        if let (false, Some(floor)) = (partial, policy.min_coverage) {
            let share = if self.total == 0 {
                0.0
            } else {
                xs.len() as f64 / self.total as f64
            };
            if share < floor && !xs.is_empty() {
                reasons.push(reason(
                    "coverage",
                    Some(id),
                    turn,
                    format!(
                        "{at}\"{id}\" scored {} of {} items ({}%), below the coverage floor of {}%",
                        xs.len(),
                        self.total,
                        num(share * 100.0),
                        num(floor * 100.0)
                    ),
                ));
            }
        }
        // a gate or threshold none of whose runs was scorable is left out (as Mastra)
        let all_not_scorable = self.total == 0 && self.not_scorable > 0;
        let mut gate_result = None;
        let mut threshold_result = None;
        if self.gate && !all_not_scorable {
            let mut g = self.gate_scores.clone();
            g.sort_by_key(|(i, _)| *i);
            let gs: Vec<f64> = g.iter().map(|(_, s)| *s).collect();
            let avg = stats(&gs, 1.0).mean.unwrap_or(0.0);
            // an empty shard has nothing against its gates; an empty run fails (no-items)
            let passed = if gs.is_empty() {
                partial
            } else {
                avg >= policy.gate_pass_rate
            };
            // a shard decides a gate only when every item must pass
            let decided = !partial || policy.gate_pass_rate >= 1.0;
            if !passed && decided {
                reasons.push(reason(
                    "gate",
                    Some(id),
                    turn,
                    format!(
                        "{at}gate \"{id}\" passed {}% of items (required: {}%)",
                        num(avg * 100.0),
                        num(policy.gate_pass_rate * 100.0)
                    ),
                ));
            }
            gate_result = Some(json!({ "id": id, "passed": passed, "score": avg }));
        } else if !self.gate {
            if let Some(th) = self.threshold.as_ref().filter(|_| !all_not_scorable) {
                let passed = st.mean.is_some_and(|m| th.passed(m));
                if !passed && !partial {
                    threshold_reasons.push(reason(
                        "threshold",
                        Some(id),
                        turn,
                        format!("{at}{}", th.missed(id, st.mean)),
                    ));
                }
                threshold_result = Some(json!({
                    "id": id, "passed": passed, "averageScore": st.mean, "threshold": th.raw,
                }));
            }
        }
        Judged {
            coverage: json!({ "scored": xs.len(), "total": self.total }),
            stats: st,
            gate_result,
            threshold_result,
            reasons,
            threshold_reasons,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_follow_mastras_rules() {
        let t = |v: Value| Threshold::parse(&v, "s");
        assert!(t(json!(0.7)).unwrap().passed(0.7));
        assert!(!t(json!(0.7)).unwrap().passed(0.69));
        assert!(!t(json!(0.0)).unwrap().passed(f64::NAN));
        let band = t(json!({"min": 0.2, "max": 0.4})).unwrap();
        assert!(band.passed(0.3) && !band.passed(0.5) && !band.passed(0.1));
        assert!(t(json!({"max": 0.1})).unwrap().passed(0.0));
        for bad in [
            json!(1.5),
            json!(-0.1),
            json!({}),
            json!({"min": 0.5, "max": 0.4}),
            json!([0.5]),
            json!(true),
            json!({"min": "x"}),
        ] {
            let e = t(bad.clone()).unwrap_err();
            assert!(e.message.contains("\"s\""), "{bad}: {}", e.message);
        }
    }
}
