'use strict'
// JS values as JSON text for the core: the type names its messages use (jsType), and JSON text
// with lone UTF-16 surrogates replaced (Rust text cannot hold them).

function jsType(v) {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v
}

function wellFormed(_key, value) {
  // Lone UTF-16 surrogates cannot cross into Rust as text: replace them with U+FFFD.
  return typeof value === 'string' && !value.isWellFormed() ? value.toWellFormed() : value
}

/** JSON text of `value` (lone surrogates replaced), or `{ error }` when it has none. */
function toJson(value) {
  try {
    // Fast path: JSON.stringify escapes a lone surrogate as \udXXX, which Rust cannot
    // decode, so only text containing such an escape takes the replacer path.
    const json = JSON.stringify(value)
    if (json === undefined || !/\\u[dD][89a-fA-F]/.test(json)) return { json }
    return { json: JSON.stringify(value, wellFormed) }
  } catch (e) {
    return { error: e && e.message ? e.message : String(e) }
  }
}

module.exports = { jsType, wellFormed, toJson }
