//! A judge model supplied from JS (an AI SDK `LanguageModel` or a function): the facade
//! wraps it in one async function `(requestJson) => replyJson` that never rejects; this
//! module calls it from Rust through a threadsafe function.

use futures::future::BoxFuture;
use napi::bindgen_prelude::*;
use napi::threadsafe_function::ThreadsafeFunction;
use oxeval_core::provider::external::ExternalModel;
use oxeval_core::scorers::llm::callbacks::HostFunctions;
use std::sync::Arc;

/// `weak`: a scorer holding a JS model never keeps Node from exiting.
type Tsfn = ThreadsafeFunction<String, Promise<String>, String, Status, false, true>;

pub struct JsModel {
    tsfn: Arc<Tsfn>,
}

impl JsModel {
    pub fn new(f: &Function<'_, String, Promise<String>>) -> Result<Self> {
        let tsfn = f
            .build_threadsafe_function::<String>()
            .callee_handled::<false>()
            .weak::<true>()
            .build()?;
        Ok(JsModel {
            tsfn: Arc::new(tsfn),
        })
    }
}

impl ExternalModel for JsModel {
    fn call(&self, request: String) -> BoxFuture<'static, std::result::Result<String, String>> {
        let tsfn = self.tsfn.clone();
        Box::pin(async move {
            // call_async_catch: a synchronous throw in JS becomes an error here, never fatal
            let promise = tsfn
                .call_async_catch(request)
                .await
                .map_err(|e| format!("the judge model could not be called: {}", e.reason))?;
            promise
                .await
                .map_err(|e| format!("the judge model failed: {}", e.reason))
        })
    }
}

/// The same wrapper calls the function-valued scorer options (e.g. `getContext`): the facade
/// hands over one async `(requestJson) => replyJson` that never rejects.
impl HostFunctions for JsModel {
    fn call(&self, request: String) -> BoxFuture<'static, std::result::Result<String, String>> {
        let tsfn = self.tsfn.clone();
        Box::pin(async move {
            let promise = tsfn
                .call_async_catch(request)
                .await
                .map_err(|e| format!("the function could not be called: {}", e.reason))?;
            promise
                .await
                .map_err(|e| format!("the function failed: {}", e.reason))
        })
    }
}
