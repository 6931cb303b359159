// @ts-check
// Before the first measured run, the machine should be doing nothing but what is measured.
// What a suite's setup starts (runtimes, service processes, containers, a Docker engine)
// may go on working for a while after it reports ready (D-quiet-machine). This waits
// until the whole machine's CPU use, from /proc/stat, stays low for a few seconds, or
// gives up after a limit and says so. A guard, not a cure for a slow first round.
import { readFileSync } from 'node:fs'
import os from 'node:os'
import { setTimeout as sleep } from 'node:timers/promises'

/** Busy cores at most, in every window, for the machine to count as quiet. */
export const QUIET_BUSY_CORES = 0.3

/**
 * @typedef {{ busy: number, total: number }} CpuTimes  jiffies since boot, all CPUs
 * @typedef {{ quiet: boolean | null, waitedMs: number, busyCores: number | null, reason?: string }} QuietResult
 *   quiet: null where the machine's CPU use cannot be read (no /proc/stat)
 */

/**
 * The first line of /proc/stat: user nice system idle iowait irq softirq steal.
 * @param {string} [text]
 * @returns {CpuTimes | null}
 */
export function cpuTimes (text) {
  let stat = text
  try {
    stat ??= readFileSync('/proc/stat', 'utf8')
  } catch {
    return null
  }
  const fields = /^cpu\s+(.*)$/m.exec(stat)?.[1].trim().split(/\s+/).slice(0, 8).map(Number)
  if (!fields || fields.length < 5 || fields.some((n) => !Number.isFinite(n))) return null
  const total = fields.reduce((sum, n) => sum + n, 0)
  return { busy: total - fields[3] - fields[4], total }
}

/**
 * How many cores were busy between two readings.
 * @param {CpuTimes} before
 * @param {CpuTimes} after
 * @param {number} cores
 */
export function busyCores (before, after, cores) {
  const total = after.total - before.total
  return total > 0 ? ((after.busy - before.busy) / total) * cores : 0
}

/**
 * Resolves once `windows` one-second readings in a row had at most `maxBusyCores` busy,
 * or after `timeoutMs` (quiet: false).
 * @param {{ timeoutMs: number, maxBusyCores?: number, windows?: number, windowMs?: number, onWindow?: (busyCores: number) => void, read?: () => CpuTimes | null }} options
 *   read: where the readings come from (tests)
 * @returns {Promise<QuietResult>}
 */
export async function waitForQuietMachine ({ timeoutMs, maxBusyCores = QUIET_BUSY_CORES, windows = 3, windowMs = 1000, onWindow, read = () => cpuTimes() }) {
  const started = Date.now()
  let before = read()
  if (!before) return { quiet: null, waitedMs: 0, busyCores: null, reason: 'no /proc/stat to read the machine\'s CPU use from' }
  const cores = os.availableParallelism()
  let inARow = 0
  let busy = 0
  while (true) {
    await sleep(windowMs)
    const after = read()
    if (!after) return { quiet: null, waitedMs: Date.now() - started, busyCores: null, reason: '/proc/stat could not be read' }
    busy = busyCores(before, after, cores)
    before = after
    onWindow?.(busy)
    inARow = busy <= maxBusyCores ? inARow + 1 : 0
    if (inARow >= windows) return { quiet: true, waitedMs: Date.now() - started, busyCores: busy }
    if (Date.now() - started >= timeoutMs) return { quiet: false, waitedMs: Date.now() - started, busyCores: busy }
  }
}
