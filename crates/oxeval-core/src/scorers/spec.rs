//! What a scorer declares once: its [`ScorerSpec`] (identity, kind, run fields, option and
//! step-result schemas, steps, builder) and the types it is made of. Scorer folders import
//! this module; the registry (`registry.rs`) lists the specs and describes them for the
//! generator, and imports the folders (never the other way round).

use crate::engine::schema::StepSchema;
use crate::error::InvalidArgument;
use crate::provider::external::Host;
use crate::scorers::extract::Extractor;
use crate::scorers::Scorer;
use schemars::Schema;
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;

/// What a scorer is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Judged by an LLM: the factory takes `model` (its options extend `LLMScorerOptions`).
    Llm,
    /// Pure code: no judge, no `model` option; its result has no `judge` key.
    Code,
    /// Steps defined at run time by the host.
    Custom,
}

/// A step's structured output schema (see [`crate::engine::schema::StepOutput::schema`]).
pub type StepSchemaFn = fn() -> &'static StepSchema;

/// `getSteps()` entries, declared once in the scorer's [`ScorerSpec`].
#[derive(Debug, Clone, Serialize)]
pub struct StepMeta {
    pub name: &'static str,
    /// `prompt` (LLM) or `function`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub description: &'static str,
    /// The structured output the step asks the judge for (its schema name is what the
    /// provider receives); `None` for a function step or a free-text prompt.
    #[serde(skip)]
    pub schema: Option<StepSchemaFn>,
}

impl StepMeta {
    /// A judge step with a structured reply.
    pub const fn judge(
        name: &'static str,
        description: &'static str,
        schema: StepSchemaFn,
    ) -> Self {
        StepMeta {
            name,
            kind: "prompt",
            description,
            schema: Some(schema),
        }
    }

    /// A judge step with a free-text reply (e.g. `generateReason`).
    pub const fn text(name: &'static str, description: &'static str) -> Self {
        StepMeta {
            name,
            kind: "prompt",
            description,
            schema: None,
        }
    }

    /// A step computed in code.
    pub const fn function(name: &'static str, description: &'static str) -> Self {
        StepMeta {
            name,
            kind: "function",
            description,
            schema: None,
        }
    }
}

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
    /// `llm`, `code` or `custom` (the generator picks the options' base type by it).
    pub kind: Kind,
    pub inputs: Inputs,
    /// JSON schema of the run fields the scorer reads besides `input`, `output`,
    /// `groundTruth` and `context` (they type the generated `…Run`).
    pub run_fields: Option<SchemaFn>,
    /// The extractor callbacks the factory takes (`contextExtractor`, `sourceExtractor`):
    /// called through the host before the first step ([`crate::scorers::extract`]).
    pub extractors: &'static [&'static Extractor],
    /// JSON schema of the scorer's own options (besides `model`, `modelSettings`, `cache`).
    pub options: SchemaFn,
    /// Mastra's nested form `options.options` takes the same keys (read by the `options.rs`
    /// readers): this is its doc; the generator derives its type from `options`. `None`:
    /// no nested form.
    pub nested_options: Option<&'static str>,
    /// JSON schemas of `preprocessStepResult` / `analyzeStepResult` (`None`: always absent).
    pub preprocess: Option<SchemaFn>,
    pub analyze: Option<SchemaFn>,
    /// `getSteps()`, in order.
    pub steps: &'static [StepMeta],
    /// Build the scorer from its factory options (checked here: TypeError-style errors) and
    /// what the host supplies beside them ([`BuildContext`]).
    pub build: BuildFn,
}

/// A scorer's builder ([`ScorerSpec::build`]).
pub type BuildFn = fn(&Value, &BuildContext) -> Result<Box<dyn Scorer>, InvalidArgument>;

/// What a scorer's build gets besides its options' JSON: what the host supplies. Passed to
/// [`ScorerSpec::build`] explicitly; `BuildContext::default()` is a build with nothing from
/// the host.
#[derive(Clone, Default)]
pub struct BuildContext {
    /// The host's one channel ([`Host`]): it answers the judge model's calls and the
    /// function options' calls of this scorer.
    pub host: Option<Arc<dyn Host>>,
    /// The judge model is the host's (a JS value), not `options.model`: its name.
    pub model: Option<HostModel>,
    /// The names of the options that are host functions (e.g. `getContext`).
    pub functions: Vec<String>,
    /// The embedder is the host's (a JS value), not `options.embedder` as data: its name.
    pub embedder: Option<HostModel>,
    /// `model` is an evaluation model (`doEvaluate`) the host answers
    /// ([`HostCall::EvaluationModel`](crate::provider::external::HostCall)), not a judge.
    pub evaluation_model: bool,
}

