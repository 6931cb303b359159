// Deadlines, cancellation reaching the callee, a callee that crashes, restarts or
// hangs, and malformed frames in both directions, over real worker threads.
import { once } from 'node:events'
import t from 'tap'
import { ChannelError, connect, openPort } from '../index.js'
import { createRing, IDLE, W } from '../lib/shm/ring.js'
import { startCallee } from './helpers/worker-messaging.js'

// One callee for the cases that leave it as they found it (deadlines, aborts, malformed
// frames, a corrupt ring; each tags its calls with its kind): a worker's start was most of
// each such case. Those that kill, hang or garble their callee start their own.
/** @type {ReturnType<typeof startCallee> | undefined} */
let shared
const sharedCallee = () => (shared ??= startCallee())
t.teardown(async () => { if (shared) await (await shared).stop() })

for (const kind of ['port', 'shm']) {
  t.test(`${kind}: a deadline rejects with WATT_CHANNEL_TIMEOUT and aborts the handler`, async (t) => {
    const callee = await sharedCallee()
    const client = connect('callee', { kind, messaging: callee.messaging })
    t.teardown(() => client.close())
    const err = await client.call('wait', { ms: 60_000, tag: `late-${kind}` }, { timeoutMs: 100 }).catch((e) => e)
    t.ok(err instanceof ChannelError)
    t.match(err, { application: 'callee', code: 'WATT_CHANNEL_TIMEOUT', message: /callee: wait did not answer within 100 ms/ })
    await waitFor(async () => (await callee.stats()).cancelled.includes(`late-${kind}`))
    t.equal((await callee.stats()).running, 0, 'nothing left running in the callee')
    t.equal(client.pending, 0)
    t.equal(await client.call('wait', { ms: 1, tag: `next-${kind}` }), `next-${kind}`, 'the channel still works')
  })

  t.test(`${kind}: an abort signal rejects with WATT_CHANNEL_ABORTED and reaches the callee`, async (t) => {
    const callee = await sharedCallee()
    const client = connect('callee', { kind, messaging: callee.messaging })
    t.teardown(() => client.close())
    await client.call('echo', 'open')
    const { started } = await callee.stats()
    const controller = new AbortController()
    const waiting = client.call('wait', { ms: 60_000, tag: `cancel-me-${kind}` }, { signal: controller.signal })
    const other = client.call('wait', { ms: 1, tag: `keep-me-${kind}` }, { signal: controller.signal })
    t.equal(await other, `keep-me-${kind}`)
    await waitFor(async () => (await callee.stats()).started >= started + 2)
    controller.abort(new Error('user gave up'))
    const err = await waiting.catch((e) => e)
    t.match(err, { application: 'callee', code: 'WATT_CHANNEL_ABORTED' })
    t.match(err.cause, { message: 'user gave up' })
    await waitFor(async () => (await callee.stats()).cancelled.includes(`cancel-me-${kind}`))
    t.notOk((await callee.stats()).cancelled.includes(`keep-me-${kind}`))
    t.match(await client.call('echo', 1, { signal: controller.signal }).catch((e) => e), { code: 'WATT_CHANNEL_ABORTED' }, 'an aborted signal rejects at once')
  })

  for (const how of ['terminate', 'process.exit']) {
    t.test(`${kind}: a callee that dies (${how}) fails pending calls at once; the next call reopens`, async (t) => {
      let callee = await startCallee()
      const messaging = { handle () {}, send: (...args) => callee.messaging.send(...args) }
      const client = connect('callee', { kind, messaging, timeoutMs: 60_000 })
      t.teardown(() => client.close())
      await client.call('echo', 'open')
      const pending = [client.call('wait', { ms: 60_000, tag: 'a' }), client.call('wait', { ms: 60_000, tag: 'b' })]
      if (how === 'terminate') callee.stop()
      else client.call('exit').catch(() => {})
      const errors = await Promise.all(pending.map((p) => p.catch((e) => e)))
      for (const err of errors) t.match(err, { application: 'callee', code: 'WATT_CHANNEL_CLOSED', message: /callee: the channel closed/ })
      t.equal(client.pending, 0)
      t.notOk(client.connected)
      // while no callee runs, calls fail with 'unreachable', not a hang
      await callee.exited
      t.match(await client.call('echo', 1).catch((e) => e), { application: 'callee', code: 'WATT_CHANNEL_UNREACHABLE' })
      callee = await startCallee() // "restarted"
      t.teardown(() => callee.stop())
      t.equal(await client.call('echo', 'again'), 'again')
      t.ok(client.connected)
    })
  }

  t.test(`${kind}: a hung callee times out every call; its answers never come back`, async (t) => {
    const callee = await startCallee()
    t.teardown(() => callee.stop())
    const client = connect('callee', { kind, messaging: callee.messaging, timeoutMs: 200 })
    t.teardown(() => client.close())
    await client.call('echo', 'open')
    const calls = [client.call('hang'), client.call('echo', 1), client.call('echo', 2)]
    for (const err of await Promise.all(calls.map((p) => p.catch((e) => e)))) t.match(err, { application: 'callee', code: 'WATT_CHANNEL_TIMEOUT' })
    t.equal(client.pending, 0)
    // the watchdog gives up on it (as Watt's health check would) and the channel closes
    await callee.stop()
    await waitFor(() => !client.connected)
  })

  t.test(`${kind}: a callee answering garbage gives WATT_CHANNEL_PROTOCOL errors, never a hang`, async (t) => {
    const callee = await startCallee({ mode: `garbage-${kind}` })
    t.teardown(() => callee.stop())
    const client = connect('callee', { kind, messaging: callee.messaging, timeoutMs: 20_000 })
    t.teardown(() => client.close())
    for (let i = 0; i < 4; i++) {
      const err = await client.call('echo', i).catch((e) => e)
      t.ok(err instanceof ChannelError)
      t.match(err, { application: 'callee', code: 'WATT_CHANNEL_PROTOCOL' }, err.message)
      t.notOk(client.connected, 'the broken channel is closed; the next call opens a new one')
    }
  })
}

