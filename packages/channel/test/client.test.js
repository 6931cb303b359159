// The caller's end (client.js) against a scripted callee in this thread: the test holds the
// callee's port and answers by hand. The channel opens on the first call (once for a turn's
// calls) and again after a loss; each answer settles its call; whatever breaks the protocol
// fails the calls on that channel with PROTOCOL; deadlines, aborts and close() with their codes.
import t from 'tap'
import { CALL, CANCEL, ERR, FAIL, OK } from '../lib/batch.js'
import { ChannelClient, connect } from '../lib/client.js'
import { CODES } from '../lib/errors.js'
import { acceptPorts } from '../lib/handshake.js'
import { localMessaging } from './helpers/local-messaging.js'

/**
 * A callee the test drives: every channel opened, and every batch received on each.
 * @param {string} [kind]
 */
function scripted (kind = 'port') {
  const messaging = localMessaging()
  /** @type {{ port: import('node:worker_threads').MessagePort, frames: unknown[][] }[]} */
  const channels = []
  acceptPorts(kind, (port) => {
    const channel = { port, frames: /** @type {unknown[][]} */ ([]) }
    port.on('message', (frames) => channel.frames.push(frames))
    channels.push(channel)
  }, { messaging })
  t.teardown(() => { for (const { port } of channels) port.close() })
  /** @param {number} n */
  const batches = async (n, i = channels.length - 1) => {
    await until(() => channels[i]?.frames.length >= n, `${n} batches`)
    return channels[i].frames
  }
  return { messaging, channels, batches }
}

const until = async (/** @type {() => boolean} */ check, what = 'a condition') => {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5))
  if (!check()) throw new Error(`timed out waiting for ${what}`)
}

/** @param {ChannelClient} client */
const closeAfter = (client) => t.teardown(() => client.close())

t.test('opens on the first call, once for the calls of a turn; answers settle by id', async (t) => {
  const callee = scripted()
  const client = connect('app', { messaging: callee.messaging })
  closeAfter(client)
  t.ok(client instanceof ChannelClient)
  t.same([client.application, client.kind, client.connected, client.pending], ['app', 'port', false, 0])
  const a = client.call('echo', 'a')
  const b = client.call('echo', { b: 1 })
  t.equal(client.pending, 2)
  const [frames] = await callee.batches(1)
  t.equal(callee.channels.length, 1, 'one handshake')
  t.same(frames, [CALL, 1, 'echo', 'a', CALL, 2, 'echo', { b: 1 }], 'both calls, sent once the channel opened')
  t.ok(client.connected)
  callee.channels[0].port.postMessage([OK, 2, 'B', 0, OK, 1, 'A', 0])
  t.same(await Promise.all([a, b]), ['A', 'B'], 'each answer to its own call, in any order')
  t.equal(client.pending, 0)
  const c = client.call('later')
  const [, second] = await callee.batches(2)
  t.same(second, [CALL, 3, 'later', undefined], 'an open channel is reused')
  callee.channels[0].port.postMessage([OK, 3, null, 0])
  t.equal(await c, null)
})

t.test('ERR: a callee code of REMOTE_CODES is kept, any other reads as REMOTE; the text is cut', async (t) => {
  const callee = scripted()
  const client = connect('app', { messaging: callee.messaging })
  closeAfter(client)
  const calls = [client.call('a'), client.call('b'), client.call('c')].map((p) => p.catch((e) => e))
  await callee.batches(1)
  callee.channels[0].port.postMessage([
    ERR, 1, CODES.UNKNOWN_HANDLER, 'no handler named "a"',
    ERR, 2, CODES.CLOSED, 'a code the callee has no say on',
    ERR, 3, CODES.REMOTE, 'x'.repeat(5000)
  ])
  const [a, b, c] = await Promise.all(calls)
  t.match(a, { name: 'ChannelError', application: 'app', code: CODES.UNKNOWN_HANDLER, message: 'app: a: no handler named "a"' })
  t.match(b, { code: CODES.REMOTE, message: 'app: b: a code the callee has no say on' })
  t.equal(c.code, CODES.REMOTE)
  t.equal(c.message, `app: c: ${'x'.repeat(1000)}`, 'at most 1,000 characters of its text')
})

