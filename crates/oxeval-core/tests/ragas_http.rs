//! The Ragas scorers (factual correctness, NVIDIA answer accuracy, context relevance,
//! response groundedness) end to end over real HTTP (wiremock on 127.0.0.1), with scripted
//! judge replies routed by schema name and prompt data.
//!
//! The score math is tested in the core's unit tables; here, the wiring: requests sent,
//! steps and records, and the core's score and reason passed through.

mod common;

use common::*;
use oxeval_core::engine::RunContext;
use oxeval_core::scorers::llm::factual_correctness::{
    self as fc, Counts, FactualCorrectness, Mode,
};
use oxeval_core::scorers::llm::nvidia::{
    reason, AnswerAccuracy, ContextRelevance, RatingScale, ResponseGroundedness,
};
use oxeval_core::{ErrorCode, RunError, Scorer};
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use wiremock::ResponseTemplate;

const RESPONSE: &str = "The Eiffel Tower is located in Paris.";
const REFERENCE: &str = "The Eiffel Tower is located in Paris. It has a height of 1000ft.";

// ---------------------------------------------------------------- factual correctness

/// Decomposition splits on ". " into sentences, with "It" resolved; NLI says 1 when the
/// premise contains the statement verbatim.
fn fc_oracle(s: &Seen) -> ResponseTemplate {
    match s.schema.as_str() {
        "factual_correctness_claims" => {
            let text = s.data["text"].as_str().unwrap();
            let claims: Vec<String> = text
                .split_inclusive(". ")
                .map(|c| c.trim().replace("It ", "The Eiffel Tower "))
                .filter(|c| !c.is_empty())
                .collect();
            completion(&json!({ "claims": claims }).to_string())
        }
        "factual_correctness_verdicts" => {
            let context = s.data["context"].as_str().unwrap();
            let statements: Vec<Value> = s.data["statements"]
                .as_array()
                .unwrap()
                .iter()
                .map(|st| {
                    let st = st.as_str().unwrap();
                    let ok = context.contains(st);
                    json!({"statement": st, "reason": if ok {"stated"} else {"not stated"}, "verdict": ok as i64})
                })
                .collect();
            completion(&json!({ "statements": statements }).to_string())
        }
        other => ResponseTemplate::new(500).set_body_string(format!("unexpected schema {other}")),
    }
}

fn fc_run() -> Value {
    json!({"runId": "fc1", "input": "Tell me about the Eiffel Tower.", "output": RESPONSE, "groundTruth": REFERENCE})
}

