//! `oxeval/utils`' native half: the core's agent-data helpers (`oxeval_core::agent::api`)
//! over JSON text. No logic here.

use napi_derive::napi;
use serde_json::{json, Value};

/// Call helper `name` with `args` (a JSON array): `{ ok: true, value? }` (no `value`:
/// `undefined`) or `{ ok: false, name: 'TypeError' | 'Error', message }`.
#[napi]
pub fn agent_util(name: String, args: String) -> String {
    let args: Vec<Value> = match serde_json::from_str(&args) {
        Ok(Value::Array(a)) => a,
        _ => return json!({ "ok": false, "message": "agentUtil: the arguments must be a JSON array" }).to_string(),
    };
    use oxeval_core::agent::api::{call, Failure};
    let r = std::panic::catch_unwind(|| call(&name, &args)).unwrap_or_else(|_| {
        Err(Failure::Mastra(format!(
            "agentUtil: internal error in {name} (a bug in oxeval)"
        )))
    });
    match r {
        Ok(Some(v)) => json!({ "ok": true, "value": v }).to_string(),
        Ok(None) => json!({ "ok": true }).to_string(),
        Err(f) => {
            let (name, message) = f.parts();
            json!({ "ok": false, "name": name, "message": message }).to_string()
        }
    }
}
