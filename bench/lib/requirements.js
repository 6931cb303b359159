// @ts-check
// Starts what the asked-for transports need before the runtime (lib/topology.js
// REQUIREMENTS: e.g. services as separate processes), once per tag, and stops it
// afterwards in reverse order. Transports that run inside the runtime need nothing.
import { REQUIREMENTS, requirementsOf } from '../../lib/topology.js'

/**
 * @param {string[]} transports
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {Promise<{ tags: string[], env: Record<string, string>, stop: () => Promise<void> }>}
 *   env: what the runtime must be started with to reach them
 */
export async function startRequirements (transports, env = process.env) {
  const tags = [...new Set(transports.flatMap((name) => requirementsOf(name).map((r) => r.tag)))]
  /** @type {import('../../lib/topology.js').StartedRequirement[]} */
  const started = []
  /** @type {Record<string, string>} */
  const extraEnv = {}
  const stop = async () => {
    for (const item of started.splice(0).reverse()) await item.stop()
  }
  try {
    for (const tag of tags) {
      const start = REQUIREMENTS[tag]?.start
      if (!start) continue
      const item = await start({ ...env, ...extraEnv })
      started.push(item)
      Object.assign(extraEnv, item.env ?? {})
    }
  } catch (err) {
    await stop()
    throw err
  }
  return { tags, env: extraEnv, stop }
}
