// lib/abort.js: one listener per AbortSignal and a Set of callbacks (runEvals' signal is
// waited on by every run in flight; thousands of addEventListener calls on one signal were
// quadratic). The contract: each callback fires once, in subscription order; an unsubscribed
// one never fires; a throwing one does not stop the others; a signal keeps ONE listener.
import { describe, expect, it } from 'vitest'
import { createRequire } from 'node:module'
import { getEventListeners } from 'node:events'

const require = createRequire(import.meta.url)
const { onAbort } = require('../lib/abort.js')

describe('onAbort', () => {
  it('calls each subscriber once, in order, and only those still subscribed', () => {
    const ctl = new AbortController()
    const seen: number[] = []
    const offs = Array.from({ length: 5000 }, (_, i) => onAbort(ctl.signal, () => seen.push(i)))
    for (let i = 0; i < 5000; i += 2) offs[i]()
    expect(getEventListeners(ctl.signal, 'abort')).toHaveLength(1)
    ctl.abort()
    ctl.abort()
    expect(seen).toEqual(Array.from({ length: 2500 }, (_, i) => 2 * i + 1))
  })

  it('a subscriber that throws does not stop the others; its error is reported as uncaught', async () => {
    const ctl = new AbortController()
    const seen: string[] = []
    const uncaught: unknown[] = []
    const listeners = process.listeners('uncaughtException')
    process.removeAllListeners('uncaughtException')
    const catcher = (e: unknown) => uncaught.push(e)
    process.on('uncaughtException', catcher)
    try {
      onAbort(ctl.signal, () => seen.push('a'))
      onAbort(ctl.signal, () => {
        throw new Error('boom')
      })
      onAbort(ctl.signal, () => seen.push('c'))
      ctl.abort()
      await new Promise((r) => setTimeout(r, 10))
    } finally {
      process.off('uncaughtException', catcher)
      for (const l of listeners) process.on('uncaughtException', l)
    }
    expect(seen).toEqual(['a', 'c'])
    expect(uncaught.map((e) => (e as Error).message)).toEqual(['boom'])
  })

  it('two signals keep their own subscribers', () => {
    const a = new AbortController()
    const b = new AbortController()
    const seen: string[] = []
    onAbort(a.signal, () => seen.push('a'))
    onAbort(b.signal, () => seen.push('b'))
    b.abort()
    expect(seen).toEqual(['b'])
    a.abort()
    expect(seen).toEqual(['b', 'a'])
  })
})
