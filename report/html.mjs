// The HTML report of an eval run: ONE self-contained file (inline CSS, inline script, inline
// SVG charts; nothing is fetched when it is viewed, and its Content-Security-Policy forbids
// it). Judged inputs/outputs and judge text are untrusted: the server-side parts are HTML-
// escaped, the items travel as one JSON blob in <script type="application/json"> (with `<`
// escaped, so no `</script>` can end it) and the page's script renders them with textContent
// only; the CSP lets only that script (by hash) run. The item table is paginated, so a run of
// 10 000 items stays usable. Each prompt is embedded once, and split (PromptTable): the
// instructions before its last `DATA:` line are the same for every item of a step, so they are
// stored once in the blob's `templates` and an item keeps `{ t: <template>, s: <its DATA part> }`.
import { createHash } from 'node:crypto'
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeChunks } from './write.mjs'
import { agreementText, categoryOf, itemError, itemScore, meanOf, meetsThreshold, outcomeOf, thresholdText, usageCost } from './items.mjs'

/** HTML text (element content or a quoted attribute value). */
export function escapeHtml(value) {
  return String(value).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c])
}

/** JSON safe inside a <script> element: no `<`, `>`, `&` or line separators in clear. */
export function scriptJson(value) {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')
}

const MAX_TEXT = 20000

