// @ts-check
// Runs transport cases on the Watt runtime: start what the transports need
// outside it (lib/topology.js `requires`: service processes, a remote host),
// start the runtime (or reuse the user's) pointed at them, the shared runner with
// the transport measurement and the baseline, then stop everything.
// bench (transports) and bench:sweep differ only in their cases and reports.
import { BASELINE_TRANSPORT } from '../../lib/topology.js'
import { UsageError } from '../lib/cli.js'
import { checkOutsideFlags } from '../lib/outside-targets.js'
import { startRequirements } from '../lib/requirements.js'
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
  // What the transports need outside the runtime starts first.
  const needs = await startRequirements(flags.transports, process.env, { rttMs, serviceHost: flags.serviceHost })
  try {
    const skipped = [...needs.skipped]
    for (const { reason } of skipped) process.stderr.write(`${reason}\n`)
    if (needs.tags.length) process.stderr.write(`started first: ${needs.tags.join(', ')}\n`)
    if (flags.transports.every((/** @type {string} */ t) => skipped.some((s) => s.transport === t))) {
      throw new UsageError(`nothing left to run: ${skipped.map((s) => s.reason).join('; ')}`)
    }
    // Room for a loaded 2-core box: with the service processes and the namespace up beside
    // it, Watt's five workers were seen taking over a minute to answer under load.
    const runtime = await startRuntime({ env: needs.env, readyTimeoutMs: 150_000 })
    process.stderr.write(runtime.started ? `started the runtime (pid ${runtime.pid}) at ${runtime.url}\n` : `using the runtime already listening at ${runtime.url}\n`)
    try {
      if (!runtime.started && Object.keys(needs.env).length > 0) {
        // A runtime someone else started does not know where our targets listen.
        for (const transport of Object.keys(needs.about)) {
          const reason = `${transport} skipped: the runtime at ${runtime.url} was started elsewhere and does not know where its targets listen (stop it and let the bench start one)`
          skipped.push({ transport, reason })
          process.stderr.write(`${reason}\n`)
        }
      }
      const transports = flags.transports.filter((/** @type {string} */ t) => !skipped.some((s) => s.transport === t))
      if (transports.length === 0) throw new UsageError(`nothing left to run: ${skipped.map((s) => s.reason).join('; ')}`)
      for (const [transport, about] of Object.entries(needs.about)) {
        if (transports.includes(transport)) process.stderr.write(`${transport}: ${about.placement}${about.emulation ? `, RTT ${about.rttMs ?? '(real)'} ms emulated by ${about.emulation}` : ''}\n`)
      }
      const runFlags = { ...flags, transports }
      return await runSuite({
        suite,
        config: { ...flags, out, transports, outside: { about: needs.about, skipped } },
        cases: cases.filter((kase) => transports.includes(kase.transport)),
        rounds: flags.rounds,
        secondsPerCase: flags.duration + flags.warmup + 1,
        baseline: transports.includes(BASELINE_TRANSPORT) && transports.length > 1 ? BASELINE_TRANSPORT : undefined,
        out,
        allowErrors: flags.allowErrors,
        failFast: flags.failFast,
        measure: (kase, { progress }) => measureTransport(kase, runFlags, runtime, progress, needs),
        onComplete: (result, path) => {
          // Under the table: where the outside transports' services ran, and the RTT.
          for (const [transport, about] of Object.entries(needs.about)) {
            if (!transports.includes(transport)) continue
            process.stdout.write(`${transport}: ${about.placement}${about.emulation ? `; RTT ${about.rttMs ?? '(a real network)'} ms, emulated by ${about.emulation}` : ''}\n`)
          }
          return onComplete(result, path, runtime)
        }
      })
    } finally {
      await runtime.stop()
    }
  } finally {
    await needs.stop()
  }
}
