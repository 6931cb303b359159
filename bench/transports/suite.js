// @ts-check
// Runs transport cases on the Watt runtime: start what the transports outside
// the runtime need (service processes, the remote host), start the runtime (or
// reuse the user's) pointed at them, the shared runner with the transport
// measurement and the tcp baseline, then stop everything.
// bench (transports) and bench:sweep differ only in their cases and reports.
import { UsageError } from '../lib/cli.js'
import { checkOutsideFlags, startOutsideTargets } from '../lib/outside-targets.js'
import { startRuntime } from '../lib/runtime.js'
import { runSuite } from '../lib/suite.js'
import { measureTransport } from './measure.js'

/**
 * @param {object} options
 * @param {string} options.suite
 * @param {Record<string, any>} options.flags   duration, warmup, rounds, transports, allowErrors, failFast, rttMs, serviceHost
 * @param {import('../lib/suite.js').Case[]} options.cases
 * @param {string} options.out
 * @param {(result: any, path: string, runtime: import('../lib/runtime.js').Runtime) => Promise<void> | void} options.onComplete
 */
export async function runTransportSuite ({ suite, flags, cases, out, onComplete }) {
  const rttMs = flags.rttMs ?? 0.25
  await checkOutsideFlags({ rttMs, serviceHost: flags.serviceHost })
  const outside = await startOutsideTargets(flags.transports, { rttMs, serviceHost: flags.serviceHost })
  try {
    const skipped = [...outside.skipped]
    for (const { reason } of outside.skipped) process.stderr.write(`${reason}\n`)
    if (outside.transports.length === 0) throw new UsageError(`nothing left to run: ${skipped.map((s) => s.reason).join('; ')}`)
    let runtime = await startRuntime({ env: outside.env })
    process.stderr.write(runtime.started ? `started the runtime (pid ${runtime.pid}) at ${runtime.url}\n` : `using the runtime already listening at ${runtime.url}\n`)
    if (!runtime.started && Object.keys(outside.env).length > 0) {
      // A runtime someone else started does not know where our targets listen.
      for (const transport of Object.keys(outside.about)) {
        const reason = `${transport} skipped: the runtime at ${runtime.url} was started elsewhere and does not know where its targets listen (stop it and let the bench start one)`
        skipped.push({ transport, reason })
        process.stderr.write(`${reason}\n`)
      }
    }
    const transports = flags.transports.filter((/** @type {string} */ t) => !skipped.some((s) => s.transport === t))
    if (transports.length === 0) {
      await runtime.stop()
      throw new UsageError(`nothing left to run: ${skipped.map((s) => s.reason).join('; ')}`)
    }
    for (const [transport, about] of Object.entries(outside.about)) {
      if (transports.includes(transport)) process.stderr.write(`${transport}: ${about.placement}${about.emulation ? `, RTT ${about.rttMs ?? '(real)'} ms emulated by ${about.emulation}` : ''}\n`)
    }
    const kept = cases.filter((kase) => transports.includes(kase.transport))
    const runFlags = { ...flags, transports }
    try {
      return await runSuite({
        suite,
        config: { ...flags, out, transports, outside: { about: outside.about, skipped } },
        cases: kept,
        rounds: flags.rounds,
        secondsPerCase: flags.duration + flags.warmup + 1,
        baseline: transports.includes('tcp') && transports.length > 1 ? 'tcp' : undefined,
        out,
        allowErrors: flags.allowErrors,
        failFast: flags.failFast,
        measure: (kase, { progress }) => measureTransport(kase, runFlags, runtime, progress, outside),
        onComplete: (result, path) => onComplete(result, path, runtime)
      })
    } finally {
      await runtime.stop()
      runtime = /** @type {any} */ (null)
    }
  } finally {
    await outside.stop()
  }
}
