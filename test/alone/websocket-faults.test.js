// The faults a WebSocket between applications meets over the drop-in (issue 58, build 2), on chat
// (test/mesh-port/fixture/web/chat: node:http + `ws`, two workers) from the front: the callee's
// worker crashes, a restart of the callee, the caller's thread ends. Alone (test/alone runs
// serially): the cases kill workers, and their 1 s bounds are contracts, not measured under a
// neighbour's load. One runtime, the cases in order; each begins once chat has two linked workers.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import tap, { test } from 'tap'
import { request } from 'undici'
import { createWattControl } from '../../bench/reliability/watt-control.js'
import { startFixture } from '../helpers/mesh-fixture.js'

/** @typedef {Awaited<ReturnType<typeof startFixture>>} Fixture */

/** A worker Watt stops closes its sockets this long after its 'close' event (fixture/lib/sockets.js). */
const CLOSE_ON_STOP_MS = 3000
const BOUND_MS = 1000

const dir = mkdtempSync(join(tmpdir(), 'watt-ws-faults-'))
tap.teardown(() => rmSync(dir, { recursive: true, force: true }))
const EVENTS = join(dir, 'events.jsonl')

/** @type {Promise<{ fixture: Fixture, control: import('../../bench/reliability/watt-control.js').WattControl }> | undefined} */
let shared
async function start () {
  shared ??= (async () => {
    const fixture = await startFixture(tap, 'drop-in', {
      apps: ['chat'],
      workers: { chat: 2 },
      env: { CHAT_EVENTS: EVENTS, CHAT_CLOSE_ON_STOP_MS: String(CLOSE_ON_STOP_MS) }
    })
    const control = createWattControl(/** @type {number} */ (fixture.pid))
    tap.teardown(() => control.close())
    return { fixture, control }
  })()
  const { fixture, control } = await shared
  await untilReady(fixture)
  await untilLinked(fixture)
  return { fixture, control }
}

/** @returns {any[]} what chat's workers saw (CHAT_EVENTS) */
function seen () {
  let text = ''
  try { text = readFileSync(EVENTS, 'utf8') } catch {}
  return text.split('\n').filter(Boolean).map((line) => JSON.parse(line))
}

/**
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

/** @param {Fixture} fixture */
async function untilReady (fixture) {
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    const status = await request(`${fixture.url}/ready`).then(async (a) => { await a.body.text(); return a.statusCode }, () => 0)
    if (status === 200) return
    await sleep(100)
  }
  throw new Error('the runtime was not ready again within 60 s')
}

/** Until the front has links to two chat workers, the first call made. @param {Fixture} fixture */
async function untilLinked (fixture) {
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    await fixture.call('http://chat.plt.local', '/whoami')
    const links = (await fixture.stats()).chat?.workers ?? []
    if (links.length === 2) return links
    await sleep(100)
  }
  throw new Error('chat was not linked to 2 workers within 60 s')
}

/**
 * Opens `count` WebSockets to chat's /who, in turn (spread over the two workers), each with the worker it reached.
 * @param {Fixture} fixture
 * @param {number} count
 * @param {string} tag
 */
async function openWho (fixture, count, tag) {
  const out = []
  for (let i = 0; i < count; i++) {
    const opened = await rt(fixture, 'open', { url: `ws://chat.plt.local/who?tag=${tag}-${i}`, client: i % 2 ? 'undici' : 'global' })
    if (!opened.id) throw new Error(`${tag}: a WebSocket did not open: ${JSON.stringify(opened.failed)}`)
    const who = JSON.parse((await rt(fixture, 'next', { id: opened.id })).text)
    out.push({ id: opened.id, tag: `${tag}-${i}`, ...who })
  }
  return out
}

/**
 * One echo on socket `id`: true when it came back.
 * @param {Fixture} fixture
 * @param {number} id
 * @param {string} text
 */
