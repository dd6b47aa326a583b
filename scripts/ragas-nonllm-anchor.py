"""Scores JSONL cases with ragas 0.4.3's own no-judge metrics (ragas.metrics.collections).

stdin: one JSON object a line, {"metric", "options", "reference", "response"}; stdout: one
JSON object a line, {"score": float} or {"error": "..."} in the same order. Run with the venv
that scripts/ragas-nonllm-fixture.mjs creates (.bench/venv).
"""
import json
import sys

from ragas.metrics.collections import (
    BleuScore,
    CHRFScore,
    DistanceMeasure,
    ExactMatch,
    RougeScore,
    NonLLMStringSimilarity,
    StringPresence,
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
    raise ValueError(f"unknown metric {name}")


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
            value = cache[key].score(reference=case["reference"], response=case["response"]).value
            out = {"score": value}
        except Exception as e:  # a case ragas rejects: reported, not scored
            out = {"error": f"{type(e).__name__}: {e}"}
        sys.stdout.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