function capText(s) {
  return typeof s === 'string' && s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT)}… [${s.length - MAX_TEXT} more characters not shown]` : s
}

/** `s` as a string of its own (a slice would keep the whole string it was cut from alive). */
function flat(s) {
  return JSON.parse(JSON.stringify(s))
}

const MAX_TEMPLATES = 1000

/**
 * The prompts of a report, stored compactly: the part before the last `\nDATA: ` line (a step's
 * instructions and examples, the same for every item) once per distinct text, each item's own
 * tail apart. `intern(prompt)` gives `{ t, s }` (template index and tail, the tail cut at 20 000
 * characters) or, for a prompt without a shared part, the prompt itself (cut likewise).
 */
export class PromptTable {
  constructor() {
    this.index = new Map()
    this.templates = []
  }
  intern(prompt) {
    if (typeof prompt !== 'string') return prompt
    const k = prompt.lastIndexOf('\nDATA: ')
    if (k < 64) return capText(prompt)
    const head = prompt.slice(0, k)
    let t = this.index.get(head)
    if (t === undefined) {
      if (this.templates.length >= MAX_TEMPLATES) return capText(prompt)
      t = this.templates.length
      const own = flat(head)
      this.templates.push(own)
      this.index.set(own, t)
    }
    return { t, s: flat(capText(prompt.slice(k))) }
  }
}

/**
 * What the report keeps of an EvalItemResult: the item, per scorer its score, reason, step
 * results (`*StepResult`), prompts (`*Prompt`) and warnings, the errors and trials. The judge
 * record (raw executions) is left out; long strings are cut at 20 000 characters. With a
 * `prompts` PromptTable, prompts are kept as its `{ t, s }` references (far less memory).
 */
function slimResults(given, prompts) {
  const results = {}
  for (const [id, r] of Object.entries(given || {})) {
    if (!r || typeof r !== 'object') continue
    const keep = { score: r.score }
    if (r.notScorable) keep.notScorable = r.notScorable
    const cost = judgeCost(r.judge)
    if (cost) keep.cost = cost
    for (const [k, v] of Object.entries(r)) {
      if (k === 'reason' || k === 'warnings' || k.endsWith('StepResult')) keep[k] = v
      else if (k.endsWith('Prompt') && typeof v === 'string') keep[k] = prompts instanceof PromptTable ? prompts.intern(v) : capText(v)
    }
    results[id] = keep
  }
  return results
}

const capValue = (v) => (typeof v === 'string' ? capText(v) : v)

/** A `turns` item's turns as the page shows them: input, output, each assertion's result and error, the trajectory. */
function slimTurns(turns, prompts) {
  return turns.map((t) => {
    const out = { index: t.index, input: capValue(t.input), output: capValue(t.output), gates: (t.gates || []).map((g) => g.id), scorers: (t.scorers || []).map((x) => (x.threshold !== undefined ? { id: x.id, threshold: x.threshold } : { id: x.id })), results: slimResults(t.results, prompts) }
    if (t.errors && Object.keys(t.errors).length) out.errors = t.errors
    if (t.trials) out.trials = t.trials
    if (t.trajectory) out.trajectory = t.trajectory
    return out
  })
}

export function slimItem(item, prompts) {
  const results = slimResults(item.results, prompts)
  const out = { index: item.index }
  if (item.id !== undefined) out.id = item.id
  out.input = typeof item.input === 'string' ? capText(item.input) : item.input
  out.output = typeof item.output === 'string' ? capText(item.output) : item.output
  if (item.groundTruth !== undefined) out.groundTruth = item.groundTruth
  if (Array.isArray(item.context)) out.context = item.context.map((c) => (typeof c === 'string' ? capText(c) : c))
  if (item.targetError) out.targetError = item.targetError
  out.results = results
  if (item.errors && Object.keys(item.errors).length) out.errors = item.errors
  if (item.trials) out.trials = item.trials
  if (Array.isArray(item.inputs)) out.inputs = item.inputs.map(capValue)
  if (Array.isArray(item.trajectory)) out.trajectory = item.trajectory
  if (Array.isArray(item.turns)) out.turns = slimTurns(item.turns, prompts)
  if (typeof item.durationMs === 'number') out.durationMs = item.durationMs
  return out
}

/** A result's judge calls in total: `{ calls, tokens, ms }` (null without a judge record). */
function judgeCost(judge) {
  if (!judge || typeof judge !== 'object') return null
  let calls = 0
  let tokens = 0
  let ms = 0
  for (const step of Object.values(judge)) {
    for (const e of (step && Array.isArray(step.executions) ? step.executions : [])) {
      calls += typeof e.modelCallCount === 'number' ? e.modelCallCount : 0
      const u = e.usage || {}
      tokens += typeof u.totalTokens === 'number' ? u.totalTokens : (u.inputTokens || 0) + (u.outputTokens || 0)
      ms += typeof e.durationMs === 'number' ? e.durationMs : 0
    }
  }
  return calls || tokens || ms ? { calls, tokens, ms } : null
}

/**
 * What the report's server-side parts (scorer cards, JUnit) read of an item: index, id, input,
 * output, per scorer score/reason/warnings, errors, trials, duration. No step results, no
 * prompts: with an ItemSpool holding the page's copy, this is all a run keeps in memory.
 */
export function reportItem(item) {
  const results = {}
  for (const [id, r] of Object.entries(item.results || {})) {
    if (!r || typeof r !== 'object') continue
    const keep = { score: r.score }
    if (r.notScorable) keep.notScorable = r.notScorable
    if (r.reason !== undefined) keep.reason = r.reason
    if (r.warnings !== undefined) keep.warnings = r.warnings
    results[id] = keep
  }
  const out = { index: item.index }
  if (item.id !== undefined) out.id = item.id
  out.input = item.input
  out.output = item.output
  if (item.groundTruth !== undefined) out.groundTruth = item.groundTruth
  if (item.targetError) out.targetError = item.targetError
  out.results = results
  if (item.errors && Object.keys(item.errors).length) out.errors = item.errors
  if (item.trials) out.trials = item.trials
  if (Array.isArray(item.turns)) {
    out.turns = item.turns.map((t) => {
      const o = { index: t.index, gates: t.gates, scorers: t.scorers, results: {} }
      for (const [id, r] of Object.entries(t.results || {})) if (r && typeof r === 'object') o.results[id] = { score: r.score, reason: r.reason }
      if (t.errors && Object.keys(t.errors).length) o.errors = t.errors
      if (t.trials) o.trials = t.trials
      return o
    })
  }
  if (typeof item.durationMs === 'number') out.durationMs = item.durationMs
  return out
}

const spools = new Set()
process.once('exit', () => {
  for (const s of spools) s.close()
})

/**
 * The page's item data kept on disk while a run goes (a temp folder), so a run's memory does
 * not grow with its items: `add(item)` appends the item's embedded JSON (slimItem'd, prompts
 * through `prompts`); `json()` gives them back in index order. `close()` removes the folder
 * (also done at exit). Pass it as the report's `spool`, with the same `prompts`.
 */
export class ItemSpool {
  constructor(prompts = new PromptTable()) {
    this.prompts = prompts
    this.dir = mkdtempSync(join(tmpdir(), 'oxeval-report-'))
    this.fd = openSync(join(this.dir, 'items.jsonl'), 'w+')
    this.at = []
    this.size = 0
    this.buf = []
    this.bufBytes = 0
    this.error = null
    spools.add(this)
  }
  add(item) {
    if (this.error || this.fd === null) return
    const bytes = Buffer.from(itemJson(slimItem(item, this.prompts), this.prompts), 'utf8')
    this.at.push([item.index, this.size, bytes.length])
    this.size += bytes.length
    this.buf.push(bytes)
    this.bufBytes += bytes.length
    if (this.bufBytes >= 1 << 20) this.flush()
  }
  flush() {
    if (!this.buf.length || this.error) return
    const chunk = Buffer.concat(this.buf)
    this.buf = []
    this.bufBytes = 0
    try {
      let off = 0
      while (off < chunk.length) off += writeSync(this.fd, chunk, off, chunk.length - off)
    } catch (e) {
      this.error = e
    }
  }
  /** The items' JSON texts in index order (throws the spool's write error, if any). */
  *json() {
    this.flush()
    if (this.error) throw this.error
    const order = [...this.at].sort((a, b) => a[0] - b[0])
    for (const [, pos, len] of order) {
      const b = Buffer.alloc(len)
      let got = 0
      while (got < len) {
        const n = readSync(this.fd, b, got, len - got, pos + got)
        if (n === 0) throw new Error('the report spool file was cut short')
        got += n
      }
      yield b.toString('utf8')
    }
  }
  close() {
    if (this.fd !== null) {
      try {
        closeSync(this.fd)
      } catch {}
      this.fd = null
    }
    try {
      rmSync(this.dir, { recursive: true, force: true })
    } catch {}
    spools.delete(this)
  }
}

const fmt = (x, d = 3) => (typeof x === 'number' && Number.isFinite(x) ? x.toFixed(d) : '–')
const int = (x) => (typeof x === 'number' ? x.toLocaleString('en-US') : '–')

/** An inline SVG histogram of the item scores of one scorer (10 bins over [0, 1], wider if scores fall outside). */
export function histogramSvg(scores, { threshold, label } = {}) {
  const W = 260
  const H = 110
  const pad = { l: 28, r: 8, t: 8, b: 22 }
  // folded, not spread: a spread of 125 000 scores into Math.min throws a RangeError
  const lo = scores.reduce((m, s) => Math.min(m, s), 0)
  const hi = scores.reduce((m, s) => Math.max(m, s), 1)
  const bins = new Array(10).fill(0)
  for (const s of scores) bins[Math.min(9, Math.max(0, Math.floor(((s - lo) / (hi - lo)) * 10)))]++
  const max = bins.reduce((m, b) => Math.max(m, b), 1)
  const bw = (W - pad.l - pad.r) / 10
  const ih = H - pad.t - pad.b
  const x = (v) => pad.l + ((v - lo) / (hi - lo)) * (W - pad.l - pad.r)
  const parts = [
    `<svg class="hist" role="img" aria-label="${escapeHtml(`score histogram${label ? ` of ${label}` : ''}`)}" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" xmlns="http://www.w3.org/2000/svg">`,
    `<line x1="${pad.l}" y1="${H - pad.b}" x2="${W - pad.r}" y2="${H - pad.b}" stroke="#888"/>`,
  ]
  bins.forEach((n, i) => {
    const h = (n / max) * ih
    const a = lo + ((hi - lo) * i) / 10
    const b = lo + ((hi - lo) * (i + 1)) / 10
    parts.push(
      `<rect class="bin" x="${(pad.l + i * bw + 1).toFixed(1)}" y="${(H - pad.b - h).toFixed(1)}" width="${(bw - 2).toFixed(1)}" height="${h.toFixed(1)}" fill="#4a7bd0"><title>${escapeHtml(`${a.toFixed(1)}–${b.toFixed(1)}: ${n} item${n === 1 ? '' : 's'}`)}</title></rect>`,
    )
  })
  const t = typeof threshold === 'number' ? { min: threshold } : threshold || {}
  for (const v of [t.min, t.max]) {
    if (typeof v === 'number' && v >= lo && v <= hi) parts.push(`<line class="thr" x1="${x(v).toFixed(1)}" y1="${pad.t}" x2="${x(v).toFixed(1)}" y2="${H - pad.b}" stroke="#c33" stroke-dasharray="4 3"/>`)
  }
  parts.push(
    `<text x="${pad.l}" y="${H - 6}" font-size="10" text-anchor="middle">${fmt(lo, 1)}</text>`,
    `<text x="${x((lo + hi) / 2)}" y="${H - 6}" font-size="10" text-anchor="middle">${fmt((lo + hi) / 2, 1)}</text>`,
    `<text x="${W - pad.r}" y="${H - 6}" font-size="10" text-anchor="end">${fmt(hi, 1)}</text>`,
    `<text x="${pad.l - 4}" y="${pad.t + 8}" font-size="10" text-anchor="end">${max}</text>`,
    '</svg>',
  )
  return parts.join('')
}

