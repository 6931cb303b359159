// The drop-in end to end under a fake Watt (helpers/fake-watt.js): real worker threads, the
// factory called as Watt calls it, handshakes over MessagePorts the fake runtime hands out.
// Which requests take http-port and which fall through to the mesh (drop-in-refusals.test.js:
// targets that refuse; drop-in-workers.test.js: workers that stop,
// crash and restart).
import { once } from 'node:events'
import t from 'tap'
import createMeshPortInterceptor from '../../mesh-port.js'
import { FakeRuntime, until } from '../helpers/fake-watt.js'

const json = (/** @type {{ body: string }} */ answer) => JSON.parse(answer.body)

t.test('invalid options throw InvalidOptionError; outside Watt the drop-in stands aside', async (t) => {
  t.throws(() => createMeshPortInterceptor(/** @type {any} */ ({ conections: 4 })),
    { name: 'InvalidOptionError', code: 'WATT_CHANNEL_INVALID_OPTION', message: /unknown option "conections"/ })
  t.throws(() => createMeshPortInterceptor({ exclude: /** @type {any} */ ('db') }), { name: 'InvalidOptionError' })
  // this thread has no workerData: every dispatch goes on to the mesh unchanged, with a warning
  const warned = once(process, 'warning')
  const mesh = () => true
  t.equal(createMeshPortInterceptor()(mesh), mesh)
  const [warning] = await warned
  t.match(warning.message, /mesh-port: Watt unknown is not supported \(.*workerData\.config\.applications\)/)
})

t.test('<app>.plt.local takes http-port, upgrades too; other hosts and excluded apps take the mesh; CONNECT is refused', async (t) => {
  const runtime = new FakeRuntime(t, ['caller', 'target'])
  const [target, caller] = await Promise.all([
    // a server made with new http.Server, not createServer: found as it listens
    runtime.start('target', 0, { server: 'new' }),
    runtime.start('caller', 0, {
      server: 'none', messagingFirst: true, dispatchers: { default: {}, excluded: { exclude: ['target'] } }
    })
  ])
  const answers = await caller.calls([
    { url: 'http://target.plt.local/who' },
    { url: 'http://target.plt.local/echo', method: 'POST', body: 'hello' },
    { url: 'http://elsewhere.example/x' },
    { url: 'http://unknown.plt.local/y' },
    { url: 'http://target.plt.local/excluded', via: 'excluded' },
    { url: 'http://target.plt.local/ws', kind: 'upgrade', body: 'hi' },
    { url: 'http://target.plt.local/tunnel', kind: 'connect' }
  ])
  t.same(answers[0], { status: 200, via: 'http-port', body: answers[0].body })
  t.match(json(answers[0]), { worker: 0, thread: target.thread, method: 'GET', path: '/who' }, 'the target answered')
  t.match(json(answers[1]), { method: 'POST', path: '/echo', body: 'hello' }, 'with the request body')
  t.same(answers.slice(2, 5).map((a) => [a.status, a.via]), [[203, 'mesh'], [203, 'mesh'], [203, 'mesh']])
  t.same(answers[5], { upgraded: true, echoed: '0:hi' }, 'the upgrade reached the target\'s \'upgrade\' event: its 101, then its bytes')
  t.match(answers[6], { error: { name: 'ChannelError', code: 'WATT_CHANNEL_UNSUPPORTED', application: 'target', message: /CONNECT is not carried/ } },
    'CONNECT fails at once with a coded error, on no path')
  t.same(await caller.rpc('mesh'), [
    { origin: 'http://elsewhere.example', path: '/x', method: 'GET', upgrade: null },
    { origin: 'http://unknown.plt.local', path: '/y', method: 'GET', upgrade: null },
    { origin: 'http://target.plt.local', path: '/excluded', method: 'GET', upgrade: null }
  ], 'what fell through to the mesh')
  await until(() => target.seen.length >= 3, "the target's reports") // they may come after the answers
  const byPath = (/** @type {any} */ a, /** @type {any} */ b) => a.path.localeCompare(b.path)
  t.same(target.seen.sort(byPath), [{ method: 'POST', path: '/echo' }, { method: 'GET', path: '/who' }, { method: 'GET', path: '/ws', upgrade: 'websocket' }], 'all the target saw')
  t.same(await caller.stats(), {
    target: {
      path: 'http-port',
      reason: '',
      meshCalls: 0,
      workers: [{ worker: 0, thread: target.thread, calls: 3, sockets: 0, stalled: false, stalls: 0 }]
    }
  })
  const logs = await caller.rpc('logs')
  const linked = 'mesh-port: target over http-port (1 worker)'
  t.ok(logs.some((/** @type {any} */ l) => l.level === 'info' && l.msg === linked), 'logged at info')

  // dispatch options as undici's other APIs pass them: an origin given as a URL, none, a bad one
  const raw = await caller.calls([
    { kind: 'raw', url: 'http://target.plt.local/url', origin: 'URL' },
    { kind: 'raw', url: 'http://target.plt.local/none' },
    { kind: 'raw', url: 'http://target.plt.local/bad', origin: 'not a url' }
  ])
  t.same(raw.map((a) => a.via), ['http-port', 'mesh', 'mesh'])

  // A GET its caller abandons is not sent again; with no other worker, a crash fails a GET too.
  const [abandoned] = await caller.calls([{ url: 'http://target.plt.local/hang-abandoned', abortAfter: 50 }])
  t.match(abandoned.error, { name: /^(AbortError|TimeoutError)$/ })
  const hung = caller.call({ url: 'http://target.plt.local/hang' })
  await until(() => target.seen.some((s) => s.path === '/hang'), 'the request to reach the target')
  await target.rpc('crash')
  t.match(await hung, { error: { name: 'ChannelError', code: 'WATT_CHANNEL_CLOSED', application: 'target' } })
  t.same((await caller.stats()).target.workers, [], 'the link to the crashed worker is dropped')
})

t.test('an application added at runtime takes http-port once the runtime broadcasts its workers', async (t) => {
  const runtime = new FakeRuntime(t, ['caller'])
  const caller = await runtime.start('caller', 0, { server: 'none', messagingFirst: true, dispatchers: { default: {} } })
  // Not in the caller's config, no worker yet: the mesh (which fails an unknown host its own way).
  t.same((await caller.call({ url: 'http://late.plt.local/before' })).via, 'mesh')
  // The management API adds it: the caller's workerData keeps the config it started with.
  runtime.applications.push({ id: 'late', workers: 1 })
  const late = await runtime.start('late', 0, { server: 'http' })
  // The broadcast and the call travel on different channels: the call may come first.
  const answer = await until(async () => {
    const one = await caller.call({ url: 'http://late.plt.local/who' })
    return one.via === 'http-port' ? one : null
  }, 'a call to the added application over http-port')
  t.match(json(answer), { thread: late.thread, path: '/who' }, 'its worker answered')
  t.same((await caller.stats()).late.workers.map((/** @type {any} */ w) => w.thread), [late.thread],
    'linked to its worker')
  const logs = await caller.rpc('logs')
  t.ok(logs.some((/** @type {any} */ l) => l.msg === 'mesh-port: late over http-port (1 worker)'), 'logged at info')
  t.same((await caller.call({ url: 'http://never.plt.local/x' })).via, 'mesh', 'a host no broadcast named: the mesh')
})
