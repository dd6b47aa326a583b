// Issue 23's decision rules through the real addon over HTTP: the rules and worked examples the
// prompts now carry (new present, old gone), faithfulness verdicts aligned by the claim each
// repeats, ContextRelevance's no-judge shortcut on trimmed text, and a 3-and-4 rating pair.
// The rule-by-rule tables: docs/decision-tables/*.md ("Boundaries fixed in issue 23").
import { describe, expect, it } from 'vitest'
import { data, failure, oxeval, schemaName, scorerBuilder, useJudgeServer, type Any, type RecordedRequest } from './helpers/setup'
import { script } from './helpers/mastra-rag'
import { MODEL_ID, rating } from './helpers/ragas'

const {
  createFaithfulnessScorer,
  createContextRecallScorer,
  createContextRelevanceScorer,
  createAnswerAccuracyScorer,
  createAnswerSimilarityScorer,
  createSummarizationScorer,
  createContextRelevanceScorerLLM,
  ScorerRunError,
} = oxeval as Any

const server = useJudgeServer()
const faithfulness = scorerBuilder(server, createFaithfulnessScorer, { tag: 'rules-faith' })
const aa = scorerBuilder(server, createAnswerAccuracyScorer, { modelId: MODEL_ID })
const cr = scorerBuilder(server, createContextRelevanceScorer, { modelId: MODEL_ID })

const CLAIMS = ['Paris is in France.', 'Paris has 9 million people.', 'Paris is on the Seine.']
const OUTPUT = 'Paris is in France. It has 9 million people. It is on the Seine.'
const routes = (verdicts: Any[]) => ({
  preprocess: { schema: 'faithfulness_claims', reply: { json: { claims: CLAIMS } } },
  analyze: { schema: 'faithfulness_verdicts', reply: { json: { verdicts } } },
  generateReason: { phrase: 'explain a faithfulness score', reply: { content: 'The score is 0.67 because.' } },
})

describe('faithfulness: the judge repeats each claim and oxeval aligns by it', () => {
  it('asks for the claim in each verdict and drops "I think" framing (Mastra’s example)', async () => {
    script(server, routes(CLAIMS.map((claim) => ({ claim, verdict: 'yes', reason: 'r' }))))
    const r: Any = await faithfulness().run({ output: OUTPUT, context: ['Paris is in France.'] })
    expect(r.analyzePrompt).toContain('Copy the claim word for word into each verdict')
    expect(r.analyzePrompt).toContain('{"claim":"The Danube flows through ten countries.","verdict":"yes"')
    expect(r.preprocessPrompt).toContain('"The Danube flows into the Black Sea."')
    expect(r.preprocessPrompt).not.toContain('"I think") with their hedge')
    // the verdicts keep the claim the judge sent
    expect(r.analyzeStepResult.verdicts.map((v: Any) => v.claim)).toEqual(CLAIMS)
  })

  it('verdicts sent out of order land on their own claims', async () => {
    script(server, routes([
      { claim: 'Paris is on the Seine', verdict: 'yes', reason: 'seine' },
      { claim: 'PARIS IS IN FRANCE.', verdict: 'yes', reason: 'france' },
      { claim: 'Paris has 9 million people.', verdict: 'no', reason: '2.1 million' },
    ]))
    const r: Any = await faithfulness().run({ output: OUTPUT, context: ['Paris is in France, on the Seine.'] })
    expect(r.analyzeStepResult.verdicts.map((v: Any) => [v.verdict, v.reason])).toEqual([
      ['yes', 'france'],
      ['no', '2.1 million'],
      ['yes', 'seine'],
    ])
    expect(r.score).toBe(0.67)
  })

  it('a verdict list that skips a claim fails analyze naming that claim (no shifted verdicts)', async () => {
    script(server, routes([
      { claim: 'Paris is in France.', verdict: 'yes', reason: 'france' },
      { claim: 'Paris is on the Seine.', verdict: 'no', reason: 'seine' },
    ]))
    const e: Any = await failure(faithfulness().run({ output: OUTPUT, context: ['Paris is in France.'] }))
    expect(e).toBeInstanceOf(ScorerRunError)
    expect(e.code).toBe('OXEVAL_JUDGE_OUTPUT')
    expect(e.message).toContain('step \'analyze\' failed')
    expect(e.message).toContain('no verdict for claim 2 ("Paris has 9 million people.")')
  })
})

