// PING and PONG on a session (the drop-in pings a worker gone silent, route.js):
// the peer answers as soon as its event loop runs, and every message received,
// the answer included, counts as heard.
import { once } from 'node:events'
import { MessageChannel } from 'node:worker_threads'
import t from 'tap'
import { PortMux } from '../../lib/wire/port-mux.js'
import { PONG } from '../../lib/wire/signals.js'
import { withoutIdleFlag } from '../helpers/idle-flag.js'

t.test('a ping is answered with a pong, which the pinger counts as heard', async (t) => {
  const { port1, port2 } = new MessageChannel()
  const caller = new PortMux(port1, { peer: 'callee' })
  const callee = new PortMux(port2, { peer: 'caller' })
  t.teardown(() => { caller.close(); callee.close() })
  port1.ref() // a session unrefs its port while no connection wants the thread kept alive
  /** @type {unknown[]} */
  const answered = []
  port1.on('message', (message) => answered.push(...withoutIdleFlag(message)))
  t.equal(caller.heard, 0)
  caller.ping()
  await once(port1, 'message')
  t.same(answered, [0, PONG], 'the callee answered PONG on connection 0')
  t.equal(callee.heard, 1, 'the callee heard the ping')
  t.equal(caller.heard, 1, 'the caller heard the pong')
  t.equal(caller.closed || callee.closed, false, 'neither took it for a protocol error')
})
