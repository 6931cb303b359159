// @ts-check
// One caller and a target's workers through their lives under the fake Watt (fake-watt.js): Watt
// stops one, one crashes, then the last is restarted. The
// workers serve with Fastify (as @platformatic/service does): a stopping one refuses new requests.
import { FakeRuntime, until } from './fake-watt.js'

/** @typedef {import('./fake-watt.js').FakeWorker} FakeWorker */

const ORIGIN = 'http://target.plt.local'
const CLOSED = { name: 'ChannelError', code: 'WATT_CHANNEL_CLOSED', application: 'target' }
const json = (/** @type {{ body: string }} */ answer) => JSON.parse(answer.body)

/**
 * @param {import('tap').Test} t
 */
export async function workerLifecycle (t) {
  const runtime = new FakeRuntime(t, ['caller', 'target'])
  const options = {}
  const fastify = { server: 'fastify' }
  const [caller, ...targets] = await Promise.all([
    runtime.start('caller', 0, {
      server: 'none', dispatchers: { default: options, noretry: { ...options, retry: false } }
    }),
    runtime.start('target', 0, fastify),
    runtime.start('target', 1, fastify),
    runtime.start('target', 2, fastify)
  ])
  const stats = async () => (await caller.stats()).target
  const threads = async () => (await stats()).workers.map((/** @type {any} */ w) => w.thread).sort()
  const callsOf = async (/** @type {FakeWorker} */ w) =>
    (await stats()).workers.find((/** @type {any} */ l) => l.thread === w.thread)?.calls
  const hangsOn = (/** @type {FakeWorker} */ w) => w.seen.filter((s) => s.path === '/hang').length
  /** @param {RegExp} line */
  const logged = async (line) => (await caller.rpc('logs')).filter((/** @type {any} */ l) => line.test(l.msg)).length

  // The first request links every started worker.
  const first = await caller.call({ url: `${ORIGIN}/who` })
  t.match(first, { status: 200, via: 'http-port' })
  t.equal(json(first).ready, true, 'served once its Fastify app was ready')
  t.same(await threads(), targets.map((w) => w.thread).sort(), 'one link per target worker')

  // Stop: the worker holding a request sends GOAWAY; what it holds still finishes there.
  const held = caller.call({ url: `${ORIGIN}/hang` })
  const stopped = await until(() => targets.find((w) => hangsOn(w) === 1), 'the request to reach a worker')
  await runtime.stop(stopped)
  await until(async () => !(await threads()).includes(stopped.thread), 'the stopping worker to leave the rotation')
  const seenAtStop = stopped.seen.length
  for (let i = 0; i < 3; i++) {
    t.not(json(await caller.call({ url: `${ORIGIN}/who` })).thread, stopped.thread, 'a new request goes elsewhere')
  }
  t.equal(stopped.seen.length, seenAtStop, 'the stopping worker saw none')
  await stopped.rpc('release')
  const finished = await held
  t.match(finished, { status: 200, via: 'http-port' })
  t.equal(json(finished).thread, stopped.thread, 'the request it held finished there')
  t.equal(await logged(new RegExp(`^mesh-port: target worker ${stopped.index} is stopping: no new requests to it$`)), 1)

  // Crash: three requests of one turn go to one worker, which dies before answering.
  const live = targets.filter((w) => w !== stopped)
  const before = new Map(live.map((w) => [w, hangsOn(w)]))
  const inFlight = caller.calls([
    { url: `${ORIGIN}/hang` },
    { url: `${ORIGIN}/hang`, method: 'POST', body: 'not sent twice' },
    { url: `${ORIGIN}/hang`, via: 'noretry' }
  ])
  const crashed = await until(() => live.find((w) => hangsOn(w) - Number(before.get(w)) === 3), 'the requests')
  const survivor = /** @type {FakeWorker} */ (live.find((w) => w !== crashed))
  const callsBefore = Number(await callsOf(survivor))
  await survivor.rpc('release') // it answers /hang at once
  await crashed.rpc('crash')
  const [retried, posted, unretried] = await inFlight
  t.match(retried, { status: 200, via: 'http-port' }, 'the GET was sent again')
  t.equal(json(retried).thread, survivor.thread, 'to the live worker')
  t.match(posted, { error: CLOSED }, 'the POST failed')
  t.match(unretried, { error: CLOSED }, 'so did the GET of the dispatcher with retry: false')
  // its server's report may come after the answer
  await until(() => hangsOn(survivor) > Number(before.get(survivor)), 'the survivor to report the GET')
  t.equal(hangsOn(survivor) - Number(before.get(survivor)), 1, 'the survivor saw the retried GET alone')
  t.same(await threads(), [survivor.thread], 'the crashed worker is dropped')
  t.equal(await callsOf(survivor), callsBefore + 1, 'the retry counts as a call to the survivor')

  // Restart: the last worker stops while the caller, which has not heard of its replacement yet,
  // sends it two requests. Its server would answer 503: it refuses them, and they move.
  const replacement = await runtime.start('target', 3, fastify, { announce: false })
  const flag = new SharedArrayBuffer(8)
  const slots = new Int32Array(flag)
  const moving = caller.rpc('blockedCalls', {
    flag, list: [{ url: `${ORIGIN}/who` }, { url: `${ORIGIN}/echo`, method: 'POST', body: 'moved with its body' }]
  })
  const seenAtRestart = survivor.seen.length
  try {
    await until(() => Atomics.load(slots, 1) === 1, 'the caller to block')
    await runtime.stop(survivor, { listed: true })
  } finally {
    Atomics.store(slots, 0, 1)
    Atomics.notify(slots, 0)
  }
  const [get, post] = await moving
  t.match(get, { status: 200, via: 'http-port' })
  t.match(json(get), { thread: replacement.thread, method: 'GET' }, 'the GET moved to the replacement')
  t.match(json(post), { thread: replacement.thread, method: 'POST', body: 'moved with its body' }, 'so did the POST')
  t.equal(survivor.seen.length, seenAtRestart, 'the stopping worker served neither')
  t.same(await threads(), [replacement.thread])
  t.equal(await callsOf(replacement), 2)
  const moved = new RegExp(`^mesh-port: target: a request refused by stopping worker ${survivor.index} ` +
    'sent again to worker 3$')
  t.equal(await logged(moved), 2, 'each move logged')
  t.equal((await stats()).path, 'http-port')
}
