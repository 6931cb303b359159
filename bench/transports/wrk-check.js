// @ts-check
// One wrk run per transport and profile, beside autocannon's numbers. wrk has no
// pipelining and does not check bodies: it cross-checks throughput and status only.
import { hasWrk, runWrk, WRK_MISSING } from '../lib/wrk.js'
import { entryUrl } from './expected.js'

/**
 * @param {any[]} cases
 * @param {Record<string, any>} flags
 * @param {string} baseUrl
 */
export async function crossCheckWithWrk (cases, flags, baseUrl) {
  if (!(await hasWrk())) {
    process.stderr.write(`${WRK_MISSING}\n`)
    return { tool: 'wrk', skipped: WRK_MISSING, runs: [] }
  }
  const runs = []
  for (const kase of cases) {
    process.stderr.write(`wrk cross-check: ${kase.profile} · ${kase.target} (${flags.duration} s)\n`)
    const result = await runWrk({ url: entryUrl(baseUrl, kase.transport, kase.size, kase.fanout), threads: 2, connections: kase.connections, duration: flags.duration })
    runs.push({ target: kase.target, profile: kase.profile, connections: kase.connections, pipelining: 1, ...result })
  }
  return { tool: 'wrk', note: 'wrk -t2, no pipelining, status checked but not bodies', runs }
}
