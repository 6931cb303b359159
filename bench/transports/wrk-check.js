// @ts-check
// One wrk run per transport and profile, beside autocannon's numbers. wrk has no
// pipelining and does not check bodies: it cross-checks throughput and status only.
// Whether it runs at all is the driver's wrk policy (bench/lib/driver.js).
import { runWrk } from '../lib/wrk.js'
import { entryUrl } from './expected.js'

/**
 * @param {import('../lib/types.js').Case[]} cases
 * @param {Record<string, any>} flags
 * @param {(transport: string) => string} baseUrlOf  the entry a transport is measured at (mesh-port: its own runtime's)
 */
export async function crossCheckWithWrk (cases, flags, baseUrlOf) {
  const runs = []
  for (const kase of cases) {
    process.stderr.write(`wrk cross-check: ${kase.profile} · ${kase.target} (${flags.duration} s)\n`)
    const result = await runWrk({ url: entryUrl(baseUrlOf(kase.transport), kase.transport, kase.size, kase.fanout), threads: 2, connections: kase.connections, duration: flags.duration })
    runs.push({ target: kase.target, profile: kase.profile, connections: kase.connections, pipelining: 1, ...result })
  }
  return { tool: 'wrk', note: 'wrk -t2, no pipelining, status checked but not bodies', runs }
}
