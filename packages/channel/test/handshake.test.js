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
  t.equal(err.code, 'WATT_CHANNEL_UNREACHABLE')
  t.match(err.message, /type4: could not open a port channel/)
})

t.test('a handshake that gets no answer gives up after timeoutMs, names the application and closes its end', async (t) => {
  let sentPort
  const messaging = { handle () {}, send: (_app, _name, data) => { sentPort = data.port; return new Promise(() => {}) } }
  const started = performance.now()
  const err = await openPort('node3', 'shm', { messaging, timeoutMs: 100 }).catch((e) => e)
  const waited = performance.now() - started
  t.ok(err instanceof ChannelError, String(err))
  t.equal(err.code, 'WATT_CHANNEL_UNREACHABLE')
  t.match(err.message, /node3: could not open a shm channel: no answer within 100 ms/)
  t.ok(waited >= 90 && waited < 2000, `gave up after ${Math.round(waited)} ms`)
  sentPort.on('message', () => {}) // listened to, the port holds the event loop until its 'close'
  await new Promise((resolve) => { sentPort.once('close', resolve) })
  t.pass('the end it sent is closed too: a late answer finds nobody')
})

t.test('a handshake without a port is refused', async (t) => {
  const messaging = fakeMessaging()
  acceptPorts('port', () => t.fail('no port, no callback'), { messaging })
  await t.rejects(messaging.send('x', 'watt-lab-channel:port', {}), /without a MessagePort/)
})
