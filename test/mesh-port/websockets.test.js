// WebSockets between applications over the drop-in (issue 58): `new WebSocket('ws://<app>.plt.local/…')`
// from the front (fixture/web/front/realtime.js: Node's global WebSocket and undici's), to a node:http
// app with `ws` on 'upgrade' (chat, two workers) and to a @platformatic/service app with
// @fastify/websocket (chatsvc): echo of text and binary, the subprotocol, close codes and reasons
// both ways, ping/pong, permessage-deflate with the bytes intact, counted on path http-port. Over
// Watt's mesh the same sockets fail (the baseline). A slow reader, client or server, holds at
// most the window and its sender the rest; ten sockets spread over chat's two workers; 200
// long-polls to one worker all answer within 10% of the poll time (over the mesh: recorded, and
// none waits a whole poll). The cases only read: one runtime per path for the file.
// The faults (crashes, restarts) are test/alone/websocket-faults.test.js.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import tap, { test } from 'tap'
import { request } from 'undici'
import { startFixture } from '../helpers/mesh-fixture.js'
import { pattern } from './fixture/lib/handler.js'

/** @typedef {Awaited<ReturnType<typeof startFixture>>} Fixture */

const CLIENTS = /** @type {const} */ (['global', 'undici'])
const SERVERS = [{ app: 'chat', kind: 'node:http + ws' }, { app: 'chatsvc', kind: '@platformatic/service + @fastify/websocket' }]
/** The drop-in's default flow-control window per connection and direction (packages/channel/lib/wire/signals.js). */
const WINDOW = 1024 * 1024
/** As the long-polls: the caller's own work for 200 answers (50-150 ms here) stays well inside 10%. */
const POLL_MS = 3000
/** The contract: every poll answered within 10% of the poll time. */
const BOUND_MS = Math.round(POLL_MS * 1.1)
const POLLS = 200

const events = mkdtempSync(join(tmpdir(), 'watt-ws-events-'))
tap.teardown(() => rmSync(events, { recursive: true, force: true }))

/** @type {Record<string, Promise<Fixture>>} */
const runtimes = {}
/** @param {'drop-in' | 'mesh'} mode */
function runtime (mode) {
  runtimes[mode] ??= startFixture(tap, mode, {
    apps: mode === 'drop-in' ? ['chat', 'chatsvc', 'plain'] : ['chat', 'plain'],
    workers: mode === 'drop-in' ? { chat: 2 } : {},
    env: { CHAT_EVENTS: eventsFile(mode) }
  })
  return runtimes[mode]
}
/** @param {'drop-in' | 'mesh'} mode */
const eventsFile = (mode) => join(events, `${mode}.jsonl`)

/**
 * What the servers saw, from CHAT_EVENTS (fixture/lib/sockets.js).
 * @param {'drop-in' | 'mesh'} mode
 * @returns {any[]}
 */
function seen (mode) {
  let text = ''
  try { text = readFileSync(eventsFile(mode), 'utf8') } catch {}
  return text.split('\n').filter(Boolean).map((line) => JSON.parse(line))
}

/**
 * The first event `match` takes, once the server wrote it (its 'close' can follow the client's).
 * @param {'drop-in' | 'mesh'} mode
 * @param {(e: any) => boolean} match
 */
async function untilSeen (mode, match) {
  const deadline = Date.now() + 5000
  for (;;) {
    const found = seen(mode).find(match)
    if (found || Date.now() > deadline) return found
    await sleep(20)
  }
}

/**
 * One of the front's realtime routes (fixture/web/front/realtime.js).
 * @param {Fixture} fixture
 * @param {string} route
 * @param {Record<string, unknown>} [body]
 * @returns {Promise<any>}
 */
async function rt (fixture, route, body = {}) {
  const answer = await request(`${fixture.url}/rt/${route}`, { method: 'POST', body: JSON.stringify(body), headersTimeout: 60_000, bodyTimeout: 60_000 })
  const out = /** @type {any} */ (await answer.body.json())
  if (answer.statusCode !== 200) throw new Error(`/rt/${route}: ${out.error}`)
  return out
}

