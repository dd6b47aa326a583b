//! The scorer registry: every scorer declares its [`ScorerSpec`] once, in its own folder, and
//! is listed here on ONE line. Everything else is derived from it: the binding's generic
//! constructor (`createScorer(factory, options)`), the JS factory list, `index.mjs`'s
//! exports and the TypeScript option / step-result types (`npm run generate`, checked in CI).

use crate::error::InvalidArgument;
use crate::scorers::llm::{
    answer_relevancy, answer_similarity, context_precision, context_recall, context_relevance_llm,
    factual_correctness, faithfulness, hallucination, noise_sensitivity, nvidia, summarization,
};
use crate::scorers::Scorer;
use schemars::Schema;
use serde::Serialize;
use serde_json::{json, Value};

/// How a scorer uses a run field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Need {
    /// The run fails with a TypeError without it.
    Required,
    /// Read when present.
    Optional,
    /// Not read.
    Unused,
}

/// The run fields a scorer reads.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Inputs {
    pub input: Need,
    pub output: Need,
    pub ground_truth: Need,
    /// `run.context` (retrieved passages), else `contextExtractor`, the `context` option or
    /// tool results.
    pub context: Need,
}

/// What one scorer declares once.
pub struct ScorerSpec {
    /// The JS factory name (`createAnswerRelevancyScorer`).
    pub factory: &'static str,
    /// Default scorer id (`answer-relevancy-scorer`).
    pub id: &'static str,
    pub name: &'static str,
    pub description: &'static str,
    /// Whose metric this is: `mastra` or `ragas`.
    pub family: &'static str,
    /// Prefix of the generated TypeScript names (`AnswerRelevancy` →
    /// `AnswerRelevancyScorerOptions`, `AnswerRelevancyResult`, …).
    pub type_name: &'static str,
    pub inputs: Inputs,
    /// The factory takes a `contextExtractor(input, output)` callback (run in JS).
    pub context_extractor: bool,
    /// JSON schema of the scorer's own options (besides `model`, `modelSettings`, `cache`).
    pub options: fn() -> Schema,
    /// JSON schemas of `preprocessStepResult` / `analyzeStepResult` (`None`: always absent).
    pub preprocess: Option<fn() -> Schema>,
    pub analyze: Option<fn() -> Schema>,
    /// Build the scorer from its factory options (checked here: TypeError-style errors).
    pub build: fn(&Value) -> Result<Box<dyn Scorer>, InvalidArgument>,
}

/// What the JS facade tells about a factory call beyond the options' JSON text (a function,
/// a model object or a non-finite number cannot be JSON).
#[derive(Debug, serde::Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct FactoryDescriptor {
    /// JS type of the options argument.
    #[serde(rename = "type")]
    pub kind: String,
    /// Why the options could not be serialized, if they could not.
    pub serialize_error: Option<String>,
    /// Path of the first NaN/Infinity number in the options (JSON would turn it into null).
    pub non_finite: Option<String>,
    pub non_finite_value: Option<String>,
    /// `data`, `function` or `languageModel` (an object with `doGenerate`).
    pub model: String,
    /// JS type of `options.contextExtractor` (`undefined` when absent).
    pub context_extractor: String,
    /// For a JS model: its provider name and model id (AI SDK `provider`, `modelId`).
    pub model_provider: String,
    pub model_id: String,
    /// Names of the other function-valued options (top-level or under `options`, e.g.
    /// `getContext`), called through the host's caller (`scorers::llm::callbacks`); a Mastra
    /// extractor callback the scorer does not take (e.g. `sourceExtractor`) is a TypeError
    /// (JSON drops functions: it would otherwise vanish silently).
    pub functions: Vec<String>,
}

