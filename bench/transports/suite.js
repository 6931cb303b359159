// @ts-check
// What bench (transports) and bench:sweep share: what the transports need
// outside the runtime (lib/topology.js `requires`: service processes, a remote
// host), the Watt runtime pointed at them (started, or the user's reused after
// its settings were read and checked), the transport measurement, and the
// baseline when it is measured beside others. They differ only in their flags,
// cases and report.
import { BASELINE_TRANSPORT, SERVICES } from '../../lib/topology.js'
import { UsageError } from '../lib/cli.js'
import { checkOutsideFlags } from '../outside/targets.js'
import { startRequirements } from '../lib/requirements.js'
import { MEASURED_NODE_FLAGS } from '../lib/node-flags.js'
import { startRuntime } from '../lib/runtime.js'
import { removeGeneratedConfigs, runtimeConfigFile } from '../lib/runtime-config.js'
import { describeSettings, expectedSettings, readRuntimeSettings, settingsDiffer } from '../lib/runtime-settings.js'
import { describeRun, num, summaryTable } from '../lib/format.js'
import { measureTransport } from './measure.js'
import { warmupFor } from './plan.js'
import { describeShares, sharesLines } from './worker-shares.js'

/**
 * @typedef {{ transport: string, reason: string }} Skipped
 * @typedef {Awaited<ReturnType<typeof startRequirements>>} Needs
 */

/**
 * Starts what the transports need, then the runtime, or reuses the one already
 * listening: then says so loudly, records its own settings, and refuses (exit 2)
 * when they differ from what a started runtime would get.
 * @param {Record<string, any>} flags  transports, rttMs, serviceHost
 * @returns {Promise<import('../lib/driver.js').Context & { runtimeHandle: import('../lib/runtime.js').Runtime, needs: Needs, transports: string[], skipped: Skipped[] }>}
 */
export async function openRuntime (flags) {
  const rttMs = flags.rttMs ?? 0.25
  await checkOutsideFlags({ rttMs, serviceHost: flags.serviceHost })
  const workers = flags.workers ?? 1
  const configFileFor = (/** @type {string} */ base) => runtimeConfigFile(base, { workers })
  const needs = await startRequirements(flags.transports, process.env, { rttMs, serviceHost: flags.serviceHost, removeImages: flags.removeImages, configFileFor, nodeFlags: MEASURED_NODE_FLAGS })
  /** @type {import('../lib/runtime.js').Runtime | undefined} */
  let runtime
  const stop = async () => {
    await runtime?.stop()
    await needs.stop()
    removeGeneratedConfigs()
  }
  try {
    /** @type {Skipped[]} */
    const skipped = [...needs.skipped]
    for (const { reason } of skipped) process.stderr.write(`${reason}\n`)
    if (needs.tags.length) process.stderr.write(`started first for ${flags.transports.join(', ')}: ${needs.tags.join(', ')}\n`)
    const nothingLeft = () => new UsageError(`nothing left to run: ${skipped.map((s) => s.reason).join('; ')}`)
    if (flags.transports.every((/** @type {string} */ t) => skipped.some((s) => s.transport === t))) throw nothingLeft()
    // Room for a loaded 2-core box: with the service processes and the namespace up beside
    // it, Watt's five workers were seen taking over a minute to answer under load.
    runtime = await startRuntime({ env: needs.env, readyTimeoutMs: 150_000, configFile: configFileFor('watt.json'), nodeFlags: MEASURED_NODE_FLAGS })
    const url = runtime.url
    /** @type {import('../lib/runtime-settings.js').RuntimeSettings} */
    let settings
    if (runtime.started) {
      settings = await readRuntimeSettings(runtime)
      process.stderr.write(`started the runtime (pid ${runtime.pid}) at ${url}: ${describeSettings(settings)}\n`)
    } else {
      settings = await readRuntimeSettings(runtime).catch((err) => {
        throw new UsageError(`a runtime already listens at ${url}, and its settings cannot be read (${err.message}): stop it, or set PORT and the other ports to let the bench start its own`)
      })
      const banner = '!'.repeat(78)
      // Flags only matter to a runtime left idle between runs (node-flags.js): said, and recorded, not refused.
      const flagsNote = sameFlags(settings.nodeFlags, MEASURED_NODE_FLAGS) ? '' : `\n!! It was not started with the Node flags the bench gives its own targets (${MEASURED_NODE_FLAGS.join(' ')}).`
      process.stderr.write(`${banner}\n!! REUSING the runtime already listening at ${url} (pid ${settings.pid}), not starting one.\n!! Its settings: ${describeSettings(settings)}${flagsNote}\n${banner}\n`)
      const differences = [
        ...settingsDiffer(settings, expectedSettings({ ...process.env, ...needs.env })),
        ...SERVICES.filter((s) => settings.workers[s.name] !== workers).map((s) => `${s.name} runs ${settings.workers[s.name]} worker(s), --workers ${workers} was asked`)
      ]
      if (differences.length) {
        throw new UsageError(`refusing to measure the runtime at ${url}: ${differences.join('; ')}. Restart it with the same settings, or stop it and let the bench start its own.`)
      }
      // A runtime someone else started does not know where our targets listen.
      // (A runtime of the bench's own, mesh-port's, does.)
      for (const transport of Object.keys(needs.about).filter((t) => !needs.runtimeFor(t))) {
        const reason = `${transport} skipped: the runtime at ${url} was started elsewhere and does not know where its targets listen (stop it and let the bench start one)`
        skipped.push({ transport, reason })
        process.stderr.write(`${reason}\n`)
      }
    }
    const transports = flags.transports.filter((/** @type {string} */ t) => !skipped.some((s) => s.transport === t))
    if (transports.length === 0) throw nothingLeft()
    for (const [transport, about] of Object.entries(needs.about)) {
      if (transports.includes(transport)) process.stderr.write(`${transport}: ${about.placement}${about.emulation ? `, RTT ${about.rttMs ?? '(real)'} ms emulated by ${about.emulation}` : ''}\n`)
    }
    return { runtimeHandle: runtime, runtime: settings, needs, transports, skipped, stop }
  } catch (err) {
    await stop()
    throw err
  }
}