const CSS = `
:root{--fg:#1d2430;--muted:#5b6474;--line:#dde2ea;--pass:#1f7a3a;--fail:#b42318;--bg:#f6f8fb}
*{box-sizing:border-box}body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:var(--fg);margin:0;background:var(--bg)}
header{padding:16px 24px;background:#fff;border-bottom:1px solid var(--line)}h1{font-size:20px;margin:0 0 4px;overflow-wrap:anywhere}#back{font-size:14px;font-weight:400;margin-right:10px}
.meta{color:var(--muted);overflow-wrap:anywhere}.meta span{margin-right:14px}main{padding:16px 24px}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(290px,100%),1fr));gap:14px;margin-bottom:18px}
.card{background:#fff;border:1px solid var(--line);border-radius:8px;padding:12px 14px;min-width:0}
.chip{display:inline-block;margin:1px 3px 1px 0;padding:0 5px;border-radius:9px;background:#eef1f5;font-size:12px;white-space:nowrap}.chip.below{background:#fde2e0}.chip.err{background:#f8d7d3}
#columns{position:relative}#columns .pick{position:absolute;z-index:3;background:#fff;border:1px solid var(--line);border-radius:6px;padding:8px 10px;max-height:320px;overflow:auto;min-width:260px;max-width:calc(100vw - 24px)}#columns label{display:block;white-space:nowrap}
.card h2{font-size:15px;margin:0 0 6px;word-break:break-all}.big{font-size:26px;font-weight:600}
.pass{color:var(--pass);font-weight:600}.fail{color:var(--fail);font-weight:600}.kv{color:var(--muted);font-size:13px}
.banner{padding:8px 12px;border-radius:6px;margin-bottom:12px;background:#fff4e5;border:1px solid #f5c07a}
.toolbar{display:flex;gap:12px;align-items:center;margin:8px 0;flex-wrap:wrap}
.toolbar input[type=search]{width:320px;max-width:100%;padding:6px 8px;border:1px solid var(--line);border-radius:6px}
table{border-collapse:collapse;width:100%;background:#fff;border:1px solid var(--line)}
th,td{padding:6px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
th{background:#eef2f7;position:sticky;top:0;cursor:pointer;user-select:none;white-space:nowrap}
th[data-key]:not([data-key="#"]){white-space:normal;max-width:130px;font-size:12px}td.chips{min-width:160px;max-width:340px;white-space:normal}.tablewrap{overflow-x:auto}.card table{display:block;overflow-x:auto}
th.sorted-asc::after{content:" ▲"}th.sorted-desc::after{content:" ▼"}
tr.item{cursor:pointer}tr.item:hover{background:#f3f6fb}td.num{font-variant-numeric:tabular-nums;white-space:nowrap}
td.err{color:var(--fail)}td.below{color:var(--fail);font-weight:600}td.txt{max-width:220px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
tr.detail>td{background:#fafbfd;overflow-wrap:anywhere}.scorer{margin:6px 0 12px}.scorer h3{font-size:14px;margin:4px 0}
pre{white-space:pre-wrap;word-break:break-word;background:#f1f3f7;padding:8px;border-radius:6px;max-height:420px;overflow:auto;margin:4px 0}
.turn{margin:6px 0 12px;padding-left:8px;border-left:3px solid var(--line)}.turn h3{font-size:14px;margin:4px 0}#turns{margin-bottom:18px}
.pager{display:flex;gap:8px;align-items:center;margin:10px 0}button{padding:4px 10px;border:1px solid var(--line);border-radius:6px;background:#fff;cursor:pointer}
@media (max-width:640px){header{padding:12px}main{padding:10px}
#items,#items tbody{display:block}#items thead{display:none}
#items tr.item{display:flex;flex-wrap:wrap;gap:2px 8px;padding:6px 4px;border-bottom:1px solid var(--line)}
#items tr.item>td{border:0;padding:0 2px}#items td.txt{flex:1 1 100%;max-width:100%;white-space:normal}#items td.chips{flex:1 1 100%;min-width:0;max-width:100%}
#items tr.detail,#items tr.detail>td{display:block}}
`

