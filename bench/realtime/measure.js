// @ts-check
// One run of a realtime case on its path's runtime: the kind decides the measurement.
import { measureClientLeaves } from './client-leaves.js'
import { measureFanout } from './sse-fanout.js'
import { measureEcho } from './ws-echo.js'

/**
 * @typedef {object} RealtimeContext
 * @property {(path: string) => Promise<import('./runtimes.js').PathRuntime>} runtimeFor
 */

/**
 * @param {import('./plan.js').RealtimeCase} kase
 * @param {{ round: number, flags: Record<string, any>, context: RealtimeContext }} options
 * @returns {Promise<import('../lib/types.js').Measurement>}
 */
export async function measureRealtime (kase, { round, flags, context }) {
  const runtime = await context.runtimeFor(kase.path)
  const measured = kase.kind === 'ws'
    ? await measureEcho(kase, { runtime, flags })
    : kase.kind === 'sse'
      ? await measureFanout(kase, { round, runtime, flags })
      : await measureClientLeaves(kase, { round, runtime, flags })
  return { ...measured, runtimePid: runtime.pid }
}
