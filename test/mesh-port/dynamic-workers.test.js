// The drop-in under Watt's dynamic workers: the scaler (`workers: { dynamic: true }`,
// fixture/watt.mesh-port.dynamic.json) takes `two` from one worker to three while its
// workers' event loops are busy, and back to one once they are not. Calls go on all along,
// every answer checked: the added workers get calls over http-port, no call fails while
// the scaler removes workers, and the drop-in keeps links only to the workers left.
//
// The scaler's clock (@platformatic/runtime 3.67, lib/worker-scaler.js and
// scaling-algorithm.js): a health check each second, skipped for a worker in its
// `gracePeriod`; when a worker's ELU is above its application's `scaleUpELU` the scaler
// decides, at most once per `cooldown`: up by one if the application's mean ELU over 10 s
// is above `scaleUpELU`, down by one if its mean over 60 s is below `scaleDownELU` (which
// wins). Otherwise it decides once a minute only. So the config keeps the front (one worker,
// never scaled) at a `scaleUpELU` of 0.05: its busy loop makes the scaler decide every
// second while two's workers sit idle, and the scale-down comes within seconds.
import { setTimeout as sleep } from 'node:timers/promises'
import { test } from 'tap'
import { startFixture } from '../helpers/mesh-fixture.js'

const CONFIG = 'watt.mesh-port.dynamic.json'
const MAX_WORKERS = 3 // two's `maximum` in the config
/** Blocks each of two's workers for this long per call while busy: its ELU near 1. */
const BLOCK_MS = 20
const CALLERS = 8

/** @typedef {Awaited<ReturnType<typeof startFixture>>} Fixture */

/**
 * two's started workers, as the runtime lists them: index → thread.
 * @param {Fixture} fixture
 * @returns {Promise<Map<number, number>>}
 */
async function startedWorkers (fixture) {
  const answer = await fetch(`${fixture.url}/workers`)
  const all = /** @type {Record<string, { application: string, worker: string, status: string, thread: number }>} */ (await answer.json())
  return new Map(Object.values(all).filter((w) => w.application === 'two' && w.status === 'started').map((w) => [Number(w.worker), w.thread]))
}

/**
 * Waits for `done` (polled every 200 ms), or fails after `ms` saying what it waited for.
 * @param {() => Promise<boolean>} done
 * @param {number} ms
 * @param {string} what
 */
async function until (done, ms, what) {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (await done()) return
    await sleep(200)
  }
  throw new Error(`${what}: not within ${ms / 1000} s`)
}

/**
 * CALLERS callers through the front to two until stop(): /block while `busy` (two's
 * event loops near full, so the scaler adds workers), /whoami after (the front busy, two
 * idle, so it removes them). Every answer is checked: 200, and two's /whoami JSON.
 * @param {Fixture} fixture
 */
function underLoad (fixture) {
  const state = { busy: true, stopped: false }
  let calls = 0
  /** @type {{ status: number, text: string }[]} */
  const failures = []
  /** @type {Map<number, number>} thread → answers it gave */
  const answeredBy = new Map()
  const loop = async () => {
    while (!state.stopped) {
      const path = state.busy ? `/block?ms=${BLOCK_MS}` : '/whoami'
      const answer = await fixture.call('http://two.plt.local', path, { timeout: 15_000 })
      calls++
      /** @type {any} */
      let body = null
      try { body = JSON.parse(answer.text) } catch {}
      if (answer.status !== 200 || body?.app !== 'two' || typeof body.thread !== 'number') {
        failures.push({ status: answer.status, text: answer.text.slice(0, 300) })
      } else {
        answeredBy.set(body.thread, (answeredBy.get(body.thread) ?? 0) + 1)
      }
    }
  }
  const load = Promise.all(Array.from({ length: CALLERS }, loop))
  return {
    state,
    answeredBy,
    calls: () => calls,
    async stop () {
      state.stopped = true
      await load
      return { calls, failures }
    }
  }
}

