//! Creating a batch at most once. Its intent (tag and request keys) is written durably
//! before the create call; a create the provider refused (4xx) removes it; a create that
//! may have been processed (a reset, a timeout, a 5xx, an unreadable answer) is never sent
//! again before the batch was looked up at the provider by the intent ([`lookup`]). An
//! intent left by a process that died in the call is looked up the same way by the next
//! run that would submit one of its requests ([`resolve`]). When the lookup cannot tell,
//! nothing is created: the requests fail with a message naming the intent's file and the
//! batches that may be theirs.

use super::lookup::{self, Lookup};
use super::state::{Intent, Record, INTENT_FORMAT};
use super::{now_ms, BatchTarget, Failure, API_TIMEOUT, MAX_API_ERRORS};
use crate::error::ErrorCode;
use std::collections::{HashMap, HashSet};
use std::time::Duration;

/// A batch created (or found): its id, and why its record could not be written, if so.
pub(super) struct Created {
    pub id: String,
    pub not_recorded: Option<String>,
}

fn failed(message: String) -> Failure {
    Failure::Batch(ErrorCode::BatchFailed, message)
}

/// Run a blocking state-directory change off the async threads.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> std::io::Result<T> + Send + 'static,
) -> std::io::Result<T> {
    tokio::task::spawn_blocking(f)
        .await
        .unwrap_or_else(|e| Err(std::io::Error::other(e)))
}

/// Write `intent`'s record and remove the intent.
async fn record(target: &BatchTarget, intent: &Intent, id: &str) -> Option<String> {
    let (state, rec, tag) = (target.state.clone(), intent.record(id), intent.tag.clone());
    blocking(move || {
        state.write(&rec)?;
        state.remove_intent(&tag)
    })
    .await
    .err()
    .map(|e| e.to_string())
}

async fn drop_intent(target: &BatchTarget, tag: &str) {
    let (state, tag) = (target.state.clone(), tag.to_string());
    let _ = blocking(move || state.remove_intent(&tag)).await;
}

/// Why nothing was created although a batch may exist: the intent stays.
fn unsure(target: &BatchTarget, intent: &Intent, why: &str, candidates: &[String]) -> Failure {
    let ids = if candidates.is_empty() {
        String::new()
    } else {
        format!(" Batches that may hold them: {}.", candidates.join(", "))
    };
    failed(format!(
        "judge {}: {} requests may already be in a batch at {} ({why}); oxeval does not create it again. The intent is kept in {}: a rerun with the same cache looks the batch up again; once you have checked (oxeval batch status, the provider's console) remove that file to submit them again.{ids}",
        target.model_ref,
        intent.requests.len(),
        target.api.provider(),
        target.state.dir.join(Intent::file_name(&intent.tag)).display(),
    ))
}

/// Create the batch of `bodies` (the requests `keys`) once. `known`: the batch ids this
/// cache has recorded (not candidates of a lookup).
pub(super) async fn create(
    target: &BatchTarget,
    stage: u32,
    keys: Vec<String>,
    bodies: &[&[u8]],
    known: &HashSet<String>,
) -> Result<Created, Failure> {
    let intent = Intent {
        format: INTENT_FORMAT.into(),
        provider: target.api.provider().into(),
        target: target.fingerprint.clone(),
        tag: format!("oxeval-{:016x}-{stage}", fastrand::u64(..)),
        created_at: now_ms(),
        stage,
        requests: keys,
    };
    let (state, i) = (target.state.clone(), intent.clone());
    if let Err(e) = blocking(move || state.write_intent(&i)).await {
        return Err(failed(format!(
            "judge {}: the batch state directory {} cannot be written ({e}); nothing was submitted",
            target.model_ref,
            target.state.dir.display()
        )));
    }
    let mut errors = 0;
    loop {
        let e = match target.api.create(bodies, &intent.tag, API_TIMEOUT).await {
            Ok(id) => {
                let not_recorded = record(target, &intent, &id).await;
                return Ok(Created { id, not_recorded });
            }
            Err(e) => e,
        };
        // a 429 on create is the provider's queue quota (OpenAI's enqueued tokens): it
        // clears in hours, not seconds; the calls fail with its message at once
        let again = e.retryable && e.status != Some(429) && errors + 1 < MAX_API_ERRORS;
        if e.maybe_created {
            match lookup::find(target.api.as_ref(), &intent, known, API_TIMEOUT).await {
                Lookup::Found(id) => {
                    let not_recorded = record(target, &intent, &id).await;
                    return Ok(Created { id, not_recorded });
                }
                Lookup::NotFound => {}
                Lookup::Unsure { why, candidates } => {
                    let why = format!("the create's answer was lost: {}; {why}", e.message);
                    return Err(unsure(target, &intent, &why, &candidates));
                }
            }
        }
        if !again {
            drop_intent(target, &intent.tag).await;
            return Err(target.failure("to create the batch", &e));
        }
        errors += 1;
        tokio::time::sleep(Duration::from_millis(500 << errors.min(6))).await;
    }
}

/// The intents of `target` holding one of `keys` (left by a run that died in its create,
/// or could not tell), looked up at the provider: a batch found is recorded (its record
/// returned, the intent removed); none found, the intent is removed; unsure, its keys are
/// refused (the failure says why).
pub(super) async fn resolve(
    target: &BatchTarget,
    intents: Vec<Intent>,
    keys: &HashSet<&str>,
    known: &HashSet<String>,
) -> (Vec<Record>, HashMap<String, Failure>) {
    let mut adopted = Vec::new();
    let mut refused = HashMap::new();
    for intent in intents {
        if intent.target != target.fingerprint
            || intent.provider != target.api.provider()
            || !intent.requests.iter().any(|k| keys.contains(k.as_str()))
        {
            continue;
        }
        match lookup::find(target.api.as_ref(), &intent, known, API_TIMEOUT).await {
            Lookup::Found(id) => {
                // not recorded (a full disk): the batch is still polled by this process
                let _ = record(target, &intent, &id).await;
                adopted.push(intent.record(&id));
            }
            Lookup::NotFound => drop_intent(target, &intent.tag).await,
            Lookup::Unsure { why, candidates } => {
                let f = unsure(target, &intent, &why, &candidates);
                for k in &intent.requests {
                    refused.insert(k.clone(), f.clone());
                }
            }
        }
    }
    (adopted, refused)
}
