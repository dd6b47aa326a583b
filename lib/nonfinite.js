'use strict'
// Numbers JSON cannot carry (Infinity, -Infinity, NaN), for the scorers that take them as
// Mastra's do (the registry's `nonFinite` flag; today the trajectory code scorer): each
// crosses as `{ "$nonFinite": "Infinity" }` and the core reads it (options.rs non_finite).
// Every other scorer still gets a TypeError naming the option (describe.js).

const KEY = '$nonFinite'

/** The stand-in for a non-finite number, else the value as it is (a JSON.stringify replacer). */
function encodeReplacer(_key, value) {
  return typeof value === 'number' && !Number.isFinite(value) ? { [KEY]: String(value) } : value
}

/** Whether `value` holds a non-finite number anywhere (plain data only; bounded by depth). */
function hasNonFinite(value, depth = 0) {
  if (typeof value === 'number') return !Number.isFinite(value)
  if (value === null || typeof value !== 'object' || depth > 64) return false
  for (const v of Array.isArray(value) ? value : Object.values(value)) if (hasNonFinite(v, depth + 1)) return true
  return false
}

/** `value` with its non-finite numbers as stand-ins (a copy through JSON; `value` unchanged). */
function encode(value) {
  return hasNonFinite(value) ? JSON.parse(JSON.stringify(value, encodeReplacer)) : value
}

/** The stand-ins in `value` (from the core) back as numbers, in place. */
function revive(value, depth = 0) {
  if (value === null || typeof value !== 'object' || depth > 64) return value
  const keys = Object.keys(value)
  if (keys.length === 1 && keys[0] === KEY && typeof value[KEY] === 'string') return Number(value[KEY])
  for (const k of keys) value[k] = revive(value[k], depth + 1)
  return value
}

module.exports = { encodeReplacer, encode, revive }
