// @ts-check
// The apps Watt users run: a @platformatic/gateway entrypoint composing the OpenAPI
// of a @platformatic/db app (SQLite, migrations applied at start) and a
// @platformatic/service app that calls the db with fetch(), and a node app with a
// WebSocket, proxied by the gateway. test/mesh-port/gateway/fixture runs once over
// Watt's mesh and once over the drop-in (watt.mesh-port.json: the same plus the
// undici block), each with a fresh SQLite file; the answers must be identical, and
// the drop-in's counter shows which path each hop took.
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { request, WebSocket } from 'undici'
import { freePorts } from '../../bench/lib/ports.js'
import { startRuntime } from '../../bench/lib/runtime.js'
import { assertOnlyUndiciDiffers } from '../helpers/config-diff.js'
import { countsSince, meshPortCounts } from '../helpers/mesh-port-metrics.js'
import { pattern } from './fixture/lib/handler.js'

const FIXTURE = join(import.meta.dirname, 'gateway', 'fixture')
/** Per call and per WebSocket: a hang fails the test instead of holding it (CI is slow, so generous). */
const DEADLINE_MS = 30_000
const DOWNLOAD = 5 * 1024 * 1024 + 3
const UPLOAD = pattern(6 * 1024 * 1024 + 7)

const sha = (/** @type {Buffer} */ bytes) => createHash('sha256').update(bytes).digest('hex')

t.test('the two configs differ only by the drop-in\'s undici block', async (t) => {
  assertOnlyUndiciDiffers(t, join(FIXTURE, 'watt.json'), join(FIXTURE, 'watt.mesh-port.json'))
})

/**
 * Starts the fixture with `config` and a fresh SQLite file; stops both when `t` ends.
 * @param {any} t
 * @param {'watt.json' | 'watt.mesh-port.json'} config
 */
async function startGatewayApp (t, config) {
  const [port, metricsPort, echoPort] = await freePorts(3)
  const dataDir = mkdtempSync(join(tmpdir(), 'watt-gateway-db-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const runtime = await startRuntime({
    configFile: join(FIXTURE, config),
    // Served by the gateway itself: no call to db or svc before the counter's first reading.
    readyPaths: ['/documentation/json'],
    reuse: false,
    env: {
      PORT: String(port),
      PLT_METRICS_PORT: String(metricsPort),
      PLT_ECHO_PORT: String(echoPort),
      PLT_DB_URL: `sqlite://${join(dataDir, 'db.sqlite')}`,
      PLT_LOG_LEVEL: 'info'
    }
  })
  t.teardown(async () => {
    // A failed test shows what the drop-in decided, and the apps' errors.
    if (!t.passing()) t.comment(runtime.output().split('\n').filter((line) => /mesh-port|"level":[56]0/.test(line)).join('\n'))
    await runtime.stop()
  })
  return runtime
}

/**
 * One call through the gateway, as comparable data: status, the headers that
 * describe the body, and the body (JSON parsed; otherwise its length and hash).
 * @param {string} base
 * @param {string} path
 * @param {{ method?: string, json?: unknown, bytes?: Buffer }} [options]
 */
async function call (base, path, { method = 'GET', json, bytes } = {}) {
  /** @type {Record<string, string>} */
  const headers = {}
  let body
  if (json !== undefined) { headers['content-type'] = 'application/json'; body = JSON.stringify(json) }
  if (bytes !== undefined) { headers['content-type'] = 'application/octet-stream'; body = bytes }
  const answer = await request(base + path, { method: /** @type {any} */ (method), headers, body, headersTimeout: DEADLINE_MS, bodyTimeout: DEADLINE_MS })
  const received = Buffer.from(await answer.body.arrayBuffer())
  const type = String(answer.headers['content-type'] ?? '')
  return {
    call: `${method} ${path}`,
    status: answer.statusCode,
    type,
    length: answer.headers['content-length'] ?? null,
    chunked: answer.headers['transfer-encoding'] === 'chunked',
    body: type.startsWith('application/json') ? JSON.parse(received.toString()) : { bytes: received.length, sha256: sha(received) }
  }
}

/**
 * Opens a WebSocket through the gateway, sends `text`, resolves with the answer or how it failed.
 * @param {string} url
 * @param {string} text
 * @returns {Promise<string>}
 */
