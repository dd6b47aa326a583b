'use strict'
// Shared implementation of `oxeval/mastra` (index.js: CommonJS, index.mjs: ESM).
// The same factories as `oxeval`, returning real Mastra scorers
// (`instanceof MastraScorer` from @mastra/core/evals, an optional peer dependency).
//
// How: each scorer is a subclass of Mastra's own MastraScorer, built with one FUNCTION step
// per oxeval step (preprocess / analyze / generateScore / generateReason). Mastra's run()
// is kept whole — prepareRun, runId, the scorer_run and scorer_step spans, scoreTraceId,
// registration (__registerMastra) and observability scores — and the first step runs
// oxeval's Rust pipeline once; every step then returns its piece of oxeval's result. The
// prompts, `judge` records and warnings (which Mastra only collects from its own prompt
// steps) are carried beside the workflow in an AsyncLocalStorage slot and merged into the
// result by the run() override. A failed oxeval run becomes Mastra's ScorerRunError (a
// MastraError) with oxeval's failedStep, completedSteps, partial result, code and cause.

const { AsyncLocalStorage } = require('node:async_hooks')
const oxeval = require('../index.js')
const { prepared } = require('../lib/custom.js')
const SCORERS = require('../generated/scorers.js')

/** The keys of a run that every oxeval scorer may read. */
const BASE_RUN_KEYS = ['runId', 'input', 'output', 'groundTruth', 'context']
/**
 * The keys of a Mastra run that oxeval reads (the rest of Mastra's run is echoed by Mastra
 * itself): the base keys, every registry scorer's run fields, then `requestContext`.
 */
const RUN_KEYS = [...new Set([...BASE_RUN_KEYS, ...SCORERS.flatMap((spec) => spec.runFields), 'requestContext'])]

/** The oxeval run of a Mastra run: its RUN_KEYS that are set. */
function oxevalRun(run) {
  const ox = {}
  for (const k of RUN_KEYS) if (run[k] !== undefined) ox[k] = run[k]
  return ox
}

/**
 * Builds the `oxeval/mastra` exports over the given @mastra/core modules: the CommonJS entry
 * passes `require`'d ones, the ESM entry `import`ed ones, so `instanceof MastraScorer` holds
 * against the @mastra/core module format the application itself loads.
 */
