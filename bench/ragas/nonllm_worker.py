"""ragas 0.4.3's side of bench/ragas-nonllm.mjs (no judge): scores the parity cases of one
metric configuration (JSONL on stdin, the shapes of scripts/ragas-nonllm-anchor.py) and
prints one JSON line with the CPU it spent:

    python bench/ragas/nonllm_worker.py < cases.jsonl

- importCpuMs: importing ragas.metrics.collections (and ragas.messages), once per process;
- userCpuMsPerRun: `metric.score(...)` per sample, as a script calls it (each call runs its
  own asyncio event loop), measured after one warm-up call;
- coreCpuMsPerRun: `await metric.ascore(...)` per sample inside ONE event loop (ragas's
  computation without the per-call loop cost).
"""

import asyncio
import json
import os
import sys
import time
import warnings

warnings.simplefilter("ignore")
os.environ["RAGAS_DO_NOT_TRACK"] = "true"
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))

cpu0 = time.process_time()
import importlib  # noqa: E402

anchor = importlib.import_module("ragas-nonllm-anchor")  # imports ragas.metrics.collections
import_cpu_ms = (time.process_time() - cpu0) * 1000


def kwargs(case):
    if case["metric"] == "quoted_spans":
        return {"response": case["response"], "retrieved_contexts": case["contexts"]}
    if case["metric"].startswith("tool_call"):
        refs = [anchor.ToolCall(name=c["name"], args=c["args"]) for c in case["referenceToolCalls"]]
        return {"user_input": [anchor.message(x) for x in case["messages"]], "reference_tool_calls": refs}
    return {"reference": case["reference"], "response": case["response"]}


def main():
    cases = [json.loads(l) for l in sys.stdin if l.strip()]
    metric = anchor.metric(cases[0]["metric"], cases[0].get("options", {}))
    samples = [kwargs(c) for c in cases]  # the samples built outside the measurement
    metric.score(**samples[0])  # warm-up
    total = 0.0
    c0 = time.process_time()
    for s in samples:
        total += metric.score(**s).value
    user_cpu = time.process_time() - c0

    async def core():
        t = 0.0
        for s in samples:
            t += (await metric.ascore(**s)).value
        return t

    async def timed():
        await metric.ascore(**samples[0])
        c = time.process_time()
        t = await core()
        return time.process_time() - c, t

    core_cpu, core_total = asyncio.run(timed())
    n = len(samples)
    print(json.dumps({
        "runs": n,
        "importCpuMs": import_cpu_ms,
        "userCpuMsPerRun": user_cpu * 1000 / n,
        "coreCpuMsPerRun": core_cpu * 1000 / n,
        "scoreSum": total,
        "coreScoreSum": core_total,
    }))


if __name__ == "__main__":
    main()