/// The name of a judge model the host supplies.
#[derive(Debug, Clone)]
pub struct HostModel {
    /// The model's provider name (AI SDK `model.provider`, e.g. `openai.chat`).
    pub provider_id: String,
    pub model_id: String,
    /// Which of the scorer's host models it is (0: the scorer's judge; a custom scorer's
    /// step judges count on from 1).
    pub slot: usize,
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
    /// JS type of each option named `…Extractor` (top-level, else under `options`).
    pub extractors: std::collections::BTreeMap<String, String>,
    /// For a JS model: its provider name and model id (AI SDK `provider`, `modelId`).
    pub model_provider: String,
    pub model_id: String,
    /// Names of the other function-valued options (top-level or under `options`, e.g.
    /// `getContext`), called through the host's caller (`scorers::llm::callbacks`); a Mastra
    /// extractor callback the scorer does not take (e.g. `sourceExtractor`) is a TypeError
    /// (JSON drops functions: it would otherwise vanish silently).
    pub functions: Vec<String>,
    /// `data`, `function` or `embeddingModel` (an object with `doEmbed`), and for a JS
    /// embedder its provider name and model id.
    pub embedder: String,
    pub embedder_provider: String,
    pub embedder_id: String,
}

impl FactoryDescriptor {
    /// The build context of a factory call whose host channel is `host`: the judge model is
    /// the host's when `options.model` was a JS model (a function or a language model).
    pub fn build_context(&self, host: Option<Arc<dyn Host>>) -> BuildContext {
        let js_model = matches!(
            self.model.as_str(),
            "function" | "languageModel" | "evaluationModel"
        );
        BuildContext {
            model: (js_model && host.is_some()).then(|| HostModel {
                provider_id: self.model_provider.clone(),
                model_id: self.model_id.clone(),
                slot: 0,
            }),
            embedder: (matches!(self.embedder.as_str(), "function" | "embeddingModel")
                && host.is_some())
            .then(|| HostModel {
                provider_id: self.embedder_provider.clone(),
                model_id: self.embedder_id.clone(),
                slot: 0,
            }),
            functions: if host.is_some() {
                self.functions.clone()
            } else {
                Vec::new()
            },
            evaluation_model: self.model == "evaluationModel" && host.is_some(),
            host,
        }
    }

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
        if d.embedder == "unsupportedEmbeddingModel" {
            return bad(format!(
                "{factory}(): options.embedder is an embedding model object of an unsupported specification version ({}); AI SDK embedding models of specification v2 and v3 are supported",
                d.embedder_id
            ));
        }
        if d.model == "evaluationModel" && spec.factory != "createClassifierScorer" {
            return bad(format!(
                "{factory}(): options.model is an evaluation model (doEvaluate), which only createClassifierScorer takes; pass a judge model ('provider/model', a model config, an AI SDK language model or a function)"
            ));
        }
        for x in spec.extractors {
            let kind = d.extractors.get(x.option).map(String::as_str);
            if !matches!(kind, None | Some("" | "undefined" | "function")) {
                return bad(format!(
                    "{factory}(): options.{} must be a function {}; got {}",
                    x.option,
                    x.signature,
                    kind.unwrap_or_default()
                ));
            }
        }
        // a Mastra extractor callback oxeval does not take (e.g. a sourceExtractor given
        // to a scorer without one): say so rather than ignore it. A `contextExtractor` on a
        // scorer that reads no context stays ignored (one options object for every factory).
        if let Some(path) = d.functions.iter().find(|p| {
            p.rsplit('.').next().is_some_and(|name| {
                name.ends_with("Extractor")
                    && name != "contextExtractor"
                    && !spec.extractors.iter().any(|x| x.option == name)
            })
        }) {
            return bad(format!(
                "{factory}(): options.{path} is a callback oxeval does not take for this scorer; pass the text it would return as data instead (see the scorer's options and run fields)"
            ));
        }
        Ok(())
    }
}

impl ScorerSpec {
    /// Names of the run fields the scorer reads: those of [`Inputs`] it does not leave
    /// unused, then its own (`run_fields`), in declaration order.
    pub fn run_field_names(&self) -> Vec<String> {
        let i = &self.inputs;
        let mut names: Vec<String> = [
            ("input", i.input),
            ("output", i.output),
            ("groundTruth", i.ground_truth),
            ("context", i.context),
        ]
        .into_iter()
        .filter(|(_, need)| *need != Need::Unused)
        .map(|(name, _)| name.to_string())
        .collect();
        if let Some(f) = self.run_fields {
            if let Some(props) = f()
                .as_object()
                .and_then(|o| o.get("properties"))
                .and_then(Value::as_object)
            {
                names.extend(props.keys().cloned());
            }
        }
        names
    }
}

/// A schema function (see [`schema_of`]).
pub type SchemaFn = fn() -> Schema;

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
fn no_build(_: &Value, _: &BuildContext) -> Result<Box<dyn Scorer>, InvalidArgument> {
    Err(InvalidArgument::options("a test spec builds nothing"))
}

/// A spec for unit tests (`..test_spec()` fills what a test does not care about).
#[cfg(test)]
pub const fn test_spec() -> ScorerSpec {
    ScorerSpec {
        factory: "createTestScorer",
        id: "test-scorer",
        name: "Test Scorer",
        description: "a scorer for unit tests",
        family: "mastra",
        type_name: "Test",
        kind: Kind::Code,
        inputs: Inputs {
            input: Need::Unused,
            output: Need::Required,
            ground_truth: Need::Unused,
            context: Need::Unused,
        },
        run_fields: None,
        extractors: &[],
        options: schema_of::<()>,
        nested_options: None,
        preprocess: None,
        analyze: None,
        steps: &[],
        build: no_build,
    }
}
