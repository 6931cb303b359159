// @ts-check
// Spread across rounds: median with min and max (simple-statistics does the maths).
import { max, median, min } from 'simple-statistics'

/**
 * @param {number[]} values
 * @returns {{ median: number, min: number, max: number, n: number } | null}
 */
export function spread (values) {
  const finite = values.filter((value) => Number.isFinite(value))
  if (finite.length === 0) return null
  return { median: median(finite), min: min(finite), max: max(finite), n: finite.length }
}

/**
 * a / b, or null when either is missing or b is zero.
 * @param {number | null | undefined} a
 * @param {number | null | undefined} b
 */
export function ratio (a, b) {
  if (a == null || b == null || b === 0) return null
  return a / b
}