test('the scaler adds and removes workers of two under load: the drop-in follows, no call fails, no link left to a removed worker', async (t) => {
  const fixture = await startFixture(t, 'drop-in', { apps: ['two'], config: CONFIG })
  t.same([...(await startedWorkers(fixture)).keys()], [0], 'two starts at its minimum, one worker')
  const first = await fixture.call('http://two.plt.local', '/whoami')
  t.equal(first.status, 200)

  const meshCallsBefore = (await fixture.stats()).two.meshCalls
  const counted = await fixture.counted()
  const load = underLoad(fixture)
  t.teardown(() => load.stop())

  // Up: busy workers, until the runtime lists three and each has a link over which calls went.
  /** @type {Map<number, number>} */
  let atMost = new Map()
  await until(async () => {
    const workers = await startedWorkers(fixture)
    if (workers.size > atMost.size) atMost = workers
    const links = (await fixture.stats()).two?.workers ?? []
    return workers.size === MAX_WORKERS && [...workers.values()].every((thread) => links.some((l) => l.thread === thread && l.calls > 0))
  }, 60_000, `two scaled up to ${MAX_WORKERS} workers, each linked and called`)
  const added = [...atMost].filter(([index]) => index !== 0)
  t.equal(added.length, MAX_WORKERS - 1, `the scaler added ${MAX_WORKERS - 1} workers (indexes ${added.map(([i]) => i).join(', ')})`)
  // (a) the drop-in's counter: calls over http-port to each added worker
  await until(async () => {
    const now = await fixture.counted()
    return added.every(([index]) => (now[`two http-port ${index}`] ?? 0) > (counted[`two http-port ${index}`] ?? 0))
  }, 10_000, 'the counter shows calls to every added worker')
  const upCounted = await fixture.counted()
  for (const [index, thread] of added) {
    const calls = (upCounted[`two http-port ${index}`] ?? 0) - (counted[`two http-port ${index}`] ?? 0)
    t.ok(calls > 0, `added worker ${index}: ${calls} calls over http-port (counter)`)
    t.ok((load.answeredBy.get(thread) ?? 0) > 0, `added worker ${index} (thread ${thread}) answered ${load.answeredBy.get(thread)} calls`)
  }

  // Down: two idle, the front busy, until the runtime lists one worker of two again.
  load.state.busy = false
  await until(async () => (await startedWorkers(fixture)).size === 1, 60_000, 'two scaled down to one worker')
  const left = await startedWorkers(fixture)
  // a few more checked calls on the one worker left, then the load ends
  const atOne = load.calls()
  await until(async () => load.calls() >= atOne + 4 * CALLERS, 10_000, 'calls after the scale-down')
  const { calls, failures } = await load.stop()

  // (b) no call failed, while workers were added or removed
  t.same(failures, [], `none of ${calls} calls failed (status and body checked)`)
  const output = fixture.output()
  // the runtime's log lines are JSON: their quotes escaped
  t.match(output, /Scaling up the \\"two\\" app to 3 workers/, 'the scaler took two up to 3 workers')
  t.match(output, /Scaling down the \\"two\\" app to 1 workers/, 'and back down to 1')
  const end = (await fixture.stats()).two
  t.equal(end.meshCalls, meshCallsBefore, 'every call went over http-port, none left to the mesh meanwhile')
  const retried = await fixture.retried()
  t.comment(`sent again to another worker: ${JSON.stringify(retried)}`)

  // (c) the drop-in's links: only to the worker left, none to a removed one
  const removed = [...atMost.values()].filter((thread) => ![...left.values()].includes(thread))
  t.equal(removed.length, MAX_WORKERS - 1, `${removed.length} workers removed (threads ${removed.join(', ')})`)
  const links = (await fixture.stats()).two.workers
  t.same(links.map((l) => l.thread).sort(), [...left.values()].sort(), `one link, to the worker left (thread ${[...left.values()]})`)
  t.notOk(links.some((l) => removed.includes(l.thread)), 'no link to a removed worker')
  const after = await Promise.all(Array.from({ length: 10 }, () => fixture.call('http://two.plt.local', '/whoami', { timeout: 15_000 })))
  t.ok(after.every((a) => a.status === 200 && JSON.parse(a.text).thread === [...left.values()][0]), 'calls after it answer, from the worker left')
})