describe('ContextRelevance: the no-judge shortcut trims, as Ragas does', () => {
  it('["Paris", ""] with a question containing "Paris" scores 0 without a call', async () => {
    const r: Any = await cr().run({ input: 'What is there to see in Paris?', output: 'x', context: ['Paris', ''] })
    expect(r.score).toBe(0)
    expect(server.requests).toHaveLength(0)
  })
})

describe('an out-of-scale rating (3 on 0/2/4)', () => {
  const isAa1 = (req: RecordedRequest) => schemaName(req) === 'nv_rating_0_2_4' && 'candidate_answer' in data(req)
  const isAa2 = (req: RecordedRequest) => schemaName(req) === 'nv_rating_0_2_4' && 'proposed_answer' in data(req)

  it('is re-asked naming the allowed values, then its judge is dropped: 3 and 4 score 1.0', async () => {
    server.on(isAa1, rating(3))
    server.on(isAa2, rating(4))
    const r: Any = await aa({ maxRetries: 2 }).run({ input: 'Capital of France?', output: 'Paris.', groundTruth: 'Paris is the capital of France.' })
    expect(r.score).toBe(1)
    const [j1, j2] = r.analyzeStepResult.judges
    expect([j1.valid, j1.rating, j1.attempts]).toEqual([false, null, 2])
    expect([j2.valid, j2.rating]).toEqual([true, 4])
    const judge1Requests = server.requests.filter(isAa1)
    expect(judge1Requests).toHaveLength(4)
    expect(judge1Requests.some((q: Any) => JSON.stringify(q.body).includes('0, 2 or 4'))).toBe(true)
  })

  it('a valid 2 with the 4 averages as usual (the dropped judge is the only change)', async () => {
    server.on(isAa1, rating(2))
    server.on(isAa2, rating(4))
    const r: Any = await aa().run({ input: 'Capital of Italy?', output: 'Rome.', groundTruth: 'Rome is the capital of Italy.' })
    expect(r.score).toBe(0.75)
  })
})

