// How a client opens its channel per kind (open-channel.js): `port` over the handshake's own
// MessagePort with the client's limit as meta; `shm` offers two fresh rings of ringBytes, the
// callee reading `requests` and writing `answers`. A failed handshake is UNREACHABLE.
import t from 'tap'
import { CALL } from '../lib/batch.js'
import { acceptPorts } from '../lib/handshake.js'
import { openChannel } from '../lib/open-channel.js'
import { connectSettings } from '../lib/options.js'
import { isRing, RingReader } from '../lib/shm/ring.js'
import { localMessaging } from './helpers/local-messaging.js'

t.test('port: the handshake port carries the frames; meta is the client\'s limit', async (t) => {
  const messaging = localMessaging()
  /** @type {{ port: import('node:worker_threads').MessagePort, meta: any }[]} */
  const accepted = []
  acceptPorts('port', (port, meta) => { accepted.push({ port, meta }) }, { messaging })
  const end = await openChannel('callee', connectSettings('callee', { messaging, maxPayloadBytes: 1234 }))
  t.equal(accepted.length, 1)
  t.same(accepted[0].meta, { maxPayloadBytes: 1234 })
  const got = new Promise((resolve) => accepted[0].port.once('message', resolve))
  end.start(() => {}, () => {})
  end.push(CALL, 1, 'echo', 'x')
  t.same(await got, [CALL, 1, 'echo', 'x'])
  end.close()
  accepted[0].port.close()
})

t.test('shm: two rings of ringBytes offered, frames written to `requests` as JSON', async (t) => {
  const messaging = localMessaging()
  /** @type {any[]} */
  const metas = []
  /** @type {import('node:worker_threads').MessagePort[]} */
  const ports = []
  acceptPorts('shm', (port, meta) => { ports.push(port); metas.push(meta) }, { messaging })
  const settings = connectSettings('callee', { kind: 'shm', messaging, ringBytes: 8192, maxPayloadBytes: 99 })
  const end = await openChannel('callee', settings)
  const [meta] = metas
  t.equal(meta.maxPayloadBytes, 99)
  t.ok(isRing(meta.requests) && isRing(meta.answers), 'two rings')
  t.not(meta.requests, meta.answers)
  t.equal(meta.requests.byteLength - 64, 8192, 'of ringBytes each')
  end.start(() => {}, () => {})
  end.push(CALL, 1, 'echo', '"x"')
  const bell = new Promise((resolve) => ports[0].once('message', resolve))
  await bell
  /** @type {string[]} */
  const texts = []
  new RingReader(meta.requests, 1 << 20).drain((text) => texts.push(text))
  t.same(texts.map((text) => JSON.parse(text)), [[CALL, 1, 'echo', 'x']], 'the call, in the requests ring')
  end.close()
})

t.test('a handshake that fails rejects with UNREACHABLE naming the application', async (t) => {
  for (const kind of /** @type {const} */ (['port', 'shm'])) {
    const settings = connectSettings('nobody', { kind, messaging: localMessaging() })
    await t.rejects(openChannel('nobody', settings), {
      name: 'ChannelError',
      code: 'WATT_CHANNEL_UNREACHABLE',
      application: 'nobody',
      message: new RegExp(`nobody: could not open a ${kind} channel: Handler not found`)
    }, kind)
  }
})

t.test("without a messaging option, Watt's is required", async (t) => {
  await t.rejects(openChannel('callee', connectSettings('callee', {})), { code: 'WATT_CHANNEL_NO_WATT' })
})
