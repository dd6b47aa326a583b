// `oxeval view [DIR] [--port N]`: a local web viewer over a folder of `--out` files, bound to
// 127.0.0.1 only, with no network at view time. `#/` lists the runs (date, dataset, scorers,
// means, outcome), `#/run/<file>` shows one run's report (the same HTML report as --html,
// rendered from the file, as a page of its own at `run/<file>`: no frame, so no scroll inside a
// scroll), `#/compare/<a>/<b>` the comparison of two (oxeval compare's; `run:<id>` names a
// run of the results store, picked on `#/history`). The
// files are listed once at start and re-read on each request (a run written meanwhile shows).
import { createReadStream, readdirSync, statSync } from 'node:fs'
import { createServer } from 'node:http'
import { join, relative, resolve, sep } from 'node:path'
import { createInterface } from 'node:readline'
import { parseArgs } from 'node:util'
import { UsageError } from './errors.mjs'
import { comparison } from './compare.mjs'
import { restoreItem } from './results.mjs'
import { renderHtmlReport, slimItem } from '../report/html.mjs'
import { meansById, outcomeOf } from '../report/items.mjs'
import { findConfig } from './config.mjs'
import { ask, dropExport, exportRun, storeSpec } from './store.mjs'

export const VIEW_HELP = `Usage: oxeval view [DIR] [--port N] [--store PATH]

A local viewer over the --out files in DIR (default: the working directory, two levels deep):
the runs, one run's report, and the comparison of any two. Binds 127.0.0.1 only and answers
only requests addressed to it (Host 127.0.0.1, localhost or [::1] with its port); prints its URL;
--port 0 picks a free port (default 7357). Ctrl-C stops it.
#/history: the runs of the results store (--store PATH, default .oxeval/store.db in the working
directory): one trend chart per scorer (mean and 95% interval per run, oldest → newest; a point
opens its run), filters by branch and tag, the stored runs (tick any two to compare them: the
older is the base), and the flaky items.
`

/** The runs in `dir`: each .jsonl file (two levels deep) whose first line is a run header. */
async function listRuns(dir) {
  const found = []
  const walk = (d, depth) => {
    let entries
    try {
      entries = readdirSync(d, { withFileTypes: true })
    } catch {
      return
    }
    for (const e of entries) {
      if (e.name.startsWith('.') || e.name === 'node_modules') continue
      const p = join(d, e.name)
      if (e.isDirectory() && depth < 2) walk(p, depth + 1)
      else if (e.isFile() && e.name.endsWith('.jsonl')) found.push(p)
    }
  }
  walk(dir, 0)
  const runs = []
  for (const p of found) {
    const file = relative(dir, p).split(sep).join('/')
    // one odd file is listed as unreadable, with the reason; the others are not affected
    try {
      const r = await readRun(p, true)
      if (r) runs.push(runRow(file, p, r))
    } catch (e) {
      runs.push({ file, startedAt: mtimeOf(p), unreadable: String(e && e.message ? e.message : e).slice(0, 300) })
    }
  }
  return runs.sort((a, b) => String(b.startedAt).localeCompare(String(a.startedAt)))
}

function mtimeOf(p) {
  try {
    return statSync(p).mtime.toISOString()
  } catch {
    return ''
  }
}

