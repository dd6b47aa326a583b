//! The coalescer over a provider that records its requests.

use super::*;
use crate::model::ModelConfig;
use crate::provider::embed::EmbedResponse;
use crate::provider::{CallError, CallOptions, ChatRequest, ChatResponse, Provider};
use futures::future::BoxFuture;

/// Answers `[len, 1]` per text (or a bad reply when `bad`), recording each request's size.
struct Recorder {
    sizes: Mutex<Vec<usize>>,
    bad: bool,
}

impl Provider for Recorder {
    fn name(&self) -> &str {
        "test"
    }
    fn model_id(&self) -> &str {
        "embed"
    }
    fn complete<'a>(
        &'a self,
        _: &'a ChatRequest,
        _: &'a CallOptions,
        _: Duration,
    ) -> BoxFuture<'a, Result<ChatResponse, CallError>> {
        Box::pin(async { Err(CallError::Network("no chat".into())) })
    }
    fn embed<'a>(
        &'a self,
        texts: &'a [String],
        _: Duration,
    ) -> BoxFuture<'a, Result<EmbedResponse, CallError>> {
        self.sizes.lock().unwrap().push(texts.len());
        let mut vectors: Vec<Vec<f64>> = texts.iter().map(|t| vec![t.len() as f64, 1.0]).collect();
        if self.bad {
            vectors[0] = vec![f64::NAN, 1.0];
        }
        Box::pin(async move {
            Ok(EmbedResponse {
                vectors,
                usage: Usage {
                    input_tokens: Some(10),
                    total_tokens: Some(10),
                    ..Usage::default()
                },
            })
        })
    }
    fn max_embed_inputs(&self) -> usize {
        8
    }
}

fn embedder(bad: bool) -> (Embedder, Arc<Recorder>) {
    let rec = Arc::new(Recorder {
        sizes: Mutex::new(Vec::new()),
        bad,
    });
    let judge = Judge::with_provider(
        rec.clone(),
        ModelConfig::external("test", "embed"),
        crate::engine::ModelSettings::default(),
    );
    (Embedder::new(judge), rec)
}

#[tokio::test]
async fn runs_in_flight_share_requests_and_each_text_is_sent_once() {
    let (e, rec) = embedder(false);
    let texts: Vec<String> = (0..20).map(|i| format!("text {}", i % 10)).collect();
    let runs = texts.iter().map(|t| {
        let e = &e;
        async move {
            let mut r = EmbedRecord::default();
            let ctx = RunContext::default();
            let v = e
                .embed(&[(t.as_str(), ctx.clone()), ("shared", ctx)], &mut r)
                .await;
            (v, r)
        }
    });
    let out = futures::future::join_all(runs).await;
    for (v, _) in &out {
        let v = v.as_ref().unwrap();
        assert_eq!(v.len(), 2);
        assert_eq!(v[1][0], 6.0);
    }
    let sizes = rec.sizes.lock().unwrap().clone();
    // 11 distinct texts, at most 8 per request: 2 requests
    assert_eq!(sizes.iter().sum::<usize>(), 11, "{sizes:?}");
    assert_eq!(sizes.len(), 2, "{sizes:?}");
    let calls: u32 = out.iter().map(|(_, r)| r.calls).sum();
    let tokens: u64 = out.iter().filter_map(|(_, r)| r.usage.input_tokens).sum();
    assert_eq!(calls, 2);
    assert_eq!(tokens, 20);
    assert_eq!(e.requests(), 2);
}

#[tokio::test]
async fn a_bad_vector_fails_with_a_stable_code() {
    let (e, _) = embedder(true);
    let mut r = EmbedRecord::default();
    let err = e
        .embed(&[("a", RunContext::default())], &mut r)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::EmbedOutput);
    assert!(err.message.contains("non-finite"), "{}", err.message);
}

#[tokio::test]
async fn a_cancelled_run_stops_waiting() {
    let (e, _) = embedder(false);
    let ctx = RunContext::default();
    ctx.cancel.cancel();
    let mut r = EmbedRecord::default();
    let err = e.embed(&[("a", ctx)], &mut r).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Aborted);
}