/**
 * Sends a message and resolves with the next one.
 * @param {Fixture} fixture
 * @param {number} id
 * @param {{ text?: string, base64?: string }} message
 */
async function roundTrip (fixture, id, message) {
  await rt(fixture, 'send', { id, ...message })
  return rt(fixture, 'next', { id })
}

/**
 * Calls per target worker of `app` (meshPortStats in the front) and its mesh calls.
 * @param {Fixture} fixture
 * @param {string} app
 */
async function linkCalls (fixture, app) {
  const stats = (await fixture.stats())[app]
  return { path: stats?.path, meshCalls: stats?.meshCalls ?? 0, calls: (stats?.workers ?? []).reduce((n, w) => n + w.calls, 0), sockets: (stats?.workers ?? []).map((w) => /** @type {any} */ (w).sockets) }
}

/**
 * Waits until no WebSocket to `app` is open over the drop-in (meshPortStats), or fails.
 * @param {Fixture} fixture
 * @param {string} app
 */
async function untilNoSockets (fixture, app) {
  const deadline = Date.now() + 10_000
  while (Date.now() < deadline) {
    const { sockets } = await linkCalls(fixture, app)
    if (sockets.every((n) => n === 0)) return
    await sleep(50)
  }
  throw new Error(`${app}: sockets still open after 10 s: ${JSON.stringify((await fixture.stats())[app])}`)
}

for (const { app, kind } of SERVERS) {
  for (const client of CLIENTS) {
    test(`${client === 'global' ? "Node's global" : "undici's"} WebSocket to ${app} (${kind}) over the drop-in: echo, subprotocol, deflate, close codes, ping/pong, counted on http-port`, async (t) => {
      const fixture = await runtime('drop-in')
      const url = `ws://${app}.plt.local`
      // The first call links the app (a handshake): counted from a settled route on.
      t.equal((await fixture.call(`http://${app}.plt.local`, '/whoami')).status, 200)
      const before = await linkCalls(fixture, app)
      const counted = await fixture.counted()
      const tag = `${app}-${client}`

      const echo = await rt(fixture, 'open', { url: `${url}/echo?tag=${tag}`, client, protocols: ['echo.v1', 'echo.v2'] })
      t.ok(echo.id, `opened in ${echo.ms} ms ${JSON.stringify(echo.failed ?? '')}`)
      t.equal(echo.protocol, 'echo.v2', 'the subprotocol the server chose (Sec-WebSocket-Protocol)')
      t.match(echo.extensions, /^permessage-deflate/, `permessage-deflate negotiated (${echo.extensions})`)
      const text = 'héllo ✓ from the front'
      t.same(await roundTrip(fixture, echo.id, { text }), { text }, 'text echoed')
      const binary = pattern(70_000).toString('base64')
      t.same(await roundTrip(fixture, echo.id, { base64: binary }), { base64: binary }, 'binary echoed byte for byte (70,000 bytes)')
      // The server compresses (threshold 0): its echo crosses in far fewer bytes than the message
      // has, and arrives intact. (undici's client only decompresses: what it sends goes as is.)
      const wire = JSON.parse((await roundTrip(fixture, echo.id, { text: 'stats' })).text)
      const big = 'every WebSocket over http-port, '.repeat(16_384) // 512 KiB
      t.same(await roundTrip(fixture, echo.id, { text: big }), { text: big }, '512 KiB of text echoed intact')
      const after = JSON.parse((await roundTrip(fixture, echo.id, { text: 'stats' })).text)
      const written = after.bytesWritten - wire.bytesWritten
      t.ok(written > 0 && written < big.length / 10, `compressed on the wire: the server wrote ${written} bytes for the ${big.length}-byte echo`)
      t.comment(`${tag}: the server read ${after.bytesRead - wire.bytesRead} bytes for it, wrote ${written}`)
      t.equal(after.protocol, 'echo.v2', 'the server sees the same subprotocol')
      const closed = await rt(fixture, 'close', { id: echo.id, code: 4001, reason: 'bye' })
      t.same([closed.code, closed.reason, closed.wasClean], [4001, 'bye', true], 'the client closed with 4001 "bye": the closing handshake completed')
      const serverClose = await untilSeen('drop-in', (e) => e.app === app && e.tag === tag && e.event === 'close')
      t.same([serverClose?.code, serverClose?.reason], [4001, 'bye'], 'and the server saw 4001 "bye"')

      const ping = await rt(fixture, 'open', { url: `${url}/ping`, client })
      t.same(await rt(fixture, 'next', { id: ping.id }), { text: 'pong ping 1' }, "the server's ping was answered with a pong of its payload")
      t.same(await roundTrip(fixture, ping.id, { text: 'again' }), { text: 'pong ping 2' }, 'and the next')
      await rt(fixture, 'close', { id: ping.id })

      const bye = await rt(fixture, 'open', { url: `${url}/close?code=4002&reason=server%20bye`, client })
      const byeClosed = await rt(fixture, 'closed', { id: bye.id })
      t.same([byeClosed.code, byeClosed.reason, byeClosed.wasClean], [4002, 'server bye', true], 'the server closed with 4002 "server bye": the client saw it')

      const end = await linkCalls(fixture, app)
      t.equal(end.path, 'http-port', 'meshPortStats: the route is http-port')
      t.equal(end.calls - before.calls, 3, 'meshPortStats: the three upgrades went over the links')
      t.equal(end.meshCalls, before.meshCalls, 'none took the mesh')
      const now = await fixture.counted()
      const over = (/** @type {Record<string, number>} */ c, /** @type {string} */ path) => Object.entries(c).filter(([k]) => k.startsWith(`${app} ${path} `)).reduce((n, [, v]) => n + v, 0)
      t.equal(over(now, 'http-port') - over(counted, 'http-port'), 3, `the counter: 3 more on {target="${app}",path="http-port"}`)
      t.equal(over(now, 'mesh'), over(counted, 'mesh'), 'and none on path="mesh"')
      await untilNoSockets(fixture, app)
    })
  }
}

