// @ts-check
// A seeded 32-bit generator (mulberry32): integer maths only, so every machine
// and Node version draws the same sequence and the dataset's bytes never drift.

/**
 * @param {number} seed  any 32-bit integer
 * @returns {() => number} next unsigned 32-bit integer
 */
export function mulberry32 (seed) {
  let state = seed >>> 0
  return function next () {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return (t ^ (t >>> 14)) >>> 0
  }
}