impl FactoryDescriptor {
    /// Check what JSON could not carry; the message names the factory and the option.
    pub fn check(&self, factory: &str, spec: &ScorerSpec) -> Result<(), InvalidArgument> {
        let d = self;
        let bad = |m: String| Err(InvalidArgument::options(m));
        if d.kind != "object" {
            return bad(format!(
            "{factory}() expects an options object like {{ model: 'openai/gpt-4o-mini' }}; got {}",
            d.kind
        ));
        }
        if let Some(why) = &d.serialize_error {
            return bad(format!(
                "options must be plain JSON-serializable data ({why})"
            ));
        }
        if let Some(path) = &d.non_finite {
            return bad(format!(
                "'{path}' is {}; numbers must be finite",
                d.non_finite_value.as_deref().unwrap_or("not finite")
            ));
        }
        if d.model == "unsupportedLanguageModel" {
            return bad(format!(
            "{factory}(): options.model is a language model object of an unsupported specification version ({}); AI SDK models of specification v2 and v3 are supported",
            d.model_id
        ));
        }
        if spec.context_extractor
            && !matches!(d.context_extractor.as_str(), "" | "undefined" | "function")
        {
            return bad(format!(
            "{factory}(): options.contextExtractor must be a function (input, output) => string[]; got {}",
            d.context_extractor
        ));
        }
        // a Mastra extractor callback oxeval does not take (e.g. summarization's
        // sourceExtractor): say so rather than ignore it
        if let Some(path) = d.functions.iter().find(|p| {
            p.rsplit('.').next().is_some_and(|name| {
                name.ends_with("Extractor")
                    && !(spec.context_extractor && name == "contextExtractor")
            })
        }) {
            return bad(format!(
                "{factory}(): options.{path} is a callback oxeval does not take for this scorer; pass the text it would return as data instead (see the scorer's options and run fields)"
            ));
        }
        Ok(())
    }
}

/// Every scorer, one line each.
pub static REGISTRY: &[&ScorerSpec] = &[
    &answer_relevancy::SPEC,
    &factual_correctness::SPEC,
    &nvidia::answer_accuracy::SPEC,
    &nvidia::context_relevance::SPEC,
    &nvidia::response_groundedness::SPEC,
    &faithfulness::SPEC,
    &hallucination::SPEC,
    &context_precision::SPEC,
    &context_recall::SPEC,
    &context_relevance_llm::SPEC,
    &answer_similarity::SPEC,
    &summarization::SPEC,
    &noise_sensitivity::SPEC,
];

/// A schema function (see [`schema_of`]).
pub type SchemaFn = fn() -> Schema;

/// Run fields a scorer reads besides `input`, `output`, `groundTruth` and `context`, by
/// factory: their schema types the generated `…Run` (one line per scorer that has any).
pub static RUN_FIELDS: &[(&str, SchemaFn)] = &[
    (
        summarization::SPEC.factory,
        schema_of::<summarization::JsRunFields>,
    ),
    (
        noise_sensitivity::SPEC.factory,
        schema_of::<noise_sensitivity::JsRunFields>,
    ),
];

/// The spec of a factory name.
pub fn find(factory: &str) -> Option<&'static ScorerSpec> {
    REGISTRY.iter().copied().find(|s| s.factory == factory)
}

/// Build a scorer by factory name.
pub fn build(factory: &str, options: &Value) -> Result<Box<dyn Scorer>, InvalidArgument> {
    let spec = find(factory).ok_or_else(|| {
        InvalidArgument::options(format!("there is no scorer factory named '{factory}'"))
    })?;
    build_spec(spec, options)
}

/// Build `spec`'s scorer from its factory options, with the `id` and `name` options every
/// factory takes (so two scorers of one kind, or oxeval's and Mastra's, can coexist).
pub fn build_spec(spec: &ScorerSpec, options: &Value) -> Result<Box<dyn Scorer>, InvalidArgument> {
    let id = identity_option(options, "id")?;
    let name = identity_option(options, "name")?;
    let mut scorer = (spec.build)(options)?;
    if let Some(id) = id {
        scorer.meta_mut().id = id.into();
    }
    if let Some(name) = name {
        scorer.meta_mut().name = name.into();
    }
    Ok(scorer)
}

fn identity_option(options: &Value, key: &str) -> Result<Option<String>, InvalidArgument> {
    match options.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if !s.trim().is_empty() && s.chars().count() <= 200 => {
            Ok(Some(s.clone()))
        }
        Some(_) => Err(InvalidArgument::options(format!(
            "options.{key} must be a non-empty string of at most 200 characters"
        ))),
    }
}

/// The registry as data, for the code generator: `{ scorers: [...], errorCodes: [...] }`.
pub fn describe() -> Value {
    json!({
        "scorers": describe_scorers(),
        "errorCodes": crate::error::ErrorCode::ALL.iter().map(|c| c.as_str()).collect::<Vec<_>>(),
    })
}

