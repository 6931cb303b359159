// Faults under load with 2 workers per application (issue 43): a Fastify service
// (`svc`, which answers 503 to requests that begin once it closes) and node:http
// (`two`) behind the drop-in. A management-API restart loses nothing, after a crash
// too; a crash loses only the POSTs in flight on the dead worker (its GETs are sent
// again, once); a request whose answer had begun is never sent again.
import { setTimeout as sleep } from 'node:timers/promises'
import tap, { test } from 'tap'
import { request } from 'undici'
import { createWattControl } from '../../bench/reliability/watt-control.js'
import { startFixture } from '../helpers/mesh-fixture.js'

const WORKERS = { svc: 2, two: 2 }
const POST = { method: 'POST', body: 'order', headers: { 'content-type': 'text/plain' } }

/**
 * Ten callers until stop(): GETs of /whoami, every third a POST, to svc and two alike.
 * Each failure is kept with its method and the phase it happened in.
 * @param {Awaited<ReturnType<typeof startFixture>>} fixture
 */
function underLoad (fixture) {
  const state = { stopped: false, phase: 'before' }
  let calls = 0
  /** @type {{ phase: string, method: string, text: string }[]} */
  const failures = []
  const loop = async (/** @type {number} */ i) => {
    while (!state.stopped) {
      const app = i % 2 === 0 ? 'svc' : 'two'
      const post = i % 3 === 2
      const answer = await fixture.call(`http://${app}.plt.local`, post ? '/status?code=200' : '/whoami', { ...(post ? POST : {}), timeout: 30_000 })
      calls++
      if (answer.status !== 200) failures.push({ phase: state.phase, method: post ? 'POST' : 'GET', text: answer.text.slice(0, 300) })
    }
  }
  const load = Promise.all(Array.from({ length: 10 }, (_, i) => loop(i)))
  return {
    /** @param {string} phase */
    phase (phase) { state.phase = phase },
    /**
     * Until `count` more calls have answered than now: the load flows (a deadline for slow machines).
     * @param {number} count
     */
    async flowing (count = 200) {
      const from = calls
      const deadline = Date.now() + 60_000
      for (;;) {
        if (calls - from >= count) return
        if (Date.now() > deadline) throw new Error(`${count} calls did not answer within 60 s (${calls - from} did)`)
        await sleep(20)
      }
    },
    async stop () {
      state.stopped = true
      await load
      return { calls, failures }
    }
  }
}

/**
 * Until `application` has `count` started workers, none of them in `old`.
 * @param {import('../../bench/reliability/watt-control.js').WattControl} control
 * @param {Awaited<ReturnType<typeof startFixture>>} fixture
 * @param {string} application
 */
async function untilLinked (control, fixture, application) {
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    const links = (await fixture.stats())[application]?.workers ?? []
    if (links.length === 2) return links.map((l) => l.thread)
    await sleep(50)
  }
  throw new Error(`${application} was not linked to 2 workers within 60 s`)
}

/** @type {Promise<{ fixture: Awaited<ReturnType<typeof startFixture>>, control: import('../../bench/reliability/watt-control.js').WattControl }> | undefined} */
let shared

// One runtime for the four scenarios (a start was a fifth of each), stopped at the file's end:
// each begins once both apps are linked to 2 workers, as a restart or a crash's replacement leaves them.
async function start () {
  shared ??= (async () => {
    const fixture = await startFixture(tap, 'drop-in', { apps: ['svc', 'two'], workers: WORKERS })
    const control = createWattControl(/** @type {number} */ (fixture.pid))
    tap.teardown(() => control.close())
    return { fixture, control }
  })()
  const { fixture, control } = await shared
  for (const app of ['svc', 'two']) await fixture.call(`http://${app}.plt.local`, '/whoami')
  for (const app of ['svc', 'two']) await untilLinked(control, fixture, app)
  return { fixture, control }
}

