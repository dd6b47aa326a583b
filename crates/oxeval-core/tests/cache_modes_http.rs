//! Record once, replay in CI: the cache modes end to end over real HTTP (wiremock on
//! 127.0.0.1). A replay judge has no API key and must send nothing: every request the server
//! receives is counted.

mod common;

use common::*;
use oxeval_core::engine::cache::{CacheEnv, ResponseCache};
use oxeval_core::engine::RunContext;
use oxeval_core::scorers::llm::answer_relevancy::{AnswerRelevancy, Options};
use oxeval_core::scorers::llm::factual_correctness::FactualCorrectness;
use oxeval_core::scorers::llm::nvidia::AnswerAccuracy;
use oxeval_core::{ErrorCode, Judge, ModelConfig, ModelSettings, RunError, Scorer};
use serde_json::{json, Value};
use wiremock::{MockServer, ResponseTemplate};

use common::{count_files, temp_dir};

async fn request_count(server: &MockServer) -> usize {
    server.received_requests().await.unwrap().len()
}

/// Answer relevancy's judge: three statements, one verdict each (the first verdicts
/// request of a run gets one verdict only when `flaky`: the engine's fallback then asks
/// again), and a reason.
fn ar_judge(flaky: bool) -> impl Fn(&Seen) -> ResponseTemplate + Send + Sync + 'static {
    move |s: &Seen| match s.schema.as_str() {
        "answer_relevancy_statements" => completion(r#"{"statements":["A.","B.","C."]}"#),
        "answer_relevancy_verdicts" if flaky && !s.fallback => {
            completion(r#"{"results":[{"result":"yes","reason":"a"}]}"#)
        }
        "answer_relevancy_verdicts" => completion(
            r#"{"results":[{"result":"yes","reason":"a"},{"result":"no","reason":"b"},{"result":"yes","reason":"c"}]}"#,
        ),
        _ => completion("The score is 0.67 because two statements answer."),
    }
}

fn ar(server: &MockServer, cache: Value) -> AnswerRelevancy {
    AnswerRelevancy::from_options(&options(server, json!({ "cache": cache }))).unwrap()
}

/// An answer relevancy scorer whose judge has NO API key (`OPENAI_API_KEY` unset; the base
/// URL from `OPENAI_BASE_URL`, as a CI job would set it), with `cache`.
fn keyless(server: &MockServer, cache: Option<Value>) -> AnswerRelevancy {
    let base = format!("{}/v1", server.uri());
    let model = ModelConfig::resolve(&json!("openai/gpt-4o-mini"), &|var| {
        (var == "OPENAI_BASE_URL").then(|| base.clone())
    })
    .unwrap();
    assert_eq!(
        model.api_key.as_ref().unwrap_err().code,
        ErrorCode::MissingApiKey
    );
    let settings = ModelSettings::from_value(Some(&json!({"retryDelayMs": 1}))).unwrap();
    let cache = cache.map(|c| {
        ResponseCache::from_options(Some(&c), CacheEnv::default())
            .unwrap()
            .unwrap()
    });
    let judge = Judge::new(model, settings).with_cache(cache);
    AnswerRelevancy::new(judge, Options::from_value(&json!({})).unwrap())
}

fn item(id: &str) -> RunContext {
    RunContext::default().with_item(Some(id.to_string()))
}

async fn fails(s: &dyn Scorer, run_value: Value, ctx: RunContext) -> oxeval_core::ScorerFailure {
    match s.run(run(run_value), ctx).await {
        Err(RunError::Failed(f)) => *f,
        Ok(r) => panic!("expected a failure, got score {:?}", r.score),
        Err(RunError::Invalid(e)) => panic!("invalid: {}", e.message),
    }
}

#[tokio::test]
async fn record_then_replay_without_a_key_sends_nothing_and_explains_misses() {
    let server = server_with(ar_judge(false)).await;
    let dir = temp_dir("replay");
    let d = dir.display().to_string();
    let q = json!({"input": "What?", "output": "A. B. C.", "runId": "r1"});

    // record: every call asks the judge, even when a reply is recorded
    let rec = ar(&server, json!({"dir": d, "mode": "record"}));
    let recorded = rec.run(run(q.clone()), item("q1")).await.unwrap();
    assert_eq!(request_count(&server).await, 3);
    let again = rec.run(run(q.clone()), item("q1")).await.unwrap();
    assert_eq!(request_count(&server).await, 6);
    assert_eq!(again.score, recorded.score);
    assert_eq!(rec.judge().unwrap().cache().unwrap().stats().hits, 0);
    assert_eq!(
        (count_files(&dir, "entries"), count_files(&dir, "locators")),
        (3, 3)
    );

    // the keyless judge really has no key: without a cache it fails before sending
    let f = fails(&keyless(&server, None), q.clone(), item("q1")).await;
    assert_eq!(f.code, ErrorCode::MissingApiKey);
    assert_eq!(request_count(&server).await, 6);

    // replay: the same scores, from the recording, without a key and without a request
    let replay = keyless(&server, Some(json!({"dir": d, "mode": "replay"})));
    let r = replay.run(run(q.clone()), item("q1")).await.unwrap();
    assert_eq!(r.score, recorded.score);
    assert_eq!(r.reason, recorded.reason);
    assert!(r
        .judge
        .values()
        .flat_map(|j| &j.executions)
        .all(|e| e.cached && e.model_call_count == 0));
    assert_eq!(request_count(&server).await, 6);

    // the input changed: the statements (from the output) replay, the verdicts miss; a
    // typed failure of that step, keeping what completed, never retried, nothing sent
    let changed = json!({"input": "What now?", "output": "A. B. C.", "runId": "r2"});
    let f = fails(&replay, changed, item("q1")).await;
    assert_eq!(f.code, ErrorCode::CacheMiss);
    assert_eq!(f.failed_step, "analyze");
    assert_eq!(f.completed_steps, vec!["preprocess"]);
    assert!(f.result.preprocess_step_result.is_some());
    assert!(
        f.message.contains("step 'analyze', item 'q1'")
            && f.message.contains("the prompt changed")
            && f.message.contains("answer-relevancy-scorer"),
        "{}",
        f.message
    );
    assert_eq!(f.result.judge["analyze"].executions.len(), 1);
    assert_eq!(f.result.judge["analyze"].executions[0].model_call_count, 0);
    // an item never recorded
    let other = json!({"input": "Who?", "output": "D.", "runId": "r3"});
    let f = fails(&replay, other, item("q2")).await;
    assert_eq!(
        (f.code, f.failed_step.as_str()),
        (ErrorCode::CacheMiss, "preprocess")
    );
    assert!(
        f.message
            .contains("no reply was recorded for this item and step"),
        "{}",
        f.message
    );
    assert_eq!(request_count(&server).await, 6);
    let stats = replay.judge().unwrap().cache().unwrap().stats();
    assert_eq!((stats.replay_misses, stats.writes), (2, 0));
    // replay wrote nothing
    assert_eq!(
        (count_files(&dir, "entries"), count_files(&dir, "locators")),
        (3, 3)
    );

    // a hit depends on the request only, not on the item: without an itemId (the item is
    // then a digest of the run's input) the same run replays
    let r = replay
        .run(run(q.clone()), RunContext::default())
        .await
        .unwrap();
    assert_eq!(r.score, recorded.score);
    assert_eq!(request_count(&server).await, 6);
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn a_reply_that_needed_the_fallback_replays_without_it() {
    let server = server_with(ar_judge(true)).await;
    let dir = temp_dir("replay-fallback");
    let d = dir.display().to_string();
    let q = json!({"input": "What?", "output": "A. B. C."});
    let rec = ar(
        &server,
        json!({"dir": d, "mode": "record", "memory": false}),
    );
    let recorded = rec.run(run(q.clone()), item("q1")).await.unwrap();
    assert_eq!(recorded.judge["analyze"].executions[0].attempt_count, 2);
    assert_eq!(request_count(&server).await, 4);
    let replay = keyless(&server, Some(json!({"dir": d, "mode": "replay"})));
    let r = replay.run(run(q), item("q1")).await.unwrap();
    assert_eq!(r.score, recorded.score);
    assert_eq!(r.judge["analyze"].executions[0].attempt_count, 1);
    assert_eq!(request_count(&server).await, 4);
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn auto_records_misses_and_answers_hits() {
    let server = server_with(ar_judge(false)).await;
    let dir = temp_dir("auto");
    let d = dir.display().to_string();
    let q = json!({"input": "What?", "output": "A. B. C."});
    let a = ar(&server, json!({"dir": d, "memory": false}));
    a.run(run(q.clone()), item("q1")).await.unwrap();
    a.run(run(q.clone()), item("q1")).await.unwrap();
    assert_eq!(request_count(&server).await, 3);
    let s = a.judge().unwrap().cache().unwrap().stats();
    assert_eq!((s.hits, s.misses, s.writes), (3, 3, 3));
    // and what auto recorded replays
    let replay = keyless(&server, Some(json!({"dir": d, "mode": "replay"})));
    replay.run(run(q), item("q1")).await.unwrap();
    assert_eq!(request_count(&server).await, 3);
    let _ = std::fs::remove_dir_all(dir);
}

/// Factual correctness makes two calls in each of its steps: each is its own call site.
#[tokio::test]
async fn steps_with_several_calls_replay_each_call() {
    let server = server_with(|s: &Seen| match s.schema.as_str() {
        "factual_correctness_claims" => {
            let claims: Vec<&str> = s.data["text"].as_str().unwrap().split(". ").collect();
            completion(&json!({ "claims": claims }).to_string())
        }
        _ => {
            let statements: Vec<Value> = s.data["statements"]
                .as_array()
                .unwrap()
                .iter()
                .map(|st| json!({"statement": st, "reason": "r", "verdict": 1}))
                .collect();
            completion(&json!({ "statements": statements }).to_string())
        }
    })
    .await;
    let dir = temp_dir("replay-fc");
    let d = dir.display().to_string();
    let q = json!({"input": "Q", "output": "One. Two", "groundTruth": "One. Two. Three"});
    let rec = FactualCorrectness::from_options(&options(
        &server,
        json!({"cache": {"dir": d, "mode": "record"}}),
    ))
    .unwrap();
    let recorded = rec.run(run(q.clone()), item("fc1")).await.unwrap();
    assert_eq!(request_count(&server).await, 4);
    assert_eq!(
        (count_files(&dir, "entries"), count_files(&dir, "locators")),
        (4, 4)
    );
    let replay = FactualCorrectness::from_options(&json!({
        "model": {"id": "openai/gpt-4o-mini", "url": format!("{}/v1", server.uri())},
        "modelSettings": {"retryDelayMs": 1},
        "cache": {"dir": d, "mode": "replay"}
    }))
    .unwrap();
    let r = replay.run(run(q), item("fc1")).await.unwrap();
    assert_eq!(r.score, recorded.score);
    assert_eq!(request_count(&server).await, 4);
    let _ = std::fs::remove_dir_all(dir);
}

/// The NVIDIA metrics score with one judge when the other gives no valid rating; a replay
/// that cannot replay one of them fails instead (it reproduces the recording or says why).
#[tokio::test]
async fn a_dual_judge_replay_fails_when_one_judge_misses() {
    let server = server_with(|s: &Seen| {
        let first = s.data.get("candidate_answer").is_some();
        completion(if first {
            r#"{"rating": 4}"#
        } else {
            r#"{"rating": 2}"#
        })
    })
    .await;
    let dir = temp_dir("replay-dual");
    let d = dir.display().to_string();
    let q = json!({"input": "Who wrote Hamlet?", "output": "Shakespeare.", "groundTruth": "William Shakespeare"});
    let make = |mode: &str| {
        AnswerAccuracy::from_options(&options(
            &server,
            json!({"cache": {"dir": d, "mode": mode, "memory": false}}),
        ))
        .unwrap()
    };
    let recorded = make("record")
        .run(run(q.clone()), item("aa1"))
        .await
        .unwrap();
    assert_eq!(recorded.score, Some(0.75));
    assert_eq!(request_count(&server).await, 2);
    let replay = make("replay");
    assert_eq!(
        replay.run(run(q.clone()), item("aa1")).await.unwrap().score,
        Some(0.75)
    );
    // lose the second judge's recording
    let second = requests(&server).await[1].clone();
    assert!(second.data.get("candidate_answer").is_none());
    let entries = dir.join("v3").join("entries");
    let mut removed = 0;
    for shard in std::fs::read_dir(&entries).unwrap() {
        for f in std::fs::read_dir(shard.unwrap().path()).unwrap() {
            let path = f.unwrap().path();
            if std::fs::read_to_string(&path)
                .unwrap()
                .contains(r#"{\"rating\": 2}"#)
            {
                std::fs::remove_file(path).unwrap();
                removed += 1;
            }
        }
    }
    assert_eq!(removed, 1);
    let f = fails(&replay, q, item("aa1")).await;
    assert_eq!(
        (f.code, f.failed_step.as_str()),
        (ErrorCode::CacheMiss, "analyze")
    );
    assert!(
        f.message.contains("call 'judge2'") && f.message.contains("missing or damaged"),
        "{}",
        f.message
    );
    // each judge asked once: a miss is final, never retried
    assert_eq!(f.result.judge["analyze"].executions.len(), 2);
    assert_eq!(request_count(&server).await, 2);
    let _ = std::fs::remove_dir_all(dir);
}