t.test('malformed frames sent to serve() are refused, the callee lives on', async (t) => {
  const callee = await sharedCallee()
  const garbage = ['text', 42, null, [], [1, 2, 3], [7, 1, 'echo', 1], [1, -5, 'echo', 1], [1, 1.5, 'echo', 1], [2, 'x', 0, 0], { op: 1 }]
  for (const message of garbage) {
    const port = await openPort('callee', 'port', { messaging: callee.messaging })
    const answer = new Promise((resolve) => port.once('message', resolve))
    const closed = once(port, 'close')
    port.postMessage(message)
    const frames = await answer
    t.equal(frames[0], 5, `FAIL frame for ${JSON.stringify(message)}`)
    t.match(frames[2], /the callee received/)
    await closed
  }
  const client = connect('callee', { messaging: callee.messaging })
  t.teardown(() => client.close())
  t.equal(await client.call('echo', 'alive'), 'alive')
  await waitFor(async () => (await callee.stats()).channels === 1)
})

t.test('a corrupt shm ring sent to serve() is refused, the callee lives on', async (t) => {
  const callee = await sharedCallee()
  const requests = createRing(4096)
  const answers = createRing(4096)
  const port = await openPort('callee', 'shm', { messaging: callee.messaging, meta: { requests, answers } })
  port.on('message', () => {}) // a port delivers 'close' only once started
  const closed = once(port, 'close')
  const words = new Int32Array(requests, 64, 4)
  words[0] = 100 // length past what was written
  Atomics.store(new Int32Array(requests, 0, 16), IDLE, 0)
  Atomics.store(new Int32Array(requests, 0, 16), W, 16)
  port.postMessage(0)
  await closed
  t.pass('the callee closed the corrupt channel')
  const bad = await openPort('callee', 'shm', { messaging: callee.messaging, meta: { requests: 'no rings' } }).catch((e) => e)
  t.match(bad, { code: 'WATT_CHANNEL_UNREACHABLE', message: /two rings/ })
  const client = connect('callee', { kind: 'shm', messaging: callee.messaging })
  t.teardown(() => client.close())
  t.equal(await client.call('echo', 'alive'), 'alive')
})

async function waitFor (condition, ms = 20_000) {
  const until = Date.now() + ms
  while (!(await condition())) {
    if (Date.now() > until) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
