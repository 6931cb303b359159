// @ts-check
// The realtime suite's flags, and the cases they expand to. A case's `target`
// is the path; its `profile` names what ran (the summary pairs the paths of one
// profile round by round): `ws 10×64 B` (a WebSocket echo at 10 sockets of 64 B
// messages), `sse 100` (the SSE fan-out to 100 subscribers), `client leaves`.
import { UsageError } from '../lib/cli.js'

/** Watt's mesh: plain watt.json. */
export const MESH_PATH = 'ipc'
/** Loopback TCP to chat's and feed's own ports: the lab's fair baseline. */
export const TCP_PATH = 'tcp'
/** The mesh-port drop-in: watt.json plus its undici block. */
export const DROP_IN_PATH = 'mesh-port'
export const PATHS = /** @type {const} */ ([MESH_PATH, TCP_PATH, DROP_IN_PATH])
export const KINDS = /** @type {const} */ (['ws', 'sse', 'leave'])

/** @type {Record<string, import('../lib/cli.js').FlagSpec>} */
export const FLAGS = {
  duration: { type: 'integer', default: 3, min: 1, max: 120, help: 'seconds measured per run' },
  warmup: { type: 'integer', default: 1, min: 0, max: 60, help: 'seconds of unmeasured load before each (the same load, its figures not counted)' },
  rounds: { type: 'integer', default: 3, min: 1, max: 50, help: `interleaved rounds (${PATHS.join(', ')}, ${PATHS[0]}, …)` },
  kinds: { type: 'list', default: [...KINDS], choices: KINDS, help: 'ws = WebSocket echo edge → chat, sse = SSE fan-out through edge from feed, leave = a client that leaves an SSE stream' },
  paths: { type: 'list', default: [...PATHS], choices: PATHS, help: 'ipc = Watt\'s mesh, tcp = loopback ports, mesh-port = the drop-in' },
  sockets: { type: 'list', default: ['10', '100'], help: 'WebSockets open at once, each a closed loop of one message' },
  sizes: { type: 'list', default: ['64', '16384'], help: 'WebSocket message bytes (at least 8)' },
  subscribers: { type: 'list', default: ['10', '100'], help: 'SSE streams open at once, each through edge to feed' },
  'event-rate': { type: 'integer', default: 200, min: 1, max: 10_000, help: 'SSE events a second to every subscriber (offered load: subscribers × rate events/s delivered when the path keeps up)' },
  'event-size': { type: 'integer', default: 64, min: 0, max: 65_536, help: 'padding characters in each SSE event' },
  'leave-after': { type: 'integer', default: 5, min: 1, max: 1000, help: 'events the leaving client reads before it leaves' },
  'leave-wait': { type: 'integer', default: 2000, min: 100, max: 60_000, help: 'ms to wait for the producer to learn that the client left' },
  'connect-timeout': { type: 'integer', default: 5000, min: 100, max: 60_000, help: 'ms a WebSocket may take to open' }
  // --out, --report, --allow-errors, --fail-fast and --quiet-wait come from the driver (bench/lib/driver.js)
}

/**
 * @typedef {object} RealtimeCase
 * @property {string} target      the path
 * @property {string} profile
 * @property {typeof PATHS[number]} path
 * @property {typeof KINDS[number]} kind
 * @property {number} [sockets]   ws
 * @property {number} [size]      ws: bytes per message
 * @property {number} [subscribers]  sse
 */

/**
 * @param {string} name  the flag
 * @param {string[]} values
 * @param {number} min
 * @param {number} max
 */
function integers (name, values, min, max) {
  return values.map((text) => {
    const value = Number(text)
    if (!Number.isInteger(value) || value < min || value > max) throw new UsageError(`--${name}: each value must be an integer from ${min} to ${max}, got ${JSON.stringify(text)}`)
    return value
  })
}

/** "64 B", "16 KiB". @param {number} bytes */
export function sizeLabel (bytes) {
  return bytes >= 1024 && bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} B`
}

/** @param {number} sockets @param {number} size */
export const wsProfile = (sockets, size) => `ws ${sockets}×${sizeLabel(size)}`
/** @param {number} subscribers */
export const sseProfile = (subscribers) => `sse ${subscribers}`
export const LEAVE_PROFILE = 'client leaves'

/**
 * Every case, in the order a round runs them: each profile on every path in turn.
 * @param {Record<string, any>} flags
 * @returns {RealtimeCase[]}
 */
export function casesFrom (flags) {
  const sockets = integers('sockets', flags.sockets, 1, 1000)
  const sizes = integers('sizes', flags.sizes, 8, 1 << 20)
  const subscribers = integers('subscribers', flags.subscribers, 1, 2000)
  /** @type {RealtimeCase[]} */
  const cases = []
  const onEveryPath = (/** @type {Omit<RealtimeCase, 'target' | 'path'>} */ kase) => {
    for (const path of flags.paths) cases.push({ ...kase, target: path, path })
  }
  if (flags.kinds.includes('ws')) for (const n of sockets) for (const size of sizes) onEveryPath({ profile: wsProfile(n, size), kind: 'ws', sockets: n, size })
  if (flags.kinds.includes('sse')) for (const n of subscribers) onEveryPath({ profile: sseProfile(n), kind: 'sse', subscribers: n })
  if (flags.kinds.includes('leave')) onEveryPath({ profile: LEAVE_PROFILE, kind: 'leave' })
  return cases
}

/**
 * Rough seconds a case takes, for the progress estimate only.
 * @param {Record<string, any>} flags
 */
export function secondsPerCase (flags) {
  return flags.warmup + flags.duration + 1
}
