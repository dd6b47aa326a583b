//! The host channel in the binding: ONE JS function `(json) => Promise<json>` that never
//! rejects (lib/host.js's `hostCaller`), called from Rust through a weak threadsafe function
//! for every [`HostCall`] (a judge model supplied as a JS value, a function option such as
//! `getContext`). The wire: `{ kind, request }` → the reply of that kind.

use futures::future::BoxFuture;
use napi::bindgen_prelude::*;
use napi::threadsafe_function::ThreadsafeFunction;
use oxeval_core::provider::external::{Host, HostCall};
use std::sync::Arc;

/// `weak`: a scorer holding a JS host never keeps Node from exiting.
type Tsfn = ThreadsafeFunction<String, Promise<String>, String, Status, false, true>;

pub struct JsHost {
    tsfn: Arc<Tsfn>,
}

impl JsHost {
    pub fn new(f: &Function<'_, String, Promise<String>>) -> Result<Self> {
        let tsfn = f
            .build_threadsafe_function::<String>()
            .callee_handled::<false>()
            .weak::<true>()
            .build()?;
        Ok(JsHost {
            tsfn: Arc::new(tsfn),
        })
    }
}

impl Host for JsHost {
    fn call(
        &self,
        kind: HostCall,
        request: String,
    ) -> BoxFuture<'static, std::result::Result<String, String>> {
        let tsfn = self.tsfn.clone();
        let what = match kind {
            HostCall::JudgeModel => "the judge model",
            HostCall::FunctionOption => "the function",
            HostCall::CustomStep => "the step",
            HostCall::Nlp => "compromise",
            HostCall::Embed => "the embedder",
            HostCall::EvaluationModel => "the evaluation model",
        };
        // the request is JSON text already: wrap it without parsing it again
        let envelope = format!(r#"{{"kind":"{}","request":{request}}}"#, kind.name());
        Box::pin(async move {
            // call_async_catch: a synchronous throw in JS becomes an error here, never fatal
            let promise = tsfn
                .call_async_catch(envelope)
                .await
                .map_err(|e| format!("{what} could not be called: {}", e.reason))?;
            promise
                .await
                .map_err(|e| format!("{what} failed: {}", e.reason))
        })
    }
}