function wsRoundTrip (url, text) {
  return new Promise((resolve) => {
    const ws = new WebSocket(url)
    let settled = false
    const settle = (/** @type {string} */ outcome) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(outcome)
      ws.close()
    }
    const timer = setTimeout(() => settle(`no answer within ${DEADLINE_MS} ms`), DEADLINE_MS)
    ws.addEventListener('open', () => ws.send(text))
    ws.addEventListener('message', (event) => settle(`message: ${event.data}`))
    ws.addEventListener('close', (event) => settle(`closed ${event.code} ${event.reason}`))
    ws.addEventListener('error', () => setTimeout(() => settle('error'), 1000)) // the close that follows says more
  })
}

/**
 * Everything a client of the app sees, in order.
 * @param {string} base
 */
async function exercise (base) {
  const answers = [
    await call(base, '/documentation/json'),
    // CRUD through the gateway's composed routes, JSON bodies.
    await call(base, '/db/movies/', { method: 'POST', json: { title: 'Heat', year: 1995, rating: 8.3 } }),
    await call(base, '/db/movies/', { method: 'POST', json: { title: 'Ronin', year: 1998 } }),
    await call(base, '/db/movies/', { method: 'POST', json: { title: 'Alien', year: 'nineteen seventy-nine' } }),
    await call(base, '/db/movies/1'),
    await call(base, '/db/movies/'),
    await call(base, '/db/movies/?limit=5000'),
    await call(base, '/db/movies/2', { method: 'PUT', json: { title: 'Ronin', year: 1998, rating: 7.2 } }),
    await call(base, '/db/movies/2', { method: 'PUT', json: { title: 'Ronin', year: 'soon' } }),
    await call(base, '/db/movies/2'),
    // The service hands a JSON body to the db with fetch(): the db's own validation.
    await call(base, '/svc/create-movie', { method: 'POST', json: { title: 'Alien', year: 'nineteen seventy-nine' } }),
    await call(base, '/svc/create-movie', { method: 'POST', json: { title: 'Alien', year: 1979 } }),
    // The service asks the db with fetch() (two calls), before and after a delete.
    await call(base, '/svc/movie-report/1'),
    await call(base, '/db/movies/1', { method: 'DELETE' }),
    await call(base, '/db/movies/1'),
    await call(base, '/db/movies/99', { method: 'DELETE' }),
    await call(base, '/svc/movie-report/1'),
    await call(base, '/no/such/route'),
    // Big bodies both ways: a chunked download, a streamed upload.
    await call(base, `/svc/download?size=${DOWNLOAD}`),
    await call(base, '/svc/upload', { method: 'POST', bytes: UPLOAD }),
    // The gateway's plain HTTP proxy to a node app.
    await call(base, '/echo/hello'),
    // A WebSocket from the service to the node app, through undici (Watt's dispatcher).
    await call(base, '/svc/ws-echo?text=hi')
  ]
  const ws = await wsRoundTrip(`${base.replace('http:', 'ws:')}/echo/ws`, 'through the gateway')
  return { answers, ws }
}

/** @type {Awaited<ReturnType<typeof exercise>> | undefined} */
let overMesh

