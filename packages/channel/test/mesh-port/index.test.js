// The drop-in's interceptor itself (mesh-port/index.js) in one caller worker under the fake Watt
// (helpers/fake-watt.js): which origins are a route (http://<configured app>.plt.local, any port,
// any case, not excluded), that a route waits on the mesh while its application has no worker
// and takes http-port once one starts, and meshPortStats() summing the routes of two factory calls.
// End to end with a target from the start: drop-in.test.js; the unsupported path: support.test.js.
import t from 'tap'
import { FakeRuntime, until } from '../helpers/fake-watt.js'

const via = (/** @type {{ via?: string, error?: unknown }[]} */ answers) => answers.map((a) => a.via ?? a.error)

t.test('origins to routes; a route with no worker waits on the mesh, then takes http-port', async (t) => {
  const runtime = new FakeRuntime(t, ['caller', 'target', 'db'])
  const caller = await runtime.start('caller', 0, {
    server: 'none',
    messagingFirst: true,
    dispatchers: { default: {}, other: { connections: 2 }, noDb: { exclude: ['db'] } }
  })
  // more origins than the first few the interceptor scans before its map: each must still route
  const ports = Array.from({ length: 12 }, (_, i) => 3000 + i)
  const first = await caller.calls([
    ...ports.map((port) => ({ url: `http://target.plt.local:${port}/w` })),
    { url: 'http://TARGET.plt.local/upper' },
    { url: 'http://target.plt.local/other', via: 'other' },
    { url: 'https://target.plt.local/tls' },
    { url: 'http://db.plt.local/excluded', via: 'noDb' },
    { url: 'http://db.plt.local/kept' },
    { url: 'http://nobody.plt.local/x' },
    { url: 'http://target.plt.local.example/x' }
  ])
  t.same(via(first), Array(first.length).fill('mesh'), 'no worker started anywhere: every request on the mesh')
  t.same(await caller.stats(), {
    target: { path: 'waiting', reason: '', meshCalls: ports.length + 2, workers: [] },
    db: { path: 'waiting', reason: '', meshCalls: 1, workers: [] }
  }, 'counted: every port and case of target over both dispatchers, db where not excluded; https, ' +
    'unknown apps and other hosts are not routes')
  const seen = (await caller.rpc('mesh')).length
  t.match(await caller.call({ url: 'http://target.plt.local/tunnel', kind: 'connect' }), {
    error: { name: 'ChannelError', code: 'WATT_CHANNEL_UNSUPPORTED', application: 'target', message: /CONNECT is not carried/ }
  }, 'CONNECT to a route fails at once, with its code')
  t.equal((await caller.rpc('mesh')).length, seen, 'not handed to the mesh')
  t.equal((await caller.stats()).target.meshCalls, ports.length + 2, 'nor counted')

  const target = await runtime.start('target', 0, { server: 'http' })
  const answer = await until(async () => {
    const [one, two] = await caller.calls([
      { url: `http://target.plt.local:${ports.at(-1)}/late` },
      { url: 'http://target.plt.local/late', via: 'other' }
    ])
    return one.via === 'http-port' && two.via === 'http-port' ? [one, two] : null
  }, 'both dispatchers over http-port once the worker started')
  t.same(answer.map((a) => JSON.parse(a.body).thread), [target.thread, target.thread])
  const linkCalls = async () => (await caller.stats()).target.workers.reduce((n, l) => n + l.calls, 0)
  const before = await linkCalls()
  const again = await caller.calls(ports.map((port) => ({ url: `http://target.plt.local:${port}/again` })))
  t.same(via(again), Array(ports.length).fill('http-port'), 'every cached origin now takes http-port')
  const stats = (await caller.stats()).target
  t.match(stats, { path: 'http-port', reason: '' })
  t.equal(stats.workers.length, 2, 'one link per dispatcher (each factory call has its own routes)')
  for (const link of stats.workers) t.match(link, { worker: 0, thread: target.thread, stalled: false })
  t.equal(await linkCalls() - before, ports.length, 'each request counted once, on its link')
  t.ok(stats.meshCalls >= ports.length + 2, 'calls left to the mesh before stay counted')
})
