// @ts-check
// The verified load from another machine or pod (deploy/k8s/load-job.yaml):
// autocannon against an entry given explicitly with --entry, every body compared
// with the contract's, one run per transport; a JSON summary on stdout and a
// non-zero exit when any run failed. The benches themselves target 127.0.0.1
// only; this is the one place a remote entry is allowed, because it is named.
//   node bench/outside/load-job.js --entry http://watt-lab-entry:3043 --transports tcp-remote,direct
import { setTimeout as sleep } from 'node:timers/promises'
import { request } from 'undici'
import { inOwnRuntime, TRANSPORTS } from '../../lib/topology.js'
import { parseFlags, runMain, UsageError } from '../lib/cli.js'
import { failuresOf, runLoad } from '../lib/load.js'
import { entryUrl, expectedEntryBody } from '../transports/expected.js'

const FLAGS = /** @type {Record<string, import('../lib/cli.js').FlagSpec>} */ ({
  entry: { type: 'string', help: 'the entry base URL, e.g. http://watt-lab-entry:3043 (required)' },
  // From another pod the entry's runtime reaches what runs in it and the remote services:
  // every registered transport but those whose targets the bench itself starts beside
  // the entry (service processes, service containers on the entry's machine), and those
  // measured in a runtime of their own (mesh-port: the entry's runtime has no drop-in).
  transports: { type: 'list', default: TRANSPORTS.filter((t) => t.requires !== 'service-processes' && t.requires !== 'containers' && !inOwnRuntime(t.name)).map((t) => t.name), help: 'transports, one run each' },
  wait: { type: 'integer', default: 0, min: 0, max: 900, help: 'seconds to wait for every transport\'s route to answer 200 first (the entry may still be starting)' },
  duration: { type: 'integer', default: 10, min: 1, max: 600, help: 'seconds per run' },
  warmup: { type: 'integer', default: 3, min: 0, max: 120, help: 'seconds of unmeasured load before each run' },
  connections: { type: 'integer', default: 10, min: 1, max: 10_000, help: 'connections' },
  pipelining: { type: 'integer', default: 1, min: 1, max: 100, help: 'pipelining' },
  size: { type: 'integer', default: 64, min: 0, max: 1024 * 1024, help: 'payload bytes per downstream answer' },
  fanout: { type: 'integer', default: 4, min: 1, max: 4, help: 'downstream calls per request' }
})

async function main () {
  const flags = parseFlags(process.argv.slice(2), FLAGS, {
    command: 'node bench/outside/load-job.js',
    description: 'Verified load against an entry on another machine (the Kubernetes load Job).'
  })
  if (!flags.entry) throw new UsageError('--entry is required, e.g. --entry http://watt-lab-entry:3043')
  let base
  try {
    base = new URL(flags.entry)
  } catch {
    throw new UsageError(`--entry must be a URL, got ${JSON.stringify(flags.entry)}`)
  }
  const urlOf = (/** @type {string} */ transport) => entryUrl(base.origin, transport, flags.size, flags.fanout)
  // the exact URLs the runs load: a route answering with one service proves nothing of the others
  if (flags.wait) await waitForRoutes(flags.transports.map(urlOf), flags.wait * 1000)
  const runs = []
  for (const transport of flags.transports) {
    const load = {
      url: urlOf(transport),
      connections: flags.connections,
      pipelining: flags.pipelining,
      expectBody: expectedEntryBody(transport, flags.size, flags.fanout),
      remoteEntry: true
    }
    if (flags.warmup) await runLoad({ ...load, duration: flags.warmup })
    const measured = await runLoad({ ...load, duration: flags.duration })
    const failures = failuresOf(measured)
    runs.push({ transport, ok: failures.length === 0, failures, requestsPerSec: failures.length ? null : measured.requestsPerSec.avg, latencyMs: failures.length ? null : measured.latencyMs })
    process.stderr.write(`${transport}: ${failures.length ? `FAILED (${failures.join('; ')})` : `${measured.requestsPerSec.avg.toFixed(0)} req/s, p99 ${measured.latencyMs.p99} ms`}\n`)
  }
  process.stdout.write(JSON.stringify({ entry: base.origin, config: flags, runs }, null, 2) + '\n')
  return runs.every((run) => run.ok) ? 0 : 1
}

/**
 * Polls each route until it answers 200 (exit 1 at the deadline).
 * @param {string[]} urls
 * @param {number} timeoutMs
 */
async function waitForRoutes (urls, timeoutMs) {
  const deadline = Date.now() + timeoutMs
  for (const url of urls) {
    let last = 'no answer yet'
    while (true) {
      try {
        const { statusCode, body } = await request(url, { headersTimeout: 2000, bodyTimeout: 2000, reset: true })
        await body.dump()
        if (statusCode === 200) break
        last = `status ${statusCode}`
      } catch (err) {
        last = /** @type {NodeJS.ErrnoException} */ (err).code ?? /** @type {Error} */ (err).message
      }
      if (Date.now() > deadline) throw new Error(`${url} did not answer 200 within ${timeoutMs / 1000} s (${last})`)
      await sleep(250)
    }
  }
  process.stderr.write(`every route answers at ${new URL(urls[0]).origin}\n`)
}

runMain(main)
