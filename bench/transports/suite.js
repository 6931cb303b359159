// @ts-check
// What bench (transports) and bench:sweep share: what the transports need
// outside the runtime (lib/topology.js `requires`), the Watt runtime (started,
// or the user's reused after its settings were read and checked), the transport
// measurement, and the baseline when it is measured beside others. They differ
// only in their flags, cases and report.
import { BASELINE_TRANSPORT } from '../../lib/topology.js'
import { UsageError } from '../lib/cli.js'
import { startRequirements } from '../lib/requirements.js'
import { startRuntime } from '../lib/runtime.js'
import { describeSettings, expectedSettings, readRuntimeSettings, settingsDiffer } from '../lib/runtime-settings.js'
import { measureTransport } from './measure.js'

/**
 * Starts the runtime, or reuses the one already listening: then says so loudly,
 * records its own settings, and refuses (exit 2) when they differ from what a
 * started runtime would get.
 * @param {string[]} transports
 * @returns {Promise<import('../lib/driver.js').Context & { runtimeHandle: import('../lib/runtime.js').Runtime }>}
 */
export async function openRuntime (transports) {
  const needs = await startRequirements(transports)
  if (needs.tags.length) process.stderr.write(`started first for ${transports.join(', ')}: ${needs.tags.join(', ')}\n`)
  /** @type {import('../lib/runtime.js').Runtime | undefined} */
  let runtime
  const stop = async () => {
    await runtime?.stop()
    await needs.stop()
  }
  try {
    runtime = await startRuntime({ env: needs.env })
    if (runtime.started) {
      const settings = await readRuntimeSettings(runtime)
      process.stderr.write(`started the runtime (pid ${runtime.pid}) at ${runtime.url}: ${describeSettings(settings)}\n`)
      return { runtimeHandle: runtime, runtime: settings, stop }
    }
    const url = runtime.url
    const settings = await readRuntimeSettings(runtime).catch((err) => {
      throw new UsageError(`a runtime already listens at ${url}, and its settings cannot be read (${err.message}): stop it, or set PORT and the other ports to let the bench start its own`)
    })
    const banner = '!'.repeat(78)
    process.stderr.write(`${banner}\n!! REUSING the runtime already listening at ${url} (pid ${settings.pid}), not starting one.\n!! Its settings: ${describeSettings(settings)}\n${banner}\n`)
    const differences = settingsDiffer(settings, expectedSettings({ ...process.env, ...needs.env }))
    if (differences.length) {
      throw new UsageError(`refusing to measure the runtime at ${url}: ${differences.join('; ')}. Restart it with the same settings, or stop it and let the bench start its own.`)
    }
    return { runtimeHandle: runtime, runtime: settings, stop }
  } catch (err) {
    await stop()
    throw err
  }
}

/**
 * @param {{ name: string, command: string, description: string, flags: Record<string, import('../lib/cli.js').FlagSpec>,
 *   cases: (flags: Record<string, any>) => import('../lib/types.js').Case[],
 *   report: (result: any) => import('../lib/report.js').Report,
 *   crossCheck?: import('../lib/driver.js').Suite['crossCheck'] }} spec
 * @returns {import('../lib/driver.js').Suite}
 */
export function transportSuite ({ name, command, description, flags, cases, report, crossCheck }) {
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
      // ratios against the baseline only when it is measured beside something else
      baseline: flags.transports.includes(BASELINE_TRANSPORT) && flags.transports.length > 1 ? BASELINE_TRANSPORT : undefined
    }),
    setup: (flags) => openRuntime(flags.transports),
    measure: (kase, { progress, flags, context }) => measureTransport(kase, flags, context.runtimeHandle, progress),
    report,
    ...(crossCheck ? { crossCheck } : {})
  }
}
