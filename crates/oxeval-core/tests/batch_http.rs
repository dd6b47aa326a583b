//! The batch transport over real HTTP (wiremock on 127.0.0.1 emulating OpenAI's Batch API:
//! the `/v1/files` upload, `/v1/batches`, the output and error files): a session's runs make
//! one batch per pipeline stage and score as direct calls do; a failed and an expired line
//! go once more; a session that did not wait (detach) leaves a record that the next session
//! polls instead of submitting again; a refused create is a typed error with the provider's
//! message; the state files hold no secret.

mod common;

use common::*;
use oxeval_core::engine::batch::{BatchOptions, BatchSession};
use oxeval_core::engine::RunContext;
use oxeval_core::scorers::llm::answer_relevancy::AnswerRelevancy;
use oxeval_core::{ErrorCode, RunError, Scorer};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// What the emulated provider does with the next batch it gets.
#[derive(Clone, Default)]
struct Script {
    /// Refuse the create with this status and message.
    refuse: Option<(u16, &'static str)>,
    /// End as `expired` with only this many lines answered.
    expire_after: Option<usize>,
    /// Stay `in_progress` this many polls first.
    slow_polls: usize,
}

#[derive(Default)]
struct Emu {
    files: HashMap<String, String>,
    /// id → (lines, script, polls so far)
    batches: HashMap<String, (Vec<Value>, Script, usize)>,
    scripts: Vec<Script>,
    seq: usize,
    creates: usize,
    /// custom id → submissions
    submitted: HashMap<String, usize>,
    /// Answer the first line whose prompt contains this with a 500 (once).
    fail_once: Option<&'static str>,
}

#[derive(Clone, Default)]
struct Provider(Arc<Mutex<Emu>>);

/// Answer relevancy's judge, per step (as the direct tests' judge).
fn answer(body: &Value) -> Value {
    let schema = body
        .pointer("/response_format/json_schema/name")
        .and_then(Value::as_str)
        .unwrap_or("");
    let content = match schema {
        "answer_relevancy_statements" => r#"{"statements":["A.","B.","C."]}"#,
        "answer_relevancy_verdicts" => {
            r#"{"results":[{"result":"yes","reason":"a"},{"result":"no","reason":"b"},{"result":"yes","reason":"c"}]}"#
        }
        _ => "The score is 0.67 because two statements answer.",
    };
    json!({
        "id": "c1", "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
    })
}

fn user_text(body: &Value) -> String {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["content"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

impl Respond for Provider {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let mut e = self.0.lock().unwrap();
        let path = req.url.path().to_string();
        let m = req.method.as_str().to_string();
        if m == "POST" && path == "/v1/files" {
            // multipart: the JSONL is the part after the blank line following its headers
            let text = String::from_utf8_lossy(&req.body).into_owned();
            assert!(text.contains("name=\"purpose\"") && text.contains("batch"));
            let jsonl: String = text
                .lines()
                .filter(|l| l.starts_with("{\"custom_id\""))
                .map(|l| format!("{l}\n"))
                .collect();
            e.seq += 1;
            let id = format!("file-{}", e.seq);
            e.files.insert(id.clone(), jsonl);
            return ResponseTemplate::new(200)
                .set_body_json(json!({"id": id, "object": "file", "purpose": "batch"}));
        }
        if m == "POST" && path == "/v1/batches" {
            let body: Value = serde_json::from_slice(&req.body).unwrap();
            assert_eq!(body["endpoint"], "/v1/chat/completions");
            assert_eq!(body["completion_window"], "24h");
            let script = if e.scripts.is_empty() {
                Script::default()
            } else {
                e.scripts.remove(0)
            };
            if let Some((status, message)) = script.refuse {
                return ResponseTemplate::new(status).set_body_json(
                    json!({"error": {"message": message, "type": "invalid_request_error"}}),
                );
            }
            let file = e
                .files
                .get(body["input_file_id"].as_str().unwrap())
                .cloned()
                .unwrap();
            let lines: Vec<Value> = file
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            for l in &lines {
                *e.submitted
                    .entry(l["custom_id"].as_str().unwrap().to_string())
                    .or_default() += 1;
            }
            e.seq += 1;
            e.creates += 1;
            let id = format!("batch_{}", e.seq);
            e.batches.insert(id.clone(), (lines, script, 0));
            return ResponseTemplate::new(200)
                .set_body_json(json!({"id": id, "object": "batch", "status": "validating"}));
        }
        if m == "GET" && path.starts_with("/v1/batches/") {
            let id = path.trim_start_matches("/v1/batches/").to_string();
            let (lines, script, polls) = e.batches.get_mut(&id).unwrap();
            *polls += 1;
            if *polls <= script.slow_polls {
                return ResponseTemplate::new(200).set_body_json(json!({"id": id, "status": "in_progress", "request_counts": {"total": lines.len(), "completed": 0, "failed": 0}}));
            }
            let (lines, script) = (lines.clone(), script.clone());
            let mut fail_once = e.fail_once;
            let mut ok = Vec::new();
            let mut bad = Vec::new();
            // results in reverse order: any order must do
            for (i, l) in lines.iter().enumerate().rev() {
                let cid = l["custom_id"].clone();
                if script.expire_after.is_some_and(|n| i >= n) {
                    bad.push(json!({"id": "r", "custom_id": cid, "response": null, "error": {"code": "batch_expired", "message": "expired"}}));
                } else if fail_once.is_some_and(|t| user_text(&l["body"]).contains(t)) {
                    fail_once = None;
                    ok.push(json!({"id": "r", "custom_id": cid, "response": {"status_code": 500, "body": {"error": {"message": "server error"}}}, "error": null}));
                } else {
                    ok.push(json!({"id": "r", "custom_id": cid, "response": {"status_code": 200, "body": answer(&l["body"])}, "error": null}));
                }
            }
            e.fail_once = fail_once;
            let out = format!("{id}-out");
            let err = format!("{id}-err");
            let text = |v: &Vec<Value>| v.iter().map(|x| format!("{x}\n")).collect::<String>();
            e.files.insert(out.clone(), text(&ok));
            e.files.insert(err.clone(), text(&bad));
            let status = if script.expire_after.is_some() {
                "expired"
            } else {
                "completed"
            };
            return ResponseTemplate::new(200).set_body_json(json!({
                "id": id, "status": status, "output_file_id": out, "error_file_id": if bad.is_empty() { Value::Null } else { json!(err) },
                "request_counts": {"total": lines.len(), "completed": ok.len(), "failed": bad.len()}
            }));
        }
        if m == "GET" && path.starts_with("/v1/files/") && path.ends_with("/content") {
            let id = path
                .trim_start_matches("/v1/files/")
                .trim_end_matches("/content");
            return ResponseTemplate::new(200)
                .set_body_string(e.files.get(id).cloned().unwrap_or_default());
        }
        if m == "POST" && path == "/v1/chat/completions" {
            let body: Value = serde_json::from_slice(&req.body).unwrap();
            return ResponseTemplate::new(200).set_body_json(answer(&body));
        }
        ResponseTemplate::new(404)
    }
}

async fn provider() -> (MockServer, Provider) {
    let server = MockServer::start().await;
    let p = Provider::default();
    Mock::given(wiremock::matchers::any())
        .respond_with(p.clone())
        .mount(&server)
        .await;
    (server, p)
}

fn scorer(server: &MockServer, dir: &std::path::Path) -> AnswerRelevancy {
    AnswerRelevancy::from_options(&options(
        server,
        json!({"cache": {"dir": dir, "memory": false}}),
    ))
    .unwrap()
}

fn session(extra: Value) -> Arc<BatchSession> {
    let mut o = json!({"pollMs": 10});
    if let (Value::Object(a), Value::Object(b)) = (&mut o, extra) {
        a.extend(b);
    }
    BatchSession::new(
        BatchOptions::from_value(Some(&o), "batch")
            .unwrap()
            .unwrap(),
    )
}

/// `n` runs of `s` in one session, concurrently (each joins before any starts, as the
/// binding does).
async fn batched(
    s: &AnswerRelevancy,
    session: &Arc<BatchSession>,
    n: usize,
) -> Vec<Result<oxeval_core::ScoreResult, RunError>> {
    let runs: Vec<_> = (0..n)
        .map(|i| {
            let ctx = RunContext { batch: Some(session.register()), ..RunContext::default() }.with_item(Some(format!("q{i}")));
            s.run(run(json!({"input": format!("Question {i}?"), "output": format!("Answer {i}. More.")})), ctx)
        })
        .collect();
    futures::future::join_all(runs).await
}

fn state_files(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir.join("batches"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".json"))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn one_batch_per_stage_and_the_same_results_as_direct() {
    let (server, p) = provider().await;
    let direct_dir = temp_dir("batch-direct");
    let d = scorer(&server, &direct_dir);
    let direct = score(
        &d,
        json!({"input": "Question 0?", "output": "Answer 0. More."}),
    )
    .await;
    let dir = temp_dir("batch-one");
    let s = scorer(&server, &dir);
    let sess = session(json!({}));
    let results = batched(&s, &sess, 4).await;
    let first = results[0].as_ref().ok().unwrap();
    assert_eq!(first.score, direct.score);
    assert_eq!(first.analyze_step_result, direct.analyze_step_result);
    let ex = &first.judge["analyze"].executions[0];
    assert!(ex.batch.as_deref().is_some_and(|b| b.starts_with("batch_")));
    assert_eq!(ex.usage, direct.judge["analyze"].executions[0].usage);
    assert_eq!(ex.model_call_count, 1);
    {
        let e = p.0.lock().unwrap();
        assert_eq!(e.creates, 3, "statements, verdicts, reason: one batch each");
        assert!(e.submitted.values().all(|n| *n == 1));
    }
    let closed = sess.close().await;
    assert_eq!(closed["removed"].as_array().unwrap().len(), 3);
    assert!(state_files(&dir).is_empty());
}

#[tokio::test]
async fn failed_and_expired_lines_go_once_more() {
    let (server, p) = provider().await;
    {
        let mut e = p.0.lock().unwrap();
        e.scripts = vec![Script {
            expire_after: Some(1),
            slow_polls: 2,
            ..Script::default()
        }];
        e.fail_once = Some("Question 1");
    }
    let dir = temp_dir("batch-retry");
    let s = scorer(&server, &dir);
    let sess = session(json!({}));
    let results = batched(&s, &sess, 3).await;
    assert!(results
        .iter()
        .all(|r| r.as_ref().is_ok_and(|r| r.score.is_some())));
    let e = p.0.lock().unwrap();
    let twice = e.submitted.values().filter(|n| **n == 2).count();
    assert_eq!(
        twice,
        2 + 1,
        "2 expired statements lines and 1 failed verdicts line, each once more"
    );
    assert!(e.submitted.values().all(|n| *n <= 2));
}

#[tokio::test]
async fn a_detached_batch_is_resumed_by_the_next_session_without_submitting() {
    let (server, p) = provider().await;
    p.0.lock().unwrap().scripts = vec![Script {
        slow_polls: 1,
        ..Script::default()
    }];
    let dir = temp_dir("batch-resume");
    let s = scorer(&server, &dir);
    let first = session(json!({"detach": true}));
    let results = batched(&s, &first, 2).await;
    for r in &results {
        match r {
            Err(RunError::Failed(f)) => assert_eq!(f.code, ErrorCode::BatchPending),
            _ => panic!("expected OXEVAL_BATCH_PENDING"),
        }
    }
    first.close().await;
    assert_eq!(state_files(&dir).len(), 1);
    let text = std::fs::read_to_string(dir.join("batches").join(&state_files(&dir)[0])).unwrap();
    assert!(!text.contains(&api_key()) && !text.contains("127.0.0.1"));
    assert_eq!(p.0.lock().unwrap().creates, 1);
    let again = session(json!({}));
    let results = batched(&s, &again, 2).await;
    assert!(results.iter().all(|r| r.is_ok()));
    {
        let e = p.0.lock().unwrap();
        assert_eq!(e.creates, 3, "stage 1 was polled, stages 2 and 3 submitted");
        assert!(e.submitted.values().all(|n| *n == 1));
    }
    again.close().await;
    assert!(state_files(&dir).is_empty());
}

#[tokio::test]
async fn a_refused_create_is_a_typed_error_with_the_provider_message() {
    let (server, p) = provider().await;
    p.0.lock().unwrap().scripts = vec![
        Script {
            refuse: Some((429, "Enqueued token limit reached")),
            ..Script::default()
        };
        8
    ];
    let dir = temp_dir("batch-refused");
    let s = scorer(&server, &dir);
    let sess = session(json!({}));
    let results = batched(&s, &sess, 1).await;
    match &results[0] {
        Err(RunError::Failed(f)) => {
            assert_eq!(f.code, ErrorCode::BatchFailed);
            assert!(
                f.message.contains("Enqueued token limit reached"),
                "{}",
                f.message
            );
            assert!(f.message.contains("HTTP 429"));
            assert!(!f.message.contains(&api_key()));
        }
        _ => panic!("expected OXEVAL_BATCH_FAILED"),
    }
}
