//! The committed parity fixture (`__test__/fixtures/ragas-nonllm.jsonl`: seeded cases with
//! ragas 0.4.3's own scores) against these functions, to 1e-9.

use super::string_similarity::{similarity, Measure};
use super::{bleu::bleu, chrf::chrf, exact_match::exact_match, string_presence::string_presence};
use serde_json::Value;

fn ours(case: &Value) -> f64 {
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
                "line {}: {key}: ours {got} ragas {want} ({:?} / {:?})",
                i + 1,
                case["reference"],
                case["response"]
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
