//! Agreement between a judge and a user's own labels (runEvals items' `expected`): mean
//! absolute error and Spearman's ρ over numeric labels, and, at the scorer's threshold,
//! Cohen's κ with the confusion counts. Pure functions with unit tables; the accumulator
//! ([`crate::evals`]) collects one `(judge score, label)` pair per scored item.
//!
//! Decisions:
//! - An item the scorer did not score is never a pair: it counts in `unscored`, not as
//!   agreement or disagreement.
//! - ρ ranks ties by their average rank (Spearman's correction), then is Pearson's r of the
//!   ranks. Fewer than two pairs, or one side constant, leave ρ undefined: `null` with a
//!   reason, never NaN. Likewise κ when no labeled item was scored, or when chance agreement
//!   is 1 (both sides put every item on the same one side).
//! - A numeric label passes or fails by the same threshold as the judge's score; `'pass'` /
//!   `'fail'` labels take part in κ only.

use crate::error::{type_name, InvalidArgument};
use serde::Serialize;
use serde_json::{json, Value};

/// One human label for one scorer on one item.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Label {
    Score(f64),
    Pass,
    Fail,
}

impl Label {
    /// `number | 'pass' | 'fail'`; `at` names the place for the message
    /// (`item 3: expected["faithfulness-scorer"]`).
    pub fn parse(v: &Value, at: &str) -> Result<Label, InvalidArgument> {
        match v {
            Value::String(s) if s == "pass" => Ok(Label::Pass),
            Value::String(s) if s == "fail" => Ok(Label::Fail),
            Value::Number(n) => match n.as_f64() {
                Some(x) if x.is_finite() => Ok(Label::Score(x)),
                _ => Err(InvalidArgument::input(format!(
                    "{at} must be a finite number, 'pass' or 'fail', got {n}"
                ))),
            },
            Value::String(s) => Err(InvalidArgument::input(format!(
                "{at} must be a number, 'pass' or 'fail', got the string {s:?}"
            ))),
            other => Err(InvalidArgument::input(format!(
                "{at} must be a number, 'pass' or 'fail', got a value of type {}",
                type_name(other)
            ))),
        }
    }
}

/// Mean absolute error of `(judge, label)` pairs; `None` without pairs.
pub fn mae(pairs: &[(f64, f64)]) -> Option<f64> {
    if pairs.is_empty() {
        return None;
    }
    Some(pairs.iter().map(|(a, b)| (a - b).abs()).sum::<f64>() / pairs.len() as f64)
}

/// 1-based ranks, ties given the average of the ranks they span.
pub fn average_ranks(xs: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..xs.len()).collect();
    order.sort_by(|&a, &b| xs[a].total_cmp(&xs[b]));
    let mut ranks = vec![0.0; xs.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && xs[order[j + 1]] == xs[order[i]] {
            j += 1;
        }
        // positions i..=j (0-based) are ranks i+1..=j+1: their average
        let avg = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            ranks[k] = avg;
        }
        i = j + 1;
    }
    ranks
}

/// Pearson's r; `Err` with a reason when it is undefined.
fn pearson(a: &[f64], b: &[f64]) -> Result<f64, String> {
    let n = a.len() as f64;
    let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for (x, y) in a.iter().zip(b) {
        sab += (x - ma) * (y - mb);
        saa += (x - ma) * (x - ma);
        sbb += (y - mb) * (y - mb);
    }
    match (saa == 0.0, sbb == 0.0) {
        (true, true) => Err("both the judge's scores and the labels are all equal".into()),
        (true, false) => Err("the judge gave every labeled item the same score".into()),
        (false, true) => Err("every label is the same number".into()),
        (false, false) => Ok((sab / (saa.sqrt() * sbb.sqrt())).clamp(-1.0, 1.0)),
    }
}

