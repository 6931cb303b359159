// Calls over real worker threads, on both kinds: answers, ordering, batching,
// every size across the ring's fragment boundary, and the errors a caller sees.
import t from 'tap'
import { ChannelError, connect, openPort } from '../index.js'
import { startCallee } from './helpers/worker-messaging.js'

const VARIANTS = [
  { kind: 'port', label: 'port' },
  { kind: 'shm', label: 'shm' }
]

for (const { kind, label } of VARIANTS) {
  t.test(`${label}: calls`, async (t) => {
    const callee = await startCallee()
    t.teardown(() => callee.stop())
    const client = connect('callee', { kind, messaging: callee.messaging, timeoutMs: 20_000, ringBytes: 4096 })
    t.teardown(() => client.close())

    t.test('answers, in the order asked, from sync and async handlers', async (t) => {
      const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => client.call(i % 2 ? 'echo' : 'echoAsync', { i, text: `n${i}` })))
      t.same(answers, Array.from({ length: 50 }, (_, i) => ({ i, text: `n${i}` })))
      t.ok(client.connected)
    })

    t.test('every size from 0 to 1 MiB, across the ring (4 KiB here) and its fragments', async (t) => {
      const sizes = [0, 1, 7, 8, 9, 1000, 1016, 1017, 1024, 4000, 4080, 4096, 4097, 8192, 33_000, 65_536, 256 * 1024, 1024 * 1024 - 1, 1024 * 1024]
      for (const size of sizes) {
        const text = 'é'.repeat(size >> 2) + 'abc'.repeat(size).slice(0, size - (size >> 2) * 2)
        const [echoed, filled, length] = await Promise.all([client.call('echo', text), client.call('fill', size), client.call('length', text)])
        t.equal(echoed, text, `echo of ${Buffer.byteLength(text)} bytes`)
        t.equal(filled, 'x'.repeat(size), `answer of ${size} bytes`)
        t.equal(length, text.length)
      }
    })

    t.test('many large calls at once wait for ring space instead of failing', async (t) => {
      const big = 'z'.repeat(300_000)
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => client.call('echo', big + i)))
      t.same(answers.map((a) => a.length), Array(8).fill(300_001))
      t.equal(answers[7].at(-1), '7')
    })

    t.test('an unknown handler, a throwing handler and a bad payload are clear errors', async (t) => {
      const unknown = await client.call('nope', 1).catch((e) => e)
      t.ok(unknown instanceof ChannelError)
      t.match(unknown, { application: 'callee', code: 'WATT_CHANNEL_UNKNOWN_HANDLER', message: /callee: nope: no handler named "nope"/ })
      t.match(await client.call('throws').catch((e) => e), { code: 'WATT_CHANNEL_REMOTE', message: /boom from the handler/ })
      const bad = kind === 'port' ? () => {} : 10n
      t.match(await client.call('echo', bad).catch((e) => e), { application: 'callee', code: 'WATT_CHANNEL_BAD_PAYLOAD' })
      t.match(await client.call(kind === 'port' ? 'fn' : 'bigint').catch((e) => e), { code: 'WATT_CHANNEL_BAD_PAYLOAD', message: /answer cannot be sent/ })
      t.equal(await client.call('echo', 'still fine'), 'still fine', 'the channel survives all of them')
    })

    t.test('an oversized payload is refused before it leaves', async (t) => {
      const small = connect('callee', { kind, messaging: callee.messaging, maxPayloadBytes: 1000 })
      t.teardown(() => small.close())
      t.match(await small.call('echo', 'x'.repeat(1001)).catch((e) => e), { application: 'callee', code: 'WATT_CHANNEL_TOO_LARGE' })
      t.match(await small.call('echo', Buffer.alloc(1001)).catch((e) => e), { code: 'WATT_CHANNEL_TOO_LARGE' })
      t.match(await small.call('fill', 5000).catch((e) => e), { code: 'WATT_CHANNEL_TOO_LARGE', message: /answer is larger than 1000 bytes/ })
      t.equal(await small.call('fill', 10), 'x'.repeat(10))
    })

    t.test('a closed client rejects at once', async (t) => {
      const other = connect('callee', { kind, messaging: callee.messaging })
      await other.call('echo', 1)
      const waiting = other.call('wait', { ms: 10_000, tag: 'closed' })
      other.close()
      t.match(await waiting.catch((e) => e), { code: 'WATT_CHANNEL_CLOSED' })
      t.match(await other.call('echo', 1).catch((e) => e), { code: 'WATT_CHANNEL_CLOSED' })
    })
  })
}

t.test('port: calls made in one turn travel in one message, answers too', async (t) => {
  const callee = await startCallee()
  t.teardown(() => callee.stop())
  const client = connect('callee', { messaging: callee.messaging })
  t.teardown(() => client.close())
  await client.call('echo', 'open') // the handshake
  const before = await callee.stats()
  await Promise.all(Array.from({ length: 20 }, (_, i) => client.call('echo', i)))
  const after = await callee.stats()
  t.equal(after.portMessages - before.portMessages, 1, 'one message')
  t.equal(after.portFrames - before.portFrames, 20, 'twenty frames in it')

  // answers: a raw port posts a batch of five calls and counts what comes back
  const port = await openPort('callee', 'port', { messaging: callee.messaging })
  t.teardown(() => port.close())
  const answers = []
  port.on('message', (frames) => answers.push(frames))
  port.postMessage([1, 1, 'echo', 'a', 1, 2, 'echoAsync', 'b', 1, 3, 'echo', 'c', 1, 4, 'echoAsync', 'd', 1, 5, 'echo', 'e'])
  await t.resolveMatch(waitFor(() => answers.length > 0), true)
  await new Promise((resolve) => setTimeout(resolve, 50)) // would-be second messages have time to arrive
  t.equal(answers.length, 1, 'one answer message')
  t.same(answers[0], [3, 1, 'a', 0, 3, 3, 'c', 0, 3, 5, 'e', 0, 3, 2, 'b', 0, 3, 4, 'd', 0])
})

t.test('flush "turn" also batches', async (t) => {
  const callee = await startCallee({ serveOptions: { flush: 'turn' } })
  t.teardown(() => callee.stop())
  const client = connect('callee', { messaging: callee.messaging, flush: 'turn' })
  t.teardown(() => client.close())
  await client.call('echo', 'open')
  const before = await callee.stats()
  const first = Array.from({ length: 5 }, (_, i) => client.call('echo', i))
  await Promise.resolve()
  const second = Array.from({ length: 5 }, (_, i) => client.call('echoAsync', i + 5)) // a later microtask, same turn
  t.same(await Promise.all([...first, ...second]), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
  const after = await callee.stats()
  t.equal(after.portMessages - before.portMessages, 1)
})

async function waitFor (condition, ms = 20_000) {
  const until = Date.now() + ms
  while (!condition()) {
    if (Date.now() > until) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  return true
}
