"""The ragas 0.4.3 anchor of `npm run calibrate`: reads calibration cases (JSON lines) on stdin,
scores each with ragas's own metric (ragas.metrics.collections) on the model given as argv[1],
and writes {"id", "score"} or {"id", "error"} per case on stdout. Needs OPENAI_API_KEY and
`pip install ragas==0.4.3 langchain-community==0.4.1`.
"""

import asyncio
import json
import math
import sys

CASE_TIMEOUT_S = 180


async def main(model: str) -> None:
    from openai import AsyncOpenAI
    from ragas.llms import llm_factory
    from ragas.metrics.collections import (
        AnswerAccuracy,
        ContextRelevance,
        FactualCorrectness,
        ResponseGroundedness,
    )

    llm = llm_factory(model, client=AsyncOpenAI())

    async def score(case: dict) -> float:
        run, opts, f = case["run"], case.get("options") or {}, case["scorer"]
        if f == "createFactualCorrectnessScorer":
            m = FactualCorrectness(
                llm=llm,
                mode=opts.get("mode", "f1"),
                atomicity=opts.get("atomicity", "low"),
                coverage=opts.get("coverage", "low"),
            )
            r = await m.ascore(response=run["output"], reference=run["groundTruth"])
        elif f == "createAnswerAccuracyScorer":
            r = await AnswerAccuracy(llm=llm).ascore(
                user_input=run["input"], response=run["output"], reference=run["groundTruth"]
            )
        elif f == "createContextRelevanceScorer":
            r = await ContextRelevance(llm=llm).ascore(
                user_input=run["input"], retrieved_contexts=run["context"]
            )
        elif f == "createResponseGroundednessScorer":
            r = await ResponseGroundedness(llm=llm).ascore(
                response=run["output"], retrieved_contexts=run["context"]
            )
        else:
            raise ValueError(f"no ragas metric for {f}")
        return r.value

    for line in sys.stdin:
        if not line.strip():
            continue
        case = json.loads(line)
        try:
            # a case that does not finish in time is reported, the run goes on
            value = await asyncio.wait_for(score(case), timeout=CASE_TIMEOUT_S)
            ok = isinstance(value, (int, float)) and math.isfinite(value)
            out = {"id": case["id"], "score": value} if ok else {"id": case["id"], "error": f"ragas gave {value!r}"}
        except Exception as e:  # the case's failure is reported, the run goes on
            out = {"id": case["id"], "error": f"{type(e).__name__}: {e}"[:300]}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else "gpt-4o-mini-2024-07-18"))
