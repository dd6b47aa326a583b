// A check written on the command line (`--gate 'calledTool(get_weather)'`) and the same check in
// code (`checks.calledTool('get_weather')`) report under the same keys: the library's ids
// (`check-called-tool`), or the `id` option given in either place.
import { afterAll, describe, expect, it } from 'vitest'
import { readOut, runCli, tempDir, jsonl } from './helpers/cli'
import { oxeval, type Any } from './helpers/setup'

const t = tempDir('oxeval-checks-keys-')
afterAll(() => t.remove())
const items = [
  { id: 'a', input: 'Weather in Paris?', output: [{ role: 'assistant', content: 'It is 21°C in Paris.' }] },
  { id: 'b', input: 'Capital of France?', output: 'Paris.' },
]

describe('check keys: the CLI as the library', () => {
  it('the same result, score, coverage and gate keys', async () => {
    const data = t.write('d.jsonl', jsonl(items))
    const out = t.p('o.jsonl')
    const r = await runCli(['run', '--data', data, '--scorer', 'includes("Paris")', '--scorer', 'matches(/\\d+°C/, {id: "has-temperature"})', '--gate', 'calledTool(get_weather)', '--out', out, '--no-progress'])
    expect([0, 1]).toContain(r.code)
    const cli = readOut(out)
    const { checks, runEvals } = oxeval as Any
    const lib = await runEvals({ data: items, scorers: [checks.includes('Paris'), checks.matches(/\d+°C/, { id: 'has-temperature' })], gates: [checks.calledTool('get_weather')] })
    const keys = (o: object) => Object.keys(o).sort()
    expect(keys(cli.items[0].results)).toEqual(keys(lib.items[0].results))
    expect(keys(cli.items[0].results)).toEqual(['check-called-tool', 'check-includes', 'has-temperature'])
    expect(keys(cli.summary.scores)).toEqual(keys(lib.scores))
    expect(keys(cli.summary.coverage)).toEqual(keys(lib.coverage))
    expect(cli.summary.gateResults.map((g: Any) => g.id)).toEqual(lib.gateResults.map((g: Any) => g.id))
    for (const id of keys(lib.scores)) expect(cli.summary.scores[id], id).toBe(lib.scores[id])
  })

  it('two checks of one kind need an id each, as in the library; --threshold takes the id', async () => {
    const data = t.write('d2.jsonl', jsonl(items))
    const twice = await runCli(['run', '--data', data, '--gate', 'calledTool(a)', '--gate', 'calledTool(b)', '--no-progress'])
    expect(twice.code).toBe(2)
    expect(twice.stderr).toBe('oxeval: --gate calledTool(b): another --scorer or --gate has the id "check-called-tool" (results are keyed by id): give this check its own, e.g. calledTool(b, {id: "my-calledTool"})\n')
    const named = await runCli(['run', '--data', data, '--gate', 'calledTool(a)', '--gate', 'calledTool(b, {id: "called-b"})', '--scorer', 'includes("Paris")', '--threshold', 'check-includes=0.5', '--out', t.p('o2.jsonl'), '--no-progress'])
    expect([0, 1]).toContain(named.code)
    const o = readOut(t.p('o2.jsonl'))
    expect(o.summary.gateResults.map((g: Any) => g.id)).toEqual(['check-called-tool', 'called-b'])
    expect(o.summary.thresholdResults).toEqual([expect.objectContaining({ id: 'check-includes', threshold: 0.5 })])
  })
})
