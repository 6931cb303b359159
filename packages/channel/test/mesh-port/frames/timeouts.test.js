// undici's headersTimeout and bodyTimeout over the frames wire, held to what the HTTP wire does on the same app
// (both-wires.js): the `pool` option's and a request's own, undici's errors and codes, the server's request
// closed as by a caller's abort, and the waits undici does not time (a paused reader, an upload being sent).
// undici times at a 499 ms tick, so a 300 ms timeout runs out within about a second, on either wire.
import { test } from 'tap'
import { request } from 'undici'
import { bothWires, onBoth, outcome, sleep } from './both-wires.js'
import { patternBytes } from '../../helpers/http-server-worker.js'

const HEADERS_TIMEOUT = { name: 'HeadersTimeoutError', code: 'UND_ERR_HEADERS_TIMEOUT', message: 'Headers Timeout Error' }
const BODY_TIMEOUT = { name: 'BodyTimeoutError', code: 'UND_ERR_BODY_TIMEOUT', message: 'Body Timeout Error' }
/** later than a 300 ms timeout can run out (two ticks) */
const LATE_MS = 1300

/** Which wire's server saw its answer closed unfinished (the caller left). */
function closes () {
  /** @type {Set<string>} */
  const closed = new Set()
  return {
    closed,
    /** @param {import('node:http').ServerResponse} res @param {string} wire */
    watch: (res, wire) => res.on('close', () => { if (!res.writableFinished) closed.add(wire) }),
    async both () {
      for (let i = 0; i < 100 && closed.size < 2; i++) await sleep(20)
      return [...closed].sort()
    }
  }
}

test("the pool's headersTimeout, and a request's own over it: undici's error on both wires, the request closed", async (t) => {
  const hang = closes()
  const own = closes()
  const [pooled, requested, lifted] = await Promise.all([
    onBoth(t, (req, res, wire) => hang.watch(res, wire), '/hang', { pool: { headersTimeout: 300 } }),
    onBoth(t, (req, res, wire) => own.watch(res, wire), '/hang',
      { pool: { headersTimeout: 0 }, request: () => ({ headersTimeout: 300 }) }),
    onBoth(t, (req, res) => { setTimeout(() => res.end('late'), LATE_MS) }, '/late',
      { pool: { headersTimeout: 300 }, request: () => ({ headersTimeout: 0 }) })
  ])
  t.match(pooled.http.error, HEADERS_TIMEOUT, 'the HTTP wire: the pool option')
  t.same(pooled.frames, pooled.http, 'the frames wire: the same')
  t.same(pooled.carried.frames, { frames: 1, http: 0 }, 'carried as frames')
  t.same(await hang.both(), ['frames', 'http'], "the server's answer closed unfinished on both")
  t.match(requested.http.error, HEADERS_TIMEOUT, "a request's headersTimeout where the pool has none")
  t.same(requested.frames, requested.http)
  t.same(await own.both(), ['frames', 'http'])
  t.same(lifted.http, { status: 200, body: 'late', infos: [] }, "a request's headersTimeout: 0 lifts the pool's")
  t.same(lifted.frames, lifted.http)
  t.same(lifted.carried.frames, { frames: 1, http: 0 })
})

test("the pool's bodyTimeout, and a request's own over it: undici's error on both wires, the request closed", async (t) => {
  const stall = closes()
  const own = closes()
  /** @type {import('./both-wires.js').WireListener} */
  const stalls = (req, res) => { res.writeHead(200); res.write('part') }
  const [pooled, requested, lifted] = await Promise.all([
    onBoth(t, (req, res, wire) => { stall.watch(res, wire); stalls(req, res, wire) }, '/stall', { pool: { bodyTimeout: 300 } }),
    onBoth(t, (req, res, wire) => { own.watch(res, wire); stalls(req, res, wire) }, '/stall',
      { pool: { bodyTimeout: 0 }, request: () => ({ bodyTimeout: 300 }) }),
    onBoth(t, (req, res) => { res.write('part, '); setTimeout(() => res.end('rest'), LATE_MS) }, '/late',
      { pool: { bodyTimeout: 300 }, request: () => ({ bodyTimeout: 0 }) })
  ])
  t.match(pooled.http.error, BODY_TIMEOUT, 'the HTTP wire: the pool option')
  t.same(pooled.frames, pooled.http, 'the frames wire: the same')
  t.same(pooled.carried.frames, { frames: 1, http: 0 }, 'carried as frames')
  t.same(await stall.both(), ['frames', 'http'], "the server's answer closed unfinished on both")
  t.match(requested.http.error, BODY_TIMEOUT, "a request's bodyTimeout where the pool has none")
  t.same(requested.frames, requested.http)
  t.same(await own.both(), ['frames', 'http'])
  t.same(lifted.http, { status: 200, body: 'part, rest', infos: [] }, "a request's bodyTimeout: 0 lifts the pool's")
  t.same(lifted.frames, lifted.http)
})