test("over Watt's mesh (no drop-in) the same WebSockets fail: the baseline", async (t) => {
  const fixture = await runtime('mesh')
  t.equal((await fixture.call('http://chat.plt.local', '/whoami')).status, 200, 'chat answers plain HTTP over the mesh')
  for (const client of CLIENTS) {
    const opened = await rt(fixture, 'open', { url: 'ws://chat.plt.local/echo', client })
    t.notOk(opened.id, `${client}: the WebSocket does not open`)
    t.equal(opened.failed?.code, 1006, `${client}: it fails with 1006 in ${opened.failed?.ms} ms (error: ${JSON.stringify(opened.failed?.error)})`)
    t.comment(`mesh, ${client} WebSocket: ${JSON.stringify(opened.failed)}`)
  }
  const saw = seen('mesh').filter((e) => e.app === 'chat')
  t.notOk(saw.some((e) => e.event === 'open'), 'chat never got an upgrade')
  const plain = saw.filter((e) => e.event === 'plain GET')
  t.equal(plain.length, CLIENTS.length, 'chat got each as a plain GET of /echo (answered 426)')
  t.comment(`what chat saw: ${JSON.stringify(plain.map((e) => ({ upgrade: e.upgrade, connection: e.connection })))}`)
})

test('a client that does not read: the server holds what the window does not let out, the client at most the window', async (t) => {
  const fixture = await runtime('drop-in')
  const count = 256
  const size = 64 * 1024 // 16 MiB in all, 16 windows
  const total = count * size
  const before = (await rt(fixture, 'memory')).arrayBuffers
  const raw = await rt(fixture, 'raw', { url: 'http://chatsvc.plt.local', path: `/flood?count=${count}&size=${size}` })
  t.ok(raw.accept, `upgraded with undici's upgrade() (Sec-WebSocket-Accept ${raw.accept}); the socket is never read`)
  const floodStatus = async () => JSON.parse((await fixture.call('http://chatsvc.plt.local', '/flood-status')).text)
  // until the sender's socket stops writing: out of credit
  /** @type {any} */
  let status = null
  const deadline = Date.now() + 20_000
  for (let last = -1; Date.now() < deadline; await sleep(200)) {
    status = await floodStatus()
    if (status.queued === total && status.bytesWritten === last) break
    last = status.bytesWritten
  }
  const held = await rt(fixture, 'raw-state', { id: raw.id })
  t.equal(status.window, WINDOW, 'the default window, 1 MiB')
  t.equal(status.queued, total, `the server queued ${total} bytes`)
  const consumed = held.bytesRead - held.readableLength - held.waitingBytes
  const onTheWire = status.bytesWritten - consumed
  t.ok(onTheWire <= WINDOW, `bytes out of the sender and not read by the receiver: ${onTheWire}, at most the window`)
  t.ok(held.readableLength + held.waitingBytes <= WINDOW, `the receiver holds ${held.readableLength + held.waitingBytes} bytes, at most the window`)
  t.ok(status.bufferedAmount >= total - 2 * WINDOW, `the sender's bufferedAmount grew to ${status.bufferedAmount} (its socket's writableLength ${status.writableLength})`)
  const grown = held.arrayBuffers - before
  t.ok(grown < 4 * WINDOW, `the receiver thread's ArrayBuffers grew by ${grown} bytes while ${total} waited to be read: bounded, not the flood`)
  const drained = await rt(fixture, 'raw-drain', { id: raw.id, count, size })
  t.same(drained, { messages: count, intact: count, bytes: total }, 'once read, every message arrives intact')
  const end = await floodStatus()
  t.equal(end.writableLength, 0, "the sender's socket emptied")
})

