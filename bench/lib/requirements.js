// @ts-check
// Starts what the asked-for transports need before the runtime (lib/topology.js
// REQUIREMENTS names it; bench/outside/targets.js STARTERS start it: e.g. services
// as separate processes), once per tag, and stops it afterwards in reverse order. Transports that run inside the runtime need nothing.
// A requirement may skip transports it cannot provide here (with the reason),
// say what it started, and measure its processes' CPU.
import { requirementsOf } from '../../lib/topology.js'
import { STARTERS } from '../outside/targets.js'

/**
 * @param {string[]} transports
 * @param {NodeJS.ProcessEnv} [env]
 * @param {Record<string, any>} [options]  the bench's flags for the requirements (rttMs, serviceHost)
 * @param {Readonly<Record<string, import('../outside/targets.js').Starter>>} [starters]  by tag (tests pass their own)
 * @returns {Promise<{
 *   tags: string[], env: Record<string, string>, stop: () => Promise<void>,
 *   skipped: { transport: string, reason: string }[], about: Record<string, any>,
 *   cpuSeconds: (transport: string) => import('../outside/targets.js').OutsideCpu | null,
 *   setRtt: (rttMs: number) => Promise<void>,
 *   runtimeFor: (transport: string) => { url: string, metricsUrl: string } | null,
 *   faultsOf: (transport: string) => import('../outside/targets.js').ServiceFaults | null
 * }>}
 *   env: what the runtime must be started with to reach them
 */
export async function startRequirements (transports, env = process.env, options = {}, starters = STARTERS) {
  const tags = [...new Set(transports.flatMap((name) => requirementsOf(name).map((r) => r.tag)))]
  /** @type {import('../outside/targets.js').StartedRequirement[]} */
  const started = []
  /** @type {Record<string, string>} */
  const extraEnv = {}
  const stop = async () => {
    for (const item of started.splice(0).reverse()) await item.stop()
  }
  try {
    for (const tag of tags) {
      const start = starters[tag]
      if (!start) continue
      const mine = transports.filter((name) => requirementsOf(name).some((r) => r.tag === tag))
      const item = await start({ ...env, ...extraEnv }, { ...options, transports: mine })
      started.push(item)
      Object.assign(extraEnv, item.env ?? {})
    }
  } catch (err) {
    await stop()
    throw err
  }
  const all = [...started]
  return {
    tags,
    env: extraEnv,
    stop,
    skipped: all.flatMap((item) => item.skipped ?? []),
    about: Object.assign({}, ...all.map((item) => item.about ?? {})),
    cpuSeconds: (transport) => {
      for (const item of all) {
        const cpu = item.cpuSeconds?.(transport)
        if (cpu) return cpu
      }
      return null
    },
    runtimeFor: (transport) => {
      for (const item of all) {
        const runtime = item.runtimeFor?.(transport)
        if (runtime) return runtime
      }
      return null
    },
    setRtt: async (rttMs) => { for (const item of all) await item.setRtt?.(rttMs) },
    faultsOf: (transport) => {
      for (const item of all) {
        const faults = item.faultsOf?.(transport)
        if (faults) return faults
      }
      return null
    }
  }
}
