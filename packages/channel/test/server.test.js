// The callee's end (server.js) driven by hand in this thread: the test opens a raw port to
// serve()'s handlers and posts frames. Each call gets its answer (OK, or ERR with its code),
// a CANCEL aborts the handler's signal, an answer above either side's limit is TOO_LARGE, and a
// frame that breaks the protocol gets FAIL and the channel closed.
import t from 'tap'
import { once } from 'node:events'
import { CALL, CANCEL, ERR, FAIL, OK } from '../lib/batch.js'
import { connect } from '../lib/client.js'
import { CODES } from '../lib/errors.js'
import { openPort } from '../lib/handshake.js'
import { serve } from '../lib/server.js'
import { localMessaging } from './helpers/local-messaging.js'

const until = async (/** @type {() => boolean} */ check, what = 'a condition') => {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5))
  if (!check()) throw new Error(`timed out waiting for ${what}`)
}

/** @type {AbortSignal[]} */
const signals = []
/** @type {Map<string, (value: unknown) => void>} */
const release = new Map()
const HANDLERS = {
  echo: (/** @type {unknown} */ payload) => payload,
  echoAsync: async (/** @type {unknown} */ payload) => payload,
  context: (/** @type {unknown} */ _, /** @type {{ signal: AbortSignal }} */ { signal }) => signal instanceof AbortSignal,
  throws: () => { throw new Error('boom') },
  rejects: () => Promise.reject(new Error('async boom')),
  rejectsText: () => Promise.reject('just a string'), // eslint-disable-line prefer-promise-reject-errors
  long: () => { throw new Error('e'.repeat(3000)) },
  fill: (/** @type {number} */ n) => 'x'.repeat(n),
  fn: () => () => {},
  bigint: () => 10n,
  wait: (/** @type {string} */ tag, /** @type {{ signal: AbortSignal }} */ { signal }) => {
    signals.push(signal)
    return new Promise((resolve) => release.set(tag, resolve))
  }
}

/**
 * serve() on a local messaging, and a raw port to it with everything it received.
 * @param {object} [options] serve()'s
 * @param {unknown} [meta] the caller's handshake meta
 */
async function served (options = {}, meta = { maxPayloadBytes: 8 * 1024 * 1024 }) {
  const messaging = localMessaging()
  const server = serve(HANDLERS, { messaging, ...options })
  const port = await openPort('callee', 'port', { messaging, meta })
  /** @type {unknown[][]} */
  const got = []
  port.on('message', (frames) => got.push(frames))
  t.teardown(() => port.close())
  /** @param {unknown} frames */
  const ask = async (frames, n = got.length + 1) => {
    port.postMessage(frames)
    await until(() => got.length >= n, `answer ${n}`)
    return got[n - 1]
  }
  return { server, port, got, ask, messaging }
}

t.test("a batch's calls are answered, sync and async, in one message", async (t) => {
  const { server, ask } = await served()
  t.equal(server.channels, 1, 'one channel open')
  const answers = await ask([CALL, 1, 'echo', 'a', CALL, 2, 'echoAsync', { b: 2 }, CALL, 3, 'context', 0])
  t.same(answers, [OK, 1, 'a', 0, OK, 3, true, 0, OK, 2, { b: 2 }, 0], 'sync first, async after, one post')
})

t.test('a handler that throws, rejects or is missing: ERR with its code, the channel kept', async (t) => {
  const { ask } = await served()
  t.same(await ask([CALL, 1, 'nope', 0]), [ERR, 1, CODES.UNKNOWN_HANDLER, 'no handler named "nope"'])
  t.same(await ask([CALL, 2, 42, 0]), [ERR, 2, CODES.UNKNOWN_HANDLER, 'no handler named 42'], 'a name not a string')
  t.same(await ask([CALL, 3, 'throws', 0]), [ERR, 3, CODES.REMOTE, 'boom'])
  t.same(await ask([CALL, 4, 'rejects', 0]), [ERR, 4, CODES.REMOTE, 'async boom'])
  t.same(await ask([CALL, 5, 'rejectsText', 0]), [ERR, 5, CODES.REMOTE, 'just a string'])
  t.same(await ask([CALL, 6, 'long', 0]), [ERR, 6, CODES.REMOTE, 'e'.repeat(1000)], 'cut at 1,000 characters')
  t.same(await ask([CALL, 7, 'echo', 'ok']), [OK, 7, 'ok', 0])
})

