// The handshake over a messaging stand-in with Watt's shape: the port must arrive
// in the handler, and a failed handshake must name the application.
import t from 'tap'
import { acceptPorts, ChannelError, openPort } from '../index.js'

function fakeMessaging () {
  const handlers = new Map()
  return {
    handle: (name, fn) => handlers.set(name, fn),
    async send (application, name, data) {
      const handler = handlers.get(name)
      if (!handler) throw new Error(`Handler not found for request ${name}`)
      return handler(data)
    }
  }
}

t.test('the callee receives a working port', async (t) => {
  const messaging = fakeMessaging()
  const received = new Promise((resolve) => acceptPorts('port', (port, meta) => resolve({ port, meta }), { messaging }))
  const caller = await openPort('node3', 'port', { messaging, meta: { from: 'entry' } })
  const { port, meta } = await received
  t.same(meta, { from: 'entry' })
  const echoed = new Promise((resolve) => port.once('message', resolve))
  caller.postMessage('ping')
  t.equal(await echoed, 'ping')
  caller.close()
  port.close()
})

t.test('a failed handshake rejects with a ChannelError naming the application', async (t) => {
  const messaging = fakeMessaging()
  const err = await openPort('type4', 'port', { messaging }).catch((e) => e)
  t.ok(err instanceof ChannelError)
  t.equal(err.application, 'type4')
  t.equal(err.code, 'unreachable')
  t.match(err.message, /type4: could not open a port channel/)
})

t.test('a handshake without a port is refused', async (t) => {
  const messaging = fakeMessaging()
  acceptPorts('port', () => t.fail('no port, no callback'), { messaging })
  await t.rejects(messaging.send('x', 'watt-lab-channel:port', {}), /without a MessagePort/)
})