/// Spearman's ρ of `(judge, label)` pairs (ties by average ranks); `Err` with the reason it is
/// undefined.
pub fn spearman(pairs: &[(f64, f64)]) -> Result<f64, String> {
    if pairs.len() < 2 {
        return Err(format!(
            "Spearman's rho needs at least 2 scored items with numeric labels, got {}",
            pairs.len()
        ));
    }
    let a: Vec<f64> = pairs.iter().map(|p| p.0).collect();
    let b: Vec<f64> = pairs.iter().map(|p| p.1).collect();
    pearson(&average_ranks(&a), &average_ranks(&b))
}

/// Judge × label pass/fail counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Confusion {
    pub both_pass: u64,
    pub both_fail: u64,
    pub judge_pass_label_fail: u64,
    pub judge_fail_label_pass: u64,
}

impl Confusion {
    pub fn add(&mut self, judge_pass: bool, label_pass: bool) {
        match (judge_pass, label_pass) {
            (true, true) => self.both_pass += 1,
            (false, false) => self.both_fail += 1,
            (true, false) => self.judge_pass_label_fail += 1,
            (false, true) => self.judge_fail_label_pass += 1,
        }
    }

    pub fn n(&self) -> u64 {
        self.both_pass + self.both_fail + self.judge_pass_label_fail + self.judge_fail_label_pass
    }

    /// Observed agreement (share of items on the same side); `None` when empty.
    pub fn observed(&self) -> Option<f64> {
        let n = self.n();
        (n > 0).then(|| (self.both_pass + self.both_fail) as f64 / n as f64)
    }
}

/// Cohen's κ = (pₒ − pₑ) / (1 − pₑ); `Err` with the reason it is undefined.
pub fn kappa(c: &Confusion) -> Result<f64, String> {
    let n = c.n();
    if n == 0 {
        return Err("no labeled item was scored".into());
    }
    let n = n as f64;
    let po = (c.both_pass + c.both_fail) as f64 / n;
    let judge_pass = (c.both_pass + c.judge_pass_label_fail) as f64 / n;
    let label_pass = (c.both_pass + c.judge_fail_label_pass) as f64 / n;
    let pe = judge_pass * label_pass + (1.0 - judge_pass) * (1.0 - label_pass);
    if (1.0 - pe).abs() < 1e-12 {
        return Err(format!(
            "the judge and the labels put every item on the same side ({}): kappa is undefined (observed agreement {}%)",
            if judge_pass == 1.0 { "pass" } else { "fail" },
            crate::evals::num(po * 100.0)
        ));
    }
    Ok((po - pe) / (1.0 - pe))
}

/// The pairs of one scorer: `(item index, judge's item score or None, label)`.
#[derive(Debug, Clone, Default)]
pub struct Labels {
    pub pairs: Vec<(u64, Option<f64>, Label)>,
}

