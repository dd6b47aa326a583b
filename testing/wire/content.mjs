// Text helpers shared by the wire formats: message contents to text, token estimates, SSE pieces.

/** Normalizes a message `content` (string | parts[] | null) to a string. */
export function contentToString(content) {
  if (content == null) return ''
  if (typeof content === 'string') return content
  if (Array.isArray(content)) {
    return content
      .map((part) => {
        if (typeof part === 'string') return part
        if (part && typeof part.text === 'string') return part.text
        return ''
      })
      .filter((s) => s !== '')
      .join('\n')
  }
  if (typeof content === 'object' && typeof content.text === 'string') return content.text
  return String(content)
}

/** Text of Gemini `parts` (`[{ text }]`). */
export function partsToString(parts) {
  return Array.isArray(parts) ? contentToString(parts) : ''
}

/** Joined text of the `messages` whose role passes `pred`. */
export function joinMessages(messages, pred) {
  return messages
    .filter((m) => pred(m?.role))
    .map((m) => contentToString(m?.content))
    .join('\n')
}

export const estimateTokens = (chars) => Math.ceil(chars / 4)

/** Splits `text` into at most `n` roughly equal pieces on code point boundaries. */
export function splitPieces(text, n) {
  const chars = Array.from(text)
  if (chars.length <= 1) return [text]
  const count = Math.min(n, chars.length)
  const size = Math.ceil(chars.length / count)
  const pieces = []
  for (let i = 0; i < chars.length; i += size) pieces.push(chars.slice(i, i + size).join(''))
  return pieces
}
