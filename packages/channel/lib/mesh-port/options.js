// @ts-check
// The drop-in's options (the `options` of its watt.json entry), checked once per worker with
// a clear error: a typo or a bad value stops the worker at start, not a request later.
import { InvalidOptionError } from '../errors.js'
import { checkPoolOptions, DEFAULT_CONNECTIONS } from '../http/dispatcher.js'

/**
 * @typedef {object} MeshPortOptions
 * @property {number} [connections]  http-port connections per target worker (the calls in flight to it), a bound
 *   past which calls queue; default none (DEFAULT_CONNECTIONS, as createHttpPortDispatcher's and the mesh's)
 * @property {number} [window]       flow-control window per connection and direction, bytes
 * @property {import('../http/dispatcher.js').PoolOptions} [pool]  other undici Pool options (timeouts, keep-alive)
 * @property {string[]} [exclude]    applications always left to the mesh
 * @property {boolean} [retry]       send a GET, HEAD or OPTIONS without a body whose worker died before answering
 *   to another worker, once; default true
 */

const KNOWN = ['connections', 'window', 'pool', 'exclude', 'retry']

/**
 * @param {unknown} options
 * @returns {Required<Omit<MeshPortOptions, 'window' | 'connections'>> & { window: number, connections: number | null }}
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
    connections = DEFAULT_CONNECTIONS, window, pool = {}, exclude = [], retry = true
  } = /** @type {MeshPortOptions} */ (given)
  const fail = (/** @type {string} */ name, /** @type {string} */ what, /** @type {unknown} */ value) =>
    new InvalidOptionError(`mesh-port: "${name}" must be ${what}, not ${JSON.stringify(value)}`)
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
  return { ...checked, exclude, retry }
}