test('a server that does not read: the client holds what the window does not let out, the server at most the window', async (t) => {
  const fixture = await runtime('drop-in')
  const count = 256
  const size = 64 * 1024 // 16 MiB in all, 16 windows
  const total = count * size
  const sink = await rt(fixture, 'open', { url: `ws://chatsvc.plt.local/sink?count=${count}&size=${size}`, client: 'global' })
  t.ok(sink.id, "Node's global WebSocket opened to a server that paused its socket (ws.pause())")
  const queued = await rt(fixture, 'flood', { id: sink.id, count, size })
  t.ok(queued.bufferedAmount >= total, `the client queued ${queued.bufferedAmount} bytes`)
  const sinkStatus = async () => JSON.parse((await fixture.call('http://chatsvc.plt.local', '/sink-status')).text)
  // until the client's socket stops writing: out of credit
  /** @type {any} */
  let held = null
  let buffered = -1
  const deadline = Date.now() + 20_000
  for (let last = -1; Date.now() < deadline; await sleep(200)) {
    buffered = (await rt(fixture, 'state', { id: sink.id })).bufferedAmount
    if (buffered === last) break
    last = buffered
  }
  held = await sinkStatus()
  t.equal(held.messages, 0, 'the server read no message')
  const holds = held.readableLength + held.waitingBytes
  t.ok(holds <= WINDOW, `the server's socket holds ${holds} bytes unread, at most the window`)
  t.ok(total - buffered <= WINDOW + 64 * 1024, `out of the client: ${total - buffered} bytes of the messages (frame heads aside), at most the window and one write`)
  t.ok(buffered >= total - 2 * WINDOW, `the client's bufferedAmount stays at ${buffered}`)
  await fixture.call('http://chatsvc.plt.local', '/sink-resume')
  const checked = JSON.parse((await rt(fixture, 'next', { id: sink.id, timeout: 30_000 })).text)
  t.same(checked, { messages: count, intact: count, bytes: total }, 'once the server reads, every message arrives intact')
  t.equal((await rt(fixture, 'state', { id: sink.id })).bufferedAmount, 0, "the client's buffer emptied")
  await rt(fixture, 'close', { id: sink.id })
})