fn describe_scorers() -> Value {
    let schema = |f: Option<fn() -> Schema>| f.map(|f| f().to_value());
    Value::Array(
        REGISTRY
            .iter()
            .map(|s| {
                json!({
                    "factory": s.factory,
                    "id": s.id,
                    "name": s.name,
                    "description": s.description,
                    "family": s.family,
                    "typeName": s.type_name,
                    "inputs": s.inputs,
                    "contextExtractor": s.context_extractor,
                    "options": (s.options)().to_value(),
                    "preprocess": schema(s.preprocess),
                    "analyze": schema(s.analyze),
                    "runFields": schema(
                        RUN_FIELDS.iter().find(|(f, _)| *f == s.factory).map(|(_, f)| *f)
                    ),
                })
            })
            .collect(),
    )
}

/// A schema function for a type: `schema_fn::<T>` fits [`ScorerSpec`]'s fields.
pub fn schema_of<T: schemars::JsonSchema>() -> Schema {
    schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| s.inline_subschemas = true)
        .into_generator()
        .into_root_schema_for::<T>()
}

/// `build` for a scorer type with `from_options`.
pub fn boxed<S: Scorer + 'static>(
    r: Result<S, InvalidArgument>,
) -> Result<Box<dyn Scorer>, InvalidArgument> {
    r.map(|s| Box::new(s) as Box<dyn Scorer>)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factories_and_ids_are_unique_and_described() {
        let d = describe();
        let items = d["scorers"].as_array().unwrap();
        assert_eq!(
            d["errorCodes"].as_array().unwrap().len(),
            crate::error::ErrorCode::ALL.len()
        );
        assert_eq!(items.len(), REGISTRY.len());
        let mut factories: Vec<&str> = REGISTRY.iter().map(|s| s.factory).collect();
        let mut ids: Vec<&str> = REGISTRY.iter().map(|s| s.id).collect();
        factories.sort();
        factories.dedup();
        ids.sort();
        ids.dedup();
        assert_eq!(factories.len(), REGISTRY.len());
        assert_eq!(ids.len(), REGISTRY.len());
        for (item, spec) in items.iter().zip(REGISTRY) {
            // Mastra's names: `create…Scorer`, or `create…ScorerLLM` for its LLM variants
            assert!(
                spec.factory.starts_with("create")
                    && (spec.factory.ends_with("Scorer") || spec.factory.ends_with("ScorerLLM"))
            );
            assert_eq!(item["options"]["type"], "object", "{}", spec.factory);
        }
        assert!(find("createAnswerRelevancyScorer").is_some());
        let model = json!({"id": "openai/x", "url": "http://127.0.0.1:9/v1"});
        let s = build(
            "createAnswerRelevancyScorer",
            &json!({"model": model, "id": "ar-2", "name": "Second AR"}),
        )
        .unwrap();
        assert_eq!((&*s.meta().id, &*s.meta().name), ("ar-2", "Second AR"));
        let bad = build(
            "createAnswerRelevancyScorer",
            &json!({"model": model, "id": ""}),
        );
        assert!(bad
            .err()
            .unwrap()
            .message
            .contains("options.id must be a non-empty string"));
        let e = build("createNopeScorer", &json!({})).err().unwrap();
        assert!(e
            .message
            .contains("no scorer factory named 'createNopeScorer'"));
    }

    #[test]
    fn an_extractor_callback_the_scorer_does_not_take_is_a_type_error() {
        let d = |functions: &[&str]| FactoryDescriptor {
            kind: "object".into(),
            functions: functions.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        };
        let summarization = find("createSummarizationScorer").unwrap();
        let e = d(&["sourceExtractor"])
            .check("createSummarizationScorer", summarization)
            .unwrap_err();
        assert!(
            e.message.starts_with("createSummarizationScorer(): options.sourceExtractor is a callback oxeval does not take"),
            "{}",
            e.message
        );
        // other functions (e.g. Mastra's prepareRun hooks) are not this check's business
        assert!(d(&["onDone"])
            .check("createSummarizationScorer", summarization)
            .is_ok());
        assert!(d(&[])
            .check("createSummarizationScorer", summarization)
            .is_ok());
    }

    #[test]
    fn a_spec_builds_its_scorer_with_its_own_id() {
        for spec in REGISTRY {
            let s =
                (spec.build)(&json!({"model": {"id": "openai/x", "url": "http://127.0.0.1:9/v1"}}))
                    .unwrap_or_else(|e| panic!("{}: {}", spec.factory, e.message));
            assert_eq!(s.meta().id, spec.id);
            assert_eq!(s.meta().name, spec.name);
        }
    }
}