// The page's script: renders the items from the JSON blob with textContent only.
const SCRIPT = `(function(){'use strict'
var data=JSON.parse(document.getElementById('oxeval-data').textContent)
var scorers=data.scorers.concat((data.gates||[]).map(function(g){return{id:g,threshold:{min:1},gate:true}})),items=data.items,PAGE=100
var state={q:'',errorsOnly:false,key:null,dir:1,page:0,open:{}}
var templates=data.templates||[]
function prompt(v){if(typeof v==='string')return v;if(v&&typeof v==='object'&&typeof v.t==='number'&&typeof v.s==='string'&&typeof templates[v.t]==='string')return templates[v.t]+v.s;return null}
function text(v){if(v===undefined||v===null)return'';if(typeof v==='string')return v;try{return JSON.stringify(v)}catch(e){return String(v)}}
function score(it,id){var t=it.trials&&it.trials[id];if(t)return typeof t.mean==='number'?t.mean:null;var r=it.results&&it.results[id];return r&&typeof r.score==='number'?r.score:null}
function err(it,id){return(it.errors&&it.errors[id])||it.targetError||null}
function hasErr(it){if(it.targetError)return true;for(var k in(it.errors||{}))return true;var ts=it.turns||[];for(var i=0;i<ts.length;i++)for(var e in(ts[i].errors||{}))return true;return false}
function meets(s,t){if(t===undefined||t===null)return true;if(typeof s!=='number')return false;if(typeof t==='number')t={min:t};return(t.min===undefined||s>=t.min)&&(t.max===undefined||s<=t.max)}
var hay=[]
function haystack(i){if(hay[i]===undefined){var it=items[i],p=[text(it.id),text(it.input),text(it.output),text(it.groundTruth)];for(var k in(it.results||{}))p.push(text(it.results[k].reason));for(var e in(it.errors||{}))p.push(text(it.errors[e].message));hay[i]=p.join('\\n').toLowerCase()}return hay[i]}
function el(tag,cls,txt){var e=document.createElement(tag);if(cls)e.className=cls;if(txt!==undefined)e.textContent=txt;return e}
function clip(s,n){s=text(s).replace(/\\s+/g,' ');return s.length>n?s.slice(0,n-1)+'…':s}
function view(){var out=[],q=state.q.toLowerCase();for(var i=0;i<items.length;i++){if(state.errorsOnly&&!hasErr(items[i]))continue;if(q&&haystack(i).indexOf(q)<0)continue;out.push(i)}
if(state.key!==null){var k=state.key,d=state.dir;out.sort(function(a,b){if(k==='#')return d*(items[a].index-items[b].index);var x=score(items[a],k),y=score(items[b],k);if(x===null&&y===null)return items[a].index-items[b].index;if(x===null)return 1;if(y===null)return -1;return d*(x-y)||items[a].index-items[b].index})}return out}
var narrow=typeof matchMedia==='function'&&matchMedia('(max-width:640px)').matches,MAXCOLS=narrow?0:6,shown={};scorers.forEach(function(s,i){shown[s.id]=i<MAXCOLS})
var cols
function columns(){cols=[{key:'#',label:'#'},{key:null,label:'id'},{key:null,label:'input'},{key:null,label:'output'}].concat(scorers.filter(function(s){return shown[s.id]}).map(function(s){return{key:s.id,label:s.gate?s.id+' (gate)':s.id,scorer:s}}));if(scorers.some(function(s){return!shown[s.id]}))cols.push({key:null,label:'other scores'})}
columns()
function picker(){var p=document.getElementById('pick');p.textContent='';scorers.forEach(function(s){var l=el('label'),cb=el('input');cb.type='checkbox';cb.checked=shown[s.id];cb.dataset.scorer=s.id;cb.addEventListener('change',function(){shown[s.id]=cb.checked;columns();render()});l.appendChild(cb);l.appendChild(document.createTextNode(' '+s.id));p.appendChild(l)})}
function label(th,t){t.split('-').forEach(function(part,i,all){th.appendChild(document.createTextNode(part+(i<all.length-1?'-':'')));if(i<all.length-1)th.appendChild(el('wbr'))})}
function header(){var tr=document.getElementById('head');tr.textContent='';cols.forEach(function(c){var th=el('th');label(th,c.label);if(c.key!==null){th.dataset.key=c.key;th.title='sort by '+c.label;if(state.key===c.key)th.className=state.dir>0?'sorted-asc':'sorted-desc';th.addEventListener('click',function(){if(state.key===c.key)state.dir=-state.dir;else{state.key=c.key;state.dir=1}state.page=0;render()})}else th.style.cursor='default';tr.appendChild(th)})}
function kv(parent,label,value){var d=el('div');d.appendChild(el('strong',null,label+': '));d.appendChild(document.createTextNode(value));parent.appendChild(d)}
function detail(it){var td=el('td');td.colSpan=cols.length;kv(td,'input',text(it.input));if(it.inputs)kv(td,'inputs',text(it.inputs));kv(td,'output',text(it.output));if(it.groundTruth!==undefined)kv(td,'groundTruth',text(it.groundTruth));if(it.context&&it.context.length){var cx=el('details','context');cx.open=true;cx.appendChild(el('summary',null,'retrieved context ('+it.context.length+')'));var ol=el('ol');it.context.forEach(function(c){ol.appendChild(el('li',null,text(c)))});cx.appendChild(ol);td.appendChild(cx)}if(it.targetError)kv(td,'target error',text(it.targetError.name)+': '+text(it.targetError.message))
scorers.forEach(function(s){var box=el('div','scorer');box.appendChild(el('h3',null,s.id));var r=it.results&&it.results[s.id],e=it.errors&&it.errors[s.id];var sc=score(it,s.id);kv(box,'score',sc===null?'–':String(sc));if(r&&r.cost)kv(box,'judge',r.cost.calls+' call'+(r.cost.calls===1?'':'s')+', '+r.cost.tokens+' tokens, '+r.cost.ms+' ms');if(r&&r.notScorable)kv(box,'not scorable','at '+text(r.notScorable.step)+(r.notScorable.reason?': '+text(r.notScorable.reason):''));if(it.trials&&it.trials[s.id])kv(box,'trials',text(it.trials[s.id].scores));if(e){var ee=el('div','fail');ee.textContent='error '+text(e.code||e.name)+(e.failedStep?' at step '+e.failedStep:'')+': '+text(e.message);box.appendChild(ee)}
if(r){if(r.reason!==undefined)kv(box,'reason',text(r.reason));if(r.warnings)kv(box,'warnings',text(r.warnings));Object.keys(r).forEach(function(k){if(/StepResult$/.test(k)&&r[k]!==undefined&&r[k]!==null){var dd=el('details','step');dd.appendChild(el('summary',null,k));dd.appendChild(el('pre',null,JSON.stringify(r[k],null,2)));box.appendChild(dd)}});Object.keys(r).forEach(function(k){var pt=/Prompt$/.test(k)?prompt(r[k]):null;if(pt!==null){var dd=el('details','prompt');dd.appendChild(el('summary',null,k));dd.appendChild(el('pre',null,pt));box.appendChild(dd)}})}
td.appendChild(box)});if(it.trajectory)td.appendChild(steps('trajectory',it.trajectory));(it.turns||[]).forEach(function(t){td.appendChild(turnBox(it,t))});var tr=el('tr','detail');tr.appendChild(td);return tr}
function steps(label,list){var dd=el('details','trajectory');dd.appendChild(el('summary',null,label+' ('+list.length+' step'+(list.length===1?'':'s')+')'));var ol=el('ol');list.forEach(function(st){ol.appendChild(el('li',null,text(st.stepType)+' '+text(st.name)+(st.toolArgs!==undefined?' '+text(st.toolArgs):'')+(st.success===false?' (failed)':'')))});dd.appendChild(ol);return dd}
function turnBox(it,t){var box=el('div','turn');box.dataset.turn=t.index;box.appendChild(el('h3',null,'turn '+t.index));kv(box,'input',text(t.input));kv(box,'output',text(t.output));var ths={};(t.scorers||[]).forEach(function(x){ths[x.id]=x.threshold});var ids=(t.gates||[]).map(function(g){return{id:g,gate:true}}).concat((t.scorers||[]).map(function(x){return{id:x.id,gate:false}}));ids.forEach(function(a){var r=t.results&&t.results[a.id],e=t.errors&&t.errors[a.id],sc=score(t,a.id),ok=sc!==null&&(a.gate?sc>=1:meets(sc,ths[a.id]));var line=el('div',sc===null?'fail':ok?'':'fail');line.dataset.scorer=a.id;line.textContent=a.id+(a.gate?' (gate)':ths[a.id]!==undefined?' (threshold '+text(ths[a.id])+')':'')+': '+(sc===null?(e?'error '+text(e.code||e.name)+': '+text(e.message):it.targetError?'not run (target error)':'–'):String(sc))+(r&&r.reason?' · '+text(r.reason):'');box.appendChild(line)});if(t.trajectory)box.appendChild(steps('trajectory',t.trajectory));return box}
function render(){header();var v=view(),body=document.getElementById('rows');body.textContent='';var pages=Math.max(1,Math.ceil(v.length/PAGE));if(state.page>=pages)state.page=pages-1;var start=state.page*PAGE,end=Math.min(v.length,start+PAGE)
for(var j=start;j<end;j++){(function(i){var it=items[i],tr=el('tr','item');tr.dataset.index=it.index;tr.appendChild(el('td','num',String(it.index)));tr.appendChild(el('td','txt',clip(it.id,40)));tr.appendChild(el('td','txt',clip(it.input,120)));tr.appendChild(el('td','txt',clip(it.output,120)))
var other=scorers.some(function(s){return!shown[s.id]})?el('td','chips'):null
scorers.forEach(function(s){var sc=score(it,s.id),e=err(it,s.id),ns=it.results&&it.results[s.id]&&it.results[s.id].notScorable,td;if(!shown[s.id]){var c=el('span','chip'+(ns&&sc===null?'':e&&sc===null?' err':meets(sc,s.threshold)?'':' below'),s.id+' '+(ns&&sc===null?'n/a':e&&sc===null?'error':sc===null?'–':sc.toFixed(2)));c.dataset.scorer=s.id;other.appendChild(c);return}if(ns&&sc===null){td=el('td','num','n/a');td.title='not scorable'+(ns.reason?': '+text(ns.reason):'')}else if(e&&sc===null){td=el('td','num err','error');td.title=text(e.message)}else{td=el('td','num'+(meets(sc,s.threshold)?'':' below'),sc===null?'–':sc.toFixed(3))}td.dataset.scorer=s.id;tr.appendChild(td)});if(other)tr.appendChild(other)
tr.addEventListener('click',function(){state.open[i]=!state.open[i];render()});body.appendChild(tr);if(state.open[i])body.appendChild(detail(it))})(v[j])}
document.getElementById('count').textContent=(v.length?(start+1)+'–'+end:'0')+' of '+v.length+' items'+(v.length!==items.length?' (filtered from '+items.length+')':'');document.getElementById('page').textContent='page '+(state.page+1)+' / '+pages;document.getElementById('prev').disabled=state.page===0;document.getElementById('next').disabled=state.page>=pages-1}
document.getElementById('q').addEventListener('input',function(e){state.q=e.target.value;state.page=0;render()})
document.getElementById('errorsOnly').addEventListener('change',function(e){state.errorsOnly=e.target.checked;state.page=0;render()})
document.getElementById('prev').addEventListener('click',function(){state.page--;render()})
document.getElementById('next').addEventListener('click',function(){state.page++;render()})
function fit(){var t=document.getElementById('items'),box=t.parentNode,ids=scorers.filter(function(s){return shown[s.id]});if(!box)return;while(t.scrollWidth>box.clientWidth&&ids.length){shown[ids.pop().id]=false;columns();render()}}
render();fit();picker()})()
`