function build({ MastraScorer, ScorerRunError: MastraScorerRunError, MastraError }) {
  /** Mastra's step order; only these names exist in a Mastra scorer. */
  const STEP_ORDER = ['preprocess', 'analyze', 'generateScore', 'generateReason']
  /** The piece of oxeval's result each step returns. */
  const STEP_RESULT = {
    preprocess: (r) => r.preprocessStepResult,
    analyze: (r) => r.analyzeStepResult,
    generateScore: (r) => r.score,
    generateReason: (r) => r.reason,
  }
  /** Options read by the Mastra side only, never passed to oxeval's factory. */
  const MASTRA_ONLY = ['prepareRun']

  /** One run's state: run options in, oxeval's result or error out. */
  const slots = new AsyncLocalStorage()
  /** Fallback when a step runs outside our run() (e.g. a scorer extended with Mastra's builder). */
  const orphanSlots = new WeakMap()

  /** Thrown (as a rejection of `run()`) when a step of oxeval's pipeline fails: Mastra's own ScorerRunError. */
  class OxevalScorerRunError extends MastraScorerRunError {
    constructor(err, scorer) {
      super({
        scorerId: scorer.id,
        steps: scorer.getSteps().map((s) => s.name),
        failedStep: err.failedStep,
        completedSteps: err.completedSteps,
        ...(err.result ? { result: err.result } : {}),
        cause: err.cause || err,
      })
      this.name = 'ScorerRunError'
      this.message = err.message
      this.code = err.code
      this.details = { ...this.details, code: err.code }
    }
  }

  /** The run's AbortSignal fired: a MastraError with oxeval's AbortError fields. */
  class OxevalAbortError extends MastraError {
    constructor(err, scorer) {
      super(
        {
          id: 'OXEVAL_SCORER_RUN_ABORTED',
          domain: 'SCORER',
          category: 'USER',
          text: err.message,
          details: { scorerId: scorer.id, code: 'OXEVAL_ABORTED', failedStep: err.failedStep ?? null },
        },
        err.cause,
      )
      this.name = 'AbortError'
      this.code = 'OXEVAL_ABORTED'
      this.failedStep = err.failedStep
      this.completedSteps = err.completedSteps
      this.result = err.result
    }
  }

  /** A wrong run argument (oxeval's TypeError, `code` OXEVAL_INVALID_INPUT) as a MastraError. */
  function invalidInput(err, scorer) {
    const e = new MastraError(
      {
        id: 'OXEVAL_INVALID_INPUT',
        domain: 'SCORER',
        category: 'USER',
        text: err.message,
        details: { scorerId: scorer.id, code: err.code ?? 'OXEVAL_INVALID_INPUT' },
      },
      err,
    )
    e.code = err.code ?? 'OXEVAL_INVALID_INPUT'
    return e
  }

  function toMastraError(err, scorer) {
    if (err instanceof oxeval.ScorerRunError) return new OxevalScorerRunError(err, scorer)
    if (err instanceof oxeval.AbortError) return new OxevalAbortError(err, scorer)
    if (err instanceof TypeError && typeof err.code === 'string') return invalidInput(err, scorer)
    return err
  }

  /**
   * A prepareRun under the run's bounds (oxeval's run options: callbackTimeoutMs, deadlineMs,
   * signal), as oxeval's own createScorer runs it; its timeout or abort becomes Mastra's error.
   */
  function boundedPrepare(fn) {
    return async (run) => {
      const slot = slots.getStore()
      const options = slot ? slot.options : undefined
      const signal = options !== null && typeof options === 'object' && options.signal instanceof AbortSignal ? options.signal : undefined
      try {
        return await prepared(fn, run, options, signal)
      } catch (e) {
        if (slot && (e instanceof oxeval.ScorerRunError || e instanceof oxeval.AbortError)) slot.error = e
        throw e
      }
    }
  }

  function stepFunction(name, inner, first) {
    const pick = STEP_RESULT[name]
    const step = async ({ run }) => {
      let slot = slots.getStore()
      if (!slot) {
        slot = orphanSlots.get(run) || {}
        orphanSlots.set(run, slot)
      }
      if (first || (!slot.result && !slot.error)) {
        try {
          slot.result = await inner.run(oxevalRun(run), slot.options)
        } catch (e) {
          slot.error = e
          throw e
        }
      }
      return pick(slot.result)
    }
    Object.defineProperty(step, 'name', { value: name })
    return step
  }

  /** A Mastra scorer whose pipeline is oxeval's. `instanceof MastraScorer` holds. */
  class OxevalMastraScorer extends MastraScorer {
    #inner
    #steps
    constructor(inner, given) {
      // a factory called without options (a code scorer needs none)
      const options = given !== null && typeof given === 'object' ? given : {}
      const config = {
        id: options.id ?? inner.id,
        name: options.name ?? inner.name,
        description: options.description ?? inner.description,
        judge: inner.judge,
        type: inner.type,
        ...(options.prepareRun ? { prepareRun: typeof options.prepareRun === 'function' ? boundedPrepare(options.prepareRun) : options.prepareRun } : {}),
      }
      const own = inner.getSteps()
      // a code scorer (no judge) has no reason step, as in Mastra
      const names = STEP_ORDER.filter((n) => n === 'generateScore' || (n === 'generateReason' && inner.judge !== undefined) || own.some((s) => s.name === n))
      const steps = names.map((name, i) => {
        const definition = stepFunction(name, inner, i === 0)
        const mine = own.find((s) => s.name === name)
        if (mine && mine.description !== undefined) definition.description = mine.description
        return { name, definition, isPromptObject: false }
      })
      super(config, steps)
      this.#inner = inner
      this.#steps = names.map((name) => {
        const mine = own.find((s) => s.name === name)
        return mine ? { ...mine } : { name, type: 'function', description: undefined }
      })
    }

    /** oxeval's step list (an LLM step is `type: 'prompt'`, as in Mastra's prompt-object steps). */
    getSteps() {
      return this.#steps.map((s) => ({ ...s }))
    }

    /** Response cache statistics, or `null` when caching is off. */
    cacheStats() {
      return this.#inner.cacheStats()
    }

    /**
     * Mastra's run (spans, scoreTraceId, observability score) around oxeval's pipeline.
     * `options` as in oxeval: `{ signal, deadlineMs }`.
     */
    async run(input, options) {
      const slot = { options }
      let result
      try {
        result = await slots.run(slot, () => super.run(input))
      } catch (e) {
        if (slot.error) throw toMastraError(slot.error, this)
        throw e
      }
      const r = slot.result
      if (r && result && typeof result === 'object') {
        result.preprocessPrompt = r.preprocessPrompt
        result.analyzePrompt = r.analyzePrompt
        result.generateScorePrompt = r.generateScorePrompt
        result.generateReasonPrompt = r.generateReasonPrompt
        if (r.judge !== undefined) result.judge = r.judge
        if (r.warnings !== undefined) result.warnings = r.warnings
      }
      return result
    }

    [Symbol.for('nodejs.util.inspect.custom')](depth, opts, inspect) {
      const shown = { id: this.id, name: this.name, type: this.type, judgeModel: this.judge ? this.judge.model : undefined }
      return depth < 0 ? '[OxevalMastraScorer]' : `OxevalMastraScorer ${inspect(shown, { ...opts, depth: opts.depth === null ? null : opts.depth - 1 })}`
    }
  }

  function factory(spec) {
    const create = function (options) {
      let innerOptions = options
      if (options !== null && typeof options === 'object' && !Array.isArray(options)) {
        innerOptions = { ...options }
        for (const k of MASTRA_ONLY) delete innerOptions[k]
      }
      const inner = oxeval[spec.factory](innerOptions)
      return new OxevalMastraScorer(inner, options)
    }
    Object.defineProperty(create, 'name', { value: spec.factory })
    return create
  }

  /** A custom scorer (oxeval's createScorer) as a real MastraScorer; chaining keeps it one. */
  function wrapCustom(inner, prepareRun) {
    const s = new OxevalMastraScorer(inner, prepareRun ? { prepareRun } : {})
    for (const m of ['preprocess', 'analyze', 'generateScore', 'generateReason']) {
      Object.defineProperty(s, m, { value: (def) => wrapCustom(inner[m](def), prepareRun), enumerable: false, configurable: true, writable: true })
    }
    return s
  }

  const out = {}
  // a check keeps its positional form (oxeval/checks): not wrapped here
  for (const spec of SCORERS) if (!spec.check) out[spec.factory] = factory(spec)
  /** Mastra's createScorer on oxeval's engine, returning MastraScorers (prepareRun runs in Mastra's run, once). */
  out.createScorer = (config) => {
    const inner = oxeval.createScorer(config !== null && typeof config === 'object' ? { ...config, prepareRun: undefined } : config)
    return wrapCustom(inner, config.prepareRun)
  }
  out.notScorable = oxeval.notScorable
  out.isNotScorable = oxeval.isNotScorable
  out.OxevalMastraScorer = OxevalMastraScorer
  out.ScorerRunError = OxevalScorerRunError
  out.AbortError = OxevalAbortError
  return out
}

/** The error thrown when @mastra/core cannot be loaded. */
function notInstalled(e) {
  const err = new Error(
    "oxeval/mastra needs '@mastra/core' (an optional peer dependency of oxeval): npm install @mastra/core. " +
      `Loading it failed: ${e && e.message ? e.message : e}`,
    { cause: e },
  )
  err.code = 'OXEVAL_MASTRA_NOT_INSTALLED'
  return err
}

module.exports = { build, notInstalled, RUN_KEYS, oxevalRun }