describe('Mastra prompts carry the anchor’s side of each boundary', () => {
  it('context recall splits an event from its date', async () => {
    script(server, {
      preprocess: { schema: 'context_recall_claims', reply: { json: { claims: ['a'] } } },
      analyze: { schema: 'context_recall_verdicts', reply: { json: { verdicts: [{ verdict: 'yes', reason: 'r' }] } } },
      generateReason: { phrase: 'explain a context recall score', reply: { content: 'The score is 1.' } },
    })
    const s = scorerBuilder(server, createContextRecallScorer, { tag: 'rules-recall' })()
    const r: Any = await s.run({ output: 'x', groundTruth: 'a', context: ['a'] })
    // issue 37: the dated claim keeps the event, not its other details (Mastra's example)
    expect(r.preprocessPrompt).toContain('"Marie Curie won the Nobel Prize in Physics.","Marie Curie won the Nobel Prize in 1903."')
  })

  it('answer similarity keeps a compound concept as one unit', async () => {
    server.on((q: RecordedRequest) => schemaName(q) === 'answer_similarity_units', { json: { outputUnits: [], groundTruthUnits: [] } })
    server.on(() => true, { content: 'The score is 0.' })
    const s = scorerBuilder(server, createAnswerSimilarityScorer, { tag: 'rules-sim' })()
    const r: Any = await s.run({ output: 'o', groundTruth: 'g' }).catch((e: Any) => e.result ?? e)
    expect(r.preprocessPrompt).toContain('"groundTruthUnits":["Mars has two small moons, Phobos and Deimos","Mars is red because of iron oxide"]')
  })

  it('summarization matches founded/based and general wording of the same work', async () => {
    server.on(() => true, { json: { alignment: [], questions: [] } })
    const s = scorerBuilder(server, createSummarizationScorer, { tag: 'rules-sum' })()
    const r: Any = await s.run({ input: 'source text', output: 'summary' }).catch((e: Any) => e.result ?? e)
    expect(r.preprocessPrompt).toContain('"set up in Lyon" matches "based in Lyon"')
    // issue 37: an event stays one claim with its place and date (Mastra's "founded in Boston in 2015")
    expect(r.preprocessPrompt).toContain('an event stays one claim with its place and date')
  })

  it('answer similarity counts every wrong fact of the output as a contradiction (issue 37)', async () => {
    server.on((q: RecordedRequest) => schemaName(q) === 'answer_similarity_units', { json: { outputUnits: ['France is in South America'], groundTruthUnits: ['Paris is the capital of France'] } })
    const wrong = { outputUnit: 'France is in South America', groundTruthUnit: '', explanation: 'France is in Europe.' }
    server.on((q: RecordedRequest) => schemaName(q) === 'answer_similarity_analysis', { json: { matches: [{ groundTruthUnit: 'Paris is the capital of France', outputUnit: null, matchType: 'missing', explanation: 'x' }], extraInOutput: [], contradictions: [wrong] } })
    server.on(() => true, { content: 'The score is 0.' })
    const s = scorerBuilder(server, createAnswerSimilarityScorer, { tag: 'rules-sim37' })()
    const r: Any = await s.run({ output: 'France is in South America.', groundTruth: 'Paris is the capital of France.' })
    expect(r.analyzePrompt).toContain('goes in contradictions, even when no ground-truth unit covers it (groundTruthUnit "")')
    expect(r.analyzeStepResult.contradictions).toEqual([wrong])
    expect(r.score).toBe(0)
  })

  it('context relevance (LLM) shows an empty missingContext and a false on-topic piece rated low', async () => {
    server.on(() => true, { json: { evaluations: [{ context_index: 0, contextPiece: 'c', relevanceLevel: 'high', wasUsed: true, reasoning: 'r' }], missingContext: [], overallAssessment: 'ok' } })
    const s = scorerBuilder(server, createContextRelevanceScorerLLM, { tag: 'rules-crl' })({ context: ['c'] })
    const r: Any = await s.run({ input: 'q', output: 'o' }).catch((e: Any) => e.result ?? e)
    expect(r.analyzePrompt).toContain('"missingContext":[]')
    expect(r.analyzePrompt).not.toContain('What produces the red pigments')
    expect(r.analyzePrompt).toContain('false or untrustworthy')
  })
})