#[tokio::test]
async fn fc_seed_f1_end_to_end() {
    let server = server_with(fc_oracle).await;
    let s = FactualCorrectness::from_options(&options(&server, json!({}))).unwrap();
    let r = score(&s, fc_run()).await;
    // the seed example: 1 of 1 response claims supported, 1 of 2 reference claims covered
    let k = Counts {
        tp: 1,
        fp: 0,
        fn_: 1,
    };
    assert_eq!(r.score, Some(0.67));
    assert_eq!(r.run_id, "fc1");
    assert_eq!(r.reason, Some(fc::reason(k, Some(2), Mode::F1, 1.0, 0.67)));
    assert_eq!(
        r.preprocess_step_result,
        Some(json!({
            "responseClaims": [RESPONSE],
            "referenceClaims": ["The Eiffel Tower is located in Paris.", "The Eiffel Tower has a height of 1000ft."]
        }))
    );
    let a = r.analyze_step_result.clone().unwrap();
    assert_eq!(
        a["responseVerdicts"],
        json!([{"statement": RESPONSE, "reason": "stated", "verdict": 1}])
    );
    assert_eq!(a["referenceVerdicts"].as_array().unwrap().len(), 2);
    assert_eq!(
        (
            a["tp"].clone(),
            a["fp"].clone(),
            a["fn"].clone(),
            a["mode"].clone(),
            a["beta"].clone()
        ),
        (json!(1), json!(0), json!(1), json!("f1"), json!(1.0))
    );
    assert_eq!(a["precision"], json!(fc::precision(k)));
    assert_eq!(a["recall"], json!(fc::recall(k)));
    // exactly 4 calls: 2 decompositions, 2 NLI passes; no reason call
    assert_eq!(executions(&r, "preprocess"), 2);
    assert_eq!(executions(&r, "analyze"), 2);
    assert!(!r.judge.contains_key("generateReason"));
    let reqs = requests(&server).await;
    assert_eq!(reqs.len(), 4);
    let schemas: Vec<&str> = reqs.iter().map(|s| s.schema.as_str()).collect();
    assert_eq!(
        schemas
            .iter()
            .filter(|s| **s == "factual_correctness_claims")
            .count(),
        2
    );
    assert_eq!(
        schemas
            .iter()
            .filter(|s| **s == "factual_correctness_verdicts")
            .count(),
        2
    );
    // the NLI passes use the other text as premise
    let nli: Vec<&Seen> = reqs
        .iter()
        .filter(|s| s.schema == "factual_correctness_verdicts")
        .collect();
    assert!(nli
        .iter()
        .any(|s| s.data["context"] == REFERENCE && s.data["statements"] == json!([RESPONSE])));
    assert!(nli
        .iter()
        .any(|s| s.data["context"] == RESPONSE
            && s.data["statements"].as_array().unwrap().len() == 2));
    // both prompts of a step are kept
    assert_eq!(
        r.preprocess_prompt
            .as_ref()
            .unwrap()
            .matches("\n\n-----\n\n")
            .count(),
        1
    );
    assert_eq!(
        r.analyze_prompt
            .as_ref()
            .unwrap()
            .matches("\n\n-----\n\n")
            .count(),
        1
    );
    assert_eq!(
        s.meta()
            .steps
            .iter()
            .map(|s| (s.name, s.kind))
            .collect::<Vec<_>>(),
        vec![
            ("preprocess", "prompt"),
            ("analyze", "prompt"),
            ("generateScore", "function"),
            ("generateReason", "function")
        ]
    );
}

#[tokio::test]
async fn fc_seed_precision_and_recall() {
    let server = server_with(fc_oracle).await;
    let s =
        FactualCorrectness::from_options(&options(&server, json!({"mode": "precision"}))).unwrap();
    let r = score(&s, fc_run()).await;
    assert_eq!(r.score, Some(1.0));
    assert_eq!(
        r.preprocess_step_result.unwrap()["referenceClaims"],
        Value::Null
    );
    let a = r.analyze_step_result.clone().unwrap();
    assert_eq!(
        (
            a["referenceVerdicts"].clone(),
            a["fn"].clone(),
            a["mode"].clone()
        ),
        (Value::Null, json!(0), json!("precision"))
    );
    // no reference side: no recall (not a near-1 number)
    assert_eq!(a["recall"], Value::Null);
    let k = Counts {
        tp: 1,
        fp: 0,
        fn_: 0,
    };
    assert_eq!(
        r.reason,
        Some(fc::reason(k, None, Mode::Precision, 1.0, 1.0))
    );
    // precision: 1 decomposition, 1 NLI
    assert_eq!(requests(&server).await.len(), 2);

    let server = server_with(fc_oracle).await;
    let s =
        FactualCorrectness::from_options(&options(&server, json!({"options": {"mode": "recall"}})))
            .unwrap();
    let r = score(&s, fc_run()).await;
    assert_eq!(r.score, Some(0.5));
    assert_eq!(requests(&server).await.len(), 4);
}

