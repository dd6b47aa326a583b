//! The generic constructor over the core's scorer registry.

use crate::error::{invalid_outcome, panic_outcome, Outcome};
use crate::scorer::NativeScorer;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use oxeval_core::provider::external::Host;
use oxeval_core::scorers::registry::{self, FactoryDescriptor};
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
/// internal-error outcome. `host` is the facade's one host channel (`lib/host.js`): it
/// answers the judge model's calls when `options.model` is a JS model, and the calls of the
/// function-valued options the descriptor names (`functions`), e.g. `getContext`.
#[napi(ts_return_type = "NativeScorer | Record<string, unknown>")]
pub fn create_scorer(
    factory: String,
    options: String,
    descriptor: String,
    host: Option<Function<'_, String, Promise<String>>>,
) -> Either<NativeScorer, Outcome> {
    let host: Option<Arc<dyn Host>> = match &host {
        None => None,
        Some(f) => match crate::model::JsHost::new(f) {
            Ok(h) => Some(Arc::new(h)),
            Err(e) => {
                return Either::B(Outcome::Other(invalid_outcome(InvalidArgument::options(
                    format!("the host channel could not be prepared: {}", e.reason),
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
            let scorer = registry::build_spec(spec, &value, &d.build_context(host))?;
            let runs_now = spec.kind == oxeval_core::scorers::Kind::Code
                && registry::host_calls(spec.factory).is_empty();
            Ok(NativeScorer::new(Arc::from(scorer), runs_now))
        },
    ));
    match made {
        Ok(Ok(s)) => Either::A(s),
        Ok(Err(e)) => Either::B(Outcome::Other(invalid_outcome(e))),
        Err(panic) => Either::B(Outcome::Other(panic_outcome(None, panic))),
    }
}

/// Create a custom scorer (Mastra's `createScorer`) from its definition (JSON text: id,
/// name, judges, steps) and the facade's host channel, which runs its steps: a
/// `NativeScorer`, or a `{ ok: false, kind: 'type' }` outcome naming what is wrong.
#[napi(ts_return_type = "NativeScorer | Record<string, unknown>")]
pub fn create_custom_scorer(
    definition: String,
    host: Function<'_, String, Promise<String>>,
) -> Either<NativeScorer, Outcome> {
    let host: Arc<dyn Host> = match crate::model::JsHost::new(&host) {
        Ok(h) => Arc::new(h),
        Err(e) => {
            return Either::B(Outcome::Other(invalid_outcome(InvalidArgument::options(
                format!("the host channel could not be prepared: {}", e.reason),
            ))))
        }
    };
    let made = catch_unwind(AssertUnwindSafe(
        || -> std::result::Result<NativeScorer, InvalidArgument> {
            let value: Value = serde_json::from_str(&definition).map_err(|e| {
                InvalidArgument::options(format!("the definition is not valid JSON text: {e}"))
            })?;
            let scorer = oxeval_core::scorers::custom::build(&value, host)?;
            Ok(NativeScorer::new(Arc::new(scorer), false))
        },
    ));
    match made {
        Ok(Ok(s)) => Either::A(s),
        Ok(Err(e)) => Either::B(Outcome::Other(invalid_outcome(e))),
        Err(panic) => Either::B(Outcome::Other(panic_outcome(None, panic))),
    }
}
