//! The committed parity fixture (`__test__/fixtures/ragas-nonllm.jsonl`: seeded cases with
//! ragas 0.4.3's own scores) against these functions, to 1e-9.

use super::string_similarity::{similarity, Measure};
use super::{bleu::bleu, chrf::chrf, exact_match::exact_match, string_presence::string_presence};
use serde_json::Value;

/// The non-text metrics: quoted spans (response, contexts) and the tool metrics (messages).
fn structured(case: &Value) -> Option<f64> {
    let o = &case["options"];
    match case["metric"].as_str()? {
        "quoted_spans" => {
            let contexts: Vec<String> = serde_json::from_value(case["contexts"].clone()).unwrap();
            let min = o["minSpanWords"].as_u64().unwrap() as usize;
            let casefold = o["casefold"].as_bool().unwrap();
            Some(super::quoted_spans::alignment(
                case["response"].as_str().unwrap(),
                &contexts,
                casefold,
                min,
            ))
        }
        m @ ("tool_call_accuracy" | "tool_call_f1") => {
            let pred = super::tool_calls::predicted(&case["messages"]).unwrap();
            let raw = serde_json::json!({ "referenceToolCalls": case["referenceToolCalls"] });
            let run = crate::run::RunInput {
                run_id: String::new(),
                input: None,
                output: Value::Null,
                ground_truth: None,
                raw,
            };
            let reference = super::tool_calls::reference(&run).unwrap();
            Some(if m == "tool_call_f1" {
                super::tool_call_f1::f1(&pred, &reference)
            } else {
                let strict = o["strictOrder"].as_bool().unwrap();
                super::tool_call_accuracy::accuracy(&pred, &reference, strict)
            })
        }
        _ => None,
    }
}

fn ours(case: &Value) -> f64 {
    if let Some(score) = structured(case) {
        return score;
    }
    let (r, s) = (
        case["reference"].as_str().unwrap(),
        case["response"].as_str().unwrap(),
    );
    match case["metric"].as_str().unwrap() {
        "exact_match" => exact_match(r, s),
        "string_presence" => string_presence(r, s),
        "chrf" => chrf(r, s),
        "bleu" => bleu(r, s),
        "rouge" => {
            let lcs = case["options"]["rougeType"] == "rougeL";
            let [p, rec, f] = super::rouge::rouge(lcs, r, s);
            match case["options"]["mode"].as_str().unwrap() {
                "precision" => p,
                "recall" => rec,
                _ => f,
            }
        }
        "string_similarity" => {
            let m = match case["options"]["distanceMeasure"].as_str().unwrap() {
                "hamming" => Measure::Hamming,
                "jaro" => Measure::Jaro,
                "jaro_winkler" => Measure::JaroWinkler,
                _ => Measure::Levenshtein,
            };
            similarity(m, r, s)
        }
        other => panic!("unknown metric {other}"),
    }
}

#[test]
fn every_fixture_case_matches_ragas() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../__test__/fixtures/ragas-nonllm.jsonl"
    );
    let text = std::fs::read_to_string(path).expect("the parity fixture");
    let mut worst: std::collections::BTreeMap<String, (usize, f64)> = Default::default();
    let mut bad = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let case: Value = serde_json::from_str(line).unwrap();
        let want = case["ragas"]["score"]
            .as_f64()
            .expect("ragas scored the case");
        let got = ours(&case);
        let key = format!("{} {}", case["metric"], case["options"]);
        let e = worst.entry(key.clone()).or_default();
        e.0 += 1;
        e.1 = e.1.max((got - want).abs());
        if (got - want).abs() > 1e-9 || got.is_nan() {
            bad.push(format!(
                "line {}: {key}: ours {got} ragas {want} ({})",
                i + 1,
                line.chars().take(300).collect::<String>()
            ));
        }
    }
    for (k, (n, d)) in &worst {
        eprintln!("parity {k}: {n} cases, max |diff| {d:e}");
    }
    assert!(
        bad.is_empty(),
        "{} mismatches:\n{}",
        bad.len(),
        bad[..bad.len().min(10)].join("\n")
    );
}
