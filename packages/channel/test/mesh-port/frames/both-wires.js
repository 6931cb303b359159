// Both wires of one drop-in link to the same node:http server, in this thread: WorkerLinks (the drop-in's own
// construction, its `pool` options included) over a MessageChannel whose other end acceptFrames serves. `http`
// sends every request over the link's PortPool; `frames` as index.js's dispatchOn does: over the FramesClient
// when it carries the request, the HTTP wire otherwise. Each wire's tally says which carried what.
import http from 'node:http'
import { MessageChannel } from 'node:worker_threads'
import { Dispatcher, request } from 'undici'
import { acceptFrames } from '../../../lib/mesh-port/frames/serve.js'
import { WorkerLinks } from '../../../lib/mesh-port/links.js'
import { poolHandler } from '../../../lib/mesh-port/pool-handler.js'

const quiet = { debug () {}, info () {}, warn () {} }
let made = 0

/**
 * @param {import('tap').Test} t
 * @param {http.RequestListener} listener
 * @param {{ pool?: object, server?: http.ServerOptions }} [options]
 */
export function bothWires (t, listener, { pool = {}, server: serverOptions = {} } = {}) {
  // an application of its own per pair: the tallies are per (application, worker) in this thread
  const application = `wires${++made}`
  const server = http.createServer(serverOptions, listener)
  const { port1, port2 } = new MessageChannel()
  const callee = acceptFrames(server, port2, { caller: 'test', wire: 'frames' })
  const links = new WorkerLinks(application, { connections: 4, pool, log: quiet, wire: 'frames' }, {
    left () {}, retired () {}, relocate: async () => null
  })
  const link = links.add(1, 0, port1)
  const frames = /** @type {import('../../../lib/mesh-port/frames/client.js').FramesClient} */ (link.frames)
  /** @param {'http' | 'frames'} wire */
  const over = (wire) => new (class extends Dispatcher {
    /** @param {any} opts @param {any} handler */
    dispatch (opts, handler) {
      const view = poolHandler(handler, link)
      if (wire === 'frames' && frames.dispatch(opts, view)) return true
      link.tally.count++
      return link.pool.dispatch(opts, /** @type {any} */ (view))
    }
  })()
  t.teardown(() => { links.drop(link, 'the test ended'); callee.close() })
  return {
    origin: `http://${application}.plt.local`,
    wires: { http: over('http'), frames: over('frames') },
    /** requests each wire carried */
    carried: () => ({ frames: frames.tally.count, http: link.tally.count }),
    link
  }
}

/**
 * @typedef {object} Outcome  what the caller saw of one request, comparable across wires
 * @property {number} [status]
 * @property {string} [body]
 * @property {{ name: string, code: string, message: string }} [error]
 * @property {{ statusCode: number, headers: Record<string, unknown> }[]} infos  1xx answers (undici's onInfo)
 */

/**
 * One request with undici's request(), its answer read whole, or how it failed.
 * @param {Dispatcher} dispatcher
 * @param {string} url
 * @param {any} [options]
 * @returns {Promise<Outcome>}
 */
export async function outcome (dispatcher, url, options = {}) {
  /** @type {Outcome['infos']} */
  const infos = []
  try {
    const answer = await request(url, { dispatcher, onInfo: (info) => infos.push(info), ...options })
    return { status: answer.statusCode, body: await answer.body.text(), infos }
  } catch (err) {
    const { name, code, message } = /** @type {any} */ (err)
    return { error: { name, code, message }, infos }
  }
}

/** @typedef {(req: http.IncomingMessage, res: http.ServerResponse, wire: 'http' | 'frames') => void} WireListener */

/**
 * The same request over both wires at once (each its own pair, so neither waits for the other); the server's
 * listener is told which wire served it.
 * @param {import('tap').Test} t
 * @param {WireListener} listener
 * @param {string} path
 * @param {{ pool?: object, server?: http.ServerOptions, request?: () => any }} [options]  request: fresh
 *   options per wire (a body stream is read once)
 */
export async function onBoth (t, listener, path, options = {}) {
  /** @param {'http' | 'frames'} wire */
  const pair = (wire) => bothWires(t, (req, res) => listener(req, res, wire), options)
  const pairs = { http: pair('http'), frames: pair('frames') }
  const [http, frames] = await Promise.all(/** @type {const} */ (['http', 'frames']).map((wire) =>
    outcome(pairs[wire].wires[wire], pairs[wire].origin + path, options.request?.())))
  return { http, frames, carried: { http: pairs.http.carried(), frames: pairs.frames.carried() } }
}

/** @param {number} ms */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
