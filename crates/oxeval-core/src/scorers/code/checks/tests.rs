use super::*;
use crate::scorers::registry::build_spec;
use serde_json::json;

fn run_of(output: Value) -> RunInput {
    RunInput::from_value(json!({ "output": output })).unwrap()
}

fn check(spec: &ScorerSpec, options: Value, output: Value) -> (f64, Value) {
    let s = build_spec(spec, &options, &BuildContext::default()).unwrap();
    let meta = serde_json::to_value(s.meta()).unwrap();
    assert!(meta.get("judge").is_none());
    let c = Check::build(
        &options,
        ALL.iter().find(|x| x.id == spec.id).unwrap(),
        |v| match spec.id {
            "check-includes" => text_check(TextOp::Includes, "expected")(v),
            "check-excludes" => text_check(TextOp::Excludes, "unwanted")(v),
            "check-equals" => text_check(TextOp::Equals, "expected")(v),
            "check-matches" => matches_check(v),
            "check-similarity" => similarity_check(v),
            "check-called-tool" => called_tool_check(v),
            "check-did-not-call" => did_not_call_check(v),
            "check-tool-order" => tool_order_check(v),
            "check-max-tool-calls" => max_tool_calls_check(v),
            "check-used-no-tools" => Ok((CheckKind::UsedNoTools, String::new())),
            _ => Ok((CheckKind::NoToolErrors, String::new())),
        },
    )
    .unwrap();
    c.evaluate(&run_of(output)).ok().unwrap()
}

fn tool_msg(calls: &[(&str, &str)]) -> Value {
    let parts: Vec<Value> = calls
        .iter()
        .enumerate()
        .map(|(i, (n, st))| json!({"type": "tool-invocation", "toolInvocation": {"toolCallId": format!("c{i}"), "toolName": n, "state": st, "args": {}}}))
        .collect();
    json!([{"role": "assistant", "content": {"format": 2, "parts": parts}}, {"role": "assistant", "content": "Done in Paris."}])
}

#[test]
fn text_checks_table() {
    let out = json!([
        {"role": "user", "content": "Where?"},
        {"role": "assistant", "content": "Sunny in"},
        {"role": "assistant", "content": {"format": 2, "parts": [{"type": "text", "text": "PARIS"}]}}
    ]);
    let cases: Vec<(&ScorerSpec, Value, f64)> = vec![
        (&INCLUDES, json!({"expected": "in paris"}), 1.0),
        (
            &INCLUDES,
            json!({"expected": "in paris", "ignoreCase": false}),
            0.0,
        ),
        (&INCLUDES, json!({"expected": "where"}), 0.0),
        (&INCLUDES, json!({"expected": ""}), 1.0),
        (&EXCLUDES, json!({"unwanted": "rain"}), 1.0),
        (&EXCLUDES, json!({"unwanted": "SUNNY"}), 0.0),
        (&EQUALS, json!({"expected": "sunny inparis"}), 1.0),
        (&EQUALS, json!({"expected": "sunny in paris"}), 0.0),
        (
            &MATCHES,
            json!({"pattern": {"source": "in\\s?PARIS$", "flags": ""}}),
            1.0,
        ),
        (
            &MATCHES,
            json!({"pattern": {"source": "Sunny", "flags": ""}, "exact": true}),
            0.0,
        ),
        (
            &SIMILARITY,
            json!({"expected": "sunny in paris", "threshold": 0.9}),
            1.0,
        ),
    ];
    for (spec, o, want) in cases {
        assert_eq!(
            check(spec, o.clone(), out.clone()).0,
            want,
            "{} {o}",
            spec.factory
        );
    }
    let (s, pre) = check(&SIMILARITY, json!({"expected": "healed"}), json!("sealed"));
    assert!((s - 0.8).abs() < 1e-15);
    assert_eq!(
        pre,
        json!({"output": "sealed", "target": "healed", "score": 0.8})
    );
    let (_, pre) = check(&INCLUDES, json!({"expected": "X"}), json!("axb"));
    assert_eq!(pre, json!({"output": "axb", "target": "x", "found": true}));
}

