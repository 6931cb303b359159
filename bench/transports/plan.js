// @ts-check
// The transport comparison's flags and the cases they expand to.
import { DOWNSTREAM_SERVICES, MAX_SIZE } from '../../lib/contract.js'
import { UsageError } from '../lib/cli.js'
import { assertTransportsAvailable, OUTSIDE_FLAGS, PROFILES, transportsFlag } from './profiles.js'

const FAULT = new RegExp(`^(${DOWNSTREAM_SERVICES.join('|')}):(corrupt|delay:[0-9]{1,5})$`)

/** @type {Record<string, import('../lib/cli.js').FlagSpec>} */
export const FLAGS = {
  duration: { type: 'integer', default: 10, min: 1, max: 600, help: 'seconds measured per run' },
  warmup: { type: 'integer', default: 3, min: 0, max: 120, help: 'seconds of unmeasured load before each run' },
  'first-warmup': { type: 'integer', default: 10, min: 0, max: 300, help: 'seconds of unmeasured load before a case\'s first round instead (--warmup 0 skips it too): with --workers 2 each worker gets half the calls, and 3 s left round 1 cold' },
  profiles: { type: 'list', default: ['seed'], choices: Object.keys(PROFILES), help: 'seed = c100 p10, latency = c10 p1' },
  connections: { type: 'integer', min: 1, max: 10_000, help: 'override the profiles\' connections (one custom profile)' },
  pipelining: { type: 'integer', min: 1, max: 100, help: 'override the profiles\' pipelining (one custom profile)' },
  rounds: { type: 'integer', default: 1, min: 1, max: 50, help: 'interleaved rounds (A B C A B C …); each profile runs all its rounds before the next, lightest first' },
  transports: transportsFlag(),
  fanout: { type: 'integer', default: 4, min: 1, max: 4, help: 'downstream calls per request' },
  size: { type: 'integer', default: 64, min: 0, max: MAX_SIZE, help: 'payload bytes each downstream returns' },
  workers: { type: 'integer', default: 1, min: 1, max: 16, help: 'workers of each downstream service (fastify2, node3, type1, type4; the entry keeps one) in every runtime the bench starts' },
  fault: { type: 'string', help: 'inject a downstream fault into every request (<service>:corrupt or <service>:delay:<ms>) to reproduce failure behaviour' },
  // --out, --report, --wrk, --allow-errors and --fail-fast come from the driver (bench/lib/driver.js)
  ...OUTSIDE_FLAGS
}

/**
 * @param {Record<string, any>} flags
 */
export function casesFrom (flags) {
  if (flags.fault !== undefined && !FAULT.test(flags.fault)) {
    throw new UsageError(`--fault must look like node3:corrupt or type1:delay:200, got ${JSON.stringify(flags.fault)}`)
  }
  assertTransportsAvailable(flags.transports)
  const profiles = (flags.connections || flags.pipelining)
    ? [{ name: 'custom', connections: flags.connections ?? PROFILES.seed.connections, pipelining: flags.pipelining ?? 1 }]
    : lightestFirst(flags.profiles.map((/** @type {keyof typeof PROFILES} */ name) => ({ name, ...PROFILES[name] })))
  return profiles.flatMap((/** @type {{ name: string, connections: number, pipelining: number }} */ profile) => flags.transports.map((/** @type {string} */ transport) => ({
    target: transport,
    transport,
    profile: profile.name,
    connections: profile.connections,
    pipelining: profile.pipelining,
    fanout: flags.fanout,
    size: flags.size,
    ...(transport === 'tcp-remote' ? { rttMs: flags.rttMs } : {}),
    ...(flags.fault ? { fault: flags.fault } : {})
  })))
}

/**
 * A profile's rounds all run before the next profile's (runner.js phases), so that
 * with lightestFirst no run follows a heavier load in the same runtime.
 * @param {import('../lib/types.js').Case} kase
 */
export const byProfile = (kase) => kase.profile

/**
 * Profiles by the requests they keep in flight, fewest first. Under `seed`'s
 * 1,000 requests in flight, objects of a request outlive a scavenge, and V8's
 * allocation-site pretenuring then allocates them in the old space for the rest
 * of the isolate's life: a `latency` run after a `seed` run in the same runtime
 * paid ~4 µs of GC per call at the entry instead of ~0.5 (docs/transports-and-fairness.md, "Fairness rules").
 * A lighter load leaves no such decision behind for a heavier one.
 * @param {{ name: string, connections: number, pipelining: number }[]} profiles
 */
export function lightestFirst (profiles) {
  return [...profiles].sort((a, b) => a.connections * a.pipelining - b.connections * b.pipelining)
}

/**
 * The warm-up before a run: longer in a case's first round, when every isolate on
 * its path compiles it for the first time (with --workers 2, round 1 of a fresh
 * runtime served 5,100-6,800 req/s and the next rounds 6,200-8,600 after 3 s).
 * `--warmup 0` skips both.
 * @param {number} round
 * @param {Record<string, any>} flags  warmup, and firstWarmup where the suite has it
 * @returns {number}
 */
export function warmupFor (round, { warmup, firstWarmup }) {
  return round === 1 && warmup > 0 && firstWarmup !== undefined ? Math.max(warmup, firstWarmup) : warmup
}
