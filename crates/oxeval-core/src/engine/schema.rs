//! Typed step outputs. Each LLM step's output type derives its JSON schema once (schemars)
//! and compiles its validator once (jsonschema); nothing is rebuilt per call.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};
use std::sync::Arc;

/// The schema of one step output, built once per type.
pub struct StepSchema {
    /// Name sent to the provider (`json_schema.name`) and shown in prompts.
    pub name: &'static str,
    /// Strict wire schema: every object closed (`additionalProperties: false`), every
    /// property required, no annotations — what OpenAI strict mode accepts.
    pub wire: Arc<Value>,
    /// The schema described for the judge (prompt-style providers and the fallback attempt):
    /// built once, appended to the system message.
    pub prompt_text: String,
    /// Lenient validation (extra keys allowed; missing required keys fail).
    pub validator: jsonschema::Validator,
}

impl StepSchema {
    pub fn build<T: JsonSchema>(name: &'static str) -> StepSchema {
        let settings = schemars::generate::SchemaSettings::draft2020_12().with(|s| {
            s.inline_subschemas = true;
        });
        let mut schema = settings
            .into_generator()
            .into_root_schema_for::<T>()
            .to_value();
        strip_annotations(&mut schema);
        let mut wire = schema.clone();
        close_objects(&mut wire);
        // A generated schema always compiles; if it ever did not, validation degrades to
        // the serde type check done right after it.
        let validator = jsonschema::validator_for(&schema).unwrap_or_else(|_| {
            jsonschema::validator_for(&serde_json::json!({})).expect("empty schema compiles")
        });
        StepSchema {
            name,
            prompt_text: format!(
                "Output schema name: {name}\nRespond with ONE JSON value only (no prose, no code fences) that matches this JSON schema:\n{}",
                serde_json::to_string_pretty(&wire).unwrap_or_default()
            ),
            wire: Arc::new(wire),
            validator,
        }
    }

    /// The schema of a step defined at run time (a custom scorer's prompt step): `schema` is
    /// a JSON Schema value as the host gave it. Its validator (compiled here, once per
    /// scorer) is the schema itself, so what it closes (`additionalProperties: false`) is
    /// enforced and extra keys are kept otherwise; the wire schema is its strict, closed
    /// copy. `Err` says why it cannot be used (not an object, does not compile).
    pub fn from_json(name: &str, schema: &Value) -> Result<StepSchema, String> {
        if !schema.is_object() {
            return Err(format!(
                "must be a JSON Schema object; got {}",
                crate::error::type_name(schema)
            ));
        }
        let mut schema = schema.clone();
        if let Value::Object(map) = &mut schema {
            map.remove("$schema");
        }
        let validator = jsonschema::validator_for(&schema).map_err(|e| {
            format!(
                "is not a valid JSON Schema: {}",
                super::clip(&e.to_string(), 300)
            )
        })?;
        let mut wire = schema.clone();
        close_objects(&mut wire);
        let name = intern(name);
        Ok(StepSchema {
            name,
            prompt_text: format!(
                "Output schema name: {name}\nRespond with ONE JSON value only (no prose, no code fences) that matches this JSON schema:\n{}",
                serde_json::to_string_pretty(&wire).unwrap_or_default()
            ),
            wire: Arc::new(wire),
            validator,
        })
    }

    /// Validate a parsed value; the message names the first failing path.
    pub fn validate(&self, value: &Value) -> Result<(), String> {
        let errors: Vec<String> = self
            .validator
            .iter_errors(value)
            .take(3)
            .map(|e| {
                let path = e.instance_path().to_string();
                if path.is_empty() {
                    e.to_string()
                } else {
                    format!("{e} at {path}")
                }
            })
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors.join("; "))
        }
    }
}

/// Implemented (via [`step_output!`](crate::step_output)) by every LLM step output type.
pub trait StepOutput: DeserializeOwned + Serialize + JsonSchema + Send + 'static {
    fn schema() -> &'static StepSchema;

    /// A semantic check beyond the schema (e.g. a rating within its set). A failure counts
    /// as a format error: it triggers the engine's fallback attempt, its message is shown
    /// to the judge, and the reply is never cached.
    fn check(&self) -> Result<(), String> {
        Ok(())
    }

    /// Bring faithful variants of the step's JSON into its canonical form before validation
    /// (e.g. a numeric string `"1"` where an integer is expected, as pydantic accepts).
    fn normalize(_json: &mut Value) {}
}

