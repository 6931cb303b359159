// An application with two workers behind the drop-in: a hung worker gets no new
// requests once its slice is over, a crash sends that worker's in-flight GETs to the
// other worker and fails its POSTs (at once, naming the application), and the links follow the
// replacement workers, also after a restart through Watt's management API and
// after a hot reload (Watt's `watch`).
import { appendFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import tap, { test } from 'tap'
import { createWattControl } from '../../bench/reliability/watt-control.js'
import { HOLD_MS } from '../../packages/channel/lib/mesh-port/route.js'
import { startFixture } from '../helpers/mesh-fixture.js'

/**
 * Waits until the front has sent `count` more requests over two's links than `before`
 * (they are then in flight in the workers' pools), instead of a fixed pause.
 * @param {Awaited<ReturnType<typeof startFixture>>} fixture
 * @param {number} before
 * @param {number} count
 */
async function untilSent (fixture, before, count) {
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline) {
    if (await sentToTwo(fixture) >= before + count) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error(`${count} requests were not sent to two within 30 s`)
}

/** @param {Awaited<ReturnType<typeof startFixture>>} fixture */
async function sentToTwo (fixture) {
  return (await fixture.stats()).two.workers.reduce((n, w) => n + w.calls, 0)
}

/** @param {{ text: string }} answer */
const who = (answer) => /** @type {{ worker: number, thread: number }} */ (JSON.parse(answer.text))

/**
 * Calls /whoami until both workers answered from threads not in `old`, or fails. The
 * deadline is for slow machines (a hot reload there starts two workers under eight
 * callers); a fast one returns in a few seconds.
 * @param {Awaited<ReturnType<typeof startFixture>>} fixture
 * @param {Set<number>} old
 */
async function untilBothReplaced (fixture, old) {
  const deadline = Date.now() + 90_000
  /** @type {Map<number, number>} worker → thread */
  let seen = new Map()
  while (Date.now() < deadline) {
    const answer = await fixture.call('http://two.plt.local', '/whoami')
    if (answer.status === 200) {
      const { worker, thread } = who(answer)
      if (old.has(thread)) seen = new Map()
      else seen.set(worker, thread)
      if (seen.size === 2 && (await fixture.stats()).two.workers.length === 2) return seen
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`the two workers were not both replaced within 90 s (seen ${JSON.stringify([...seen])})`)
}

/**
 * Waits until every link to two has carried a call; false if not within `ms`.
 * @param {Awaited<ReturnType<typeof startFixture>>} fixture
 * @param {number} ms
 */
async function untilLinksCalled (fixture, ms) {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    const { workers } = (await fixture.stats()).two
    if (workers.length === 2 && workers.every((w) => w.calls > 0)) return true
    await sleep(50)
  }
  return false
}

/**
 * Eight callers at once until stop(), so requests are in flight to each old worker as it
 * stops. The generous per-call deadline is for slow machines: a lost request waits it
 * out and fails.
 * @param {Awaited<ReturnType<typeof startFixture>>} fixture
 */
function underLoad (fixture) {
  let calls = 0
  /** @type {string[]} bodies of the calls that did not answer 200 */
  const failures = []
  const state = { stopped: false }
  const loop = async () => {
    while (!state.stopped) {
      const answer = await fixture.call('http://two.plt.local', '/whoami', { timeout: 15_000 })
      calls++
      if (answer.status !== 200) failures.push(answer.text)
    }
  }
  const load = Promise.all(Array.from({ length: 8 }, loop))
  return {
    async stop () {
      state.stopped = true
      await load
      return { calls, failures }
    }
  }
}

/** @type {ReturnType<typeof startFixture> | undefined} */
let shared
// One runtime for every case but the hot reload's (a start was a third of each), stopped at
// the file's end. The restart runs second: the crash and the stall begin from new links.
const twoWorkers = () => (shared ??= startFixture(tap, 'drop-in', { apps: ['two'] }))

test('a hung worker gets no new requests once its slice is over; the other answers them', async (t) => {
  const fixture = await twoWorkers()
  await fixture.call('http://two.plt.local', '/whoami')
  t.equal((await fixture.stats()).two.workers.length, 2, 'both workers linked')
  const sent = await sentToTwo(fixture)
  let blockedAt = Infinity
  const blocked = fixture.call('http://two.plt.local', '/block?ms=8000', { timeout: 60_000 }).then((answer) => { blockedAt = Date.now(); return answer })
  await untilSent(fixture, sent, 1) // in flight: the drop-in counts it against its worker
  // Within its slice the worker would keep the requests (route.js: up to HOLD_SLACK more
  // than the other); after it, the least loaded takes them.
  await sleep(HOLD_MS + 1)
  const answers = []
  for (let i = 0; i < 10; i++) {
    const answer = await fixture.call('http://two.plt.local', '/whoami', { timeout: 30_000 })
    answers.push({ answer, at: Date.now() })
  }
  const hung = who(await blocked).worker
  t.ok(answers.every((a) => a.answer.status === 200), 'all answered')
  t.ok(answers.every((a) => who(a.answer).worker !== hung), `none went to the hung worker ${hung}`)
  t.ok(answers.every((a) => a.at < blockedAt), 'all while it was hung (before its blocked call returned)')
})

test('a restart through the management API moves the links to the new workers', async (t) => {
  const fixture = await twoWorkers()
  const control = createWattControl(/** @type {number} */ (fixture.pid))
  t.teardown(() => control.close())
  await fixture.call('http://two.plt.local', '/whoami')
  const before = new Set((await fixture.stats()).two.workers.map((w) => w.thread))
  t.equal(before.size, 2)
  const load = underLoad(fixture)
  await control.restartApplication('two')
  const seen = await untilBothReplaced(fixture, before)
  const { calls, failures } = await load.stop()
  // Requests in flight to a stopping worker finish there: the GOAWAY takes it out of the
  // rotation, its pool closes after them, and its server keeps their connections open
  // until the caller ends them (before, a few in a restart waited out their timeout).
  t.equal(failures.length, 0, `none of ${calls} calls failed during the restart ${failures[0] ?? ''}`)
  const after = await Promise.all(Array.from({ length: 20 }, () => fixture.call('http://two.plt.local', '/whoami', { timeout: 15_000 })))
  t.ok(after.every((a) => a.status === 200), 'every call after the restart answers')
  t.equal(seen.size, 2, 'both new workers answer')
  t.notOk([...seen.values()].some((thread) => before.has(thread)), 'none from the old threads')
})

test('a crash: its in-flight GETs go to the other worker once, its POSTs fail at once, naming the application', async (t) => {
  const fixture = await twoWorkers()
  await fixture.call('http://two.plt.local', '/whoami')
  const threads = new Set((await fixture.stats()).two.workers.map((w) => w.thread))
  t.equal(threads.size, 2, 'both workers linked')
  // Four slow calls spread two per worker (fewest in flight): a GET and a POST on each.
  // One slice apart: within a slice one worker keeps the requests (route.js).
  const slow = []
  for (const method of ['GET', 'GET', 'POST', 'POST']) {
    const sent = await sentToTwo(fixture)
    slow.push(fixture.call('http://two.plt.local', '/slow?ms=6000', { method, timeout: 60_000, ...(method === 'POST' ? { body: 'order', headers: { 'content-type': 'text/plain' } } : {}) }).then((answer) => ({ method, answer, at: Date.now() })))
    await untilSent(fixture, sent, 1)
    await sleep(HOLD_MS + 1)
  }
  const before = await fixture.retried()
  // A POST crashes its worker (a GET would be sent again, and crash the other one too).
  const started = Date.now()
  const exit = await fixture.call('http://two.plt.local', '/exit', { method: 'POST', body: 'x', headers: { 'content-type': 'text/plain' }, timeout: 60_000 })
  const results = await Promise.all(slow)
  t.equal(exit.status, 502, 'the request that crashed its worker fails')
  const error = JSON.parse(exit.text).error
  t.equal(error.application, 'two', 'naming the application')
  t.equal(error.code, 'WATT_CHANNEL_CLOSED')
  t.match(error.message, /^two: /)
  const failed = results.filter((r) => r.answer.status !== 200)
  t.same(failed.map((r) => r.method), ['POST'], "only the crashed worker's POST fails")
  t.equal(JSON.parse(failed[0].answer.text).error.application, 'two')
  const firstAnswer = Math.min(...results.filter((r) => r.answer.status === 200).map((r) => r.at))
  t.ok(failed[0].at < firstAnswer, `at once (${failed[0].at - started} ms), before the 6 s answers`)
  const answered = results.filter((r) => r.answer.status === 200)
  t.same(answered.map((r) => r.method).sort(), ['GET', 'GET', 'POST'], "the crashed worker's GET was sent again and answered")
  const survivor = who(answered[0].answer).thread
  t.ok(answered.every((r) => who(r.answer).thread === survivor), 'all three answers from the one surviving worker')
  const after = await fixture.retried()
  t.equal((after['two crashed'] ?? 0) - (before['two crashed'] ?? 0), 1, 'one request sent again, counted as crashed')
  // Meanwhile and after, every call answers; Watt restarts the crashed worker and it is linked again.
  for (let i = 0; i < 5; i++) t.equal((await fixture.call('http://two.plt.local', '/whoami')).status, 200, 'the other worker keeps answering')
  const crashed = [...threads].find((thread) => thread !== survivor)
  const seen = await untilBothReplaced(fixture, new Set([Number(crashed)]))
  t.ok([...seen.values()].includes(survivor), 'the survivor kept its link')
  t.equal((await fixture.stats()).two.workers.length, 2, 'two links again, one to the replacement')
})

test('a hung worker stays passed over once its requests were abandoned, and is back when it answers', async (t) => {
  const fixture = await twoWorkers()
  await fixture.call('http://two.plt.local', '/whoami')
  const before = (await fixture.stats()).two.workers
  t.equal(before.length, 2, 'both workers linked')
  // Long enough that every step below waits on a condition, not on the clock, well
  // inside it, on a slow machine too; answers after blockMs are not judged.
  const blockMs = 15_000
  const blockedAt = Date.now()
  /** @type {{ abandonedAt: number | null }} when the blocked call was abandoned (its 502), ms after blockedAt */
  const state = { abandonedAt: null }
  // Abandoned by its caller after 3 s: the hung worker then has nothing in flight, the
  // fewest of the two, and by load alone would take the next slice.
  const blocked = fixture.call('http://two.plt.local', `/block?ms=${blockMs}`, { timeout: 3000 }).then((answer) => { state.abandonedAt = Date.now() - blockedAt; return answer })
  await untilSent(fixture, before.reduce((n, w) => n + w.calls, 0), 1)
  const hung = (await fixture.stats()).two.workers.find((w) => w.calls > /** @type {any} */ (before.find((b) => b.thread === w.thread)).calls)
  const hungNow = async () => (await fixture.stats()).two.workers.find((w) => w.thread === hung?.thread)
  await sleep(HOLD_MS + 1) // its slice is over
  /** @type {{ worker: number, at: number }[]} */
  const answers = []
  let seenStalled = false
  // Calls until it was seen stalled, its call was abandoned, and 5 more answered after that.
  const enough = () => seenStalled && state.abandonedAt !== null && answers.filter((a) => a.at > /** @type {number} */ (state.abandonedAt)).length >= 5
  while (!enough()) {
    if (Date.now() - blockedAt > blockMs) break
    const answer = await fixture.call('http://two.plt.local', '/whoami', { timeout: 60_000 })
    t.equal(answer.status, 200)
    answers.push({ worker: who(answer).worker, at: Date.now() - blockedAt })
    if (!seenStalled) seenStalled = Boolean((await hungNow())?.stalled)
    await sleep(10)
  }
  const during = answers.filter((a) => a.at < blockMs)
  t.ok(seenStalled, `worker ${hung?.worker} was marked stalled while hung`)
  t.equal((await blocked).status, 502, 'the blocked call was abandoned on its deadline')
  const late = during.filter((a) => a.at > /** @type {number} */ (state.abandonedAt))
  t.ok(late.length >= 5, `${late.length} calls answered after the deadline, during the block`)
  t.same(during.filter((a) => a.worker === hung?.worker), [], `none of ${during.length} calls during the block went to the hung worker, also after its call was abandoned`)
  // Once it runs again it answers the ping, and gets calls again.
  await sleep(Math.max(0, blockMs + 200 - (Date.now() - blockedAt)))
  const workers = new Set()
  for (let i = 0; i < 20 && workers.size < 2; i++) {
    workers.add(who(await fixture.call('http://two.plt.local', '/whoami')).worker)
    await sleep(HOLD_MS + 1)
  }
  t.equal(workers.size, 2, 'both workers answer again')
  const after = await hungNow()
  t.equal(after?.stalled, false, 'no longer stalled')
  t.equal(after?.stalls, 1, 'stalled once')
})

test('a hot reload (Watt\'s watch) moves the links to the new workers; the gap fails as the mesh fails', async (t) => {
  const watched = await startFixture(t, 'drop-in', { apps: ['two'], watch: true })
  await watched.call('http://two.plt.local', '/whoami')
  const start = (await watched.stats()).two
  const before = new Set(start.workers.map((w) => w.thread))
  t.equal(before.size, 2)
  const load = underLoad(watched)
  // An edit to the app's code: Watt stops all of its workers, then starts new ones.
  appendFileSync(join(watched.appDir('two'), 'index.js'), '\n// edited by the hot-reload test\n')
  const seen = await untilBothReplaced(watched, before)
  // A worker can answer over the mesh before its link is made; the load goes on until
  // both links carried calls (or the deadline), so the last link made has its chance.
  const linked = await untilLinksCalled(watched, 30_000)
  const { calls, failures } = await load.stop()
  const end = (await watched.stats()).two
  t.equal(end.path, 'http-port', 'the app is reached over http-port again')
  t.notOk(end.workers.some((w) => before.has(w.thread)), 'no link left to an old worker')
  t.same(new Set(end.workers.map((w) => w.thread)), new Set(seen.values()), 'one link to each new worker')
  t.ok(linked && end.workers.every((w) => w.calls > 0), 'both new workers got calls over http-port')
  // While no worker of two runs, the drop-in hands calls to the mesh, which fails them
  // at once, as it does without the drop-in; no call hung or failed otherwise.
  const other = failures.filter((text) => !/^\{"error":\{"name":"Error","message":"No target found for two\.plt\.local in thread \d+\."\}\}$/.test(text))
  t.same(other, [], `of ${calls} calls, ${failures.length} failed, each with the mesh's "No target found"`)
  t.ok(end.meshCalls - start.meshCalls >= failures.length, `each failure went over the mesh (${end.meshCalls - start.meshCalls} mesh calls)`)
  const after = await Promise.all(Array.from({ length: 20 }, () => watched.call('http://two.plt.local', '/whoami', { timeout: 15_000 })))
  t.ok(after.every((a) => a.status === 200), 'every call after the reload answers')
})
