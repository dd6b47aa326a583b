"""Scores JSONL cases with ragas 0.4.3's SemanticSimilarity (ragas.metrics.collections) over
OpenAI embeddings served at OPENAI_BASE_URL (the scripted judge's /v1/embeddings).

stdin: one JSON object a line, {"reference", "response", "threshold"?}; stdout: one JSON object
a line, {"score": float} or {"error": "..."} in the same order. Run with the venv that
scripts/ragas-semantic-fixture.mjs uses (.bench/venv).
"""
import json
import os
import sys

from openai import OpenAI
from ragas.embeddings import OpenAIEmbeddings
from ragas.metrics.collections import SemanticSimilarity


def main():
    client = OpenAI(base_url=os.environ["OPENAI_BASE_URL"], api_key="test-key", max_retries=0)
    embeddings = OpenAIEmbeddings(client=client, model="text-embedding-3-small")
    metrics = {}
    for line in sys.stdin:
        if not line.strip():
            continue
        case = json.loads(line)
        threshold = case.get("threshold")
        if threshold not in metrics:
            metrics[threshold] = SemanticSimilarity(embeddings=embeddings, threshold=threshold)
        try:
            value = metrics[threshold].score(reference=case["reference"], response=case["response"]).value
            out = {"score": value}
        except Exception as e:  # noqa: BLE001 - the error is the anchor's answer
            out = {"error": f"{type(e).__name__}: {e}"}
        sys.stdout.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
