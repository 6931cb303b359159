// Bad input, short form: 1,000 seeded requests (malformed queries, huge values,
// unknown paths, bad methods, oversized and broken headers, broken request
// lines) against the entry's four routes and every service's own port. The
// runtime must not crash, hang or restart anything; no 5xx but deliberate
// (fault-injected) 502/504; every 4xx a JSON error. The last three tests pin
// the bugs this pass found first (fixed in 90fd848).
// Then the binds, from the OS, on the same runtime (it was a start of its own):
// every listening socket of the runtime (entry, metrics, the four services' own
// ports) is on 127.0.0.1 and the management API is a unix socket in an owner-only
// directory. (The transport bench's own tree is checked mid-run in shutdown.test.js,
// which starts one anyway.)
import t from 'tap'
import { request } from 'undici'
import { describeSocket, hasProcFs, listeningSockets } from '../../bench/reliability/os-sockets.js'
import { startPrivateRuntime } from '../../bench/reliability/private-runtime.js'
import { checkTreeBinds } from '../../bench/reliability/scenarios/binds.js'
import { fuzzRoutes } from '../../bench/reliability/scenarios/fuzz.js'
import { availableTransports } from '../../lib/topology.js'

const runtime = await startPrivateRuntime({ callTimeoutMs: 1000 })
t.teardown(() => runtime.stop())

const { failures, fuzz, problems } = await fuzzRoutes(runtime, { requests: 1000, seed: 7, concurrency: 16 })

t.test('1,000 generated requests: no crash, no hang, no restart', async (t) => {
  t.ok(fuzz.requests >= 1000, `${fuzz.requests} requests`)
  t.notOk(fuzz.byStatus.timeout, 'no request hung')
  t.notOk(fuzz.byStatus.refused, 'no listener went away')
  t.same(failures.filter((f) => /crash|died|restarted|afterwards/.test(f)), [], 'runtime alive, nothing restarted, every route answers 200 afterwards')
  t.ok(fuzz.deliberate502or504 > 0, `${fuzz.deliberate502or504} deliberate faults answered 502/504`)
  t.ok(Object.keys(fuzz.byStatus).some((s) => s.startsWith('4')), 'bad input met 4xx answers')
})

const bad = (/** @type {RegExp} */ pattern) => problems.filter((p) => pattern.test(p.signature)).map((p) => `${p.count}× ${p.signature} — ${p.example}`)

t.test('no 5xx except deliberate 502/504', async (t) => {
  t.same(bad(/5xx|naming the service/), [])
})

t.test('every 4xx from the entry carries a JSON error body (a missing Host, an unknown Expect included)', async (t) => {
  t.same(bad(/^entry .*without a JSON/), [])
})

t.test('every 4xx from a service\'s own port carries a JSON error body (malformed, oversized)', async (t) => {
  t.same(bad(/port .*without a JSON/), [])
})

t.test('an infinite size or fanout is a 400, not a 502 blaming a service', async (t) => {
  for (const transport of availableTransports()) {
    for (const query of ['size=1e400', 'size=-1e400', 'fanout=1e400', 'fanout=-1e400']) {
      const { statusCode, body } = await request(`${runtime.url}/tsfastify/${transport}?${query}`)
      await body.dump()
      t.equal(statusCode, 400, `${transport}?${query}`)
    }
  }
})

t.test('binds: the runtime listens on 127.0.0.1 only, every port seen', { skip: hasProcFs() ? false : 'binds are read from /proc: Linux only' }, async (t) => {
  const { failures, sockets, management } = checkTreeBinds({ label: 'runtime', pid: runtime.pid, expectedPorts: Object.values(runtime.ports), managementPid: runtime.pid })
  t.same(failures, [])
  const inet = sockets.filter((s) => !s.startsWith('unix'))
  t.same(inet.sort(), Object.values(runtime.ports).map((port) => `tcp 127.0.0.1:${port}`).sort(), 'exactly the six ports, all on 127.0.0.1')
  t.match(management, { listening: true, directoryMode: '700' })
})

t.test('binds: the runner (load generator, fuzzer, probes) never listens', { skip: hasProcFs() ? false : 'binds are read from /proc: Linux only' }, async (t) => {
  t.same(listeningSockets([process.pid]).map(describeSocket), [])
})