const SCRIPT_HASH = createHash('sha256').update(SCRIPT).digest('base64')

/** The per-turn results of `turns` items (the run's turnResults): one row per turn assertion. */
function turnsSection(summary) {
  const turns = summary.turnResults
  if (!Array.isArray(turns) || turns.length === 0) return ''
  const verdictCell = (passed) => `<td class="${passed ? 'pass' : 'fail'}">${passed ? 'PASS' : 'FAIL'}</td>`
  const rows = []
  for (const t of turns) {
    const gates = new Map((t.gateResults || []).map((g) => [g.id, g]))
    const ths = new Map((t.thresholdResults || []).map((x) => [x.id, x]))
    const ids = [...gates.keys(), ...Object.keys(t.scores || {})]
    if (ids.length === 0) {
      rows.push(`<tr data-turn="${t.index}"><td class="num">${t.index}</td><td colspan="5" class="kv">no assertion (the turn advances the conversation)</td></tr>`)
      continue
    }
    for (const id of ids) {
      const g = gates.get(id)
      const th = ths.get(id)
      const cov = t.coverage && t.coverage[id]
      const kind = g ? 'gate (every item scores 1)' : th ? `threshold ${thresholdText(th.threshold)}` : 'score'
      const value = g ? g.score : t.scores[id]
      rows.push(
        `<tr data-turn="${t.index}" data-scorer="${escapeHtml(id)}"><td class="num">${t.index}</td><td>${escapeHtml(id)}</td><td>${escapeHtml(kind)}</td><td class="num">${fmt(value)}</td><td class="num">${cov ? `${int(cov.scored)}/${int(cov.total)}` : '–'}</td>${g ? verdictCell(g.passed) : th ? verdictCell(th.passed) : '<td></td>'}</tr>`,
      )
    }
  }
  return `<section class="card" id="turns"><h2>Per-turn results</h2><div class="kv">each turn's gates and scorers judged that turn alone, averaged by turn index across conversations</div><table><thead><tr><th>turn</th><th>assertion</th><th>kind</th><th>mean</th><th>scored</th><th></th></tr></thead><tbody>${rows.join('')}</tbody></table></section>\n`
}