#[tokio::test]
async fn fc_empty_claim_list_skips_its_nli_call() {
    let server = server_with(|s| {
        if s.schema == "factual_correctness_claims" && s.data["text"] == RESPONSE {
            completion(r#"{"claims": []}"#)
        } else {
            fc_oracle(s)
        }
    })
    .await;
    let s = FactualCorrectness::from_options(&options(&server, json!({}))).unwrap();
    let r = score(&s, fc_run()).await;
    assert_eq!(r.score, Some(0.0));
    let a = r.analyze_step_result.clone().unwrap();
    assert_eq!(a["responseVerdicts"], json!([]));
    assert_eq!(a["referenceVerdicts"].as_array().unwrap().len(), 2);
    assert_eq!(requests(&server).await.len(), 3);
    assert_eq!(executions(&r, "analyze"), 1);
}

#[tokio::test]
async fn fc_verdict_2_counts_and_fewer_verdicts_than_claims() {
    let server = server_with(|s| match s.schema.as_str() {
        "factual_correctness_claims" => completion(r#"{"claims": ["a", "b", "c"]}"#),
        _ if s.data["context"] == REFERENCE => completion(
            r#"{"statements": [{"statement": "a", "reason": "r", "verdict": 2}, {"statement": "b", "reason": "r", "verdict": 0}]}"#,
        ),
        _ => completion(r#"{"statements": [{"statement": "a", "reason": "r", "verdict": 1}]}"#),
    })
    .await;
    let s = FactualCorrectness::from_options(&options(&server, json!({}))).unwrap();
    let r = score(&s, fc_run()).await;
    let a = r.analyze_step_result.clone().unwrap();
    // verdict 2 passes the schema and counts as supported
    assert_eq!(
        (a["tp"].clone(), a["fp"].clone(), a["fn"].clone()),
        (json!(1), json!(1), json!(0))
    );
    let k = Counts {
        tp: 1,
        fp: 1,
        fn_: 0,
    };
    assert_eq!(r.score, Some(fc::score(k, Mode::F1, 1.0)));
    // the short verdict lists are accepted after the fallback, with a warning each
    assert_eq!(
        r.warnings,
        [
            "analyze: 2 verdicts for 3 claims",
            "analyze: 1 verdict for 3 claims"
        ]
    );
    // 2 decompositions; each NLI pass asked twice (first answer + fallback)
    assert_eq!(requests(&server).await.len(), 6);
}

#[tokio::test]
async fn fc_malformed_decomposition_fails_at_preprocess() {
    let server = server_with(|s| match s.schema.as_str() {
        "factual_correctness_claims" => completion("Sure! Here are the claims: none"),
        _ => fc_oracle(s),
    })
    .await;
    let s = FactualCorrectness::from_options(&options(&server, json!({}))).unwrap();
    let f = failure(&s, fc_run()).await;
    assert_eq!(f.failed_step, "preprocess");
    assert_eq!(f.code, ErrorCode::JudgeOutput);
    assert!(f.completed_steps.is_empty());
    assert!(
        f.message
            .starts_with("Scorer Run Failed: step 'preprocess' failed:"),
        "{}",
        f.message
    );
    assert_eq!(executions(&f.result, "preprocess"), 2);
    assert!(f.result.preprocess_prompt.is_some());
    let reqs = requests(&server).await;
    // each decomposition: first attempt + the engine's format fallback; no NLI call
    assert_eq!(reqs.len(), 4);
    assert_eq!(reqs.iter().filter(|s| s.fallback).count(), 2);
    assert!(reqs
        .iter()
        .all(|s| s.schema == "factual_correctness_claims"));
    let exec = &f.result.judge["preprocess"].executions[0];
    assert_eq!(exec.status, "failed");
    assert_eq!(
        exec.raw_output.as_deref(),
        Some("Sure! Here are the claims: none")
    );
}

#[tokio::test]
async fn fc_llm_reason_makes_one_text_call() {
    let server = server_with(|s| {
        if s.schema.is_empty() {
            completion("The score is 0.67 because the height is not mentioned.")
        } else {
            fc_oracle(s)
        }
    })
    .await;
    let s =
        FactualCorrectness::from_options(&options(&server, json!({"llmReason": true}))).unwrap();
    assert_eq!(s.meta().steps[3].kind, "prompt");
    let r = score(&s, fc_run()).await;
    assert_eq!(r.score, Some(0.67));
    assert_eq!(
        r.reason.as_deref(),
        Some("The score is 0.67 because the height is not mentioned.")
    );
    assert_eq!(executions(&r, "generateReason"), 1);
    assert!(r.generate_reason_prompt.unwrap().contains("\"score\":0.67"));
    assert_eq!(requests(&server).await.len(), 5);
}

#[tokio::test]
async fn fc_missing_inputs_make_no_call() {
    let server = server_with(fc_oracle).await;
    let s = FactualCorrectness::from_options(&options(&server, json!({}))).unwrap();
    for (v, want) in [
        (
            json!({"output": "  ", "groundTruth": REFERENCE}),
            "response is missing",
        ),
        (
            json!({"output": [{"role": "user", "content": "hi"}], "groundTruth": REFERENCE}),
            "response is missing",
        ),
        (
            json!({"output": RESPONSE}),
            "reference (run.groundTruth) is missing",
        ),
        (
            json!({"output": RESPONSE, "groundTruth": " "}),
            "reference (run.groundTruth) is missing",
        ),
    ] {
        match s.run(run(v.clone()), RunContext::default()).await {
            Err(RunError::Invalid(e)) => {
                assert_eq!(e.code, ErrorCode::InvalidInput);
                assert!(e.message.contains(want), "{v}: {}", e.message);
            }
            _ => panic!("{v}: expected an input error"),
        }
    }
    // a message-shaped ground truth is read as text
    let r = score(
        &s,
        json!({"output": RESPONSE, "groundTruth": {"role": "assistant", "content": REFERENCE}}),
    )
    .await;
    assert_eq!(r.score, Some(0.67));
    assert_eq!(requests(&server).await.len(), 4);
}

#[tokio::test]
async fn fc_calls_of_a_step_run_concurrently() {
    let delay = Duration::from_millis(300);
    let arrivals = Arrivals::default();
    let seen_at = arrivals.clone();
    let server = server_with(move |s| {
        seen_at.push();
        fc_oracle(s).set_delay(delay)
    })
    .await;
    let s = FactualCorrectness::from_options(&options(&server, json!({}))).unwrap();
    let started = Instant::now();
    let r = score(&s, fc_run()).await;
    let wall = started.elapsed();
    assert_eq!(r.score, Some(0.67));
    let t = arrivals.get();
    assert_eq!(t.len(), 4);
    // two rounds of two concurrent calls: pairs arrive together, rounds 300 ms apart
    assert!(
        t[1] - t[0] < Duration::from_millis(150),
        "{:?}",
        t[1] - t[0]
    );
    assert!(
        t[3] - t[2] < Duration::from_millis(150),
        "{:?}",
        t[3] - t[2]
    );
    assert!(
        t[2] - t[1] >= Duration::from_millis(250),
        "{:?}",
        t[2] - t[1]
    );
    assert_eq!(arrivals.max_in_flight(delay), 2);
    assert!(wall < Duration::from_millis(1000), "{wall:?}");
}

// ---------------------------------------------------------------- NVIDIA dual judges

/// 1 for the first judge of a metric, 2 for the second (by the prompt's data fields).
fn judge_no(s: &Seen) -> usize {
    if s.data.get("candidate_answer").is_some() || s.data.get("context").is_some() {
        1
    } else {
        2
    }
}

fn aa_run() -> Value {
    json!({"input": "Who wrote Hamlet?", "output": "Shakespeare wrote it.", "groundTruth": "William Shakespeare"})
}

#[tokio::test]
async fn aa_end_to_end() {
    let server = server_with(|s| {
        assert_eq!(s.schema, "nv_rating_0_2_4");
        completion(if judge_no(s) == 1 {
            r#"{"rating": 4}"#
        } else {
            r#"{"rating": 2}"#
        })
    })
    .await;
    let s = AnswerAccuracy::from_options(&options(&server, json!({}))).unwrap();
    let r = score(&s, aa_run()).await;
    assert_eq!(r.score, Some(0.75));
    assert_eq!(
        r.reason,
        Some(reason(
            [Some(4), Some(2)],
            [1, 1],
            RatingScale::ZeroTwoFour,
            0.75
        ))
    );
    assert_eq!(
        r.analyze_step_result,
        Some(json!({"judges": [
            {"rating": 4, "normalized": 1.0, "attempts": 1, "rawOutputs": [r#"{"rating": 4}"#], "valid": true},
            {"rating": 2, "normalized": 0.5, "attempts": 1, "rawOutputs": [r#"{"rating": 2}"#], "valid": true}
        ]}))
    );
    assert_eq!(executions(&r, "analyze"), 2);
    assert_eq!(r.judge.len(), 1);
    assert!(r.preprocess_step_result.is_none());
    let reqs = requests(&server).await;
    assert_eq!(reqs.len(), 2);
    // judge 2 swaps the roles
    let j2 = reqs.iter().find(|s| judge_no(s) == 2).unwrap();
    assert_eq!(
        j2.data,
        json!({"question": "Who wrote Hamlet?", "proposed_answer": "William Shakespeare", "ground_truth": "Shakespeare wrote it."})
    );
    let j1 = reqs.iter().find(|s| judge_no(s) == 1).unwrap();
    assert_eq!(j1.data["candidate_answer"], "Shakespeare wrote it.");
    assert_ne!(j1.prompt.lines().next(), j2.prompt.lines().next());
    assert_eq!(
        s.meta()
            .steps
            .iter()
            .map(|s| (s.name, s.kind))
            .collect::<Vec<_>>(),
        vec![
            ("analyze", "prompt"),
            ("generateScore", "function"),
            ("generateReason", "function")
        ]
    );
}

#[tokio::test]
async fn aa_invalid_rating_then_valid_and_string_rating() {
    let counter = Counter::default();
    let server = server_with(move |s| {
        let j = judge_no(s);
        let n = counter.next(&format!("judge{j}"));
        completion(match (j, n) {
            (1, 0) => r#"{"rating": 3}"#,
            (1, _) => r#"{"rating": 4}"#,
            _ => r#"{"rating": "2"}"#,
        })
    })
    .await;
    let s = AnswerAccuracy::from_options(&options(&server, json!({}))).unwrap();
    let r = score(&s, aa_run()).await;
    assert_eq!(r.score, Some(0.75));
    let a = r.analyze_step_result.clone().unwrap();
    // the out-of-set 3 is rejected inside the engine: its fallback request (which tells the
    // judge the allowed values) gets the 4, all within judge 1's first attempt
    assert_eq!(a["judges"][0]["attempts"], 1);
    assert_eq!(a["judges"][0]["rawOutputs"], json!([r#"{"rating": 4}"#]));
    assert_eq!(r.judge["analyze"].executions[0].attempt_count, 2);
    assert_eq!(a["judges"][1]["rating"], 2);
    assert_eq!(executions(&r, "analyze"), 2);
    let reqs = requests(&server).await;
    assert_eq!(reqs.len(), 3);
    assert!(reqs
        .iter()
        .any(|r| r.prompt.contains("rating 3 is not one of 0, 2 or 4")));
}

#[tokio::test]
async fn aa_format_failure_then_valid() {
    let counter = Counter::default();
    let server = server_with(move |s| {
        let j = judge_no(s);
        let n = counter.next(&format!("judge{j}"));
        match (j, n) {
            // attempt 1: garbage twice (first request + the engine's fallback)
            (1, 0 | 1) => completion("I would rate this a four."),
            (1, _) => completion(r#"{"rating": 4}"#),
            // 4.5 fails the output schema the same way
            (_, 0 | 1) => completion(r#"{"rating": 4.5}"#),
            _ => completion(r#"{"rating": 0}"#),
        }
    })
    .await;
    let s = AnswerAccuracy::from_options(&options(&server, json!({}))).unwrap();
    let r = score(&s, aa_run()).await;
    assert_eq!(r.score, Some(0.5));
    let a = r.analyze_step_result.clone().unwrap();
    assert_eq!(a["judges"][0]["attempts"], 2);
    assert_eq!(
        a["judges"][0]["rawOutputs"],
        json!(["I would rate this a four.", r#"{"rating": 4}"#])
    );
    assert_eq!(a["judges"][1]["attempts"], 2);
    assert_eq!(a["judges"][1]["rating"], 0);
    let ex = &r.judge["analyze"].executions;
    assert_eq!(ex.len(), 4);
    assert_eq!(ex[0].status, "failed");
    assert_eq!(ex[0].attempt_count, 2);
    assert_eq!(ex[1].status, "success");
    assert_eq!(requests(&server).await.len(), 6);
}

#[tokio::test]
async fn aa_one_judge_never_valid() {
    let server = server_with(|s| {
        completion(if judge_no(s) == 1 {
            r#"{"rating": 2}"#
        } else {
            r#"{"rating": 5}"#
        })
    })
    .await;
    let s = AnswerAccuracy::from_options(&options(&server, json!({"maxRetries": 3}))).unwrap();
    let r = score(&s, aa_run()).await;
    assert_eq!(r.score, Some(0.5));
    assert_eq!(
        r.reason,
        Some(reason(
            [Some(2), None],
            [1, 3],
            RatingScale::ZeroTwoFour,
            0.5
        ))
    );
    let a = r.analyze_step_result.clone().unwrap();
    assert_eq!(
        a["judges"][1],
        json!({"rating": null, "normalized": null, "attempts": 3, "rawOutputs": [r#"{"rating": 5}"#, r#"{"rating": 5}"#, r#"{"rating": 5}"#], "valid": false})
    );
    assert_eq!(executions(&r, "analyze"), 4);
    // judge 1: one request; judge 2: 3 attempts × (request + engine fallback)
    assert_eq!(requests(&server).await.len(), 7);
}

#[tokio::test]
async fn aa_no_valid_judgment_keeps_raw_outputs() {
    let server = server_with(|s| {
        completion(if judge_no(s) == 1 {
            r#"{"rating": 3}"#
        } else {
            r#"{"rating": "4.0"}"#
        })
    })
    .await;
    let s = AnswerAccuracy::from_options(&options(&server, json!({}))).unwrap();
    let f = failure(&s, aa_run()).await;
    assert_eq!(f.code, ErrorCode::NoValidJudgment);
    assert_eq!(f.cause.code, ErrorCode::NoValidJudgment);
    assert_eq!(f.failed_step, "analyze");
    assert!(f.completed_steps.is_empty());
    assert!(
        f.message
            .contains("neither judge gave a valid rating (0, 2 or 4)"),
        "{}",
        f.message
    );
    assert!(f.result.score.is_none());
    let a = f.result.analyze_step_result.clone().unwrap();
    for (i, raw) in [(0, r#"{"rating": 3}"#), (1, r#"{"rating": "4.0"}"#)] {
        let j = &a["judges"][i];
        assert_eq!(j["valid"], false);
        assert_eq!(j["rating"], Value::Null);
        assert_eq!(j["attempts"], 5);
        assert_eq!(j["rawOutputs"], json!(vec![raw; 5]));
    }
    assert_eq!(executions(&f.result, "analyze"), 10);
    // 2 judges × 5 attempts × (request + engine fallback)
    assert_eq!(requests(&server).await.len(), 20);
    // the failure serializes with its partial result (what the binding sends to JS)
    let v = serde_json::to_value(&f).unwrap();
    assert_eq!(v["code"], "OXEVAL_NO_VALID_JUDGMENT");
    assert_eq!(
        v["result"]["analyzeStepResult"]["judges"][1]["rawOutputs"][0],
        r#"{"rating": "4.0"}"#
    );
}

#[tokio::test]
async fn aa_same_transport_error_is_the_cause() {
    let server = server_with(|_| {
        ResponseTemplate::new(401)
            .set_body_json(json!({"error": {"message": "Incorrect API key provided"}}))
    })
    .await;
    let s = AnswerAccuracy::from_options(&options(&server, json!({}))).unwrap();
    let f = failure(&s, aa_run()).await;
    assert_eq!(f.code, ErrorCode::JudgeHttp);
    assert_eq!(f.cause.status, Some(401));
    assert!(f.message.contains("HTTP 401"), "{}", f.message);
    let a = f.result.analyze_step_result.unwrap();
    // a 401 cannot change on another attempt: one attempt per judge
    assert_eq!(
        (
            a["judges"][0]["attempts"].clone(),
            a["judges"][1]["attempts"].clone()
        ),
        (json!(1), json!(1))
    );
    assert_eq!(a["judges"][0]["rawOutputs"], json!([]));
    assert_eq!(requests(&server).await.len(), 2);
}

#[tokio::test]
async fn nvidia_judges_run_concurrently() {
    let delay = Duration::from_millis(300);
    let arrivals = Arrivals::default();
    let seen_at = arrivals.clone();
    let server = server_with(move |_| {
        seen_at.push();
        completion(r#"{"rating": 4}"#).set_delay(delay)
    })
    .await;
    let s = AnswerAccuracy::from_options(&options(&server, json!({}))).unwrap();
    let started = Instant::now();
    let r = score(&s, aa_run()).await;
    let wall = started.elapsed();
    assert_eq!(r.score, Some(1.0));
    assert_eq!(arrivals.get().len(), 2);
    assert_eq!(arrivals.max_in_flight(delay), 2);
    assert!(wall < Duration::from_millis(550), "{wall:?}");
}

#[tokio::test]
async fn cr_end_to_end_with_each_context_source() {
    let server = server_with(|s| {
        assert_eq!(s.schema, "nv_rating_0_1_2");
        completion(if judge_no(s) == 1 {
            r#"{"rating": 2}"#
        } else {
            r#"{"rating": 1}"#
        })
    })
    .await;
    let s = ContextRelevance::from_options(&options(&server, json!({"context": ["from option"]})))
        .unwrap();
    assert_eq!(s.meta().id, "nv-context-relevance-scorer");
    let r = score(
        &s,
        json!({"input": "When was the tower built?", "output": "1889.", "context": ["The tower was built in 1887-1889.", "It is 330 m tall."]}),
    )
    .await;
    assert_eq!(r.score, Some(0.75));
    assert_eq!(
        r.reason,
        Some(reason(
            [Some(2), Some(1)],
            [1, 1],
            RatingScale::ZeroOneTwo,
            0.75
        ))
    );
    let reqs = requests(&server).await;
    assert_eq!(reqs.len(), 2);
    let j1 = reqs.iter().find(|s| judge_no(s) == 1).unwrap();
    assert_eq!(
        j1.data,
        json!({"question": "When was the tower built?", "context": "The tower was built in 1887-1889.\nIt is 330 m tall."})
    );
    let j2 = reqs.iter().find(|s| judge_no(s) == 2).unwrap();
    assert_eq!(j2.data["passage"], j1.data["context"]);

    // extractedContext, then the option, then tool results
    let r = score(
        &s,
        json!({"input": "q?", "output": "a", "extractedContext": ["extracted"]}),
    )
    .await;
    assert_eq!(r.score, Some(0.75));
    let r = score(&s, json!({"input": "q?", "output": "a"})).await;
    assert_eq!(r.score, Some(0.75));
    let tools = ContextRelevance::from_options(&options(&server, json!({}))).unwrap();
    let output = json!([{"role": "assistant", "content": {"format": 2, "parts": [
        {"type": "tool-invocation", "toolInvocation": {"state": "result", "toolCallId": "t1", "result": {"doc": "tool doc"}}},
        {"type": "text", "text": "a"}
    ]}}]);
    let r = score(&tools, json!({"input": "q?", "output": output})).await;
    assert_eq!(r.score, Some(0.75));
    let contexts: Vec<Value> = requests(&server)
        .await
        .into_iter()
        .filter(|s| judge_no(s) == 1)
        .map(|s| s.data["context"].clone())
        .collect();
    assert_eq!(
        contexts[1..],
        [
            json!("extracted"),
            json!("from option"),
            json!("{\"doc\":\"tool doc\"}")
        ]
    );
}

#[tokio::test]
async fn cr_and_rg_shortcuts_make_no_call() {
    let server = server_with(|_| completion(r#"{"rating": 2}"#)).await;
    let cr = ContextRelevance::from_options(&options(&server, json!({}))).unwrap();
    for v in [
        json!({"input": "What is X?", "output": "a", "context": ["What is X?"]}),
        json!({"input": "What is X? Tell me.", "output": "a", "context": ["What is X?"]}),
        json!({"input": "\t", "output": "a", "context": ["c"]}),
        json!({"input": "q", "output": "a", "context": ["  "]}),
    ] {
        let r = score(&cr, v).await;
        assert_eq!(r.score, Some(0.0));
        assert!(r.judge.is_empty());
    }
    let rg = ResponseGroundedness::from_options(&options(&server, json!({}))).unwrap();
    for v in [
        json!({"output": " ", "context": ["c"]}),
        json!({"output": "a", "context": ["", "\n"]}),
    ] {
        let r = score(&rg, v).await;
        assert_eq!(r.score, Some(0.0));
        assert!(r.reason.unwrap().starts_with("The score is 0 because"));
    }
    assert!(requests(&server).await.is_empty());
}

#[tokio::test]
async fn rg_end_to_end_and_one_judge_never_valid() {
    let server = server_with(|s| {
        assert_eq!(s.schema, "nv_rating_0_1_2");
        if judge_no(s) == 1 {
            completion(r#"{"rating": 1}"#)
        } else {
            // judge 2 sees the response as `reply` and the contexts as `passages`
            assert_eq!(s.data, json!({"reply": "The museum opens at 9.", "passages": "Opening hours: 9-17.\nClosed on Mondays."}));
            completion(r#"{"rating": "two"}"#)
        }
    })
    .await;
    let s =
        ResponseGroundedness::from_options(&options(&server, json!({"maxRetries": 2}))).unwrap();
    assert_eq!(s.meta().id, "response-groundedness-scorer");
    let r = score(
        &s,
        json!({"output": "The museum opens at 9.", "context": ["Opening hours: 9-17.", "Closed on Mondays."]}),
    )
    .await;
    assert_eq!(r.score, Some(0.5));
    assert_eq!(
        r.reason,
        Some(reason(
            [Some(1), None],
            [1, 2],
            RatingScale::ZeroOneTwo,
            0.5
        ))
    );
    // judge 1: one request; judge 2: 2 attempts × (request + engine fallback)
    assert_eq!(requests(&server).await.len(), 5);
}

#[tokio::test]
async fn cancelled_run_fails_as_aborted() {
    let server = server_with(|_| completion(r#"{"rating": 2}"#)).await;
    let s = ContextRelevance::from_options(&options(&server, json!({}))).unwrap();
    let ctx = RunContext::default();
    ctx.cancel.cancel();
    match s
        .run(
            run(json!({"input": "q", "output": "a", "context": ["c"]})),
            ctx,
        )
        .await
    {
        Err(RunError::Failed(f)) => {
            assert_eq!(f.code, ErrorCode::Aborted);
            assert_eq!(f.failed_step, "analyze");
        }
        _ => panic!("expected an aborted failure"),
    }
    assert!(requests(&server).await.is_empty());
}
