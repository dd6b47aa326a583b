//! Embedders: a [`Judge`] on its embeddings road ([`crate::engine::embed`]) with a
//! coalescer in front. The texts of the runs in flight share requests: a text not in the
//! cache and not already on its way joins the pending list; the list is sent as ONE request
//! when it holds the provider's most inputs per request, or [`WINDOW`] after its first
//! text. Each distinct text is embedded once per run of the process (in flight: one
//! request, every waiter gets its vector; afterwards: the cache). A waiter waits within its
//! own run's deadline and signal; the shared request is bounded by `modelSettings`
//! (per-attempt timeout, retries) and by the latest deadline among the runs that sent texts.

pub mod options;

use crate::engine::{Execution, Judge, RunContext};
use crate::error::{ErrorCode, JudgeError};
use crate::provider::Usage;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;

/// How long the first pending text waits for company before its request leaves.
pub const WINDOW: Duration = Duration::from_millis(5);

/// What one text's waiter learns: its vector and, for the run that sent the text, its share
/// of the request's usage and the HTTP attempts it counts (the first text of each request
/// counts all of them, retries included; the others 0).
#[derive(Debug, Clone)]
struct Answer {
    vector: Arc<Vec<f64>>,
    usage: Usage,
    calls: u32,
}

type Slot = Option<Result<Answer, JudgeError>>;

#[derive(Default)]
struct State {
    /// Texts sent or pending, by text: where their answer will appear.
    inflight: HashMap<String, watch::Receiver<Slot>>,
    /// Texts waiting for the window, with their answer's sender.
    pending: Vec<(String, watch::Sender<Slot>)>,
    /// The latest deadline of the runs with pending texts (`None`: one has none).
    deadline: Option<Option<tokio::time::Instant>>,
    /// A flush of the pending list is scheduled.
    armed: bool,
    /// Requests sent (diagnostics, tests).
    requests: u64,
}

/// An embedder shared by every run of its scorer.
pub struct Embedder {
    judge: Arc<Judge>,
    state: Arc<Mutex<State>>,
    window: Duration,
    /// A JS embedder (user code): each run's wait is also bounded by its callback bound
    /// (run option `callbackTimeoutMs`).
    host: bool,
}

/// What a run's texts cost: usage, requests counted, texts answered from the cache.
#[derive(Debug, Clone, Default)]
pub struct EmbedRecord {
    pub usage: Usage,
    pub calls: u32,
    pub cached: usize,
}

impl Embedder {
    pub fn new(judge: Judge) -> Self {
        Embedder {
            judge: Arc::new(judge),
            state: Arc::default(),
            window: WINDOW,
            host: false,
        }
    }

    /// An embedder the host answers (user code, bounded as a callback).
    pub fn host(judge: Judge) -> Self {
        Embedder {
            host: true,
            ..Embedder::new(judge)
        }
    }

    pub fn judge(&self) -> &Judge {
        &self.judge
    }

    /// Embeddings requests sent so far.
    pub fn requests(&self) -> u64 {
        self.state.lock().map_or(0, |s| s.requests)
    }

    /// The vectors of `texts` (each with the context of its call site, for the cache's
    /// locator), in order; `record` gathers what they cost this run.
    pub async fn embed(
        &self,
        texts: &[(&str, RunContext)],
        record: &mut EmbedRecord,
    ) -> Result<Vec<Arc<Vec<f64>>>, JudgeError> {
        let waits = texts.iter().map(|(text, ctx)| self.embed_one(text, ctx));
        let answers = futures::future::join_all(waits).await;
        let mut out = Vec::with_capacity(answers.len());
        for a in answers {
            let (vector, own) = a?;
            match own {
                Some(a) => {
                    record.usage.add(&a.usage);
                    record.calls += a.calls;
                }
                None => record.cached += 1,
            }
            out.push(vector);
        }
        Ok(out)
    }

    /// One text's vector: the cache's, another run's request's, or from a request this
    /// call joins (then `Some` of its answer: what the run pays).
    async fn embed_one(
        &self,
        text: &str,
        ctx: &RunContext,
    ) -> Result<(Arc<Vec<f64>>, Option<Answer>), JudgeError> {
        let slot = self.judge.embed_slot(text, ctx);
        if let Some(v) = self.judge.embed_cached(&slot, ctx).await? {
            return Ok((Arc::new(v), None));
        }
        let (mut rx, owner) = self.join(text, ctx);
        // a JS embedder is user code: the run's callback bound applies to its answer
        let bound = self
            .host
            .then(crate::scorers::llm::callbacks::callback_timeout)
            .flatten();
        let callback_bound = async {
            match bound {
                Some(d) => tokio::time::sleep(d).await,
                None => std::future::pending().await,
            }
        };
        let answer = tokio::select! {
            biased;
            _ = ctx.cancel.cancelled() => return Err(crate::engine::call::aborted()),
            _ = ctx.deadline_passed() => return Err(deadline_passed()),
            _ = callback_bound => return Err(JudgeError::new(
                ErrorCode::CallbackTimeout,
                crate::run::callback_timeout_message("the embedder", bound),
            )),
            r = rx.wait_for(Option::is_some) => match r {
                Ok(v) => v.clone().unwrap_or_else(|| Err(lost())),
                Err(_) => Err(lost()),
            },
        }?;
        if !owner {
            return Ok((answer.vector, None));
        }
        self.judge.embed_remember(&slot, &answer.vector, ctx).await;
        Ok((answer.vector.clone(), Some(answer)))
    }

