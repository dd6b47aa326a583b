//! The scorer registry: every scorer declares its [`ScorerSpec`] once, in its own folder, and
//! is listed here on ONE line. Everything else is derived from it: the binding's generic
//! constructor (`createScorer(factory, options)`), the JS factory list, `index.mjs`'s
//! exports and the TypeScript option / step-result types (`npm run generate`, checked in CI).

use crate::error::InvalidArgument;
use crate::scorers::code::{
    checks, completeness, content_similarity, keyword_coverage, ragas, textual_difference, tone,
    tool_call_accuracy, trajectory, trajectory_accuracy,
};
use crate::scorers::llm::{
    answer_relevancy, answer_similarity, bias, classifier, context_precision, context_recall,
    context_relevance_llm, factual_correctness, faithfulness, hallucination, multi_turn_judge,
    noise_sensitivity, nvidia, prompt_alignment, rubric, summarization, tool_call_accuracy_llm,
    toxicity, trajectory_accuracy_llm,
};
pub use crate::scorers::spec::{
    boxed, schema_of, BuildContext, FactoryDescriptor, Inputs, Kind, Need, SchemaFn, ScorerSpec,
    StepMeta,
};
use crate::scorers::Scorer;
use serde_json::{json, Value};

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
    &bias::SPEC,
    &toxicity::SPEC,
    &prompt_alignment::SPEC,
    &rubric::SPEC,
    &multi_turn_judge::SPEC,
    &tool_call_accuracy_llm::SPEC,
    &trajectory_accuracy_llm::SPEC,
    &classifier::SPEC,
    &tool_call_accuracy::SPEC,
    &trajectory_accuracy::SPEC,
    &trajectory::SPEC,
    &checks::INCLUDES,
    &checks::EXCLUDES,
    &checks::EQUALS,
    &checks::MATCHES,
    &checks::SIMILARITY,
    &checks::CALLED_TOOL,
    &checks::DID_NOT_CALL,
    &checks::TOOL_ORDER,
    &checks::MAX_TOOL_CALLS,
    &checks::USED_NO_TOOLS,
    &checks::NO_TOOL_ERRORS,
    &completeness::SPEC,
    &content_similarity::SPEC,
    &keyword_coverage::SPEC,
    &textual_difference::SPEC,
    &tone::SPEC,
    &ragas::exact_match::SPEC,
    &ragas::string_presence::SPEC,
    &ragas::string_similarity::SPEC,
    &crate::scorers::embedding::semantic_similarity::SPEC,
    &ragas::chrf::SPEC,
    &ragas::bleu::SPEC,
    &ragas::rouge::SPEC,
    &ragas::quoted_spans::SPEC,
    &ragas::tool_call_accuracy::SPEC,
    &ragas::tool_call_f1::SPEC,
];

/// The host calls a scorer makes besides a judge model's and function options' (the facade
/// supplies their handlers): by factory.
static HOST_CALLS: &[(&str, &[crate::provider::external::HostCall])] = &[
    (completeness::SPEC.factory, completeness::HOST_CALLS),
    (
        crate::scorers::embedding::semantic_similarity::SPEC.factory,
        crate::scorers::embedding::semantic_similarity::HOST_CALLS,
    ),
];

/// The host calls `factory`'s scorer makes besides a judge model's and function options'.
pub fn host_calls(factory: &str) -> &'static [crate::provider::external::HostCall] {
    HOST_CALLS
        .iter()
        .find(|(f, _)| *f == factory)
        .map_or(&[], |(_, calls)| *calls)
}

/// The scorers whose options and run expectations may hold `Infinity` / `NaN`, as Mastra's
/// take them (the facade carries such a number as [`crate::options::NON_FINITE_KEY`]; for
/// every other scorer it is a TypeError at the factory).
static NON_FINITE: &[&str] = &[crate::scorers::code::trajectory::SPEC.factory];

/// Whether `factory`'s scorer takes non-finite numbers in its options and expectations.
pub fn takes_non_finite(factory: &str) -> bool {
    NON_FINITE.contains(&factory)
}

