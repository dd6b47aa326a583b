//! Issue 23's behavioural decision rules, end to end over real HTTP (wiremock on 127.0.0.1):
//! faithfulness verdicts aligned by the claim each repeats, ContextRelevance's no-judge
//! shortcut on trimmed text, and an out-of-scale NVIDIA rating (a 3 on 0/2/4).

mod common;

use common::*;
use oxeval_core::scorers::llm::faithfulness::Faithfulness;
use oxeval_core::scorers::llm::nvidia::{AnswerAccuracy, ContextRelevance};
use oxeval_core::ErrorCode;
use serde_json::{json, Value};

const CLAIMS: &str =
    r#"{"claims":["Paris is in France.","Paris has 9 million people.","Paris is on the Seine."]}"#;

async fn faithfulness_server(verdicts: &str) -> wiremock::MockServer {
    let server = wiremock::MockServer::start().await;
    mount(&server, "faithfulness_claims", completion(CLAIMS)).await;
    mount(&server, "faithfulness_verdicts", completion(verdicts)).await;
    mount(
        &server,
        "explain a faithfulness score",
        completion("The score is 0.67 because."),
    )
    .await;
    server
}

fn faithfulness(server: &wiremock::MockServer) -> Faithfulness {
    Faithfulness::from_options(&options(
        server,
        json!({"context": ["Paris is in France, on the Seine."]}),
    ))
    .unwrap()
}

const OUTPUT: &str = "Paris is in France. It has 9 million people. It is on the Seine.";

/// The judge repeats each claim but lists them in another order: the verdicts are put back
/// in claim order, so each lands on its own claim.
#[tokio::test]
async fn faithfulness_verdicts_are_realigned_by_their_claim_text() {
    let server = faithfulness_server(
        r#"{"verdicts":[
            {"claim":"Paris is on the Seine","verdict":"yes","reason":"seine"},
            {"claim":"paris is in France.","verdict":"yes","reason":"france"},
            {"claim":"Paris has 9 million people.","verdict":"no","reason":"2.1 million"}]}"#,
    )
    .await;
    let r = score(&faithfulness(&server), json!({"output": OUTPUT})).await;
    let v = r.analyze_step_result.unwrap();
    let reasons: Vec<&str> = v["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["reason"].as_str().unwrap())
        .collect();
    assert_eq!(reasons, ["france", "2.1 million", "seine"]);
    assert_eq!(v["verdicts"][1]["claim"], "Paris has 9 million people.");
    assert_eq!(v["verdicts"][1]["verdict"], "no");
    assert_eq!(r.score, Some(0.67));
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
}

/// A verdict list that skips a claim (even after the fallback re-ask) fails the analyze
/// step with an error naming the claim, instead of shifting the later verdicts onto the
/// wrong claims.
#[tokio::test]
async fn faithfulness_a_skipped_claim_fails_the_step_naming_it() {
    let server = faithfulness_server(
        r#"{"verdicts":[
            {"claim":"Paris is in France.","verdict":"yes","reason":"france"},
            {"claim":"Paris is on the Seine.","verdict":"yes","reason":"seine"}]}"#,
    )
    .await;
    let f = failure(&faithfulness(&server), json!({"output": OUTPUT})).await;
    assert_eq!(f.code, ErrorCode::JudgeOutput);
    assert_eq!(f.failed_step, "analyze");
    assert!(
        f.message.contains(
            r#"the judge gave 2 verdicts for 3 claims and no verdict for claim 2 ("Paris has 9 million people.")"#
        ),
        "{}",
        f.message
    );
    assert_eq!(f.completed_steps, ["preprocess"]);
    // the re-ask told the judge which claim it skipped
    let reasks: Vec<Seen> = requests(&server)
        .await
        .into_iter()
        .filter(|s| s.fallback && s.schema == "faithfulness_verdicts")
        .collect();
    assert_eq!(reasks.len(), 1);
    assert!(
        reasks[0]
            .prompt
            // on the REJECTED line, as a JSON string
            .contains(r#"no verdict for claim 2 (\"Paris has 9 million people.\")"#),
        "{}",
        reasks[0].prompt
    );
}

