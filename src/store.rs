//! The results store (oxeval_core::store): a run's recorder, and the reads and maintenance
//! the CLI asks for. JSON text in; `{ ok: true, value }` or `{ ok: false, code, message }`
//! out (a store failure names the store and the cause, and never throws).

use napi::bindgen_prelude::*;
use napi_derive::napi;
use oxeval_core::store::api;
use oxeval_core::store::recorder::Recorder;
use oxeval_core::store::time::now_ms;
use oxeval_core::store::{StoreError, StoreResult};
use serde_json::{json, Value};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

fn failure(e: StoreError) -> Value {
    json!({ "ok": false, "code": e.code, "message": e.message })
}

fn guarded(f: impl FnOnce() -> StoreResult<Value>) -> Value {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(value)) => json!({ "ok": true, "value": value }),
        Ok(Err(e)) => failure(e),
        Err(_) => failure(StoreError::new(
            "OXEVAL_INTERNAL",
            "the store panicked (a bug in oxeval)",
        )),
    }
}

fn parse(text: &str, what: &str) -> StoreResult<Value> {
    serde_json::from_str(text)
        .map_err(|e| StoreError::invalid(format!("{what} is not valid JSON text: {e}")))
}

/// A run being recorded: `item(json)` as items finish, `finish(summary)` once.
#[napi]
pub struct NativeRecorder {
    inner: Mutex<Option<Recorder>>,
    run_id: String,
    store: String,
}

/// Open the store `spec` (a path) and record a run as running → a recorder, or
/// `{ ok: false, code, message }` (the message names the store and the cause).
#[napi(ts_return_type = "NativeRecorder | { ok: false, code: string, message: string }")]
pub fn store_start(spec: String, run: String) -> Either<NativeRecorder, Value> {
    let started = catch_unwind(AssertUnwindSafe(|| {
        parse(&run, "the run").and_then(|v| Recorder::start(&spec, api::new_run(&v)))
    }));
    match started {
        Ok(Ok(r)) => Either::A(NativeRecorder {
            run_id: r.run_id().to_string(),
            store: r.describe().to_string(),
            inner: Mutex::new(Some(r)),
        }),
        Ok(Err(e)) => Either::B(failure(e)),
        Err(_) => Either::B(failure(StoreError::new(
            "OXEVAL_INTERNAL",
            "the store panicked (a bug in oxeval)",
        ))),
    }
}

#[napi]
impl NativeRecorder {
    #[napi(getter)]
    pub fn run_id(&self) -> String {
        self.run_id.clone()
    }

    #[napi(getter)]
    pub fn store(&self) -> String {
        self.store.clone()
    }

    /// Queue one item (its JSON text) for the writer thread.
    #[napi]
    pub fn item(&self, json: String) {
        if let Some(r) = self
            .inner
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
        {
            r.item(json);
        }
    }

    /// Write the summary (JSON text) after every queued item → `{ ok, value: { runId } }` or
    /// the first failure of the recording.
    #[napi(ts_return_type = "Record<string, any>")]
    pub fn finish(&self, summary: String) -> Value {
        let taken = self.inner.lock().unwrap_or_else(|p| p.into_inner()).take();
        guarded(|| match taken {
            Some(r) => r
                .finish(summary, now_ms())
                .map(|()| json!({ "runId": self.run_id })),
            None => Err(StoreError::invalid(
                "this run's recording has already finished",
            )),
        })
    }
}

/// The store's reads and maintenance: `request` is JSON text `{ kind, … }` with kind
/// `history` (scorer?, branch?, tag?, last?), `item` (item, …), `flaky` (…), `resolve`
/// (spec, dataset?), `show` (run), `export` (run, out: a file path), `import` (files, tags?),
/// `prune` (keep?, olderThan?: '30d') → `{ ok, value }` or `{ ok: false, code, message }`.
#[napi(catch_unwind)]
pub fn store_query(spec: String, request: String) -> String {
    // JSON text: `JSON.parse` builds a large history faster than N-API object by object
    guarded(|| {
        let r = parse(&request, "the store request")?;
        api::request(&spec, &r)
    })
    .to_string()
}
