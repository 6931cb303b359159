// @ts-check
// Runs transport cases on the Watt runtime: start it (or reuse the user's), the
// shared runner with the transport measurement and the tcp baseline, stop it.
// bench (transports) and bench:sweep differ only in their cases and reports.
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
  const runtime = await startRuntime()
  process.stderr.write(runtime.started ? `started the runtime (pid ${runtime.pid}) at ${runtime.url}\n` : `using the runtime already listening at ${runtime.url}\n`)
  try {
    return await runSuite({
      suite,
      config: { ...flags, out },
      cases,
      rounds: flags.rounds,
      secondsPerCase: flags.duration + flags.warmup + 1,
      baseline: flags.transports.includes('tcp') && flags.transports.length > 1 ? 'tcp' : undefined,
      out,
      allowErrors: flags.allowErrors,
      failFast: flags.failFast,
      measure: (kase, { progress }) => measureTransport(kase, flags, runtime, progress),
      onComplete: (result, path) => onComplete(result, path, runtime)
    })
  } finally {
    await runtime.stop()
  }
}
