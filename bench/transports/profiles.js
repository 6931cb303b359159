// @ts-check
// Load profiles of the transport comparison, and the --transports flag every
// transport suite shares (choices and default come from lib/topology.js).
import { availabilityOf, defaultBenchTransports, TRANSPORT_NAMES } from '../../lib/topology.js'
import { UsageError } from '../lib/cli.js'

export const PROFILES = {
  // the original write-up's load: many connections, pipelined
  seed: { connections: 100, pipelining: 10 },
  // closer to a service's real traffic: few connections, one request at a time
  latency: { connections: 10, pipelining: 1 }
}

/** Every registered transport's name, in registry order. */
export const TRANSPORTS = TRANSPORT_NAMES

/**
 * The --transports flag: any registered transport; by default those in the default
 * bench that can run here.
 * @returns {import('../lib/cli.js').FlagSpec}
 */
export function transportsFlag () {
  // What the bench starts itself is in by default; where this machine cannot make it
  // (no root for a namespace, say), the run skips it and says why.
  return { type: 'list', default: defaultBenchTransports(), choices: [...TRANSPORT_NAMES], help: 'which transports (registered in lib/topology.js; what the transports outside the runtime need is started by the bench, and they are skipped with the reason where it cannot be)' }
}

/**
 * The flags of the transports that leave the runtime (bench and bench:sweep).
 * @type {Record<string, import('../lib/cli.js').FlagSpec>}
 */
export const OUTSIDE_FLAGS = {
  'rtt-ms': { type: 'number', default: 0.25, min: 0, max: 1000, help: 'tcp-remote: emulated network round trip in ms (netem where the kernel has it, else a delay relay)' },
  'service-host': { type: 'string', help: 'tcp-remote: the services run on this host (ports 3101-3104) instead of a network namespace; needed for any non-loopback target' },
  'remove-images': { type: 'boolean', default: false, help: 'tcp-container: remove the lab\'s images after the run (kept by default: the next run reuses them)' }
}

/**
 * Refuses, before anything starts, transports that cannot run here, saying why
 * (what the bench starts itself, lib/topology.js REQUIREMENTS with `start`, is fine).
 * @param {string[]} names
 * @param {NodeJS.ProcessEnv} [env]
 */
export function assertTransportsAvailable (names, env = process.env) {
  const reasons = names.flatMap((name) => {
    const availability = availabilityOf(name, env, { startable: true })
    return availability.available ? [] : [availability.reason]
  })
  if (reasons.length) throw new UsageError(`cannot run here: ${reasons.join('; ')}`)
}