t.test('over Watt\'s mesh: the gateway composes db and svc, CRUD, errors and big bodies answer', async (t) => {
  const runtime = await startGatewayApp(t, 'watt.json')
  overMesh = await exercise(runtime.url)
  const byCall = Object.fromEntries(overMesh.answers.map((a, i) => [`${i} ${a.call}`, a]))
  t.same(overMesh.answers.map((a) => a.status), [200, 200, 200, 400, 200, 200, 500, 200, 400, 200, 400, 200, 200, 200, 404, 404, 404, 404, 200, 200, 200, 200], 'every status as the apps give it')
  t.same(Object.keys(overMesh.answers[0].body.paths).sort(), ['/db/movies/', '/db/movies/{id}', '/svc/create-movie', '/svc/download', '/svc/movie-report/{id}', '/svc/upload', '/svc/ws-echo'], 'the composed OpenAPI holds both apps\' routes')
  t.same(byCall['1 POST /db/movies/'].body, { id: '1', title: 'Heat', year: 1995, rating: 8.3 }, 'POST creates')
  t.match(byCall['3 POST /db/movies/'].body, { statusCode: 400, code: 'FST_ERR_VALIDATION', message: 'body/year must be integer' }, 'a wrong type: the gateway validates with the db\'s schema')
  t.equal(byCall['5 GET /db/movies/'].body.length, 2, 'the list')
  t.match(byCall['6 GET /db/movies/?limit=5000'].body, { statusCode: 500, code: 'PLT_SQL_MAPPER_PARAM_LIMIT_NOT_ALLOWED' }, 'a limit over the db\'s maximum: the db\'s own error')
  t.same(byCall['9 GET /db/movies/2'].body, { id: '2', title: 'Ronin', year: 1998, rating: 7.2 }, 'PUT updated')
  t.match(byCall['10 POST /svc/create-movie'].body, { dbStatus: 400, dbBody: { statusCode: 400, code: 'FST_ERR_VALIDATION', message: 'body/year must be integer' } }, 'a wrong type sent by the service: the db\'s own 400')
  t.match(byCall['11 POST /svc/create-movie'].body, { dbStatus: 200, dbBody: { id: '3', title: 'Alien', year: 1979 } }, 'a JSON POST from the service creates')
  t.match(byCall['12 GET /svc/movie-report/1'].body, { found: true, moviesInDb: 3, sameDecade: ['Heat', 'Ronin'] }, 'the service\'s fetch to the db')
  t.match(byCall['16 GET /svc/movie-report/1'].body, { found: false, dbStatus: 404 }, 'after the delete, the db\'s 404 reaches the service')
  t.same(byCall[`18 GET /svc/download?size=${DOWNLOAD}`].body, { bytes: DOWNLOAD, sha256: sha(pattern(DOWNLOAD)) }, 'a 5 MiB download arrives whole')
  t.ok(byCall[`18 GET /svc/download?size=${DOWNLOAD}`].chunked, 'chunked, without a length')
  t.same(byCall['19 POST /svc/upload'].body, { length: UPLOAD.length, sha256: sha(UPLOAD) }, 'a 6 MiB upload arrives whole')
  t.match(byCall['21 GET /svc/ws-echo?text=hi'].body, { ok: false }, 'the mesh has no upgrades: a WebSocket from the service fails at once')
  t.equal(overMesh.ws, 'message: echo: through the gateway', 'a WebSocket through the gateway echoes (its proxy dials the app over TCP)')
  t.same(await meshPortCounts(runtime.metricsUrl), {}, 'no drop-in, no counter')
})

t.test('over the drop-in: the same answers, and the counter shows every HTTP hop over http-port', async (t) => {
  if (!overMesh) { t.fail('needs the mesh run\'s answers'); return }
  const runtime = await startGatewayApp(t, 'watt.mesh-port.json')
  const atStart = await meshPortCounts(runtime.metricsUrl)
  t.same(atStart, {
    'gateway→db': { 'http-port': 1, mesh: 0 },
    'gateway→svc': { 'http-port': 1, mesh: 0 }
  }, 'the gateway fetched each app\'s OpenAPI once at start, over http-port')
  const overDropIn = await exercise(runtime.url)
  const WS_CALL = overDropIn.answers.findIndex((a) => a.call.startsWith('GET /svc/ws-echo'))
  const without = (/** @type {any[]} */ answers) => answers.filter((_a, i) => i !== WS_CALL)
  t.same(without(overDropIn.answers), without(overMesh.answers), 'every HTTP answer identical to the mesh run\'s')
  t.match(overDropIn.answers[WS_CALL], { status: 200, body: { ok: true, echoed: 'echo: hi' } },
    'a WebSocket from the service to ws://echo.plt.local, which the mesh cannot carry, echoes over http-port')
  t.equal(overDropIn.ws, overMesh?.ws, 'the WebSocket through the gateway too')
  const counts = /** @type {Record<string, { 'http-port': number, mesh: number }>} */ (countsSince(atStart, await meshPortCounts(runtime.metricsUrl)))
  // The gateway validates before it forwards: 2 of the db calls never leave it.
  t.same(counts['gateway→db'], { 'http-port': 10, mesh: 0 }, 'gateway→db: every forwarded call over http-port')
  t.same(counts['gateway→svc'], { 'http-port': 7, mesh: 0 }, 'gateway→svc: over http-port')
  t.same(counts['svc→db'], { 'http-port': 6, mesh: 0 }, 'svc→db: the service\'s fetch over http-port')
  t.same(counts['gateway→echo'], { 'http-port': 1, mesh: 0 }, 'gateway→echo: the HTTP proxy over http-port; its WebSocket is not undici\'s, so not counted')
  t.same(counts['svc→echo'], { 'http-port': 1, mesh: 0 }, 'svc→echo: the upgrade over http-port, to the app\'s \'upgrade\' event')
})
