// Progress on stderr while a run goes: a live bar (cli-progress) when stderr is a terminal,
// plain lines otherwise (every `intervalMs` and once at the end), so CI logs stay readable.
import cliProgress from 'cli-progress'

function duration(s) {
  if (!Number.isFinite(s)) return '?'
  if (s < 60) return `${Math.round(s)}s`
  if (s < 3600) return `${Math.floor(s / 60)}m${String(Math.round(s % 60)).padStart(2, '0')}s`
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`
}

export class Progress {
  /**
   * @param {number} total items to run
   * @param {{ stream?: NodeJS.WriteStream, tty?: boolean, intervalMs?: number, enabled?: boolean }} [o]
   */
  constructor(total, o = {}) {
    this.total = total
    this.done = 0
    this.errors = 0
    this.stream = o.stream || process.stderr
    this.tty = o.tty ?? Boolean(this.stream.isTTY)
    this.enabled = o.enabled ?? true
    this.t0 = Date.now()
    if (!this.enabled) return
    if (this.tty) {
      this.bar = new cliProgress.SingleBar(
        {
          stream: this.stream,
          format: 'oxeval {bar} {value}/{total} | {rate}/s | ETA {etaText} | errors {errors}{batchText}',
          hideCursor: true,
          barsize: 30,
          fps: 10,
        },
        cliProgress.Presets.shades_classic,
      )
      this.bar.start(total, 0, this.payload())
    } else {
      this.timer = setInterval(() => this.line(), o.intervalMs ?? 2000)
      this.timer.unref()
    }
  }
  rate() {
    const secs = (Date.now() - this.t0) / 1000
    return secs > 0 ? this.done / secs : 0
  }
  payload() {
    const rate = this.rate()
    return { rate: rate.toFixed(1), etaText: rate > 0 ? duration((this.total - this.done) / rate) : '?', errors: this.errors, batchText: this.batchText ?? '' }
  }
  /** Batch mode: the current stage's lines and its batches' statuses (runEvals' batch.onProgress). */
  batch(p) {
    const stage = p.stages.length ? p.stages[p.stages.length - 1] : null
    const statuses = stage ? [...new Set(stage.batches.map((b) => b.status))].join(',') : ''
    this.batchText = stage
      ? ` | ${stage.stage === 0 ? 'resumed batches' : `batch stage ${stage.stage}`}: ${stage.completed}/${stage.lines} answered, ${stage.failed} failed (${statuses})${p.queued ? `, ${p.queued} queued` : ''}`
      : p.queued
        ? ` | batch: ${p.queued} queued`
        : ''
    if (this.bar) this.bar.update(this.done, this.payload())
  }
  /** One item finished (`failed`: it has an error). */
  tick(failed) {
    this.done += 1
    if (failed) this.errors += 1
    if (this.bar) this.bar.update(this.done, this.payload())
  }
  line(final = false) {
    const p = this.payload()
    const eta = final ? `${duration((Date.now() - this.t0) / 1000)} elapsed` : `ETA ${p.etaText}`
    this.stream.write(`oxeval: ${this.done}/${this.total} items (${p.rate}/s, ${eta}, ${this.errors} with errors)${p.batchText}\n`)
  }
  stop() {
    if (!this.enabled) return
    if (this.bar) {
      this.bar.update(this.done, this.payload())
      this.bar.stop()
    } else {
      clearInterval(this.timer)
      this.line(true)
    }
    this.enabled = false
  }
}