t.test('an answer to no pending call is ignored: the channel stays', async (t) => {
  const callee = scripted()
  const client = connect('app', { messaging: callee.messaging })
  closeAfter(client)
  const one = client.call('one')
  await callee.batches(1)
  callee.channels[0].port.postMessage([OK, 99, 'stray', 0, OK, 1, 'mine', 0])
  t.equal(await one, 'mine')
  t.ok(client.connected)
})

for (const [what, batch, message] of /** @type {[string, unknown, RegExp][]} */ ([
  ['not an array', 'hello', /answered a malformed batch \("hello"\)/],
  ['a short batch', [OK, 1, 'x'], /malformed batch \(an array of 3\)/],
  ['null', null, /malformed batch \(null\)/],
  ['an object', { op: OK }, /malformed batch \(an object\)/],
  ['a caller op', [CALL, 1, 'x', 0], /malformed frame \(op 1, id 1\)/],
  ['a bad id', [OK, -1, 'x', 0], /malformed frame \(op 3, id -1\)/],
  ['a string id', [OK, 'one', 'x', 0], /malformed frame \(op 3, id "one"\)/],
  ['FAIL', [FAIL, 0, 'the callee received junk', 0], /reported a broken channel: the callee received junk/]
])) {
  t.test(`${what} from the callee: PROTOCOL for the calls sent, the next call reopens`, async (t) => {
    const callee = scripted()
    const client = connect('app', { messaging: callee.messaging })
    closeAfter(client)
    const pending = client.call('wait').catch((e) => e)
    await callee.batches(1)
    callee.channels[0].port.postMessage(batch)
    t.match(await pending, { name: 'ChannelError', application: 'app', code: CODES.PROTOCOL, message })
    t.notOk(client.connected, 'the broken channel is dropped')
    const next = client.call('again')
    await callee.batches(1, 1)
    t.equal(callee.channels.length, 2, 'a new handshake')
    callee.channels[1].port.postMessage([OK, 2, 'fine', 0])
    t.equal(await next, 'fine')
  })
}

t.test('a deadline rejects with TIMEOUT and cancels the call at the callee', async (t) => {
  const callee = scripted()
  const client = connect('app', { messaging: callee.messaging, timeoutMs: 60_000 })
  closeAfter(client)
  const kept = client.call('kept')
  await callee.batches(1) // open: the call below is sent before its deadline, however busy the machine
  const late = client.call('slow', 1, { timeoutMs: 20 }).catch((e) => e)
  t.match(await late, { code: CODES.TIMEOUT, application: 'app', message: 'app: slow did not answer within 20 ms' })
  const frames = await callee.batches(3)
  t.same(frames.slice(1), [[CALL, 2, 'slow', 1], [CANCEL, 2, 0, 0]], 'sent, then the callee is told to stop')
  callee.channels[0].port.postMessage([OK, 2, 'too late', 0, OK, 1, 'on time', 0])
  t.equal(await kept, 'on time', 'a late answer is dropped, the other still settles')
  t.equal(client.pending, 0)
})

t.test('an abort rejects with ABORTED, its reason the cause; an aborted signal rejects at once', async (t) => {
  const callee = scripted()
  const client = connect('app', { messaging: callee.messaging })
  closeAfter(client)
  const controller = new AbortController()
  const call = client.call('wait', 0, { signal: controller.signal }).catch((e) => e)
  await callee.batches(1)
  const reason = new Error('gave up')
  controller.abort(reason)
  const err = await call
  t.match(err, { code: CODES.ABORTED, message: 'app: call wait aborted' })
  t.equal(err.cause, reason)
  t.same((await callee.batches(2))[1], [CANCEL, 1, 0, 0])
  const before = callee.channels[0].frames.length
  const again = await client.call('wait', 0, { signal: controller.signal }).catch((e) => e)
  t.match(again, { code: CODES.ABORTED })
  t.equal(again.cause, reason)
  await new Promise((resolve) => setTimeout(resolve, 10))
  t.equal(callee.channels[0].frames.length, before, 'nothing sent for it')
})