/// The spec of a factory name.
pub fn find(factory: &str) -> Option<&'static ScorerSpec> {
    REGISTRY.iter().copied().find(|s| s.factory == factory)
}

/// Build a scorer by factory name.
pub fn build(
    factory: &str,
    options: &Value,
    cx: &BuildContext,
) -> Result<Box<dyn Scorer>, InvalidArgument> {
    let spec = find(factory).ok_or_else(|| {
        InvalidArgument::options(format!("there is no scorer factory named '{factory}'"))
    })?;
    build_spec(spec, options, cx)
}

/// Build `spec`'s scorer from its factory options, with the `id` and `name` options every
/// factory takes (so two scorers of one kind, or oxeval's and Mastra's, can coexist).
pub fn build_spec(
    spec: &ScorerSpec,
    options: &Value,
    cx: &BuildContext,
) -> Result<Box<dyn Scorer>, InvalidArgument> {
    let id = identity_option(options, "id")?;
    let name = identity_option(options, "name")?;
    let scorer = (spec.build)(options, cx)?;
    let mut scorer = crate::scorers::extract::wrap(spec, scorer, options, cx)?;
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
    let schema = |f: Option<SchemaFn>| f.map(|f| f().to_value());
    Value::Array(
        REGISTRY
            .iter()
            .map(|s| {
                let mut d = json!({
                    "factory": s.factory,
                    "id": s.id,
                    "name": s.name,
                    "description": s.description,
                    "family": s.family,
                    "typeName": s.type_name,
                    "kind": s.kind,
                    "inputs": s.inputs,
                    "contextExtractor": s.extractors.iter().any(|x| x.option == "contextExtractor"),
                    "extractors": s.extractors.iter().map(|x| x.option).collect::<Vec<_>>(),
                    "options": (s.options)().to_value(),
                    "nestedOptions": s.nested_options,
                    "preprocess": schema(s.preprocess),
                    "analyze": schema(s.analyze),
                    "steps": s.steps.iter().map(describe_step).collect::<Vec<_>>(),
                    "runFields": s.run_field_names(),
                    "runFieldsSchema": schema(s.run_fields),
                });
                // only a scorer that makes such calls carries the key
                if takes_non_finite(s.factory) {
                    d["nonFinite"] = true.into();
                }
                let calls = host_calls(s.factory);
                if !calls.is_empty() {
                    d["hostCalls"] = calls.iter().map(|c| c.name()).collect();
                }
                d
            })
            .collect(),
    )
}

