"""Scores JSONL cases with ragas 0.4.3's own no-judge metrics (ragas.metrics.collections).

stdin: one JSON object a line, {"metric", "options", "reference", "response"} (quoted spans:
{"response", "contexts"}; tool metrics: {"messages", "referenceToolCalls"}, the messages
Ragas's multi-turn user_input as JSON); stdout: one
JSON object a line, {"score": float} or {"error": "..."} in the same order. Run with the venv
that scripts/ragas-nonllm-fixture.mjs creates (.bench/venv).
"""
import json
import sys
import warnings

warnings.simplefilter("ignore")  # ToolCallAccuracy's length-mismatch warnings

from ragas.messages import AIMessage, HumanMessage, ToolCall, ToolMessage
from ragas.metrics.collections import (
    BleuScore,
    CHRFScore,
    DistanceMeasure,
    ExactMatch,
    RougeScore,
    NonLLMStringSimilarity,
    QuotedSpansAlignment,
    StringPresence,
    ToolCallAccuracy,
    ToolCallF1,
)

MEASURES = {m.value: m for m in DistanceMeasure}


def metric(name, options):
    if name == "exact_match":
        return ExactMatch()
    if name == "string_presence":
        return StringPresence()
    if name == "string_similarity":
        return NonLLMStringSimilarity(distance_measure=MEASURES[options.get("distanceMeasure", "levenshtein")])
    if name == "chrf":
        return CHRFScore()
    if name == "bleu":
        return BleuScore()
    if name == "rouge":
        return RougeScore(rouge_type=options["rougeType"], mode=options["mode"])
    if name == "quoted_spans":
        return QuotedSpansAlignment(casefold=options["casefold"], min_span_words=options["minSpanWords"])
    if name == "tool_call_accuracy":
        return ToolCallAccuracy(strict_order=options["strictOrder"])
    if name == "tool_call_f1":
        return ToolCallF1()
    raise ValueError(f"unknown metric {name}")


def message(m):
    if m["type"] == "human":
        return HumanMessage(content=m["content"])
    if m["type"] == "tool":
        return ToolMessage(content=m["content"])
    calls = m.get("tool_calls")
    calls = None if calls is None else [ToolCall(name=c["name"], args=c["args"]) for c in calls]
    return AIMessage(content=m["content"], tool_calls=calls)


def score(m, case):
    if case["metric"] == "quoted_spans":
        return m.score(response=case["response"], retrieved_contexts=case["contexts"])
    if case["metric"].startswith("tool_call"):
        refs = [ToolCall(name=c["name"], args=c["args"]) for c in case["referenceToolCalls"]]
        return m.score(user_input=[message(x) for x in case["messages"]], reference_tool_calls=refs)
    return m.score(reference=case["reference"], response=case["response"])


def main():
    cache = {}
    for line in sys.stdin:
        if not line.strip():
            continue
        case = json.loads(line)
        key = (case["metric"], json.dumps(case.get("options", {}), sort_keys=True))
        if key not in cache:
            cache[key] = metric(case["metric"], case.get("options", {}))
        try:
            value = score(cache[key], case).value
            out = {"score": value}
        except Exception as e:  # a case ragas rejects: reported, not scored
            out = {"error": f"{type(e).__name__}: {e}"}
        sys.stdout.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
