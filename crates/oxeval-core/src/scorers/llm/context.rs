//! Retrieved contexts for the RAG scorers (context relevance, response groundedness).
//!
//! [`retrieved_contexts`] takes the FIRST source that is present (not absent, not null), in
//! this order:
//!
//! 1. `run.context`: a `string[]` on the run itself (per dataset item; the common case);
//! 2. `run.extractedContext`: the `string[]` the JS facade puts there after calling the
//!    user's `contextExtractor(input, output)`;
//! 3. the factory's `context` option ([`context_option`]);
//! 4. the tool results carried by the output messages ([`crate::text::tool_results`]): a
//!    string result is itself, any other result is JSON-stringified, a missing (null)
//!    result is skipped.
//!
//! A present source wins even when it is an empty array (the scorer then reports that the
//! list is empty). A present source of the wrong type (`context: 5`, `[1, 2]`) is an
//! [`InvalidArgument::input`]; a wrong `context` option is an [`InvalidArgument::options`]
//! at the factory.

use crate::error::{type_name, InvalidArgument};
use crate::options::scorer_value;
use crate::run::RunInput;
use crate::text::tool_results;
use serde_json::Value;

/// Where the contexts of a run came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContextSource {
    /// `run.context`.
    Run,
    /// `run.extractedContext` (the facade's `contextExtractor`).
    Extractor,
    /// The factory's `context` option.
    Option,
    /// Tool results in `run.output`.
    ToolResults,
}

impl ContextSource {
    /// How the source is named in messages.
    pub fn describe(self) -> &'static str {
        match self {
            ContextSource::Run => "run.context",
            ContextSource::Extractor => "the contextExtractor's result",
            ContextSource::Option => "the scorer's context option",
            ContextSource::ToolResults => "the tool results in run.output",
        }
    }
}

/// The contexts of one run and their source.
#[derive(Debug, Clone, PartialEq)]
pub struct Contexts {
    pub items: Vec<String>,
    pub source: ContextSource,
}

/// `value` as a list of strings; `Err` describes the first offending part under `path`.
fn string_list(value: &Value, path: &str) -> Result<Vec<String>, String> {
    let Value::Array(items) = value else {
        return Err(format!(
            "{path} must be an array of strings; got {}",
            type_name(value)
        ));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| match item {
            Value::String(s) => Ok(s.clone()),
            other => Err(format!(
                "{path}[{i}] must be a string; got {}",
                type_name(other)
            )),
        })
        .collect()
}

/// The factory's `context` option (top-level or under `options`): `None` when absent.
pub fn context_option(options: &Value) -> Result<Option<Vec<String>>, InvalidArgument> {
    match scorer_value(options, "context")? {
        None => Ok(None),
        Some((value, path)) => string_list(value, &path)
            .map(Some)
            .map_err(InvalidArgument::options),
    }
}

/// The `context` option; an empty list is a TypeError (as in Mastra's factory).
pub fn nonempty_context_option(v: &Value) -> Result<Option<Vec<String>>, InvalidArgument> {
    let context = context_option(v)?;
    if context.as_ref().is_some_and(Vec::is_empty) {
        return Err(InvalidArgument::options(
            "options.context must not be empty when given: pass the retrieved context pieces, or leave it out and pass run.context or a contextExtractor",
        ));
    }
    Ok(context)
}

/// The retrieved contexts joined with "\n" (as Ragas joins them), or a TypeError naming the
/// scorer when no source gave any.
pub fn joined_contexts(
    run: &RunInput,
    configured: Option<&[String]>,
    scorer_id: &str,
) -> Result<String, InvalidArgument> {
    let contexts = retrieved_contexts(run, configured)?;
    if contexts.items.is_empty() {
        return Err(InvalidArgument::input(format!(
            "{scorer_id}: the retrieved contexts are missing ({} gave none): pass run.context (string[]), a contextExtractor, the scorer's context option, or tool results in run.output",
            contexts.source.describe()
        )));
    }
    Ok(contexts.items.join("\n"))
}

