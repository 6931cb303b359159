// The same app reached three ways from the same caller: the drop-in, Watt's mesh
// and loopback TCP to the app's own port. Status, headers, bodies of every size
// both ways (undici's request() and fetch()), timeouts and aborts must match
// TCP's; where the mesh differs, the difference is asserted (and documented in
// packages/channel/README.md).
import { createHash } from 'node:crypto'
import { test } from 'tap'
import { startFixture } from '../helpers/mesh-fixture.js'
import { until } from '../helpers/wait.js'
import { pattern } from './fixture/lib/handler.js'

const sha = (/** @type {Buffer} */ bytes) => createHash('sha256').update(bytes).digest('hex')

test('drop-in, mesh and TCP answer alike', async (t) => {
  const [dropIn, mesh] = await Promise.all([startFixture(t, 'drop-in', { apps: ['plain'] }), startFixture(t, 'mesh', { apps: ['plain'] })])
  /** @type {Record<string, (path: string, options?: any) => ReturnType<typeof dropIn.call>>} */
  const ways = {
    'drop-in': (path, options) => dropIn.call('http://plain.plt.local', path, options),
    mesh: (path, options) => mesh.call('http://plain.plt.local', path, options),
    tcp: (path, options) => dropIn.call(`http://127.0.0.1:${dropIn.plainPort}`, path, options)
  }
  await ways['drop-in']('/hello')
  t.equal((await dropIn.stats()).plain.path, 'http-port', 'the drop-in runtime reaches plain over http-port')

  // kinds.test.js's case without the drop-in, on this file's mesh runtime (the same config): a start less
  t.test('without the drop-in the same calls answer over the mesh and the counter does not exist', async (t) => {
    const answer = await mesh.call('http://plain.plt.local', '/hello')
    t.equal(answer.text, 'hello plain')
    t.same(await mesh.stats(), {}, 'no route was made')
    t.same(await mesh.counted(), {}, 'no drop-in counter on the metrics endpoint')
  })

  t.test('status, headers and small bodies', async (t) => {
    for (const code of [200, 201, 404, 500, 503]) {
      for (const [way, call] of Object.entries(ways)) {
        const answer = await call(`/status?code=${code}`)
        t.equal(answer.status, code, `${way}: ${code}`)
        t.equal(answer.text, `status ${code}`, `${way}: body`)
        t.equal(answer.headers['x-app'], 'plain', `${way}: the app's own header`)
        t.equal(answer.headers['content-type'], 'text/plain', `${way}: content-type`)
      }
    }
  })

  t.test('headers the server sees', async (t) => {
    const sent = { 'x-trace': 'abc', accept: 'application/json' }
    /** @type {Record<string, Record<string, string>>} */
    const seen = {}
    for (const [way, call] of Object.entries(ways)) seen[way] = JSON.parse((await call('/headers', { headers: sent })).text)
    for (const way of Object.keys(ways)) {
      t.equal(seen[way]['x-trace'], 'abc', `${way}: a caller's header arrives`)
      t.equal(seen[way].accept, 'application/json', `${way}: accept arrives`)
    }
    t.equal(seen['drop-in'].host, 'plain.plt.local', 'drop-in: Host is the mesh name, as over the mesh')
    t.equal(seen.mesh.host, 'plain.plt.local')
    t.same(Object.keys(seen['drop-in']).sort(), Object.keys(seen.tcp).sort(), 'drop-in: the same header names as over TCP (real HTTP both)')
    t.equal(seen['drop-in'].connection, 'keep-alive', 'drop-in: a keep-alive connection, as TCP')
    t.notOk('connection' in seen.mesh, 'mesh: no connection header (the mesh drops it; documented)')
    t.equal(seen.mesh['user-agent'], 'lightMyRequest', "mesh: light-my-request's user-agent (documented)")
    t.not(seen['drop-in']['user-agent'], 'lightMyRequest', 'drop-in: no injected user-agent')
  })

  t.test('bodies of every size, both ways, both clients', async (t) => {
    for (const client of /** @type {const} */ ([undefined, 'fetch'])) {
      for (const size of [0, 1000, 32 * 1024 - 1, 32 * 1024, 32 * 1024 + 1, 5 * 1024 * 1024]) {
        const expected = sha(pattern(size))
        for (const [way, call] of Object.entries(ways)) {
          for (const route of ['/bytes', '/chunked']) {
            const answer = await call(`${route}?size=${size}`, { client })
            t.equal(answer.status, 200)
            t.equal(answer.bytes.length, size, `${way} ${client ?? 'request'} ${route} ${size}: length`)
            t.equal(sha(answer.bytes), expected, `${way} ${client ?? 'request'} ${route} ${size}: bytes`)
          }
        }
      }
      const upload = pattern(6 * 1024 * 1024 + 7)
      for (const [way, call] of Object.entries(ways)) {
        const digest = JSON.parse((await call('/digest', { method: 'POST', body: upload, client })).text)
        t.same(digest, { length: upload.length, sha256: sha(upload) }, `${way} ${client ?? 'request'}: a 6 MiB upload arrives whole`)
        const echoed = await call('/echo', { method: 'POST', body: upload.subarray(0, 1024 * 1024), client })
        t.equal(sha(echoed.bytes), sha(upload.subarray(0, 1024 * 1024)), `${way} ${client ?? 'request'}: a 1 MiB echo streams back`)
      }
    }
  })

  t.test('timeouts and aborts reach the server', async (t) => {
    const closes = async (/** @type {typeof dropIn} */ fixture) => JSON.parse((await fixture.call('http://plain.plt.local', '/events')).text).length
    for (const [way, call] of Object.entries(ways)) {
      const fixture = way === 'mesh' ? mesh : dropIn
      const before = await closes(fixture)
      const started = Date.now()
      const answer = await call('/hang', { timeout: 300 })
      t.equal(answer.status, 502, `${way}: a call past its deadline fails`)
      const took = Date.now() - started
      if (way === 'mesh') {
        // The mesh ignores the caller's signal until headers arrive: only its own
        // applicationTimeout (10 s in the fixture) ends the call (documented).
        t.match(JSON.parse(answer.text).error.message, /Timeout while waiting from a response from plain\.plt\.local/, "mesh: its own timeout, not the caller's")
        t.ok(took >= 9000, `mesh: after its applicationTimeout (${took} ms)`)
      } else {
        t.match(JSON.parse(answer.text).error.message, /timed out after 300 ms/, `${way}: with the caller's reason`)
        t.ok(took < 9000, `${way}: at the caller's deadline, not the mesh's timeout (${took} ms)`)
      }
      // The abort must reach the server as the request's close (light-my-request's does not).
      if (way === 'mesh') {
        // a close that never comes can only be watched for a while
        await new Promise((resolve) => setTimeout(resolve, 1000))
        t.equal(await closes(fixture), before, 'mesh: the server never learns the caller left (documented)')
      } else {
        const after = await until(async () => { const now = await closes(fixture); return now > before && now }, { what: `${way}: the server to see the request close` })
        t.equal(after, before + 1, `${way}: the server saw the request close`)
      }
    }
  })
})