/** A run's row in the list; throws (naming the field) when the file is not shaped as an --out file. */
function runRow(file, p, r) {
  const h = r.header
  const s = r.summary ?? {}
  const list = (v, name) => {
    if (v === undefined || v === null) return []
    if (!Array.isArray(v)) throw new TypeError(`its header's ${name} is not a list`)
    return v
  }
  const id = (x, name) => {
    const v = x !== null && typeof x === 'object' ? x.id : x
    if (typeof v !== 'string') throw new TypeError(`its header's ${name} has an entry without an id`)
    return v
  }
  const scorers = list(h.scorers, 'scorers').map((x) => id(x, 'scorers'))
  for (const g of list(h.gates, 'gates')) scorers.push(id(g, 'gates'))
  const text = (v) => (typeof v === 'string' ? v : null)
  return {
    file,
    startedAt: text(h.startedAt) ?? mtimeOf(p),
    data: text(h.data),
    model: typeof h.model === 'string' ? h.model : h.model && typeof h.model === 'object' ? text(h.model.id) : null,
    scorers,
    means: s.scores && typeof s.scores === 'object' ? meansById(s.scores) : {},
    items: r.items,
    outcome: s.outcome ? outcomeOf(s).status : 'unfinished',
  }
}

/** One --out file: header, items (or their count), summary. `null` when it is not one. */
async function readRun(path, countOnly = false) {
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity })
  let header = null
  let summary = null
  const items = []
  let count = 0
  for await (const line of lines) {
    if (!line.trim()) continue
    let rec
    try {
      rec = JSON.parse(line)
    } catch {
      return null
    }
    if (!header) {
      if (!rec || rec.type !== 'run') return null
      header = rec
    } else if (rec.type === 'item') {
      count++
      if (!countOnly) items.push(rec)
    } else if (rec.type === 'summary') summary = rec
  }
  return header ? { header, summary, items: countOnly ? count : items } : null
}

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>oxeval runs</title>
<meta name="viewport" content="width=device-width,initial-scale=1">
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d2433;background:#f6f7f9}
header{background:#1d2433;color:#fff;padding:10px 18px;display:flex;gap:16px;align-items:center}
header a{color:#cfe0ff;text-decoration:none}#where{overflow-wrap:anywhere;min-width:0}main{padding:16px 18px}
table{border-collapse:collapse;background:#fff;width:100%}th,td{padding:6px 9px;border-bottom:1px solid #e3e6eb;text-align:left;vertical-align:top;overflow-wrap:anywhere}
th{background:#eef1f5;font-weight:600}.num{text-align:right;font-variant-numeric:tabular-nums}
.passed{color:#0a7a33}.failed{color:#b3261e}.scored{color:#a05a00}.bad{color:#b3261e;font-weight:600}.good{color:#0a7a33}
button{font:inherit;padding:4px 10px}li,p{overflow-wrap:anywhere}svg.trend{display:block;max-width:100%;height:auto;margin:0 0 10px}#filters input{max-width:40%}
@media (max-width:640px){main{padding:10px}header{padding:10px}
table,tbody,tr,td{display:block}tr.head{display:none}tr{border-bottom:1px solid #c9ced6;padding:6px 0}td{border:0;padding:2px 6px}
td[data-label]:not([data-label=""])::before{content:attr(data-label) ": ";color:#5b6474}.num{text-align:left}}
</style></head><body><header><strong>oxeval</strong><a href="#/">runs</a><a href="#/history">history</a><span id="where"></span></header><main id="main"></main>
<script>
var main=document.getElementById('main'),where=document.getElementById('where')
function el(t,c,x){var e=document.createElement(t);if(c)e.className=c;if(x!==undefined)e.textContent=x;return e}
function fmt(x){return typeof x==='number'?x.toFixed(3):'–'}
function get(u){return fetch(u).then(function(r){if(!r.ok)return r.text().then(function(t){throw new Error(t)});return r.json()})}
function list(){where.textContent='';main.textContent='';get('api/runs').then(function(runs){
  if(!runs.length){main.appendChild(el('p',null,'No --out files here.'));return}
  var bar=el('div');bar.style.margin='0 0 10px';var btn=el('button',null,'Compare the two selected');btn.id='compare';btn.disabled=true;bar.appendChild(btn);main.appendChild(bar)
  var t=el('table');t.id='runs';var h=el('tr','head');['','date','file','dataset','model','items','scorers (mean)','outcome'].forEach(function(x){h.appendChild(el('th',null,x))});t.appendChild(h)
  var picked=[]
  runs.forEach(function(r){var tr=el('tr');tr.dataset.file=r.file
    if(r.unreadable){tr.appendChild(el('td'));tr.appendChild(el('td',null,String(r.startedAt||'').replace('T',' ').slice(0,19)));tr.appendChild(el('td',null,r.file));var u=el('td','bad','unreadable: '+r.unreadable);u.colSpan=5;tr.appendChild(u);t.appendChild(tr);return}
    var cb=el('input');cb.type='checkbox';cb.addEventListener('change',function(){if(cb.checked)picked.push(r.file);else picked=picked.filter(function(f){return f!==r.file});btn.disabled=picked.length!==2});var td0=el('td');td0.appendChild(cb);tr.appendChild(td0)
    tr.appendChild(el('td',null,String(r.startedAt).replace('T',' ').slice(0,19)))
    var a=el('a',null,r.file);a.href='run/'+encodeURIComponent(r.file);var td=el('td');td.appendChild(a);tr.appendChild(td)
    tr.appendChild(el('td',null,r.data||''));tr.appendChild(el('td',null,r.model||''));tr.appendChild(el('td','num',String(r.items)))
    tr.appendChild(el('td',null,r.scorers.map(function(s){return s+' '+fmt(r.means[s])}).join(', ')))
    tr.appendChild(el('td',r.outcome,r.outcome));labels(t,tr);t.appendChild(tr)})
  main.appendChild(t)
  // the older run is the base, whatever the order of the ticks (the comparison has a swap link)
  var when={};runs.forEach(function(r){when[r.file]=String(r.startedAt||'')})
  btn.addEventListener('click',function(){var p=picked.slice().sort(function(x,y){return when[x]<when[y]?-1:when[x]>when[y]?1:0});location.hash='#/compare/'+encodeURIComponent(p[0])+'/'+encodeURIComponent(p[1])})
}).catch(function(e){main.appendChild(el('p','bad',String(e.message)))})}
function labels(t,tr){var hs=t.querySelectorAll('tr.head th');Array.prototype.forEach.call(tr.children,function(td,i){if(hs[i])td.dataset.label=hs[i].textContent})}
function run(file){location.replace('run/'+encodeURIComponent(file))}
function verdictOf(s){return s.regressed?'regressed':s.improved?'improved':s.withinNoise?'unchanged (within judge noise)':s.canDetect===false?'unchanged (too few items to tell: ≥ '+s.minPairs+' needed)':'unchanged'+(typeof s.detectable==='number'?' (detectable ≈ '+fmt(s.detectable)+')':'')}
function compare(a,b){where.textContent=a+' → '+b;main.textContent='';get('api/compare?base='+encodeURIComponent(a)+'&head='+encodeURIComponent(b)).then(function(c){
  var sw=el('a',null,'⇄ swap base and head');sw.id='swap';sw.href='#/compare/'+encodeURIComponent(b)+'/'+encodeURIComponent(a);var top=el('p',null,'base: '+a+' · head: '+b+' · ');top.appendChild(sw);main.appendChild(top)
  var t=el('table');t.id='comparison';var h=el('tr','head');['scorer','base','head','Δ','95% CI','p','n','verdict'].forEach(function(x){h.appendChild(el('th',null,x))});t.appendChild(h)
  c.scorers.forEach(function(s){var tr=el('tr');tr.dataset.scorer=s.id;[s.id,fmt(s.baseMean),fmt(s.headMean),(s.delta>0?'+':'')+fmt(s.delta),s.ci95?'['+fmt(s.ci95[0])+', '+fmt(s.ci95[1])+']':'–',typeof s.pValue==='number'?s.pValue.toPrecision(3):'–',String(s.n)].forEach(function(x,i){tr.appendChild(el('td',i?'num':null,x))});var v=el('td',s.regressed?'bad':s.improved?'good':null,verdictOf(s));v.className+=' verdict';tr.appendChild(v);labels(t,tr);t.appendChild(tr)})
  main.appendChild(t);main.appendChild(el('p',null,'paired by '+c.pairedBy+' · '+c.sharedItems+' shared items · new '+c.newItems.length+' · missing '+c.missingItems.length))
  ;[['new','new items (in head only)',c.newItems],['missing','missing items (in base only)',c.missingItems]].forEach(function(x){if(!x[2].length)return;var d=el('details');d.id=x[0];d.appendChild(el('summary',null,x[1]+': '+x[2].length));var ul=el('ul');x[2].slice(0,200).forEach(function(i){ul.appendChild(el('li',null,String(i)))});if(x[2].length>200)ul.appendChild(el('li',null,'… and '+(x[2].length-200)+' more'));d.appendChild(ul);main.appendChild(d)})
  if(c.worstItems.length){var ul=el('ul');c.worstItems.forEach(function(w){ul.appendChild(el('li',null,w.scorer+' · '+w.item+': '+fmt(w.base)+' → '+fmt(w.head)+(w.reason?' — '+w.reason:'')))});main.appendChild(el('h3',null,'Items that got worse'));main.appendChild(ul)}
  main.appendChild(el('p',null,c.method))
}).catch(function(e){main.appendChild(el('p','bad',String(e.message)))})}
function svgEl(t,a){var e=document.createElementNS('http://www.w3.org/2000/svg',t);for(var k in a)e.setAttribute(k,a[k]);return e}
function chart(id,runs){var W=640,H=160,P=28,pts=runs.map(function(r){var s=r.scorers.filter(function(x){return x.id===id})[0];return s&&typeof s.mean==='number'?{r:r,s:s}:null})
  var ys=[];pts.forEach(function(p){if(p){ys.push(p.s.mean);if(p.s.ci95){ys.push(p.s.ci95[0],p.s.ci95[1])}}});var lo=Math.min.apply(null,ys.concat([0])),hi=Math.max.apply(null,ys.concat([1]))
  var x=function(i){return P+(pts.length<2?0:i*(W-2*P)/(pts.length-1))},y=function(v){return H-P-(v-lo)/(hi-lo||1)*(H-2*P)}
  var svg=svgEl('svg',{width:W,height:H,viewBox:'0 0 '+W+' '+H,'class':'trend','data-scorer':id});svg.appendChild(svgEl('rect',{x:0,y:0,width:W,height:H,fill:'#fff'}))
  var line='';pts.forEach(function(p,i){if(!p)return;if(p.s.ci95)svg.appendChild(svgEl('line',{x1:x(i),x2:x(i),y1:y(p.s.ci95[0]),y2:y(p.s.ci95[1]),stroke:'#9db7e0','stroke-width':6,'stroke-linecap':'round'}));line+=(line?'L':'M')+x(i)+' '+y(p.s.mean)})
  svg.appendChild(svgEl('path',{d:line,fill:'none',stroke:'#1d4ed8','stroke-width':2}))
  pts.forEach(function(p,i){if(!p)return;var a=svgEl('a',{href:'stored/'+p.r.id});var c=svgEl('circle',{cx:x(i),cy:y(p.s.mean),r:5,fill:p.r.status==='finished'?'#1d4ed8':'#b3261e','data-run':p.r.id});var t=svgEl('title',{});t.textContent=p.r.id+' '+p.r.startedAt+' '+(p.r.branch||'')+' mean '+fmt(p.s.mean)+' n='+p.s.n;c.appendChild(t);a.appendChild(c);svg.appendChild(a)})
  var l=svgEl('text',{x:P,y:14,'font-size':12});l.textContent=id+' ('+fmt(lo)+' – '+fmt(hi)+')';svg.appendChild(l);return svg}
function historyPage(q){where.textContent='history';main.textContent='';var f=el('form');f.id='filters';['branch','tag'].forEach(function(k){var i=el('input');i.name=k;i.placeholder=k;i.value=q[k]||'';i.setAttribute('list',k+'-choices');f.appendChild(i);var d=el('datalist');d.id=k+'-choices';f.appendChild(d)});var b=el('button',null,'filter');f.appendChild(b)
  // the branches and tags of the store's runs, offered in the filters
  get('api/history').then(function(all){var seen={branch:{},tag:{}};all.runs.forEach(function(r){if(r.branch)seen.branch[r.branch]=1;(r.tags||[]).forEach(function(t){seen.tag[t]=1})});['branch','tag'].forEach(function(k){var d=document.getElementById(k+'-choices');Object.keys(seen[k]).sort().forEach(function(v){var o=el('option');o.value=v;d.appendChild(o)})})}).catch(function(){})
  f.addEventListener('submit',function(e){e.preventDefault();location.hash='#/history?branch='+encodeURIComponent(f.branch.value)+'&tag='+encodeURIComponent(f.tag.value)});main.appendChild(f)
  get('api/history?branch='+encodeURIComponent(q.branch||'')+'&tag='+encodeURIComponent(q.tag||'')).then(function(h){
    if(!h.runs.length){main.appendChild(el('p',null,'No runs in the store yet: oxeval run records every run.'));return}
    var runs=h.runs.slice().reverse(),ids=[];runs.forEach(function(r){r.scorers.forEach(function(s){if(ids.indexOf(s.id)<0)ids.push(s.id)})})
    var box=el('div');box.id='charts';ids.forEach(function(id){box.appendChild(chart(id,runs))});main.appendChild(box)
    storedRuns(h.runs)
    return get('api/flaky').then(function(fl){var t=el('table');t.id='flaky';var hr=el('tr');['flaky item','scorer','changes','verdicts (oldest → newest)'].forEach(function(x){hr.appendChild(el('th',null,x))});t.appendChild(hr)
      fl.items.forEach(function(it){var tr=el('tr');[it.item,it.scorer,String(it.flips),it.verdicts.map(function(v){return v==='pass'?'✓':v==='fail'?'✗':v==='error'?'!':'·'}).join('')].forEach(function(x){tr.appendChild(el('td',null,x))});t.appendChild(tr)})
      main.appendChild(el('h3',null,'Flaky items'));main.appendChild(fl.items.length?t:el('p',null,'No item changed its verdict.'))})
  }).catch(function(e){main.appendChild(el('p','bad',String(e.message)))})}
// the store's runs (newest first), any two ticked → their comparison, the older run the base
function storedRuns(runs){main.appendChild(el('h3',null,'Runs'));var bar=el('div');var btn=el('button',null,'Compare the two selected');btn.id='compare-stored';btn.disabled=true;bar.appendChild(btn);main.appendChild(bar)
  var t=el('table');t.id='stored-runs';var h=el('tr','head');['','date','run','branch','tags','status','scorers (mean)'].forEach(function(x){h.appendChild(el('th',null,x))});t.appendChild(h)
  var picked=[],when={}
  runs.forEach(function(r){when[r.id]=String(r.startedAt||'');var tr=el('tr');tr.dataset.run=r.id
    var cb=el('input');cb.type='checkbox';cb.addEventListener('change',function(){if(cb.checked)picked.push(r.id);else picked=picked.filter(function(x){return x!==r.id});btn.disabled=picked.length!==2});var td0=el('td');td0.appendChild(cb);tr.appendChild(td0)
    tr.appendChild(el('td',null,String(r.startedAt||'').replace('T',' ').slice(0,19)))
    var a=el('a',null,r.id);a.href='stored/'+r.id;var td=el('td');td.appendChild(a);tr.appendChild(td)
    tr.appendChild(el('td',null,r.branch||''));tr.appendChild(el('td',null,(r.tags||[]).join(', ')));tr.appendChild(el('td',r.status==='finished'?null:'bad',r.status))
    tr.appendChild(el('td',null,r.scorers.map(function(s){return s.id+' '+fmt(s.mean)}).join(', ')));labels(t,tr);t.appendChild(tr)})
  main.appendChild(t)
  btn.addEventListener('click',function(){var p=picked.slice().sort(function(x,y){return when[x]<when[y]?-1:when[x]>when[y]?1:0});location.hash='#/compare/run:'+p[0]+'/run:'+p[1]})}
function stored(id){location.replace('stored/'+encodeURIComponent(id))}
function route(){var h=decodeURIComponent(location.hash||'#/');var m
  if((m=/^#\\/run\\/(.+)$/.exec(location.hash)))return run(decodeURIComponent(m[1]))
  if((m=/^#\\/stored\\/([0-9a-f]+)$/.exec(location.hash)))return stored(m[1])
  if((m=/^#\\/history(?:\\?(.*))?$/.exec(location.hash))){var q={};(m[1]||'').split('&').forEach(function(kv){var p=kv.split('=');if(p[0])q[p[0]]=decodeURIComponent(p[1]||'')});return historyPage(q)}
  if((m=/^#\\/compare\\/([^/]+)\\/([^/]+)$/.exec(location.hash)))return compare(decodeURIComponent(m[1]),decodeURIComponent(m[2]))
  list()}
addEventListener('hashchange',route);route()
</script></body></html>`

/**
 * Every response's headers: nothing of it for other origins (no CORS header; CORP
 * same-origin), not framed by another site (the run page is framed by the viewer's own list),
 * no sniffing, no referrer, no caching.
 */
const SAFE_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'cross-origin-resource-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'x-frame-options': 'SAMEORIGIN',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'self' 'unsafe-inline' data:; connect-src 'self'; frame-ancestors 'self'",
}

export async function view(argv, io = { stdout: process.stdout }) {
  const { values, positionals } = parseArgs({ args: argv, options: { port: { type: 'string' }, store: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true })
  if (values.help) return { help: true }
  if (positionals.length > 1) throw new UsageError('view takes one folder: oxeval view [DIR]')
  const dir = resolve(positionals[0] ?? '.')
  try {
    if (!statSync(dir).isDirectory()) throw new Error('not a folder')
  } catch {
    throw new UsageError(`view: ${dir} is not a folder`)
  }
  let configPath = null
  try {
    configPath = findConfig(undefined)
  } catch {}
  const store = storeSpec(values, { configPath })
  const port = values.port === undefined ? 7357 : Number(values.port)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be an integer from 0 to 65535; got "${values.port}"`)

  /** A file the listing knows (never a path of the request's choosing). */
  const known = async (name) => {
    const runs = await listRuns(dir)
    const r = runs.find((x) => x.file === name)
    return r ? join(dir, ...r.file.split('/')) : null
  }
  const send = (res, status, type, body) => {
    res.writeHead(status, { 'content-type': type, ...SAFE_HEADERS })
    res.end(body)
  }
  let hosts = new Set()
  const server = createServer(async (req, res) => {
    try {
      // DNS rebinding: a page of another site that resolves its own name to 127.0.0.1 sends
      // its name as Host; only this viewer's own addresses are answered
      if (!hosts.has(String(req.headers.host ?? '').toLowerCase())) return send(res, 421, 'text/plain', 'misdirected request: this viewer answers only http://127.0.0.1:PORT, http://localhost:PORT and http://[::1]:PORT')
      const url = new URL(req.url, 'http://127.0.0.1')
      if (req.method !== 'GET') return send(res, 405, 'text/plain', 'GET only')
      if (url.pathname === '/') return send(res, 200, 'text/html; charset=utf-8', PAGE)
      if (url.pathname === '/api/runs') return send(res, 200, 'application/json', JSON.stringify(await listRuns(dir)))
      if (url.pathname.startsWith('/run/')) {
        const p = await known(decodeURIComponent(url.pathname.slice(5)))
        if (!p) return send(res, 404, 'text/plain', 'no such run')
        let html
        try {
          const r = await readRun(p)
          if (!r) return send(res, 404, 'text/plain', 'not an oxeval --out file')
          const items = r.items.map((it) => slimItem(restoreItem(it)))
          const summary = r.summary ?? { scores: {}, summary: { totalItems: items.length }, outcome: { status: 'failed', passed: false, meaning: 'unfinished: the run did not write its summary', reasons: [] } }
          html = renderHtmlReport({ header: r.header, summary, items, title: `oxeval · ${relative(dir, p)}`, back: { href: '/', label: 'runs' } })
        } catch (e) {
          return send(res, 422, 'text/plain', `unreadable run file ${relative(dir, p)}: ${e && e.message ? e.message : e}`)
        }
        return send(res, 200, 'text/html; charset=utf-8', html)
      }
      if (url.pathname === '/api/history') {
        const q = { kind: 'history', last: 200, branch: url.searchParams.get('branch') || undefined, tag: url.searchParams.get('tag') || undefined }
        return send(res, 200, 'application/json', JSON.stringify(ask(store, q)))
      }
      if (url.pathname === '/api/flaky') return send(res, 200, 'application/json', JSON.stringify(ask(store, { kind: 'flaky' })))
      if (url.pathname.startsWith('/stored/')) {
        const id = decodeURIComponent(url.pathname.slice(8))
        if (!/^[0-9a-f]{1,64}$/.test(id)) return send(res, 404, 'text/plain', 'no such run')
        const file = exportRun(store, id)
        let r
        try {
          r = await readRun(file)
        } finally {
          dropExport(file)
        }
        const items = r.items.map((it) => slimItem(restoreItem(it)))
        const summary = r.summary ?? { scores: {}, summary: { totalItems: items.length }, outcome: { status: 'failed', passed: false, meaning: 'interrupted: the run did not write its summary', reasons: [] } }
        return send(res, 200, 'text/html; charset=utf-8', renderHtmlReport({ header: r.header, summary, items, title: `oxeval · run ${id}`, back: { href: '/#/history', label: 'history' } }))
      }
      if (url.pathname === '/api/compare') {
        // an --out file the listing knows, or run:<id> of the results store (exported, then removed)
        const made = []
        const side = async (name) => {
          const m = /^run:([0-9a-f]{1,64})$/.exec(name)
          if (!m) return known(name)
          const p = exportRun(store, m[1])
          made.push(p)
          return p
        }
        try {
          const a = await side(url.searchParams.get('base') ?? '')
          const b = await side(url.searchParams.get('head') ?? '')
          if (!a || !b) return send(res, 404, 'text/plain', 'no such run')
          return send(res, 200, 'application/json', JSON.stringify(await comparison(a, b, {})))
        } finally {
          for (const p of made) dropExport(p)
        }
      }
      return send(res, 404, 'text/plain', 'not found')
    } catch (e) {
      return send(res, 500, 'text/plain', String(e && e.message ? e.message : e))
    }
  })
  await new Promise((ok, fail) => {
    server.once('error', (e) => fail(e.code === 'EADDRINUSE' ? new UsageError(`view: port ${port} is in use; pick another with --port (0: any free port)`) : e))
    server.listen(port, '127.0.0.1', ok)
  })
  const bound = server.address().port
  hosts = new Set([`127.0.0.1:${bound}`, `localhost:${bound}`, `[::1]:${bound}`])
  io.stdout.write(`oxeval view: http://127.0.0.1:${server.address().port}/ (${dir}; Ctrl-C stops)\n`)
  await new Promise((done) => {
    const stop = () => server.close(() => done())
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
  })
  return { code: 0 }
}