/// A step for the generator: `getSteps()`'s entry plus, for a judge step with a structured
/// reply, the schema name it sends (what the test judge keys its replies on).
fn describe_step(step: &StepMeta) -> Value {
    let mut v = json!({"name": step.name, "type": step.kind, "description": step.description});
    if let Some(schema) = step.schema {
        v["schema"] = json!(schema().name);
    }
    v
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
            // (a check keeps Mastra's short name: `includes`, `calledTool`, …)
            assert!(
                (spec.factory.starts_with("create")
                    && ["Scorer", "ScorerLLM", "ScorerCode"]
                        .iter()
                        .any(|s| spec.factory.ends_with(s)))
                    || spec.id.starts_with("check-")
            );
            assert_eq!(item["options"]["type"], "object", "{}", spec.factory);
            // the nested form is derived by the generator, never declared twice
            assert!(item["options"]["properties"].get("options").is_none());
        }
        assert!(find("createAnswerRelevancyScorer").is_some());
        let model = json!({"id": "openai/x", "url": "http://127.0.0.1:9/v1"});
        let none = BuildContext::default();
        let s = build(
            "createAnswerRelevancyScorer",
            &json!({"model": model, "id": "ar-2", "name": "Second AR"}),
            &none,
        )
        .unwrap();
        assert_eq!((&*s.meta().id, &*s.meta().name), ("ar-2", "Second AR"));
        let bad = build(
            "createAnswerRelevancyScorer",
            &json!({"model": model, "id": ""}),
            &none,
        );
        assert!(bad
            .err()
            .unwrap()
            .message
            .contains("options.id must be a non-empty string"));
        let e = build("createNopeScorer", &json!({}), &none).err().unwrap();
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
        let faithfulness = find("createFaithfulnessScorer").unwrap();
        let e = d(&["sourceExtractor"])
            .check("createFaithfulnessScorer", faithfulness)
            .unwrap_err();
        assert!(
            e.message.starts_with("createFaithfulnessScorer(): options.sourceExtractor is a callback oxeval does not take"),
            "{}",
            e.message
        );
        // summarization takes its sourceExtractor, as Mastra's does
        let summarization = find("createSummarizationScorer").unwrap();
        assert!(d(&["sourceExtractor"])
            .check("createSummarizationScorer", summarization)
            .is_ok());
        assert!(d(&["options.sourceExtractor"])
            .check("createSummarizationScorer", summarization)
            .is_ok());
        // other functions (e.g. Mastra's prepareRun hooks) are not this check's business
        assert!(d(&["onDone"])
            .check("createSummarizationScorer", summarization)
            .is_ok());
        assert!(d(&[])
            .check("createSummarizationScorer", summarization)
            .is_ok());
    }

    #[test]
    fn describe_names_kinds_steps_schemas_and_run_fields() {
        let d = describe();
        let ns = &d["scorers"].as_array().unwrap()[REGISTRY
            .iter()
            .position(|s| s.factory == "createNoiseSensitivityScorerLLM")
            .unwrap()];
        assert_eq!(ns["kind"], "llm");
        assert_eq!(
            ns["runFields"],
            json!([
                "input",
                "output",
                "baselineResponse",
                "noisyQuery",
                "noiseType"
            ])
        );
        assert_eq!(ns["steps"][0]["schema"], "noise_sensitivity_analysis");
        for item in d["scorers"].as_array().unwrap() {
            if item["kind"] != "llm" {
                // a code scorer sends no schema, and its steps are functions
                assert!(item["steps"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .all(|s| s["type"] == "function"));
                continue;
            }
            // every judge step but a free-text one names the schema it sends
            assert!(item["steps"]
                .as_array()
                .unwrap()
                .iter()
                .any(|s| s["schema"].is_string()));
        }
    }

    #[test]
    fn a_spec_builds_its_scorer_with_its_own_id() {
        // completeness needs the host (compromise runs there); none is called here
        struct Silent;
        impl crate::provider::external::Host for Silent {
            fn call(
                &self,
                _: crate::provider::external::HostCall,
                _: String,
            ) -> futures::future::BoxFuture<'static, Result<String, String>> {
                Box::pin(async { Err("not called".to_string()) })
            }
        }
        let cx = BuildContext {
            host: Some(std::sync::Arc::new(Silent)),
            // the classifier's `state`, a host function
            functions: vec!["state".into()],
            ..Default::default()
        };
        let text = [
            completeness::SPEC.factory,
            content_similarity::SPEC.factory,
            keyword_coverage::SPEC.factory,
            textual_difference::SPEC.factory,
            tone::SPEC.factory,
        ];
        for spec in REGISTRY
            .iter()
            .filter(|s| s.kind == Kind::Llm || text.contains(&s.factory))
        {
            let mut options = json!({"model": {"id": "openai/x", "url": "http://127.0.0.1:9/v1"}});
            // the options a factory cannot do without (beside model)
            match spec.factory {
                "createMultiTurnJudgeScorer" => options["criterion"] = json!("c"),
                "createToolCallAccuracyScorerLLM" => options["availableTools"] = json!([]),
                "createClassifierScorer" => {
                    options["classifier"] = json!({"questions": {"q": {"type": "boolean"}}});
                    options["question"] = json!("q");
                }
                _ => {}
            }
            let s = (spec.build)(&options, &cx)
                .unwrap_or_else(|e| panic!("{}: {}", spec.factory, e.message));
            assert_eq!(s.meta().id, spec.id);
            assert_eq!(s.meta().name, spec.name);
            assert_eq!(s.meta().steps.len(), spec.steps.len());
        }
    }
}