    /// Where `text`'s answer will appear, and whether this call sent it (owns it).
    fn join(&self, text: &str, ctx: &RunContext) -> (watch::Receiver<Slot>, bool) {
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(rx) = st.inflight.get(text) {
            return (rx.clone(), false);
        }
        let (tx, rx) = watch::channel(None);
        st.inflight.insert(text.to_string(), rx.clone());
        st.pending.push((text.to_string(), tx));
        st.deadline = Some(match (st.deadline, ctx.deadline) {
            (None, d) => d,
            (Some(Some(a)), Some(b)) => Some(a.max(b)),
            _ => None,
        });
        if st.pending.len() >= self.judge.max_embed_inputs() {
            self.flush_locked(&mut st);
        } else if !st.armed {
            st.armed = true;
            let me = self.clone_handle();
            let window = self.window;
            tokio::spawn(async move {
                tokio::time::sleep(window).await;
                let mut st = me.state.lock().unwrap_or_else(|p| p.into_inner());
                st.armed = false;
                me.flush_locked(&mut st);
            });
        }
        (rx, true)
    }

    fn clone_handle(&self) -> Embedder {
        Embedder {
            judge: self.judge.clone(),
            state: self.state.clone(),
            window: self.window,
            host: self.host,
        }
    }

    /// Send the pending texts (if any) as one request, answered on a task of its own.
    fn flush_locked(&self, st: &mut State) {
        if st.pending.is_empty() {
            return;
        }
        let batch = std::mem::take(&mut st.pending);
        let deadline = st.deadline.take().flatten();
        st.requests += 1;
        let me = self.clone_handle();
        tokio::spawn(async move { me.send(batch, deadline).await });
    }

    /// One request for `batch`; every text's waiters answered, the texts no longer in flight.
    async fn send(
        &self,
        batch: Vec<(String, watch::Sender<Slot>)>,
        deadline: Option<tokio::time::Instant>,
    ) {
        let texts: Vec<String> = batch.iter().map(|(t, _)| t.clone()).collect();
        let ctx = RunContext {
            deadline,
            ..RunContext::default()
        };
        let mut exec = Execution::pending("", "", "");
        let outcome = self.judge.embed_request(&texts, &ctx, &mut exec).await;
        let shares = outcome
            .as_ref()
            .map(|r| split_usage(&r.usage, texts.len()))
            .unwrap_or_default();
        let mut vectors = outcome.as_ref().map(|r| r.vectors.iter()).ok();
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        for (i, (text, tx)) in batch.into_iter().enumerate() {
            let answer = match (&outcome, vectors.as_mut().and_then(Iterator::next)) {
                (Ok(_), Some(v)) => Ok(Answer {
                    vector: Arc::new(v.clone()),
                    usage: shares.get(i).cloned().unwrap_or_default(),
                    calls: if i == 0 { exec.model_call_count } else { 0 },
                }),
                (Err(e), _) => Err(e.clone()),
                (Ok(_), None) => Err(lost()),
            };
            st.inflight.remove(&text);
            let _ = tx.send(Some(answer));
        }
    }
}

/// The request's usage split over its `n` texts (the remainder to the first), so that the
/// runs' shares add up to what the provider reported.
fn split_usage(u: &Usage, n: usize) -> Vec<Usage> {
    let n64 = n.max(1) as u64;
    let part = |v: Option<u64>, i: usize| v.map(|t| t / n64 + if i == 0 { t % n64 } else { 0 });
    (0..n)
        .map(|i| Usage {
            input_tokens: part(u.input_tokens, i),
            output_tokens: part(u.output_tokens, i),
            total_tokens: part(u.total_tokens, i),
            reasoning_tokens: None,
            cached_input_tokens: None,
        })
        .collect()
}

fn lost() -> JudgeError {
    JudgeError::new(
        ErrorCode::Internal,
        "the embeddings request of this text ended without an answer",
    )
}

fn deadline_passed() -> JudgeError {
    JudgeError::new(
        ErrorCode::Deadline,
        "the run's deadline passed before the embedder answered",
    )
}

#[cfg(test)]
mod tests;