function scorerCard(s, { summary, scores, prices, gate }) {
  const st = (summary.stats && summary.stats[s.id]) || {}
  const cov = summary.coverage && summary.coverage[s.id]
  const usage = summary.usage && summary.usage[s.id]
  const tr = (summary.thresholdResults || []).find((t) => t.id === s.id)
  const gr = (summary.gateResults || []).find((g) => g.id === s.id)
  // runEvals' `scores` holds the scorers; a gate's mean is its gateResults score
  const m = meanOf(summary, s.id)
  const mean = typeof m === 'number' ? m : gr ? gr.score : (st.mean ?? null)
  // the categorized form's category (scores.agent / scores.trajectory)
  const category = categoryOf(summary, s.id)
  const verdict = gate
    ? gr
      ? `<div>gate (every item scores 1): <span class="${gr.passed ? 'pass' : 'fail'}">${gr.passed ? 'PASS' : 'FAIL'}</span></div>`
      : '<div>gate</div>'
    : tr
      ? `<div>threshold ${escapeHtml(thresholdText(tr.threshold))}: <span class="${tr.passed ? 'pass' : 'fail'}">${tr.passed ? 'PASS' : 'FAIL'}</span></div>`
      : ''
  const cost = usageCost(usage, prices)
  // the items' `expected` labels: the judge's agreement with them (κ, confusion, MAE, ρ)
  const ag = summary.agreement && summary.agreement[s.id]
  const agreement = ag ? `<div class="kv agreement">agreement with your labels: ${escapeHtml(agreementText(s.id, ag).slice(s.id.length + 2))}</div>` : ''
  const lines = [
    `<section class="card" data-scorer="${escapeHtml(s.id)}">`,
    `<h2>${escapeHtml(s.id)}${category ? ` <span class="kv category">${escapeHtml(category)}</span>` : ''}</h2>`,
    `<div><span class="big">${fmt(mean)}</span> <span class="kv">mean over ${cov ? `${int(cov.scored)}/${int(cov.total)}` : '–'} items scored${
      st.ci95 ? `, 95% CI [${fmt(st.ci95[0])}, ${fmt(st.ci95[1])}]` : ''
    }</span></div>`,
    verdict,
    agreement,
    `<div class="kv">std ${fmt(st.std)} · min ${fmt(st.min)} · max ${fmt(st.max)} · errors ${int(summary.errors ? summary.errors[s.id] ?? 0 : 0)}</div>`,
    usage
      ? `<div class="kv">tokens ${int(usage.totalTokens)} (in ${int(usage.inputTokens)}, out ${int(usage.outputTokens)}${usage.reasoningTokens ? `, reasoning ${int(usage.reasoningTokens)}` : ''}${
          usage.cachedInputTokens ? `, cached in ${int(usage.cachedInputTokens)}` : ''
        }) · ${int(usage.calls)} calls${usage.batchCalls ? ` (${int(usage.batchCalls)} through provider batches, billed at half price)` : ''}${cost !== null ? ` · cost $${cost.toFixed(4)}` : ''}</div>`
      : '',
    histogramSvg(scores, { threshold: gate ? undefined : s.threshold, label: s.id }),
    '</section>',
  ]
  return lines.join('\n')
}

