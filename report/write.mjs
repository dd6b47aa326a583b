// Writing a report as a stream of text chunks: flat memory whatever the run's size; a write
// error (disk full, EFBIG) is thrown once the stream reports it.
import { createWriteStream } from 'node:fs'
import { once } from 'node:events'

/** Writes every chunk of `chunks` (an iterable of strings) to `file`. */
export async function writeChunks(file, chunks) {
  const out = createWriteStream(file)
  let failed = null
  out.on('error', (e) => {
    failed = e
  })
  for (const chunk of chunks) {
    if (failed) throw failed
    if (!out.write(chunk)) await once(out, 'drain')
  }
  out.end()
  if (!failed) await once(out, 'finish').catch((e) => (failed = failed || e))
  if (failed) throw failed
}
