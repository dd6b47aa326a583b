//! `oxeval batch status|cancel`: a summary of `<cache dir>/batches/` (its records, with the
//! provider's status when the judge of the records is given; the intents of creates whose
//! answer never came; the files that cannot be read), and cancelling the batches.

use super::state::{self, StateDir};
use super::wire::{BatchApi, BatchState};
use super::API_TIMEOUT;
use serde_json::{json, Value};
use std::path::Path;

/// A summary of `<cache dir>/batches/`: every record with its provider's status when
/// `api` (the judge of the records' target) is given. `cancel` cancels them too.
pub async fn inspect(
    cache_dir: &Path,
    target: Option<(&dyn BatchApi, &str)>,
    cancel: bool,
) -> Value {
    let state = StateDir::of_cache(cache_dir);
    let s2 = state.clone();
    let loaded = tokio::task::spawn_blocking(move || s2.load_all())
        .await
        .unwrap_or_default();
    let mut out = Vec::new();
    for r in loaded.records {
        let mut entry = json!({
            "id": r.batch,
            "provider": r.provider,
            "stage": r.stage,
            "requests": r.requests.len(),
            "createdAt": r.created_at,
            "answeredInCache": r.requests.iter().filter(|k| crate::engine::cache::has_entry(cache_dir, k)).count(),
        });
        match target {
            Some((api, fp)) if fp == r.target && api.provider() == r.provider => {
                if cancel {
                    match api.cancel(&r.batch, API_TIMEOUT).await {
                        Ok(()) => entry["cancelled"] = json!(true),
                        Err(e) => entry["error"] = json!(e.message),
                    }
                }
                match api.retrieve(&r.batch, API_TIMEOUT).await {
                    Ok(s) => {
                        entry["status"] = json!(s.status);
                        entry["completed"] = json!(s.completed);
                        entry["failed"] = json!(s.failed);
                        if cancel || matches!(s.state, BatchState::Failed(_)) {
                            let st = state.clone();
                            let (p, b) = (r.provider.clone(), r.batch.clone());
                            let _ = tokio::task::spawn_blocking(move || {
                                let _l = st.lock();
                                st.remove(&p, &b)
                            })
                            .await;
                            entry["removed"] = json!(true);
                        }
                    }
                    Err(e) => entry["error"] = json!(e.message),
                }
            }
            _ => {
                entry["status"] = json!("not polled (recorded for another judge model or endpoint)")
            }
        }
        out.push(entry);
    }
    let intents: Vec<Value> = loaded
        .intents
        .iter()
        .map(|i| {
            json!({
                "file": state.dir.join(state::Intent::file_name(&i.tag)).display().to_string(),
                "provider": i.provider,
                "tag": i.tag,
                "stage": i.stage,
                "requests": i.requests.len(),
                "createdAt": i.created_at,
            })
        })
        .collect();
    let unreadable: Vec<Value> = loaded
        .unreadable
        .iter()
        .map(|u| json!({ "file": u.path.display().to_string(), "why": u.why }))
        .collect();
    json!({ "dir": state.dir.display().to_string(), "batches": out, "intents": intents, "unreadable": unreadable })
}