/**
 * The report as a sequence of text chunks (items are serialized one by one).
 * `report`: `{ header: { scorers: [{ id, threshold? }], gates?, model?, data?, trials?, shard?, version? },
 * summary: EvalRunResult (without items), items: EvalItemResult[] (slimItem'd or full),
 * prices?: { in?, out? } (dollars per 1M tokens), title?, prompts?: PromptTable (the table the
 * items' prompt references come from, when they were slimItem'd with one), spool?: ItemSpool
 * (the page's item data, then `items` need only be reportItem'd: they feed the scorer cards),
 * back?: { href, label } (a link before the title: the viewer's way back to its run list) }`.
 */
export function* htmlReportChunks(report) {
  const { header, summary } = report
  const items = [...report.items].sort((a, b) => a.index - b.index)
  const gates = header.gates || []
  const scorers = header.scorers.map((s) => (s.threshold !== undefined ? { id: s.id, threshold: s.threshold } : { id: s.id }))
  const title = report.title || 'oxeval report'
  const model = header.model === undefined || header.model === null ? '' : typeof header.model === 'string' ? header.model : `${header.model.id}${header.model.url ? ` @ ${header.model.url}` : ''}`
  // the badge is the run's outcome (the core's one decision), as the exit status and JUnit
  const outcome = outcomeOf(summary)
  const verdict = outcome.passed ? 'PASS' : 'FAIL'
  const skipped = Array.isArray(summary.skipped) ? summary.skipped.length : 0

  yield `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${SCRIPT_HASH}'; img-src data:; base-uri 'none'; form-action 'none'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${CSS}</style></head><body>
<header><h1>${report.back ? `<a id="back" href="${escapeHtml(report.back.href)}">← ${escapeHtml(report.back.label)}</a>` : ''}${escapeHtml(title)} <span class="${verdict === 'PASS' ? 'pass' : 'fail'}" id="verdict" title="${escapeHtml(outcome.meaning || outcome.status)}">${verdict}</span>${
    outcome.status === 'scored' ? ' <span class="kv" id="status">scored: a threshold was missed</span>' : ''
  }</h1>
<div class="meta">${[
    model && `<span>model <b>${escapeHtml(model)}</b></span>`,
    header.data && `<span>data <b>${escapeHtml(header.data)}</b></span>`,
    `<span><b>${int(summary.summary ? summary.summary.totalItems : items.length)}</b> items</span>`,
    skipped ? `<span><b>${skipped}</b> bad rows skipped</span>` : '',
    `<span>trials <b>${escapeHtml(summary.trials ?? header.trials ?? 1)}</b></span>`,
    header.shard ? `<span>shard <b>${escapeHtml(`${header.shard.index}/${header.shard.count}`)}</b></span>` : '',
    typeof summary.durationMs === 'number' ? `<span>${(summary.durationMs / 1000).toFixed(1)} s</span>` : '',
    header.version ? `<span>oxeval ${escapeHtml(header.version)}</span>` : '',
  ]
    .filter(Boolean)
    .join('')}</div></header>
<main>
${summary.aborted ? '<div class="banner" id="aborted">This run was interrupted: the report shows the items that finished.</div>' : ''}
${outcome.passed ? '' : `<div class="banner" id="reasons"><b>${escapeHtml(outcome.meaning || outcome.status)}</b><ul>${outcome.reasons.map((r) => `<li>${escapeHtml(r.message)}</li>`).join('')}</ul></div>`}
<div class="cards">
`
  for (const s of scorers) {
    const scores = items.map((it) => itemScore(it, s.id)).filter((x) => x !== null)
    yield `${scorerCard(s, { summary, scores, prices: report.prices, gate: false })}\n`
  }
  for (const id of gates) {
    const scores = items.map((it) => itemScore(it, id)).filter((x) => x !== null)
    yield `${scorerCard({ id }, { summary, scores, prices: report.prices, gate: true })}\n`
  }
  yield `</div>
${turnsSection(summary)}<div class="toolbar"><input type="search" id="q" placeholder="Filter input, output, reasons…" aria-label="filter"><details id="columns"><summary>columns</summary><div class="pick" id="pick"></div></details>
<label><input type="checkbox" id="errorsOnly"> errors only</label><span id="count" class="kv"></span></div>
<div class="tablewrap"><table id="items"><thead><tr id="head"></tr></thead><tbody id="rows"></tbody></table></div>
<div class="pager"><button id="prev" type="button">‹ prev</button><span id="page" class="kv"></span><button id="next" type="button">next ›</button></div>
<noscript>The item table needs JavaScript.</noscript>
</main>
<script type="application/json" id="oxeval-data">{"scorers":${scriptJson(scorers)},"gates":${scriptJson(gates)},"items":[`
  const spool = report.spool instanceof ItemSpool ? report.spool : null
  const table = spool ? spool.prompts : report.prompts instanceof PromptTable ? report.prompts : new PromptTable()
  let first = true
  const texts = spool
    ? spool.json()
    : (function* () {
        for (const it of items) yield itemJson(it.judge === undefined ? it : slimItem(it, table), table)
      })()
  for (const text of texts) {
    yield `${first ? '' : ','}\n${text}`
    first = false
  }
  yield `],"templates":${scriptJson(table.templates)}}</script>`
  yield `
<script>${SCRIPT}</script>
</body></html>
`
}