async function echoes (fixture, id, text) {
  await rt(fixture, 'send', { id, text })
  const next = await rt(fixture, 'next', { id, timeout: 5000 }).catch(() => ({}))
  return next.text === text
}

/**
 * A new WebSocket to chat's /who: opens, says its worker, echoes and closes; how it went.
 * @param {Fixture} fixture
 * @param {string} tag
 * @param {'global' | 'undici'} client
 * @returns {Promise<{ tag: string, thread: number, at: number, ok: boolean, error?: string }>}
 */
async function openNew (fixture, tag, client) {
  const at = Date.now()
  const opened = await rt(fixture, 'open', { url: `ws://chat.plt.local/who?tag=${tag}`, client })
  if (!opened.id) return { tag, thread: 0, at, ok: false, error: JSON.stringify(opened.failed) }
  const first = await rt(fixture, 'next', { id: opened.id })
  const out = first.text === undefined
    ? { tag, thread: 0, at, ok: false, error: `opened, then ${JSON.stringify(first)}` }
    : { tag, thread: JSON.parse(first.text).thread, at, ok: await echoes(fixture, opened.id, tag) }
  await rt(fixture, 'close', { id: opened.id })
  return out
}

test("the callee's worker crashes: its clients see 1006 within 1 s, the other worker's sockets stay open", async (t) => {
  const { fixture } = await start()
  const sockets = await openWho(fixture, 4, 'crash')
  const threads = [...new Set(sockets.map((s) => s.thread))]
  t.equal(threads.length, 2, 'the four sockets are on both workers')
  const [doomed, other] = threads
  const onDoomed = sockets.filter((s) => s.thread === doomed)
  const onOther = sockets.filter((s) => s.thread === other)
  // 'exit' on /who: process.exit(1) in the worker that holds the socket
  await rt(fixture, 'send', { id: onDoomed[0].id, text: 'exit' })
  const closes = await Promise.all(onDoomed.map((s) => rt(fixture, 'closed', { id: s.id, timeout: 10_000 })))
  const exitSentAt = closes[0].at - closes[0].sinceSend // the front's clock, when it sent the exit
  const after = closes.map((c) => c.at - exitSentAt)
  t.ok(closes.every((c) => c.code === 1006), `each client sees 1006 (${closes.map((c) => `${c.code} ${JSON.stringify(c.reason)}`).join(', ')})`)
  t.ok(after.every((ms) => ms <= BOUND_MS), `within 1 s of the crash: ${after.join(', ')} ms after the exit was sent`)
  t.comment(`close after the crash: ${after.join(', ')} ms`)
  for (const s of onOther) t.ok(await echoes(fixture, s.id, 'still here'), `a socket on the other worker still echoes (${s.tag})`)
  for (const s of onOther) await rt(fixture, 'close', { id: s.id })
})

