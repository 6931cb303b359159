// Which app kinds the drop-in serves over http-port and which fall back to the
// mesh, with configuration alone (test/mesh-port/fixture/watt.mesh-port.json is
// watt.json plus the undici block), proved by the drop-in's own stats and counter.
// The same calls without the drop-in (no route, no counter) are checked in
// semantics.test.js, on the mesh runtime it starts anyway.
import { setTimeout as sleep } from 'node:timers/promises'
import tap, { test } from 'tap'
import { HOLD_MS, HOLD_SLACK, SPREAD } from '../../packages/channel/lib/mesh-port/route.js'
import { startFixture } from '../helpers/mesh-fixture.js'

const OVER_HTTP_PORT = ['plain', 'svc', 'express', 'fastnode', 'factory', 'two']
const OVER_MESH = ['bare', 'bg']

/** @type {ReturnType<typeof startFixture> | undefined} */
let shared
// Every app behind the drop-in, in one runtime for the cases that call them (a start was
// most of each), stopped at the file's end.
const everyKind = () => (shared ??= startFixture(tap, 'drop-in'))

test('the drop-in serves every kind with one node:http server over http-port, the others fall back to the mesh', async (t) => {
  const fixture = await everyKind()
  for (const app of [...OVER_HTTP_PORT, ...OVER_MESH]) {
    // The first request to an app waits for the handshake, then takes the decided path.
    await fixture.call(`http://${app}.plt.local`, '/whoami')
  }
  // Settled: the route of each app is decided.
  const settled = await fixture.stats()
  for (const app of OVER_HTTP_PORT) {
    const before = settled[app]
    t.equal(before?.path, 'http-port', `${app}: over http-port`)
    for (let i = 0; i < 4; i++) {
      const answer = await fixture.call(`http://${app}.plt.local`, '/whoami')
      t.equal(answer.status, 200)
      t.equal(JSON.parse(answer.text).app, app, `${app} answered`)
    }
    const after = (await fixture.stats())[app]
    t.equal(after.meshCalls, 0, `${app}: no request took the mesh, the first one included`)
    t.equal(after.workers.reduce((n, w) => n + w.calls, 0) - before.workers.reduce((n, w) => n + w.calls, 0), 4, `${app}: 4 requests over http-port`)
  }
  const bare = await fixture.call('http://bare.plt.local', '/hello')
  t.equal(bare.text, 'hello bare', 'an Express app exported without a server still answers, over the mesh')
  const stats = await fixture.stats()
  for (const app of OVER_MESH) {
    t.equal(stats[app]?.path, 'mesh', `${app}: falls back to the mesh`)
    t.match(stats[app].reason, /no node:http server in this worker/, `${app}: and says why`)
    t.same(stats[app].workers, [], `${app}: no http-port link`)
  }
  const bg = await fixture.call('http://bg.plt.local', '/hello')
  t.equal(bg.status, 502)
  t.match(JSON.parse(bg.text).error.message, /Background services cannot receive HTTP requests via the mesh/, 'a background app fails as the mesh fails it')

  const counted = await fixture.counted()
  t.ok(counted['plain http-port 0'] >= 4, 'the counter on Watt\'s metrics endpoint shows plain over http-port')
  t.ok(counted['bare mesh '] >= 2, 'and bare over the mesh')
  t.notOk(Object.keys(counted).some((key) => key.startsWith('plain mesh')), 'plain never took the mesh')
})

test('unknown *.plt.local hosts fail as the mesh fails them; other origins are untouched', async (t) => {
  const fixture = await everyKind()
  const routes = Object.keys(await fixture.stats()).sort()
  const unknown = await fixture.call('http://nosuch.plt.local', '/hello')
  t.equal(unknown.status, 502)
  t.match(JSON.parse(unknown.text).error.message, /No target found for nosuch\.plt\.local/, "the mesh's own error")
  const tcp = await fixture.call(`http://127.0.0.1:${fixture.plainPort}`, '/hello')
  t.equal(tcp.text, 'hello plain', 'loopback TCP answers')
  const stats = await fixture.stats()
  t.same(Object.keys(stats).sort(), routes, 'neither request became a drop-in route')
})

test('an application with two workers gets its even share in turn, and a burst is spread', async (t) => {
  const fixture = await everyKind()
  await fixture.call('http://two.plt.local', '/whoami')
  /** @type {Record<number, number>} */
  const seen = {}
  for (let i = 0; i < 20; i++) {
    await sleep(HOLD_MS + 1) // a new slice: within one, a worker keeps the requests (route.js)
    const { worker } = JSON.parse((await fixture.call('http://two.plt.local', '/whoami')).text)
    seen[worker] = (seen[worker] ?? 0) + 1
  }
  t.same(Object.keys(seen).sort(), ['0', '1'], 'both workers answered')
  t.ok(seen[0] >= 8 && seen[0] <= 12, `worker 0 got ${seen[0]} of 20`)
  /** @returns {Promise<number[]>} */
  const calls = async () => (await fixture.stats()).two.workers.map((/** @type {{ calls: number }} */ w) => w.calls)
  const before = await calls()
  t.equal(before.length, 2)
  // A burst reaches the front in one turn or several: a turn goes out in chunks of
  // SPREAD, and a worker keeps the next turns until it has HOLD_SLACK more in flight
  // (route.js), so the bound is HOLD_SLACK and one turn's SPREAD, not a share of so
  // few calls. It bounds calls in flight: each answer waits 1 s, so that none comes
  // back before all 40 have left, however slowly the machine sends them.
  const concurrent = await Promise.all(Array.from({ length: 40 }, () => fixture.call('http://two.plt.local', '/slow?ms=1000')))
  t.ok(concurrent.every((a) => a.status === 200), '40 concurrent requests answered')
  const [a, b] = (await calls()).map((n, i) => n - before[i])
  t.ok(a > 0 && b > 0 && Math.abs(a - b) <= HOLD_SLACK + SPREAD, `both workers got part of the burst, apart by at most ${HOLD_SLACK + SPREAD}: ${a} and ${b}`)
})