/** One item of the data blob: its prompts as `table` references; an item JSON cannot encode becomes a stub that says why. */
function itemJson(it, table) {
  let embedded = it
  if (it && it.results && typeof it.results === 'object') {
    const results = {}
    for (const [id, r] of Object.entries(it.results)) {
      if (!r || typeof r !== 'object') {
        results[id] = r
        continue
      }
      const x = {}
      for (const [k, v] of Object.entries(r)) x[k] = k.endsWith('Prompt') && typeof v === 'string' ? table.intern(v) : v
      results[id] = x
    }
    embedded = { ...it, results }
  }
  try {
    return scriptJson(embedded)
  } catch (e) {
    const stub = { index: it.index, input: `[not shown: this item cannot be serialized (${e && e.name}: ${String(e && e.message).slice(0, 120)})]`, results: {} }
    if (typeof it.id === 'string' || typeof it.id === 'number') stub.id = it.id
    for (const [id, r] of Object.entries(it.results || {})) {
      if (r && typeof r === 'object') stub.results[id] = { score: typeof r.score === 'number' ? r.score : null, reason: typeof r.reason === 'string' ? r.reason : undefined }
    }
    try {
      if (it.errors) stub.errors = JSON.parse(JSON.stringify(it.errors))
    } catch {}
    return scriptJson(stub)
  }
}

/** The report as one string. */
export function renderHtmlReport(report) {
  return Array.from(htmlReportChunks(report)).join('')
}

/** Writes the report to `file`, chunk by chunk. */
export async function writeHtmlReport(file, report) {
  await writeChunks(file, htmlReportChunks(report))
}

export { itemScore, itemError, meetsThreshold }