t.test('an abort before the channel opened: rejected, never sent', async (t) => {
  const callee = scripted()
  const client = connect('app', { messaging: callee.messaging })
  closeAfter(client)
  const controller = new AbortController()
  const aborted = client.call('never', 0, { signal: controller.signal }).catch((e) => e)
  const sent = client.call('sent')
  controller.abort()
  t.match(await aborted, { code: CODES.ABORTED })
  const [frames] = await callee.batches(1)
  t.same(frames, [CALL, 2, 'sent', undefined], 'only the call still pending')
  callee.channels[0].port.postMessage([OK, 2, 1, 0])
  t.equal(await sent, 1)
})

t.test('a failed handshake fails the waiting calls with UNREACHABLE; the next call tries again', async (t) => {
  const messaging = localMessaging()
  const client = connect('app', { messaging })
  closeAfter(client)
  const [a, b] = await Promise.all([client.call('x'), client.call('y')].map((p) => p.catch((e) => e)))
  t.match(a, { code: CODES.UNREACHABLE, application: 'app', message: /app: could not open a port channel/ })
  t.equal(b.code, CODES.UNREACHABLE)
  t.equal(client.pending, 0)
  acceptPorts('port', (port) => { port.on('message', ([, id]) => port.postMessage([OK, id, 'up', 0])) }, { messaging })
  t.equal(await client.call('z'), 'up', 'the callee is there now')
})

t.test('the channel closing fails the calls sent on it with CLOSED', async (t) => {
  const callee = scripted()
  const client = connect('app', { messaging: callee.messaging })
  closeAfter(client)
  const pending = client.call('wait').catch((e) => e)
  await callee.batches(1)
  callee.channels[0].port.close()
  t.match(await pending, { code: CODES.CLOSED, message: /app: the channel closed/ })
  t.notOk(client.connected)
})

t.test('close(): pending calls and later ones reject with CLOSED, a channel still opening is closed', async (t) => {
  const callee = scripted()
  const client = connect('app', { messaging: callee.messaging })
  const pending = client.call('wait').catch((e) => e)
  client.close()
  client.close()
  t.match(await pending, { code: CODES.CLOSED, message: 'app: the client was closed' })
  t.match(await client.call('after').catch((e) => e), { code: CODES.CLOSED })
  await until(() => callee.channels.length === 1, 'the handshake under way')
  const closed = new Promise((resolve) => callee.channels[0].port.once('close', resolve))
  await closed
  t.pass('the channel that opened after close() was closed at once')
  t.equal(client.pending, 0)
})

t.test('payloads the kind cannot send, or too large, are refused before they leave', async (t) => {
  const callee = scripted()
  const client = connect('app', { messaging: callee.messaging, maxPayloadBytes: 10 })
  closeAfter(client)
  t.match(await client.call('big', 'x'.repeat(11)).catch((e) => e),
    { code: CODES.TOO_LARGE, message: 'app: payload larger than 10 bytes' })
  t.equal(callee.channels.length, 0, 'no channel opened for it')
  const fn = await client.call('fn', () => {}).catch((e) => e)
  t.match(fn, { code: CODES.BAD_PAYLOAD, message: /app: payload cannot be sent over port/ })
  t.match(fn.cause, { name: 'DataCloneError' })
  const shm = connect('app', { kind: 'shm', messaging: localMessaging() })
  closeAfter(shm)
  const big = await shm.call('n', 10n).catch((e) => e)
  t.match(big, { code: CODES.BAD_PAYLOAD, message: /payload cannot be sent over shm/ })
  t.type(big.cause, TypeError)
})

t.test('bad names and deadlines are InvalidOptionError, at the call', async (t) => {
  const client = connect('app', { messaging: localMessaging() })
  closeAfter(client)
  for (const name of ['', 'x'.repeat(257), 5, undefined]) {
    await t.rejects(client.call(/** @type {any} */ (name)), {
      name: 'InvalidOptionError', code: CODES.INVALID_OPTION, message: /handler name must be a string of 1 to 256/
    })
  }
  await t.rejects(client.call('x', 0, { timeoutMs: 0 }), { code: CODES.INVALID_OPTION, message: /timeoutMs/ })
  t.equal(client.pending, 0)
})