#[test]
fn tool_checks_table() {
    let out = tool_msg(&[
        ("search", "result"),
        ("search", "output-error"),
        ("draft", "partial-call"),
        ("send", "call"),
    ]);
    let cases: Vec<(&ScorerSpec, Value, f64)> = vec![
        (&CALLED_TOOL, json!({"toolName": "search", "times": 2}), 1.0),
        (&CALLED_TOOL, json!({"toolName": "search", "times": 3}), 0.0),
        (&CALLED_TOOL, json!({"toolName": "draft"}), 0.0),
        (&DID_NOT_CALL, json!({"toolName": "draft"}), 1.0),
        (&DID_NOT_CALL, json!({"toolName": "send"}), 0.0),
        (
            &TOOL_ORDER,
            json!({"expectedOrder": ["search", "send"]}),
            1.0,
        ),
        (
            &TOOL_ORDER,
            json!({"expectedOrder": ["send", "search"]}),
            0.0,
        ),
        (&TOOL_ORDER, json!({"expectedOrder": []}), 1.0),
        (&MAX_TOOL_CALLS, json!({"max": 3}), 1.0),
        (&MAX_TOOL_CALLS, json!({"max": 2}), 0.0),
        (&USED_NO_TOOLS, json!({}), 0.0),
        (&NO_TOOL_ERRORS, json!({}), 0.0),
    ];
    for (spec, o, want) in cases {
        assert_eq!(
            check(spec, o.clone(), out.clone()).0,
            want,
            "{} {o}",
            spec.factory
        );
    }
    let (_, pre) = check(&NO_TOOL_ERRORS, json!({}), out.clone());
    // every merged invocation counts (the partial call too); output-error and call fail
    assert_eq!(
        pre,
        json!({"errorCount": 2, "totalCalls": 4, "passed": false})
    );
    assert_eq!(check(&USED_NO_TOOLS, json!({}), json!("plain text")).0, 1.0);
    assert_eq!(
        check(&NO_TOOL_ERRORS, json!({}), json!("plain text")).0,
        1.0
    );
}

#[test]
fn descriptions_and_bad_arguments() {
    let d = |spec: &ScorerSpec, o: Value| {
        build_spec(spec, &o, &BuildContext::default()).map(|s| s.meta().description.to_string())
    };
    assert_eq!(
        d(&INCLUDES, json!({"expected": "sunny"})).unwrap(),
        "Checks if output includes \"sunny\""
    );
    assert_eq!(
        d(&CALLED_TOOL, json!({"toolName": "s", "times": 2})).unwrap(),
        "Checks that \"s\" was called at least 2 times"
    );
    assert_eq!(
        d(&CALLED_TOOL, json!({"toolName": "s"})).unwrap(),
        "Checks that \"s\" was called"
    );
    assert_eq!(
        d(&TOOL_ORDER, json!({"expectedOrder": ["a", "b"]})).unwrap(),
        "Checks tool call order: [a → b]"
    );
    assert_eq!(
        d(&MAX_TOOL_CALLS, json!({"max": 5})).unwrap(),
        "Checks that no more than 5 tool calls were made"
    );
    assert_eq!(
        d(
            &MATCHES,
            json!({"pattern": {"source": "\\d+", "flags": "g"}})
        )
        .unwrap(),
        "Checks if output matches pattern /\\d+/g"
    );
    let e = d(&INCLUDES, json!({"expected": 3})).unwrap_err();
    assert_eq!(
        e.message,
        "includes(): expected (its first argument) must be a string; got number"
    );
    assert!(d(&MAX_TOOL_CALLS, json!({"max": "3"})).is_err());
    assert!(d(&MATCHES, json!({"pattern": "x"})).is_err());
    assert!(d(&TOOL_ORDER, json!({"expectedOrder": "a"})).is_err());
}
