// @ts-check
// A small seeded generator (mulberry32): the same seed gives the same requests,
// so a failing fuzz run can be replayed exactly with --seed.

/**
 * @param {number} seed
 */
export function createRandom (seed) {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const random = {
    next,
    /** integer from min to max, both included @param {number} min @param {number} max */
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    /** @template T @param {readonly T[]} items @returns {T} */
    pick: (items) => items[Math.floor(next() * items.length)],
    /** @param {number} probability */
    chance: (probability) => next() < probability,
    /** @param {number} length @param {string} [alphabet] */
    string: (length, alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~') => {
      let out = ''
      for (let i = 0; i < length; i++) out += alphabet[Math.floor(next() * alphabet.length)]
      return out
    },
    /**
     * Picks by weight: [[weight, value], …].
     * @template T @param {[number, T][]} table @returns {T}
     */
    weighted: (table) => {
      const total = table.reduce((sum, [weight]) => sum + weight, 0)
      let roll = next() * total
      for (const [weight, value] of table) {
        roll -= weight
        if (roll < 0) return value
      }
      return table[table.length - 1][1]
    }
  }
  return random
}

/** @typedef {ReturnType<typeof createRandom>} Random */