/// The judge rewords a claim but gives one verdict per claim: positional, no error.
#[tokio::test]
async fn faithfulness_reworded_claims_with_the_right_count_stay_positional() {
    let server = faithfulness_server(
        r#"{"verdicts":[
            {"claim":"Paris lies in France","verdict":"yes","reason":"a"},
            {"claim":"Paris has 9 million people.","verdict":"no","reason":"b"},
            {"claim":"Paris is on the Seine.","verdict":"yes","reason":"c"}]}"#,
    )
    .await;
    let r = score(&faithfulness(&server), json!({"output": OUTPUT})).await;
    let v = r.analyze_step_result.unwrap();
    let reasons: Vec<&str> = v["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["reason"].as_str().unwrap())
        .collect();
    assert_eq!(reasons, ["a", "b", "c"]);
    assert_eq!(r.score, Some(0.67));
}

/// Without claim texts the verdicts stay positional (Mastra's behaviour), with the count
/// warning.
#[tokio::test]
async fn faithfulness_verdicts_without_claims_stay_positional() {
    let server = faithfulness_server(
        r#"{"verdicts":[{"verdict":"yes","reason":"a"},{"verdict":"no","reason":"b"}]}"#,
    )
    .await;
    let r = score(&faithfulness(&server), json!({"output": OUTPUT})).await;
    assert_eq!(r.score, Some(0.5));
    assert_eq!(r.warnings, ["analyze: 2 verdicts for 3 claims"]);
}

/// `["Paris", ""]` joins to "Paris\n"; trimmed, it is part of the question: 0 without a
/// judge call, as in Ragas.
#[tokio::test]
async fn context_relevance_shortcut_trims_the_joined_context() {
    let server = serve(completion(r#"{"rating":2}"#)).await;
    let s = ContextRelevance::from_options(&options(&server, json!({}))).unwrap();
    let r = score(
        &s,
        json!({"input": "Tell me about Paris in spring", "output": "x", "context": ["Paris", ""]}),
    )
    .await;
    assert_eq!(r.score, Some(0.0));
    assert_eq!(requests(&server).await.len(), 0);
    // not a substring once trimmed: the judges are asked
    let r = score(
        &s,
        json!({"input": "Tell me about Paris in spring", "output": "x", "context": ["Paris is lovely", ""]}),
    )
    .await;
    assert_eq!(r.score, Some(1.0));
    assert_eq!(requests(&server).await.len(), 2);
}

/// Judge 1 always rates 3 on the 0/2/4 scale, judge 2 rates 4. oxeval re-asks judge 1
/// (each re-ask names the allowed values) up to `maxRetries` attempts, then drops it: the
/// score is judge 2's alone, 4/4 = 1.0 (Ragas's rule: an invalid judge is left out of the
/// mean).
#[tokio::test]
async fn an_out_of_scale_rating_is_re_asked_then_its_judge_is_dropped() {
    let server = server_with(|s| {
        let judge_1 = s.data.get("candidate_answer").is_some();
        completion(if judge_1 {
            r#"{"rating":3}"#
        } else {
            r#"{"rating":4}"#
        })
    })
    .await;
    let s = AnswerAccuracy::from_options(&options(&server, json!({"maxRetries": 3}))).unwrap();
    let r = score(
        &s,
        json!({"input": "What is the capital of France?", "output": "Paris.", "groundTruth": "Paris is the capital of France."}),
    )
    .await;
    assert_eq!(r.score, Some(1.0));
    let seen = requests(&server).await;
    let judge_1: Vec<&Seen> = seen
        .iter()
        .filter(|s| s.data.get("candidate_answer").is_some())
        .collect();
    // 3 attempts, each a request and its re-ask naming the allowed values
    assert_eq!(judge_1.len(), 6);
    assert!(
        judge_1
            .iter()
            .any(|s| s.fallback && s.prompt.contains("0, 2 or 4")),
        "no re-ask names the allowed values"
    );
    let analyze: Value = r.analyze_step_result.unwrap();
    assert_eq!(analyze["judges"][0]["valid"], false);
    assert_eq!(analyze["judges"][0]["attempts"], 3);
    assert_eq!(analyze["judges"][0]["rating"], Value::Null);
    assert_eq!(analyze["judges"][0]["rawOutputs"][0], r#"{"rating":3}"#);
    assert_eq!(analyze["judges"][1]["rating"], 4);
}