/// The retrieved contexts of `run`; see the module docs for the order of the sources.
pub fn retrieved_contexts(
    run: &RunInput,
    configured: Option<&[String]>,
) -> Result<Contexts, InvalidArgument> {
    for (key, source) in [
        ("context", ContextSource::Run),
        ("extractedContext", ContextSource::Extractor),
    ] {
        if let Some(value) = run.raw.get(key).filter(|v| !v.is_null()) {
            let items =
                string_list(value, &format!("run.{key}")).map_err(InvalidArgument::input)?;
            return Ok(Contexts { items, source });
        }
    }
    if let Some(items) = configured {
        return Ok(Contexts {
            items: items.to_vec(),
            source: ContextSource::Option,
        });
    }
    let items = tool_results(&run.output)
        .into_iter()
        .filter(|v| !v.is_null())
        .map(|v| match v {
            Value::String(s) => s,
            other => other.to_string(),
        })
        .collect();
    Ok(Contexts {
        items,
        source: ContextSource::ToolResults,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(v: Value) -> RunInput {
        RunInput::from_value(v).unwrap()
    }

    fn tool_output() -> Value {
        json!([{"role": "assistant", "content": {"format": 2, "parts": [
            {"type": "tool-invocation", "toolInvocation": {"state": "result", "toolCallId": "a", "result": "doc A"}},
            {"type": "tool-invocation", "toolInvocation": {"state": "result", "toolCallId": "b", "result": {"title": "B"}}},
            {"type": "tool-invocation", "toolInvocation": {"state": "result", "toolCallId": "c"}},
            {"type": "text", "text": "answer"}
        ]}}])
    }

    #[test]
    fn order_of_sources() {
        let opt = vec!["from option".to_string()];
        let all = run(json!({
            "output": tool_output(),
            "context": ["from run"],
            "extractedContext": ["from extractor"]
        }));
        let c = retrieved_contexts(&all, Some(&opt)).unwrap();
        assert_eq!(
            (c.items, c.source),
            (vec!["from run".to_string()], ContextSource::Run)
        );

        let r =
            run(json!({"output": tool_output(), "context": null, "extractedContext": ["x", "y"]}));
        let c = retrieved_contexts(&r, Some(&opt)).unwrap();
        assert_eq!(
            (c.items, c.source),
            (
                vec!["x".to_string(), "y".to_string()],
                ContextSource::Extractor
            )
        );

        let r = run(json!({"output": tool_output()}));
        let c = retrieved_contexts(&r, Some(&opt)).unwrap();
        assert_eq!((c.items, c.source), (opt.clone(), ContextSource::Option));

        let c = retrieved_contexts(&r, None).unwrap();
        assert_eq!(c.source, ContextSource::ToolResults);
        assert_eq!(
            c.items,
            vec!["doc A".to_string(), "{\"title\":\"B\"}".to_string()]
        );

        // a present empty list wins
        let r = run(json!({"output": tool_output(), "context": []}));
        let c = retrieved_contexts(&r, Some(&opt)).unwrap();
        assert!(c.items.is_empty());
        assert_eq!(c.source, ContextSource::Run);

        // nothing anywhere
        let c = retrieved_contexts(&run(json!({"output": "a"})), None).unwrap();
        assert!(c.items.is_empty());
    }

    #[test]
    fn wrong_types_are_input_errors() {
        for (bad, want) in [
            (
                json!({"output": "a", "context": 5}),
                "run.context must be an array of strings; got number",
            ),
            (
                json!({"output": "a", "context": ["ok", 2]}),
                "run.context[1] must be a string; got number",
            ),
            (
                json!({"output": "a", "extractedContext": "one"}),
                "run.extractedContext must be an array of strings; got string",
            ),
        ] {
            let e = retrieved_contexts(&run(bad.clone()), None).unwrap_err();
            assert_eq!(e.code, crate::error::ErrorCode::InvalidInput);
            assert_eq!(e.message, want, "{bad}");
        }
    }

    #[test]
    fn option_forms() {
        assert_eq!(context_option(&json!({})).unwrap(), None);
        assert_eq!(
            context_option(&json!({"context": ["a"]})).unwrap(),
            Some(vec!["a".to_string()])
        );
        assert_eq!(
            context_option(&json!({"options": {"context": ["b"]}})).unwrap(),
            Some(vec!["b".to_string()])
        );
        for (bad, want) in [
            (
                json!({"context": 5}),
                "options.context must be an array of strings; got number",
            ),
            (
                json!({"context": [1, 2]}),
                "options.context[0] must be a string; got number",
            ),
            (
                json!({"options": {"context": "x"}}),
                "options.options.context must be an array of strings; got string",
            ),
        ] {
            let e = context_option(&bad).unwrap_err();
            assert_eq!(e.code, crate::error::ErrorCode::InvalidOptions);
            assert_eq!(e.message, want, "{bad}");
        }
    }
}