/// Declare a step output type: `step_output!(Statements, "answer_relevancy_statements");`
#[macro_export]
macro_rules! step_output {
    ($t:ty, $name:literal) => {
        impl $crate::engine::schema::StepOutput for $t {
            fn schema() -> &'static $crate::engine::schema::StepSchema {
                static SCHEMA: ::std::sync::OnceLock<$crate::engine::schema::StepSchema> =
                    ::std::sync::OnceLock::new();
                SCHEMA.get_or_init(|| $crate::engine::schema::StepSchema::build::<$t>($name))
            }
        }
    };
    // with a `normalize` hook (run on the judge's JSON before the schema check)
    ($t:ty, $name:literal, normalize($json:ident) $body:block) => {
        impl $crate::engine::schema::StepOutput for $t {
            fn schema() -> &'static $crate::engine::schema::StepSchema {
                static SCHEMA: ::std::sync::OnceLock<$crate::engine::schema::StepSchema> =
                    ::std::sync::OnceLock::new();
                SCHEMA.get_or_init(|| $crate::engine::schema::StepSchema::build::<$t>($name))
            }

            fn normalize($json: &mut ::serde_json::Value) $body
        }
    };
}

/// A step schema's name for the whole process: each distinct name is stored once (names of
/// run-time steps are few: `custom_<scorer id>_<step>`).
fn intern(name: &str) -> &'static str {
    static NAMES: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());
    let mut names = NAMES.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(n) = names.iter().find(|n| **n == name) {
        return n;
    }
    let leaked: &'static str = Box::leak(name.to_string().into_boxed_str());
    names.push(leaked);
    leaked
}

fn strip_annotations(v: &mut Value) {
    match v {
        Value::Object(map) => {
            for key in ["$schema", "title", "format", "description"] {
                // an annotation is a string; an object under that key is a property NAME
                if map.get(key).is_some_and(Value::is_string) {
                    map.remove(key);
                }
            }
            map.values_mut().for_each(strip_annotations);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_annotations),
        _ => {}
    }
}

fn close_objects(v: &mut Value) {
    match v {
        Value::Object(map) => {
            if let Some(Value::Object(props)) = map.get("properties") {
                let keys: Vec<Value> = props.keys().cloned().map(Value::String).collect();
                map.insert("required".into(), Value::Array(keys));
                map.insert("additionalProperties".into(), Value::Bool(false));
            }
            // integer bounds from unsigned types are fine; nothing else to drop
            map.values_mut().for_each(close_objects);
        }
        Value::Array(items) => items.iter_mut().for_each(close_objects),
        _ => {}
    }
}

/// Convenience for tests and prompt builders: a JSON object from pairs.
pub fn object(pairs: &[(&str, Value)]) -> Value {
    let mut m = Map::new();
    for (k, v) in pairs {
        m.insert((*k).to_string(), v.clone());
    }
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Serialize, Deserialize, JsonSchema)]
    struct Verdict {
        result: String,
        reason: String,
    }
    #[derive(Serialize, Deserialize, JsonSchema)]
    struct Verdicts {
        results: Vec<Verdict>,
    }
    crate::step_output!(Verdicts, "test_verdicts");

    #[test]
    fn wire_schema_is_strict_and_inlined() {
        let s = Verdicts::schema();
        assert_eq!(s.name, "test_verdicts");
        assert_eq!(
            *s.wire,
            json!({
                "type": "object",
                "properties": {"results": {"type": "array", "items": {
                    "type": "object",
                    "properties": {"result": {"type": "string"}, "reason": {"type": "string"}},
                    "required": ["result", "reason"],
                    "additionalProperties": false
                }}},
                "required": ["results"],
                "additionalProperties": false
            })
        );
        // built once
        assert!(std::ptr::eq(s, Verdicts::schema()));
    }

    #[test]
    fn validation_keeps_extra_keys_and_rejects_missing() {
        let s = Verdicts::schema();
        assert!(s
            .validate(
                &json!({"results": [{"result": "yes", "reason": "r", "extra": 1}], "note": "x"})
            )
            .is_ok());
        let err = s
            .validate(&json!({"results": [{"result": "yes"}]}))
            .unwrap_err();
        assert!(err.contains("reason"), "{err}");
        let err = s.validate(&json!({"results": "nope"})).unwrap_err();
        assert!(err.contains("/results"), "{err}");
    }
}
