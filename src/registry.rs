//! The generic constructor over the core's scorer registry.

use crate::error::{invalid_outcome, panic_outcome, Outcome};
use crate::scorer::NativeScorer;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use oxeval_core::scorers::llm::callbacks::HostFunctionSet;
use oxeval_core::scorers::llm::common::ExternalJudge;
use oxeval_core::scorers::registry::{self, BuildContext, FactoryDescriptor};
use oxeval_core::InvalidArgument;
use serde_json::Value;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// The registry as data (`{ scorers, errorCodes }`): read by the code generator.
#[napi(
    catch_unwind,
    ts_return_type = "{ scorers: Array<Record<string, unknown>>; errorCodes: string[] }"
)]
pub fn registry() -> Value {
    registry::describe()
}

/// Create a scorer by factory name: a `NativeScorer`, or a `{ ok: false, kind: 'type' }`
/// outcome naming what is wrong. Never throws for bad arguments; a panic becomes an
/// internal-error outcome. `functions` calls the function-valued options the descriptor
/// names (`functions`), e.g. `getContext`: see `oxeval_core::scorers::llm::callbacks`.
#[napi(ts_return_type = "NativeScorer | Record<string, unknown>")]
pub fn create_scorer(
    factory: String,
    options: String,
    descriptor: String,
    model: Option<Function<'_, String, Promise<String>>>,
    functions: Option<Function<'_, String, Promise<String>>>,
) -> Either<NativeScorer, Outcome> {
    let external = match &model {
        None => None,
        Some(f) => match crate::model::JsModel::new(f) {
            Ok(m) => Some(m),
            Err(e) => {
                return Either::B(Outcome::Other(invalid_outcome(InvalidArgument::options(
                    format!("options.model could not be prepared: {}", e.reason),
                ))))
            }
        },
    };
    let caller = match &functions {
        None => None,
        Some(f) => match crate::model::JsModel::new(f) {
            Ok(m) => Some(Arc::new(m)),
            Err(e) => {
                return Either::B(Outcome::Other(invalid_outcome(InvalidArgument::options(
                    format!("the function options could not be prepared: {}", e.reason),
                ))))
            }
        },
    };
    let made = catch_unwind(AssertUnwindSafe(
        || -> std::result::Result<NativeScorer, InvalidArgument> {
            let spec = registry::find(&factory).ok_or_else(|| {
                InvalidArgument::options(format!("there is no scorer factory named '{factory}'"))
            })?;
            let d: FactoryDescriptor = serde_json::from_str(&descriptor).unwrap_or_default();
            d.check(&factory, spec)?;
            let value: Value = serde_json::from_str(&options).map_err(|e| {
                InvalidArgument::options(format!("options is not valid JSON text: {e}"))
            })?;
            let cx = BuildContext {
                model: external.map(|m| ExternalJudge {
                    provider_id: d.model_provider.clone(),
                    model_id: d.model_id.clone(),
                    model: Arc::new(m),
                }),
                functions: caller.map(|caller| HostFunctionSet {
                    caller,
                    names: d.functions.clone(),
                }),
            };
            let scorer = registry::build_spec(spec, &value, &cx)?;
            Ok(NativeScorer::new(Arc::from(scorer), spec))
        },
    ));
    match made {
        Ok(Ok(s)) => Either::A(s),
        Ok(Err(e)) => Either::B(Outcome::Other(invalid_outcome(e))),
        Err(panic) => Either::B(Outcome::Other(panic_outcome(None, panic))),
    }
}