describe('the calibration set (offline part of `npm run calibrate`)', () => {
  it('loads, routes every case to an existing scorer and step, at least 10 per scorer', async () => {
    const { checkCases, loadCases, MIN_PER_SCORER } = await import('../calibrate/cases.mjs')
    const cases = loadCases()
    expect(checkCases(cases, oxeval)).toEqual([])
    const per = new Map<string, number>()
    for (const c of cases) per.set(c.scorer, (per.get(c.scorer) ?? 0) + 1)
    // every scorer whose prompt issue 23 or issue 37 changed has its boundary cases
    expect([...per.keys()].sort()).toEqual(
      [
        'createAnswerAccuracyScorer',
        'createAnswerRelevancyScorer',
        'createAnswerSimilarityScorer',
        'createBiasScorer',
        'createContextRecallScorer',
        'createContextRelevanceScorer',
        'createContextRelevanceScorerLLM',
        'createFactualCorrectnessScorer',
        'createFaithfulnessScorer',
        'createNoiseSensitivityScorerLLM',
        'createPromptAlignmentScorerLLM',
        'createResponseGroundednessScorer',
        'createRubricScorer',
        'createSummarizationScorer',
        'createToolCallAccuracyScorerLLM',
        'createToxicityScorer',
      ].sort(),
    )
    for (const n of per.values()) expect(n).toBeGreaterThanOrEqual(MIN_PER_SCORER)
    // both sides of the rules are represented per scorer
    for (const s of per.keys()) {
      const labels = new Set(cases.filter((c: Any) => c.scorer === s).map((c: Any) => c.expected))
      expect([s, [...labels].sort()]).toEqual([s, ['fail', 'pass']])
    }
  })

  it('every case runs through its oxeval scorer end to end (the offline heuristic judge on 127.0.0.1)', async () => {
    const { loadCases } = await import('../calibrate/cases.mjs')
    const { startJudgeServer, heuristicJudge } = await import('../testing/judge-server.mjs')
    const judge = await startJudgeServer({ handler: heuristicJudge })
    try {
      const model = { id: 'openai/calibrate-offline', url: judge.url, apiKey: 'offline' }
      const failed: string[] = []
      for (const c of loadCases()) {
        try {
          const r: Any = await (oxeval as Any)[c.scorer]({ ...(c.options ?? {}), model, modelSettings: { retryDelayMs: 1 } }).run({ ...c.run })
          if (typeof r.score !== 'number') failed.push(`${c.id}: no score`)
        } catch (e: Any) {
          failed.push(`${c.id}: ${e.code}: ${e.message}`)
        }
      }
      expect(failed).toEqual([])
    } finally {
      await judge.close()
    }
  }, 60_000)

  it('reports a broken case: unknown scorer, unknown step, bad label, too few cases', async () => {
    const { checkCases } = await import('../calibrate/cases.mjs')
    const base = { file: 'x.jsonl', rule: 'r', side: 's', anchor: 'mastra', cut: 0.5, run: { output: 'o' } }
    const problems = checkCases(
      [
        { ...base, line: 1, id: 'a', scorer: 'createNoSuchScorer', step: 'analyze', expected: 'pass' },
        { ...base, line: 2, id: 'b', scorer: 'createFaithfulnessScorer', step: 'judge', expected: 'pass', options: { context: ['c'] } },
        { ...base, line: 3, id: 'b', scorer: 'createFaithfulnessScorer', step: 'analyze', expected: 'yes', options: { context: ['c'] } },
        { ...base, line: 4, id: 'd', scorer: 'createFaithfulnessScorer', step: 'analyze', expected: 'fail', run: { answer: 'o' }, options: { context: ['c'] } },
      ],
      oxeval,
    )
    expect(problems).toEqual([
      'x.jsonl:1 (a): scorer createNoSuchScorer is not an oxeval factory',
      'x.jsonl:2 (b): step judge is not a step of createFaithfulnessScorer (preprocess, analyze, generateScore, generateReason)',
      'x.jsonl:3 (b): id appears twice',
      "x.jsonl:3 (b): expected must be 'pass' or 'fail'",
      'x.jsonl:4 (d): run.answer is not a run field (input, output, groundTruth, context)',
      'createFaithfulnessScorer: 3 cases, at least 10 needed',
    ])
  })

  it('without a key the run says so and exits 0 (never a live call in npm test)', async () => {
    const { spawnSync } = await import('node:child_process')
    const env = { ...process.env, OPENAI_API_KEY: '' }
    const p = spawnSync(process.execPath, ['calibrate/run.mjs'], { env, encoding: 'utf8' })
    expect(p.status).toBe(0)
    expect(p.stdout).toMatch(/^calibrate: skipped: no OPENAI_API_KEY in the environment/)
    const { loadCases } = await import('../calibrate/cases.mjs')
    expect(p.stdout).toContain(`${loadCases().length} cases loaded and routed.`)
  })
})