/** @param {string[] | null} actual @param {readonly string[]} wanted */
function sameFlags (actual, wanted) {
  return actual !== null && actual.length === wanted.length && actual.every((flag, i) => flag === wanted[i])
}

/** @param {{ placement: string, emulation?: string, rttMs?: number | null, path?: string }} about */
function placement (about) {
  return `${about.placement}${about.emulation ? `; RTT ${about.rttMs ?? '(a real network)'} ms, emulated by ${about.emulation}` : ''}${about.path ? `; path: ${about.path}` : ''}`
}

/**
 * @param {string[]} transports
 * @returns {string | undefined} ratios against the baseline only when it is measured beside something else
 */
function baselineOf (transports) {
  return transports.includes(BASELINE_TRANSPORT) && transports.length > 1 ? BASELINE_TRANSPORT : undefined
}

/**
 * @param {{ name: string, command: string, description: string, flags: Record<string, import('../lib/cli.js').FlagSpec>,
 *   cases: (flags: Record<string, any>) => import('../lib/types.js').Case[],
 *   report: (result: any) => import('../lib/report.js').Report,
 *   crossCheck?: import('../lib/driver.js').Suite['crossCheck'],
 *   phaseOf?: import('../lib/driver.js').Plan['phaseOf'] }} spec
 * @returns {import('../lib/driver.js').Suite}
 */
export function transportSuite ({ name, command, description, flags, cases, report, crossCheck, phaseOf }) {
  return {
    name,
    command,
    description,
    flags,
    usesWrk: Boolean(crossCheck),
    plan: (flags) => ({
      cases: cases(flags),
      rounds: flags.rounds,
      secondsPerCase: flags.duration + flags.warmup + 1,
      baseline: baselineOf(flags.transports),
      ...(phaseOf ? { phaseOf } : {})
    }),
    setup: (flags) => openRuntime(flags),
    // Transports whose targets could not be made here are left out, and recorded as skipped.
    afterSetup: (plan, context) => ({
      ...plan,
      cases: plan.cases.filter((kase) => context.transports.includes(kase.transport)),
      baseline: baselineOf(context.transports),
      config: { ...plan.config, transports: context.transports, outside: { about: context.needs.about, skipped: context.skipped } }
    }),
    measure: (kase, { round, progress, flags, context }) => measureTransport(kase, { ...flags, warmup: warmupFor(round, flags), transports: context.transports }, context.runtimeHandle, progress, context.needs),
    // Under the table: where the outside transports' services ran, and the RTT.
    afterRuns: (result) => {
      for (const [transport, about] of Object.entries(result.config.outside?.about ?? {})) {
        if (result.config.transports.includes(transport)) process.stdout.write(`${transport}: ${placement(about)}\n`)
      }
    },
    // one line per run: how long the entry stood in line for a core, and each
    // downstream worker's share of the calls when there are several
    describe: (run) => {
      const shares = describeShares(run.workerCalls)
      const waited = run.ok ? run.resources?.coreWait?.entryPercent : undefined
      return `${describeRun(run)}${waited != null ? `, entry waited for a core ${num(waited, 0)}%` : ''}${shares ? `; calls per worker: ${shares}` : ''}`
    },
    // the closing table, and with --workers N how each target's calls spread
    renderTable: (result) => [summaryTable(result.summary, baselineOf(result.config.transports)), sharesLines(result)].filter(Boolean).join('\n'),
    report,
    ...(crossCheck ? { crossCheck } : {})
  }
}
