// @ts-check
// The sweep: one dimension at a time around a base point, every transport at
// every value. Sizes straddle the mesh's 32 KiB single-message step.
import { transportsFlag } from '../transports/profiles.js'

export const BASE = { size: 1024, fanout: 4, connections: 10, pipelining: 1 }

export const DIMENSIONS = {
  size: { label: 'payload bytes per downstream', values: [1024, 31 * 1024, 33 * 1024, 256 * 1024] },
  fanout: { label: 'downstream calls per request', values: [1, 2, 4] },
  connections: { label: 'client connections', values: [1, 10, 100] }
}

/** @type {Record<string, import('../lib/cli.js').FlagSpec>} */
export const FLAGS = {
  duration: { type: 'integer', default: 5, min: 1, max: 600, help: 'seconds measured per run' },
  warmup: { type: 'integer', default: 2, min: 0, max: 120, help: 'seconds of unmeasured load before each run' },
  rounds: { type: 'integer', default: 1, min: 1, max: 20, help: 'interleaved rounds' },
  dimensions: { type: 'list', default: Object.keys(DIMENSIONS), choices: Object.keys(DIMENSIONS), help: 'what to vary' },
  transports: transportsFlag(),
  out: { type: 'string', help: 'result JSON path (default results/sweep-<time>.json)' },
  report: { type: 'string', default: 'results/sweep', help: 'write <path>.md and <path>.html' },
  'allow-errors': { type: 'boolean', default: false, help: 'exit 0 even when runs failed (they are still reported as FAILED), to reproduce overload' },
  'fail-fast': { type: 'boolean', default: false, help: 'stop at the first failed run' }
}

/**
 * A case per (dimension value, transport). The profile names the point, e.g.
 * "size=33792"; the base point is measured once per dimension so each sweep
 * stands on its own, measured side by side.
 * @param {Record<string, any>} flags  dimensions and transports
 */
export function sweepCases ({ dimensions, transports }) {
  /** @type {(keyof typeof DIMENSIONS)[]} */
  const dims = dimensions
  /** @type {string[]} */
  const names = transports
  return dims.flatMap((dimension) => DIMENSIONS[dimension].values.flatMap((value) => names.map((transport) => ({
    target: transport,
    transport,
    profile: `${dimension}=${value}`,
    dimension,
    value,
    ...BASE,
    [dimension]: value
  }))))
}
