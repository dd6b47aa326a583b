"""One ragas 0.4.3 benchmark worker (one scorer) in its own process, the Python twin of
bench/worker.mjs:

    python bench/ragas/worker.py <factual-correctness|answer-accuracy> <judgeUrl> <runs>

Scores `runs` samples of examples/dataset.json sequentially (input -> user_input, output ->
response, groundTruth -> reference) with ragas.metrics.collections, through an AsyncOpenAI
client pointed at the bench judge. Imports, setup and one warm-up scoring are not measured.
Prints one JSON line: { lib, scorer, runs, concurrency, ok, failed, firstError, wallMs,
cpuMsPerRun, peakRssMb, scores }.
"""

import asyncio
import json
import math
import os
import resource
import sys
import time


async def main() -> None:
    scorer_name, url, runs_arg = sys.argv[1:4]
    runs = int(runs_arg)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(os.path.join(root, "examples", "dataset.json"), encoding="utf8") as f:
        dataset = json.load(f)

    # ragas's usage telemetry does a blocking requests.post (1 s timeout) to its analytics server
    # on every LLM call, on the event loop thread: off, so the bench measures scoring, not that
    # (and never phones home)
    os.environ["RAGAS_DO_NOT_TRACK"] = "true"

    from openai import AsyncOpenAI
    from ragas.llms import llm_factory
    from ragas.metrics.collections import AnswerAccuracy, FactualCorrectness

    # The same model id the Node worker sends; the judge ignores it.
    client = AsyncOpenAI(base_url=url, api_key="bench-key")
    llm = llm_factory("gpt-4o-mini", provider="openai", client=client)

    if scorer_name == "factual-correctness":
        metric = FactualCorrectness(llm=llm, mode="f1")

        def score(item):
            return metric.ascore(response=item["output"], reference=item["groundTruth"])

    elif scorer_name == "answer-accuracy":
        metric = AnswerAccuracy(llm=llm)

        def score(item):
            return metric.ascore(
                user_input=item["input"], response=item["output"], reference=item["groundTruth"]
            )

    else:
        raise SystemExit(f"unknown ragas scorer {scorer_name}")

    # warm up: one scoring (lazy imports, connection, pydantic schema caches) not counted
    await score(dataset[0])

    ok = 0
    failed = 0
    first_error = None
    scores = set()
    cpu0 = time.process_time()
    t0 = time.perf_counter()
    for i in range(runs):
        item = dataset[i % len(dataset)]
        try:
            value = (await score(item)).value
            if isinstance(value, (int, float)) and math.isfinite(value):
                ok += 1
                scores.add(value)
            else:
                failed += 1
                first_error = first_error or f"non-finite score {value!r}"
        except Exception as e:  # noqa: BLE001 - counted, like the Node worker
            failed += 1
            first_error = first_error or f"{type(e).__name__}: {e}"[:300]
    wall_ms = (time.perf_counter() - t0) * 1000
    cpu_s = time.process_time() - cpu0
    await client.close()

    print(
        json.dumps(
            {
                "lib": "ragas",
                "scorer": scorer_name,
                "runs": runs,
                "concurrency": 1,
                "ok": ok,
                "failed": failed,
                "firstError": first_error,
                "wallMs": round(wall_ms),
                "cpuMsPerRun": cpu_s * 1000 / runs,
                # Linux: ru_maxrss is in KiB
                "peakRssMb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                "scores": sorted(scores),
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    asyncio.run(main())