impl Labels {
    pub fn push(&mut self, index: u64, score: Option<f64>, label: Label) {
        self.pairs.push((index, score, label));
    }

    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// The agreement summary: `{ labeled, scored, unscored, numeric, mae, spearman,
    /// spearmanReason?, threshold, kappa, kappaReason?, observedAgreement, confusion }`.
    /// `passes` is the threshold test (the scorer's), `threshold` its text.
    pub fn summary(&self, passes: impl Fn(f64) -> bool, threshold: &str) -> Value {
        let mut pairs = self.pairs.clone();
        pairs.sort_by_key(|p| p.0);
        let mut numeric = Vec::new();
        let mut confusion = Confusion::default();
        let mut scored = 0u64;
        for (_, score, label) in &pairs {
            let Some(s) = score else { continue };
            scored += 1;
            let label_pass = match label {
                Label::Score(h) => {
                    numeric.push((*s, *h));
                    passes(*h)
                }
                Label::Pass => true,
                Label::Fail => false,
            };
            confusion.add(passes(*s), label_pass);
        }
        let mut out = json!({
            "labeled": pairs.len(),
            "scored": scored,
            "unscored": pairs.len() as u64 - scored,
            "numeric": numeric.len(),
            "mae": mae(&numeric),
            "spearman": Value::Null,
            "threshold": threshold,
            "kappa": Value::Null,
            "observedAgreement": confusion.observed(),
            "confusion": confusion,
        });
        match spearman(&numeric) {
            Ok(r) => out["spearman"] = json!(r),
            Err(why) => out["spearmanReason"] = json!(why),
        }
        match kappa(&confusion) {
            Ok(k) => out["kappa"] = json!(k),
            Err(why) => out["kappaReason"] = json!(why),
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn ranks_average_ties() {
        assert_eq!(
            average_ranks(&[10.0, 20.0, 20.0, 5.0]),
            [2.0, 3.5, 3.5, 1.0]
        );
        assert_eq!(average_ranks(&[1.0, 1.0, 1.0]), [2.0, 2.0, 2.0]);
        assert_eq!(average_ranks(&[]), Vec::<f64>::new());
    }

    #[test]
    fn spearman_table() {
        // perfect monotone (not linear) → 1; reversed → −1
        let up = [(0.1, 1.0), (0.2, 4.0), (0.9, 9.0)];
        assert!(close(spearman(&up).unwrap(), 1.0));
        let down = [(0.1, 9.0), (0.2, 4.0), (0.9, 1.0)];
        assert!(close(spearman(&down).unwrap(), -1.0));
        // no ties: rho = 1 - 6 Σd² / (n(n²-1)); ranks a = 1..5, b = [2,1,4,3,5]: Σd² = 4
        // → 1 - 24/120 = 0.8
        let p = [(1.0, 2.0), (2.0, 1.0), (3.0, 4.0), (4.0, 3.0), (5.0, 5.0)];
        assert!(close(spearman(&p).unwrap(), 0.8));
        // ties: judge [1, 2, 2, 3] → ranks [1, 2.5, 2.5, 4]; labels [1, 3, 2, 4] → ranks
        // [1, 3, 2, 4]; Pearson of the ranks: mean 2.5 both; Σab' = (-1.5)(-1.5) + 0·0.5 +
        // 0·(-0.5) + 1.5·1.5 = 4.5; Σa'² = 4.5; Σb'² = 5 → 4.5 / √(4.5·5) = 0.9486832980505138
        let t = [(1.0, 1.0), (2.0, 3.0), (2.0, 2.0), (3.0, 4.0)];
        assert!(close(spearman(&t).unwrap(), 4.5 / (4.5f64 * 5.0).sqrt()));
        // undefined cases: reasons, never NaN
        assert!(spearman(&[(0.5, 1.0)]).unwrap_err().contains("at least 2"));
        assert!(spearman(&[(0.5, 1.0), (0.5, 2.0)])
            .unwrap_err()
            .contains("same score"));
        assert!(spearman(&[(0.1, 1.0), (0.5, 1.0)])
            .unwrap_err()
            .contains("same number"));
    }

    #[test]
    fn mae_table() {
        assert_eq!(mae(&[]), None);
        assert!(close(
            mae(&[(0.2, 0.5), (1.0, 0.0), (0.5, 0.5)]).unwrap(),
            1.3 / 3.0
        ));
    }

    /// κ by hand: n = 10, both pass 4, both fail 3, judge-only pass 2, label-only pass 1.
    /// pₒ = 0.7; judge passes 6/10, labels 5/10; pₑ = 0.6·0.5 + 0.4·0.5 = 0.5;
    /// κ = (0.7 − 0.5) / 0.5 = 0.4.
    #[test]
    fn kappa_table() {
        let c = Confusion {
            both_pass: 4,
            both_fail: 3,
            judge_pass_label_fail: 2,
            judge_fail_label_pass: 1,
        };
        assert!(close(kappa(&c).unwrap(), 0.4));
        // perfect agreement on both sides → 1; perfect disagreement (balanced) → −1
        let perfect = Confusion {
            both_pass: 3,
            both_fail: 2,
            ..Default::default()
        };
        assert!(close(kappa(&perfect).unwrap(), 1.0));
        let opposite = Confusion {
            judge_pass_label_fail: 2,
            judge_fail_label_pass: 2,
            ..Default::default()
        };
        assert!(close(kappa(&opposite).unwrap(), -1.0));
        // undefined: nothing scored; everything on one side for both raters
        assert_eq!(
            kappa(&Confusion::default()).unwrap_err(),
            "no labeled item was scored"
        );
        let all_pass = Confusion {
            both_pass: 5,
            ..Default::default()
        };
        let why = kappa(&all_pass).unwrap_err();
        assert!(
            why.contains("same side (pass)") && why.contains("100%"),
            "{why}"
        );
        // one rater constant, the other not: defined (pₑ < 1), and 0
        let judge_all_pass = Confusion {
            both_pass: 3,
            judge_pass_label_fail: 1,
            ..Default::default()
        };
        assert!(close(kappa(&judge_all_pass).unwrap(), 0.0));
    }

    #[test]
    fn labels_parse() {
        let at = "item 0: expected[\"x\"]";
        assert_eq!(Label::parse(&json!("pass"), at).unwrap(), Label::Pass);
        assert_eq!(Label::parse(&json!("fail"), at).unwrap(), Label::Fail);
        assert_eq!(Label::parse(&json!(0.5), at).unwrap(), Label::Score(0.5));
        let e = Label::parse(&json!("PASS"), at).unwrap_err();
        assert_eq!(
            e.message,
            "item 0: expected[\"x\"] must be a number, 'pass' or 'fail', got the string \"PASS\""
        );
        let e = Label::parse(&json!(true), at).unwrap_err();
        assert!(
            e.message.ends_with("got a value of type boolean"),
            "{}",
            e.message
        );
    }

    /// The summary of constructed pairs: an unscored item is no pair; numeric labels pass by
    /// the threshold; pass/fail labels only count in κ.
    #[test]
    fn summary_of_constructed_pairs() {
        let mut l = Labels::default();
        // judge, label (threshold ≥ 0.5)
        l.push(3, Some(0.9), Label::Score(1.0)); // both pass
        l.push(0, Some(0.2), Label::Score(0.0)); // both fail
        l.push(1, Some(0.7), Label::Fail); // judge pass, label fail
        l.push(2, Some(0.4), Label::Pass); // judge fail, label pass
        l.push(4, None, Label::Pass); // not scored: no pair
        l.push(5, Some(0.6), Label::Score(0.8)); // both pass
        let s = l.summary(|x| x >= 0.5, ">= 0.5");
        assert_eq!(s["labeled"], 6);
        assert_eq!(s["scored"], 5);
        assert_eq!(s["unscored"], 1);
        assert_eq!(s["numeric"], 3);
        assert_eq!(
            s["confusion"],
            json!({"bothPass": 2, "bothFail": 1, "judgePassLabelFail": 1, "judgeFailLabelPass": 1})
        );
        // pₒ = 3/5; judge passes 3/5, labels 3/5; pₑ = 0.36 + 0.16 = 0.52; κ = 0.08/0.48
        assert!(close(s["kappa"].as_f64().unwrap(), (0.6 - 0.52) / 0.48));
        assert!(close(s["observedAgreement"].as_f64().unwrap(), 0.6));
        // MAE over the numeric pairs: |0.9-1| + |0.2-0| + |0.6-0.8| = 0.5 → /3
        assert!(close(s["mae"].as_f64().unwrap(), 0.5 / 3.0));
        // judge [0.2, 0.9, 0.6] and labels [0, 1, 0.8] have the same order → ρ = 1
        assert!(close(s["spearman"].as_f64().unwrap(), 1.0));
        assert!(s.get("kappaReason").is_none());

        // only pass/fail labels: no MAE or ρ, with the reason
        let mut l = Labels::default();
        l.push(0, Some(0.9), Label::Pass);
        let s = l.summary(|x| x >= 0.5, ">= 0.5");
        assert_eq!(s["mae"], Value::Null);
        assert_eq!(s["spearman"], Value::Null);
        assert!(s["spearmanReason"].as_str().unwrap().contains("got 0"));
        assert_eq!(s["kappa"], Value::Null);
        assert!(s["kappaReason"].as_str().unwrap().contains("undefined"));
    }

    /// Through the accumulator: labels ride on items; a failed run and a target error are
    /// unscored (no pair); a scorer without labels has no agreement entry; bad labels are
    /// errors naming the item.
    #[test]
    fn accumulator_reports_agreement_per_scorer() {
        use crate::evals::EvalAccumulator;
        let mut acc = EvalAccumulator::new(
            &json!({"scorers": [{"id": "a", "threshold": 0.7}, {"id": "b"}], "maxErrors": 10}),
        )
        .unwrap();
        let item = |i: u64, a: Value, expected: Value| json!({"index": i, "runs": {"a": [a], "b": [{"score": 1.0}]}, "expected": expected});
        // (judge, label) at >= 0.7: pass/pass, fail/fail, pass/fail, fail/fail
        acc.add_item(&item(0, json!({"score": 0.9}), json!({"a": "pass"})))
            .unwrap();
        acc.add_item(&item(1, json!({"score": 0.1}), json!({"a": 0.0})))
            .unwrap();
        acc.add_item(&item(2, json!({"score": 0.8}), json!({"a": 0.2})))
            .unwrap();
        acc.add_item(&item(3, json!({"score": 0.3}), json!({"a": "fail"})))
            .unwrap();
        // a failed run: labeled, not scored
        acc.add_item(&item(
            4,
            json!({"error": {"code": "OXEVAL_JUDGE_HTTP", "message": "500"}}),
            json!({"a": "pass"}),
        ))
        .unwrap();
        // a target error: labeled, not scored
        acc.add_item(
            &json!({"index": 5, "targetError": true, "runs": {}, "expected": {"a": "fail"}}),
        )
        .unwrap();
        let s = acc.summary(&json!({}));
        let a = &s["agreement"]["a"];
        assert_eq!(
            (
                a["labeled"].as_u64(),
                a["scored"].as_u64(),
                a["unscored"].as_u64()
            ),
            (Some(6), Some(4), Some(2))
        );
        assert_eq!(a["threshold"], ">= 0.7");
        assert_eq!(
            a["confusion"],
            json!({"bothPass": 1, "bothFail": 2, "judgePassLabelFail": 1, "judgeFailLabelPass": 0})
        );
        // pₒ = 3/4; judge passes 2/4, labels 1/4; pₑ = 0.5·0.25 + 0.5·0.75 = 0.5; κ = 0.5
        assert!(close(a["kappa"].as_f64().unwrap(), 0.5));
        // numeric pairs (0.1, 0.0), (0.8, 0.2): MAE 0.35; ρ = 1 (same order)
        assert!(close(a["mae"].as_f64().unwrap(), 0.35));
        assert!(close(a["spearman"].as_f64().unwrap(), 1.0));
        assert!(s["agreement"].get("b").is_none());

        let e = acc
            .add_item(&item(6, json!({"score": 1.0}), json!({"c": 1})))
            .unwrap_err();
        assert_eq!(
            e.message,
            "item 6: expected names the scorer \"c\", which is not in this run (scorers: a, b)"
        );
        let e = acc
            .add_item(&item(7, json!({"score": 1.0}), json!({"a": "yes"})))
            .unwrap_err();
        assert!(
            e.message
                .starts_with("item 7: expected[\"a\"] must be a number"),
            "{}",
            e.message
        );
        let e = acc
            .add_item(&item(8, json!({"score": 1.0}), json!([1])))
            .unwrap_err();
        assert!(
            e.message.starts_with("item 8: expected must be an object"),
            "{}",
            e.message
        );
        // without labels the summary has no agreement key (result shapes unchanged)
        let mut plain = EvalAccumulator::new(&json!({"scorers": [{"id": "a"}]})).unwrap();
        plain
            .add_item(&json!({"index": 0, "runs": {"a": [{"score": 1.0}]}}))
            .unwrap();
        assert!(plain.summary(&json!({})).get("agreement").is_none());
    }
}