test('a crash, then a restart 4 s later: the crash loses only POSTs, the restart nothing', async (t) => {
  const { fixture, control } = await start()
  const load = underLoad(fixture)
  await load.flowing()
  load.phase('crash')
  const repl = await control.openRepl('svc:1')
  repl.send('process.exit(1)')
  repl.close()
  await sleep(4000)
  load.phase('restart')
  await control.restartApplication('svc')
  await untilLinked(control, fixture, 'svc')
  await load.flowing()
  const { calls, failures } = await load.stop()
  t.ok(calls > 100, `${calls} calls under load`)
  t.same(failures.filter((f) => f.phase === 'restart'), [], 'the restart lost nothing')
  t.same(failures.filter((f) => f.method === 'GET'), [], 'no GET was lost')
  const lostPosts = failures.filter((f) => f.method === 'POST')
  t.ok(lostPosts.every((f) => f.phase === 'crash' && /"application":"svc"/.test(f.text)), `POSTs lost only in the crash, naming the application (${lostPosts.length})`)
  t.comment(`${calls} calls; POSTs in flight on the dead worker, lost: ${lostPosts.length}; sent again: ${JSON.stringify(await fixture.retried())}`)
})

test('two restarts back to back lose nothing', async (t) => {
  const { fixture, control } = await start()
  const before = await fixture.retried()
  const load = underLoad(fixture)
  await load.flowing()
  load.phase('restart')
  await control.restartApplication('svc')
  await control.restartApplication('svc')
  await control.restartApplication('two')
  await untilLinked(control, fixture, 'svc')
  await load.flowing()
  const { calls, failures } = await load.stop()
  t.ok(calls > 100, `${calls} calls under load`)
  t.same(failures, [], 'no request lost')
  t.equal(((await fixture.retried())['svc crashed'] ?? 0) - (before['svc crashed'] ?? 0), 0, 'nothing was sent again for a crash')
})

test('a restart during a hang loses nothing: the hung worker answers what it holds once it wakes', async (t) => {
  const { fixture, control } = await start()
  const load = underLoad(fixture)
  await load.flowing()
  load.phase('restart')
  const hung = fixture.call('http://svc.plt.local', '/block?ms=3000', { timeout: 30_000 })
  await sleep(500)
  await control.restartApplication('svc')
  await untilLinked(control, fixture, 'svc')
  await load.flowing()
  const { calls, failures } = await load.stop()
  t.equal((await hung).status, 200, 'the blocking request itself was answered')
  t.ok(calls > 100, `${calls} calls under load`)
  t.same(failures, [], 'no request lost')
})

test('a crash during a streamed download: nothing is sent again once bytes arrived, and the caller sees the error', async (t) => {
  const { fixture, control } = await start()
  const before = await fixture.retried()
  const calls = async () => Object.fromEntries((await fixture.stats()).svc.workers.map((w) => [w.worker, w.calls]))
  const sent = await calls()
  const query = new URLSearchParams({ to: 'http://svc.plt.local', path: '/chunked?size=67108864' })
  const answer = await request(`${fixture.url}/proxy?${query}`)
  t.equal(answer.statusCode, 200)
  const reading = answer.body[Symbol.asyncIterator]()
  const first = await reading.next()
  t.ok(!first.done && first.value.length > 0, 'bytes of the answer arrived')
  const now = await calls()
  const streaming = Object.keys(now).find((worker) => now[worker] > (sent[worker] ?? 0))
  t.ok(streaming !== undefined, `the download went to worker ${streaming}`)
  const repl = await control.openRepl(`svc:${streaming}`)
  repl.send('process.exit(1)')
  repl.close()
  let received = first.value.length
  const cut = await (async () => {
    try {
      for (let chunk = await reading.next(); !chunk.done; chunk = await reading.next()) received += chunk.value.length
      return null
    } catch (err) {
      return err
    }
  })()
  t.ok(cut !== null || received < 67108864, `the caller sees the download cut (${received} bytes, ${cut})`)
  t.same(await fixture.retried(), before, 'nothing was sent again')
})
