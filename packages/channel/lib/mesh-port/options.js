// @ts-check
// The drop-in's options (the `options` of its watt.json entry), checked once per worker with
// a clear error: a typo or a bad value stops the worker at start, not a request later.
import { InvalidOptionError } from '../errors.js'
import { checkPoolOptions } from '../http/dispatcher.js'

/**
 * @typedef {object} MeshPortOptions
 * @property {number} [connections]  http-port connections per target worker (the calls in flight to it); default 32
 * @property {number} [window]       flow-control window per connection and direction, bytes
 * @property {import('../http/dispatcher.js').PoolOptions} [pool]  other undici Pool options (timeouts, keep-alive)
 * @property {string[]} [exclude]    applications always left to the mesh
 * @property {boolean} [retry]       send a GET, HEAD or OPTIONS without a body whose worker died before answering
 *   to another worker, once; default true
 * @property {'http' | 'frames'} [wire]  'http' (default): HTTP/1.1 bytes over each link; 'frames' (experimental):
 *   requests as structured frames (frames/), those it cannot carry over HTTP
 * @property {'auto' | 'turn'} [flush]  'auto' (default): at once when the peer thread is idle, else per turn
 *   (D-wake); 'turn': a turn's frames leave in one message
 */

const KNOWN = ['connections', 'window', 'pool', 'exclude', 'retry', 'wire', 'flush']

/**
 * @param {unknown} options
 * @returns {Required<Omit<MeshPortOptions, 'window'>> & { window: number }}
 */
export function meshPortOptions (options = {}) {
  const given = options ?? {}
  if (typeof given !== 'object' || Array.isArray(given)) {
    throw new InvalidOptionError('mesh-port: "options" must be an object')
  }
  const unknown = Object.keys(given).filter((key) => !KNOWN.includes(key))
  if (unknown.length > 0) {
    const names = unknown.map((k) => JSON.stringify(k)).join(', ')
    throw new InvalidOptionError(`mesh-port: unknown option ${names} (known: ${KNOWN.join(', ')})`)
  }
  const {
    connections = 32, window, pool = {}, exclude = [], retry = true, wire = 'http', flush = 'auto'
  } = /** @type {MeshPortOptions} */ (given)
  const fail = (/** @type {string} */ name, /** @type {string} */ what, /** @type {unknown} */ value) =>
    new InvalidOptionError(`mesh-port: "${name}" must be ${what}, not ${JSON.stringify(value)}`)
  if (wire !== 'http' && wire !== 'frames') throw fail('wire', '"http" or "frames"', wire)
  if (flush !== 'auto' && flush !== 'turn') throw fail('flush', '"auto" or "turn"', flush)
  if (!Array.isArray(exclude) || !exclude.every((id) => typeof id === 'string')) {
    throw fail('exclude', 'an array of application ids', exclude)
  }
  if (typeof retry !== 'boolean') throw fail('retry', 'true or false', retry)
  let checked
  try {
    checked = checkPoolOptions({ connections, window, pool })
  } catch (err) {
    throw new InvalidOptionError(`mesh-port: ${/** @type {Error} */ (err).message}`)
  }
  return { ...checked, exclude, retry, wire, flush }
}
