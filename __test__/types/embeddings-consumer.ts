// Type-checked with consumer.ts (tsc --strict): the embeddings road as a user writes it.
import { createSemanticSimilarityScorer, type EmbedderOption, type EmbeddingModelLike, type RagasSemanticSimilarityResult } from 'oxeval'
import { createSemanticSimilarityScorer as fromRagas } from 'oxeval/ragas'
import { startJudgeServer, type RecordedRequest } from 'oxeval/testing'

export async function embeddings(): Promise<void> {
  const judge = await startJudgeServer({ embeddingDimensions: 8 })
  judge.scriptEmbedding('north', [1, 0]).onEmbeddings(/outage/, { status: 503, content: 'busy' }, { times: 1 })
  const model: EmbeddingModelLike = {
    specificationVersion: 'v2',
    provider: 'p',
    modelId: 'm',
    doEmbed: async ({ values }: { values: string[] }) => ({ embeddings: values.map(() => [1]) }),
  }
  const forms: EmbedderOption[] = [
    'openai/text-embedding-3-small',
    { id: 'openai/bge', url: judge.url, apiKey: 'x' },
    model,
    (texts) => texts.map(() => [1, 2]),
    async (texts, { signal }) => (signal.aborted ? [] : texts.map(() => [1])),
  ]
  const s = createSemanticSimilarityScorer({ embedder: forms[1], threshold: 0.8, modelSettings: { timeoutMs: 1000 }, cache: { mode: 'auto' } })
  const r: RagasSemanticSimilarityResult = await s.run({ output: 'a', groundTruth: 'b' })
  const dims: number = r.analyzeStepResult.dimensions
  const sim: number = r.analyzeStepResult.similarity
  const same = fromRagas === createSemanticSimilarityScorer
  const reqs: RecordedRequest[] = judge.embeddingRequests
  const texts: string[] | undefined = reqs[0]?.texts
  void [dims, sim, same, texts]
  await judge.close()
}