test("ten WebSockets spread over chat's two workers (the fewest open sockets first)", async (t) => {
  const fixture = await runtime('drop-in')
  await fixture.call('http://chat.plt.local', '/whoami')
  await untilNoSockets(fixture, 'chat')
  t.equal((await fixture.stats()).chat.workers.length, 2, 'chat: two workers linked')
  const ids = []
  /** @type {Record<number, number>} */
  const byWorker = {}
  for (let i = 0; i < 10; i++) {
    const opened = await rt(fixture, 'open', { url: 'ws://chat.plt.local/who', client: i % 2 ? 'undici' : 'global' })
    const who = JSON.parse((await rt(fixture, 'next', { id: opened.id })).text)
    byWorker[who.worker] = (byWorker[who.worker] ?? 0) + 1
    ids.push(opened.id)
  }
  t.same(byWorker, { 0: 5, 1: 5 }, 'five on each worker (what the server says it is)')
  const workers = (await fixture.stats()).chat.workers
  t.same(workers.map((w) => /** @type {any} */ (w).sockets), [5, 5], 'meshPortStats: five sockets open on each link')
  for (const id of ids) await rt(fixture, 'close', { id })
  await untilNoSockets(fixture, 'chat')
  t.pass('closed, the links count none')
})

test(`${POLLS} long-polls at once from the front to plain's one worker all answer within 10% of ${POLL_MS} ms over the drop-in; over the mesh none waits for a slot`, async (t) => {
  for (const mode of /** @type {const} */ (['drop-in', 'mesh'])) {
    const fixture = await runtime(mode)
    await fixture.call('http://plain.plt.local', '/whoami')
    // A bound queues whole polls (its late answers take twice the poll, every time); a machine
    // busy with other work only spreads them. So a burst past the bound is run once more, and
    // the second one judged: a queue fails both, the first's figures are kept in a comment.
    let attempt = 0
    for (;;) {
      attempt++
      const counted = await fixture.counted()
      const { answers, totalMs } = await rt(fixture, 'burst', { url: `http://plain.plt.local/slow?ms=${POLL_MS}`, count: POLLS })
      const ms = answers.map((/** @type {any} */ a) => a.ms).sort((/** @type {number} */ a, /** @type {number} */ b) => a - b)
      /** @type {Record<string, number>} answers per 100 ms */
      const spread = {}
      for (const m of ms) spread[`${Math.floor(m / 100) * 100} ms`] = (spread[`${Math.floor(m / 100) * 100} ms`] ?? 0) + 1
      const slowest = ms[ms.length - 1]
      t.comment(`${mode}, burst ${attempt}: ${POLLS} long-polls of ${POLL_MS} ms answered in ${JSON.stringify(spread)}; slowest ${slowest} ms, fastest ${ms[0]}, all ${totalMs} ms`)
      if (mode === 'drop-in' && slowest > BOUND_MS && attempt === 1) continue
      t.equal(answers.filter((/** @type {any} */ a) => a.status === 200).length, POLLS, `${mode}: all ${POLLS} answered 200`)
      if (mode === 'drop-in') {
        t.ok(slowest <= BOUND_MS, `${mode}: the slowest in ${slowest} ms (burst ${attempt}), at most ${BOUND_MS}`)
        const now = await fixture.counted()
        t.equal((now['plain http-port 0'] ?? 0) - (counted['plain http-port 0'] ?? 0), POLLS, `${mode}: all ${POLLS} over http-port to worker 0`)
      } else {
        // The baseline, not the contract: on 2 cores shared with other work, the mesh's slowest took
        // 3,447-3,457 ms of 3,000 (2,317 and 3,010 of 2,000 ms polls): its answers spread out, no
        // slot held them. No poll waited for another's end.
        t.ok(slowest < POLL_MS * 2, `${mode}: the slowest in ${slowest} ms: none waited a whole poll for a slot`)
      }
      break
    }
  }
})