test('a restart of the callee: sockets on the stopping workers stay open until the app closes them; new sockets go to live workers, none fails', async (t) => {
  const { fixture, control } = await start()
  const from = seen().length
  const old = await openWho(fixture, 4, 'old')
  const oldThreads = new Set(old.map((s) => s.thread))
  t.equal(oldThreads.size, 2, 'four sockets on both workers')
  /** @type {Map<number, number>} socket id → the last time it echoed */
  const lastEcho = new Map()
  /** @type {Set<number>} old sockets seen closed */
  const gone = new Set()
  /** @type {{ tag: string, thread: number, at: number, ok: boolean, error?: string }[]} */
  const fresh = []
  const restarting = { now: true }
  const restart = control.restartApplication('chat').finally(() => { restarting.now = false })
  // While Watt restarts chat and until the old sockets closed: each open old socket echoes in
  // turn, and a new socket opens, echoes and closes.
  const until = Date.now() + 90_000 // a hang fails the case
  for (let n = 0; (restarting.now || gone.size < old.length) && Date.now() < until; n++) {
    for (const s of old) {
      if (gone.has(s.id)) continue
      if ((await rt(fixture, 'state', { id: s.id })).closed) gone.add(s.id)
      else if (await echoes(fixture, s.id, `old ${n}`)) lastEcho.set(s.id, Date.now())
    }
    fresh.push(await openNew(fixture, `new-${n}`, n % 2 ? 'undici' : 'global'))
    await sleep(100)
  }
  await restart
  // and two more once Watt's restart is over: after both old workers stopped, whatever the timing
  for (const client of /** @type {const} */ (['global', 'undici'])) fresh.push(await openNew(fixture, `after-${client}`, client))
  const closes = await Promise.all(old.map((s) => rt(fixture, 'closed', { id: s.id, timeout: 30_000 })))
  const events = seen().slice(from)
  const stopping = new Map(events.filter((e) => e.event === 'stopping').map((e) => [e.thread, e.at]))
  t.same([...stopping.keys()].sort(), [...oldThreads].sort(), 'both old workers stopped (their "close" event)')
  t.comment(`old sockets: ${old.map((s, i) => `${s.tag} ${closes[i].code} ${JSON.stringify(closes[i].reason)} ${closes[i].at - /** @type {number} */ (stopping.get(s.thread))} ms after its worker's stop`).join('; ')}`)
  t.test('the old sockets stay open while their worker stops, until the app closes them', async (t) => {
    t.ok(closes.every((c) => c.code === 1001 && c.reason === 'worker stopping' && c.wasClean),
      `every old socket closed by the app, 1001 "worker stopping", cleanly (${closes.map((c) => `${c.code} ${c.reason}`).join(', ')}): none was cut`)
    for (const [i, s] of old.entries()) {
      const stoppedAt = /** @type {number} */ (stopping.get(s.thread))
      t.ok((lastEcho.get(s.id) ?? 0) > stoppedAt, `${s.tag} echoed ${(lastEcho.get(s.id) ?? 0) - stoppedAt} ms after its worker began to stop`)
      t.ok(closes[i].at >= stoppedAt + CLOSE_ON_STOP_MS - 100, `${s.tag} closed ${closes[i].at - stoppedAt} ms after its worker began to stop (the app closes it after ${CLOSE_ON_STOP_MS} ms)`)
    }
  })
  t.same(fresh.filter((f) => !f.ok), [], `none of ${fresh.length} new sockets failed`)
  const lastStop = Math.max(...stopping.values())
  const late = fresh.filter((f) => f.at > lastStop)
  t.ok(late.length > 0 && late.every((f) => !oldThreads.has(f.thread)), `the ${late.length} opened after both old workers began to stop went to new workers`)
  const links = await untilLinked(fixture)
  t.notOk(links.some((l) => oldThreads.has(l.thread)), 'the links are to the new workers')
})

test("the caller's thread ends: the server sees each socket close within 1 s", async (t) => {
  const { fixture } = await start()
  const sockets = await openWho(fixture, 2, 'caller')
  for (const s of sockets) t.ok(await echoes(fixture, s.id, 'before'), `${s.tag} echoes`)
  const exitAt = Date.now()
  await rt(fixture, 'exit').catch(() => null) // the front's worker ends: its answer may not arrive
  const deadline = Date.now() + 10_000
  /** @type {any[]} */
  let closes = []
  while (Date.now() < deadline) {
    closes = seen().filter((e) => e.event === 'close' && sockets.some((s) => s.tag === e.tag))
    if (closes.length === sockets.length) break
    await sleep(50)
  }
  t.equal(closes.length, sockets.length, 'the server saw every socket close')
  const after = closes.map((c) => c.at - exitAt)
  t.ok(after.every((ms) => ms <= BOUND_MS), `within 1 s: ${after.join(', ')} ms after the caller's exit (codes ${closes.map((c) => c.code).join(', ')})`)
  t.comment(`server-side close after the caller's thread ended: ${after.join(', ')} ms, codes ${closes.map((c) => c.code).join(', ')}`)
  await untilReady(fixture) // Watt starts the front again: the runtime is left whole
})
