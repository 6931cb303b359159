// @ts-check
// Runs transport cases on the Watt runtime: start it (or reuse the user's), the
// shared runner with the transport measurement and the tcp baseline, stop it.
// bench (transports) and bench:sweep differ only in their cases and reports.
import { BASELINE_TRANSPORT } from '../../lib/topology.js'
import { startRequirements } from '../lib/requirements.js'
import { startRuntime } from '../lib/runtime.js'
import { runSuite } from '../lib/suite.js'
import { measureTransport } from './measure.js'

/**
 * @param {object} options
 * @param {string} options.suite
 * @param {Record<string, any>} options.flags   duration, warmup, rounds, transports, allowErrors, failFast
 * @param {import('../lib/suite.js').Case[]} options.cases
 * @param {string} options.out
 * @param {(result: any, path: string, runtime: import('../lib/runtime.js').Runtime) => Promise<void> | void} options.onComplete
 */
export async function runTransportSuite ({ suite, flags, cases, out, onComplete }) {
  // What the transports need outside the runtime (lib/topology.js `requires`) starts first.
  const needs = await startRequirements(flags.transports)
  if (needs.tags.length) process.stderr.write(`started first for ${flags.transports.join(', ')}: ${needs.tags.join(', ')}\n`)
  let runtime
  try {
    runtime = await startRuntime({ env: needs.env })
  } catch (err) {
    await needs.stop()
    throw err
  }
  process.stderr.write(runtime.started ? `started the runtime (pid ${runtime.pid}) at ${runtime.url}\n` : `using the runtime already listening at ${runtime.url}\n`)
  try {
    return await runSuite({
      suite,
      config: { ...flags, out },
      cases,
      rounds: flags.rounds,
      secondsPerCase: flags.duration + flags.warmup + 1,
      baseline: flags.transports.includes(BASELINE_TRANSPORT) && flags.transports.length > 1 ? BASELINE_TRANSPORT : undefined,
      out,
      allowErrors: flags.allowErrors,
      failFast: flags.failFast,
      measure: (kase, { progress }) => measureTransport(kase, flags, runtime, progress),
      onComplete: (result, path) => onComplete(result, path, runtime)
    })
  } finally {
    await runtime.stop()
    await needs.stop()
  }
}
