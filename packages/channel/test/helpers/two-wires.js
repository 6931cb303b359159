// One http.Server reached over both wires of a mesh-port link in one thread, as links.js makes them on one
// port: the HTTP wire (a PortPool of CallerSockets into Node's parser) and the frames wire (a FramesClient
// into exchange.js), for tests that send the same request over each and compare what the app sees.
import { MessageChannel } from 'node:worker_threads'
import { Dispatcher } from 'undici'
import { PortPool } from '../../lib/http/dispatcher.js'
import { FramesClient } from '../../lib/mesh-port/frames/client.js'
import { acceptFrames } from '../../lib/mesh-port/frames/serve.js'
import { poolHandler } from '../../lib/mesh-port/pool-handler.js'
import { PortMux } from '../../lib/wire/port-mux.js'
import { DEFAULT_WINDOW } from '../../lib/wire/signals.js'

export const ORIGIN = 'http://app.plt.local'

/**
 * @param {import('tap').Test} t
 * @param {import('node:http').Server} server
 * @returns {{ http: Dispatcher, frames: Dispatcher, tally: { count: number } }}
 */
export function twoWires (t, server) {
  const { port1, port2 } = new MessageChannel()
  const callee = acceptFrames(server, port2, { caller: 'test', wire: 'frames' })
  const mux = new PortMux(port1, { peer: 'app' })
  const pool = new PortPool(ORIGIN, async () => mux, { application: 'app', connections: 4, window: DEFAULT_WINDOW })
  const tally = { count: 0 }
  const frames = new FramesClient(mux, { application: 'app', tally })
  const link = { inFlight: 0 }
  class OverFrames extends Dispatcher {
    /** @param {any} opts @param {any} handler */
    dispatch (opts, handler) {
      if (!frames.dispatch(opts, poolHandler(handler, link))) throw new Error('the frames wire left this request to HTTP')
      return true
    }
  }
  t.teardown(async () => {
    await pool.destroy()
    mux.close()
    callee.close()
  })
  return { http: pool, frames: new OverFrames(), tally }
}
