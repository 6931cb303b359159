// @ts-check
// The sweep: one dimension at a time around a base point, every transport at
// every value. Sizes straddle the mesh's 32 KiB single-message step.
import { remoteHostPossible } from '../outside/targets.js'
import { OUTSIDE_FLAGS, transportsFlag } from '../transports/profiles.js'

export const BASE = { size: 1024, fanout: 4, connections: 10, pipelining: 1 }

/** The transports whose calls cross the emulated network, swept over `rtt`. */
export const RTT_TRANSPORTS = ['tcp-remote']

export const DIMENSIONS = {
  size: { label: 'payload bytes per downstream', values: [1024, 31 * 1024, 33 * 1024, 256 * 1024] },
  fanout: { label: 'downstream calls per request', values: [1, 2, 4] },
  connections: { label: 'client connections', values: [1, 10, 100] },
  // tcp-remote at every RTT; the others do not cross that network and are measured once
  // (at the base RTT) and drawn flat beside it.
  rtt: { label: 'round trip to the remote host, ms (emulated)', values: [0, 0.25, 1, 5] }
}

/** @type {Record<string, import('../lib/cli.js').FlagSpec>} */
export const FLAGS = {
  duration: { type: 'integer', default: 5, min: 1, max: 600, help: 'seconds measured per run' },
  warmup: { type: 'integer', default: 2, min: 0, max: 120, help: 'seconds of unmeasured load before each run' },
  rounds: { type: 'integer', default: 1, min: 1, max: 20, help: 'interleaved rounds' },
  dimensions: { type: 'list', default: Object.keys(DIMENSIONS), choices: Object.keys(DIMENSIONS), help: 'what to vary' },
  transports: transportsFlag(),
  // --out, --report, --allow-errors and --fail-fast come from the driver (bench/lib/driver.js)
  ...OUTSIDE_FLAGS
}

/**
 * A case per (dimension value, transport). The profile names the point, e.g.
 * "size=33792"; the base point is measured once per dimension so each sweep
 * stands on its own, measured side by side.
 * @param {Record<string, any>} flags  dimensions and transports
 */
export function sweepCases ({ dimensions, transports, rttMs = 0.25, serviceHost }) {
  /** @type {(keyof typeof DIMENSIONS)[]} */
  const dims = dimensions.filter((/** @type {string} */ d) => d !== 'rtt' || rttSweepPossible(transports, serviceHost))
  /** @type {string[]} */
  const names = transports
  return dims.flatMap((dimension) => DIMENSIONS[dimension].values.flatMap((value) => names
    .filter((transport) => dimension !== 'rtt' || RTT_TRANSPORTS.includes(transport) || value === rttBase(rttMs))
    .map((transport) => ({
      target: transport,
      transport,
      profile: `${dimension}=${value}`,
      dimension,
      value,
      ...BASE,
      ...(RTT_TRANSPORTS.includes(transport) && !serviceHost ? { rttMs: dimension === 'rtt' ? value : rttMs } : {}),
      ...(dimension === 'rtt' ? {} : { [dimension]: value })
    }))))
}

/**
 * The RTT the other transports are measured at in the rtt sweep: --rtt-ms if it is
 * one of the swept values, else the default 0.25.
 * @param {number} rttMs
 */
export function rttBase (rttMs) {
  return DIMENSIONS.rtt.values.includes(rttMs) ? rttMs : 0.25
}

/**
 * An RTT sweep needs tcp-remote on an emulated network this machine can make.
 * @param {string[]} transports
 * @param {string | undefined} serviceHost
 */
function rttSweepPossible (transports, serviceHost) {
  return transports.some((t) => RTT_TRANSPORTS.includes(t)) && serviceHost === undefined && remoteHostPossible()
}