test('what undici does not time: a reader that stopped reading, an upload being sent; it does one held back', async (t) => {
  const big = patternBytes(2 * 1024 * 1024)
  /** @param {'http' | 'frames'} wire */
  const pausedReader = async (wire) => {
    const pair = bothWires(t, (req, res) => res.end(big), { pool: { bodyTimeout: 300 } })
    const answer = await request(`${pair.origin}/big`, { dispatcher: pair.wires[wire] })
    await sleep(LATE_MS) // the body's buffer fills: the handler pauses the answer
    const bytes = Buffer.from(await answer.body.arrayBuffer())
    return { status: answer.statusCode, same: bytes.equals(big), carried: pair.carried() }
  }
  /** a streamed upload that takes longer than the headersTimeout; the server answers once it has it all */
  const slowUpload = () => ({
    method: 'POST',
    body: (async function * () { for (let i = 0; i < 13; i++) { await sleep(100); yield 'chunk ' } })()
  })
  /** @type {import('./both-wires.js').WireListener} */
  const counts = (req, res) => {
    let n = 0
    req.on('data', (c) => { n += c.length })
    req.on('end', () => res.end(`got ${n}`))
  }
  /** an upload the server never reads: held back by its window, as a socket that needs to drain */
  const unread = () => ({
    method: 'POST',
    body: (async function * () { for (let i = 0; i < 64; i++) yield patternBytes(64 * 1024) })()
  })
  const [http, frames, sent, held] = await Promise.all([
    pausedReader('http'),
    pausedReader('frames'),
    onBoth(t, counts, '/upload', { pool: { headersTimeout: 300 }, request: slowUpload }),
    onBoth(t, () => {}, '/unread', { pool: { headersTimeout: 300 }, request: unread })
  ])
  t.same(http, { status: 200, same: true, carried: { frames: 0, http: 1 } }, 'the HTTP wire: a paused body is not timed')
  t.same(frames, { status: 200, same: true, carried: { frames: 1, http: 0 } }, 'nor over frames')
  t.same(sent.http, { status: 200, body: 'got 78', infos: [] }, 'the HTTP wire: the head is waited for once the upload is sent')
  t.same(sent.frames, sent.http, 'so over frames')
  t.same(sent.carried.frames, { frames: 1, http: 0 })
  t.match(held.http.error, HEADERS_TIMEOUT, 'the HTTP wire: an upload the server does not read times out')
  t.same(held.frames, held.http, 'so over frames')
})

test('timeouts undici refuses: the HTTP wire fails the request with its InvalidArgumentError, so does the frames wire', async (t) => {
  const served = { count: 0 }
  const [pooled, requested] = await Promise.all([
    onBoth(t, (req, res) => { served.count++; res.end('served') }, '/', { pool: { headersTimeout: -1 } }),
    onBoth(t, (req, res) => { served.count++; res.end('served') }, '/', { request: () => ({ bodyTimeout: -5 }) })
  ])
  t.match(pooled.http.error, { name: 'InvalidArgumentError', code: 'UND_ERR_INVALID_ARG', message: /headersTimeout/ })
  t.same(pooled.frames, pooled.http, "a pool option: the pool's error")
  t.match(requested.http.error, { name: 'InvalidArgumentError', code: 'UND_ERR_INVALID_ARG', message: 'invalid bodyTimeout' })
  t.same(requested.frames, requested.http, "a request's own: the request's error")
  t.same([pooled.carried.frames, requested.carried.frames], [{ frames: 0, http: 1 }, { frames: 0, http: 1 }],
    'left to the HTTP wire')
  t.equal(served.count, 0, 'nothing reached the server')
  const fine = bothWires(t, (req, res) => res.end('served'), { pool: { headersTimeout: 1000, bodyTimeout: 1000 } })
  t.same(await outcome(fine.wires.frames, `${fine.origin}/`), { status: 200, body: 'served', infos: [] },
    'valid timeouts: served over frames')
  t.same(fine.carried(), { frames: 1, http: 0 })
})
