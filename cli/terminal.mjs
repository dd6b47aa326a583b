// What the CLI prints to a terminal (stdout summary, stderr messages) comes in part from
// untrusted text: judge reasons, dataset inputs and ids, error messages. `safeText` makes such
// text inert: C0 controls (ESC, CR, BEL, backspace…, DEL), C1 controls (U+0080–U+009F: CSI,
// OSC, NEL…), the line and paragraph separators and the bidi embeddings, overrides and isolates
// (U+202A–U+202E, U+2066–U+2069, plus U+200E/U+200F/U+061C marks) are shown as visible escapes
// (`\x1b`, `\r`, `\u202e`), so nothing can move the cursor, recolour, retitle or rewrite a CI
// log line, or reorder what is read. `\n` is kept only with `{ newlines: true }` (whole messages).
// `io(stream)` wraps process.stdout/stderr so a closed pipe (EPIPE, `oxeval run | head -1`)
// is ignored instead of crashing the run: the outputs on disk still complete.

// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g
// eslint-disable-next-line no-control-regex
const UNSAFE_NL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g
const NAMED = { '\t': '\\t', '\n': '\\n', '\r': '\\r' }

function escapeChar(c) {
  if (NAMED[c]) return NAMED[c]
  const n = c.charCodeAt(0)
  return n < 0x100 ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u${n.toString(16).padStart(4, '0')}`
}

/** `text` with every control, separator and bidi-control character shown as a visible escape. */
export function safeText(text, { newlines = false } = {}) {
  const s = typeof text === 'string' ? text : String(text)
  return s.replace(newlines ? UNSAFE : UNSAFE_NL, escapeChar)
}

/** Whether `e` is a closed-pipe error of a standard stream (the reader went away). */
export function isClosedPipe(e) {
  return Boolean(e) && (e.code === 'EPIPE' || e.code === 'ERR_STREAM_DESTROYED' || e.code === 'ERR_STREAM_WRITE_AFTER_END')
}

/**
 * Makes `stream` (process.stdout / process.stderr) survive a closed pipe: an EPIPE is swallowed
 * and later writes are dropped. Returns the stream. Idempotent.
 */
export function ignoreClosedPipe(stream) {
  if (!stream || stream.__oxevalPipeGuard) return stream
  stream.__oxevalPipeGuard = true
  stream.on('error', (e) => {
    if (isClosedPipe(e)) {
      stream.__oxevalClosed = true
      return
    }
    // any other error of a standard stream: there is nowhere left to report it
    stream.__oxevalClosed = true
  })
  const write = stream.write.bind(stream)
  stream.write = (chunk, ...rest) => {
    if (stream.__oxevalClosed || stream.destroyed) return true
    try {
      return write(chunk, ...rest)
    } catch (e) {
      if (isClosedPipe(e)) {
        stream.__oxevalClosed = true
        return true
      }
      throw e
    }
  }
  return stream
}

/** A stderr line printer for messages that may carry untrusted text: each line neutralised. */
export function sayer(stream) {
  return (s) => stream.write(`${safeText(s, { newlines: true })}\n`)
}