t.test("an answer over either side's limit is TOO_LARGE", async (t) => {
  const mine = await served({ maxPayloadBytes: 100 })
  t.same(await mine.ask([CALL, 1, 'fill', 101]), [ERR, 1, CODES.TOO_LARGE, 'the answer is larger than 100 bytes'])
  t.same(await mine.ask([CALL, 2, 'fill', 100]), [OK, 2, 'x'.repeat(100), 0])
  const theirs = await served({}, { maxPayloadBytes: 50 })
  t.same(await theirs.ask([CALL, 1, 'fill', 51]), [ERR, 1, CODES.TOO_LARGE, 'the answer is larger than 50 bytes'],
    "the caller's own limit, from its handshake")
  const none = await served({ maxPayloadBytes: 1 << 30 }, { maxPayloadBytes: 'a lot' })
  t.same((await none.ask([CALL, 1, 'fill', 10]))[0], OK, 'a meta limit that is no number: the default limit')
})

t.test('an answer the kind cannot carry is BAD_PAYLOAD', async (t) => {
  const { ask } = await served()
  const [op, id, code, message] = await ask([CALL, 1, 'fn', 0])
  t.same([op, id, code], [ERR, 1, CODES.BAD_PAYLOAD])
  t.match(message, /^the answer cannot be sent: /)
  const messaging = localMessaging()
  serve(HANDLERS, { messaging, kinds: ['shm'] })
  const client = connect('callee', { kind: 'shm', messaging })
  t.teardown(() => client.close())
  t.match(await client.call('bigint').catch((e) => e),
    { code: CODES.BAD_PAYLOAD, message: /callee: bigint: the answer cannot be sent: / }, 'over shm: JSON has no BigInt')
  t.equal(await client.call('echo', { over: 'shm' }).then((v) => JSON.stringify(v)), '{"over":"shm"}')
})

t.test('CANCEL aborts the handler\'s signal, and its answer never leaves', async (t) => {
  const { server, ask, port, got } = await served()
  port.postMessage([CALL, 1, 'wait', 'one', CALL, 2, 'wait', 'two'])
  await until(() => server.running === 2, 'two handlers running')
  const signal = signals.at(-2)
  port.postMessage([CANCEL, 1, 0, 0, CANCEL, 77, 0, 0])
  await until(() => server.running === 1, 'one cancelled')
  t.ok(signal?.aborted)
  t.match(signal?.reason, { name: 'ChannelError', code: CODES.ABORTED, message: 'caller: the caller cancelled the call' })
  release.get('one')?.('too late')
  release.get('two')?.('in time')
  t.same(await ask([CALL, 3, 'echo', 'after'], 2), [OK, 3, 'after', 0])
  t.same(got[0], [OK, 2, 'in time', 0], 'only the call not cancelled was answered')
})

for (const [what, frames, reason] of /** @type {[string, unknown, string][]} */ ([
  ['a malformed batch', [CALL, 1, 'echo'], 'a malformed batch'],
  ['a bad id', [CALL, 0, 'echo', 0], 'a frame without a valid id'],
  ['an unknown op', [OK, 1, 'echo', 0], 'a frame with unknown op 3'],
  ['a second call with the same id', [CALL, 5, 'wait', 'dup', CALL, 5, 'echo', 0], 'a second call with id 5']
])) {
  t.test(`${what}: FAIL, then the channel closes`, async (t) => {
    const { server, port, got } = await served()
    const closed = once(port, 'close')
    port.postMessage(frames)
    await closed
    t.same(got.at(-1), [FAIL, 0, `the callee received ${reason}`, 0])
    t.equal(server.channels, 0)
    t.equal(server.running, 0, 'handlers of the channel aborted')
  })
}

t.test('closeChannels(): every channel closes, running handlers aborted with CLOSED; new ones still open', async (t) => {
  const { server, port } = await served()
  port.postMessage([CALL, 1, 'wait', 'closing'])
  await until(() => server.running === 1, 'the handler running')
  const signal = signals.at(-1)
  const closed = once(port, 'close')
  server.closeChannels()
  await closed
  t.match(signal?.reason, { code: CODES.CLOSED, message: 'caller: the channel closed' })
  t.equal(server.channels, 0)
  t.equal(server.running, 0)
  const client = connect('callee', { messaging: (await served()).messaging })
  t.teardown(() => client.close())
  t.equal(await client.call('echo', 'again'), 'again')
})

t.test('an shm handshake without two rings is refused; kinds limits what is accepted', async (t) => {
  const messaging = localMessaging()
  serve(HANDLERS, { messaging })
  const err = await openPort('callee', 'shm', { messaging, meta: { requests: new SharedArrayBuffer(10) } }).catch((e) => e)
  t.match(err, { code: CODES.UNREACHABLE, message: /could not open a shm channel: shm handshake without two rings/ })
  t.equal(err.cause.code, CODES.PROTOCOL)
  const portOnly = localMessaging()
  serve(HANDLERS, { messaging: portOnly, kinds: ['port'] })
  t.same([...portOnly.handlers.keys()], ['watt-lab-channel:port'])
  await t.rejects(openPort('callee', 'shm', { messaging: portOnly }), { code: CODES.UNREACHABLE })
})
