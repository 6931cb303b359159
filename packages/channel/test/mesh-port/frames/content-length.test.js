// Bodies held to their content-length over the frames wire as undici's HTTP/1.1 client holds them on the HTTP
// wire, on the same app (both-wires.js): an answer's (ResponseContentLengthMismatchError when short, cut at its
// length when long, no body after a HEAD, 204 and 304 checked as undici checks them) and a streamed request
// body's (RequestContentLengthMismatchError, the server's request aborted).
import { Readable } from 'node:stream'
import { test } from 'tap'
import { bothWires, onBoth, outcome, sleep } from './both-wires.js'

const RES_MISMATCH = {
  name: 'ResponseContentLengthMismatchError',
  code: 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
  message: 'Response body length does not match content-length header'
}
const REQ_MISMATCH = {
  name: 'RequestContentLengthMismatchError',
  code: 'UND_ERR_REQ_CONTENT_LENGTH_MISMATCH',
  message: 'Request body length does not match content-length header'
}

/**
 * An answer of `body` under the content-length `length`.
 * @param {number} length
 * @param {string[]} parts  written one by one, a turn apart
 * @param {Record<string, string>} [extra]  more headers
 * @returns {import('./both-wires.js').WireListener}
 */
const answering = (length, parts, extra = {}) => (req, res) => {
  res.writeHead(200, { 'content-length': String(length), ...extra })
  const left = [...parts]
  const more = () => {
    const part = /** @type {string} */ (left.shift())
    if (left.length === 0) return res.end(part)
    res.write(part)
    setTimeout(more, 10)
  }
  more()
}

test('an answer shorter than its content-length fails with ResponseContentLengthMismatchError at its end', async (t) => {
  const [closing, kept] = await Promise.all([
    onBoth(t, answering(10, ['hello'], { connection: 'close' }), '/short'),
    onBoth(t, answering(10, ['hel', 'lo']), '/short', { server: { keepAliveTimeout: 100 } })
  ])
  t.same(closing.http, { error: RES_MISMATCH, infos: [] }, 'the HTTP wire, where the server closes the connection after it')
  t.same(closing.frames, closing.http, 'the frames wire: the same')
  t.same(closing.carried.frames, { frames: 1, http: 0 }, 'carried as frames')
  t.same(kept.frames, { error: RES_MISMATCH, infos: [] }, 'kept alive: the frames wire knows the end, and fails it so')
  t.match(kept.http.error, { name: 'SocketError', code: 'UND_ERR_SOCKET', message: 'other side closed' },
    'the HTTP wire waits for bytes that never come, and fails once the server closes the idle connection')
})

test("an answer longer than its content-length is cut at its length, as undici's parser cuts it", async (t) => {
  const [one, two] = await Promise.all([
    onBoth(t, answering(3, ['hello world']), '/long'),
    onBoth(t, answering(3, ['hel', 'lo', ' world']), '/long')
  ])
  t.same(one.http, { status: 200, body: 'hel', infos: [] }, 'the HTTP wire: one write')
  t.same(one.frames, one.http, 'the frames wire: the same')
  t.same(two.http, { status: 200, body: 'hel', infos: [] }, 'the HTTP wire: the length, then more writes')
  t.same(two.frames, two.http, 'the frames wire: the same')
  t.same([one.carried.frames, two.carried.frames], [{ frames: 1, http: 0 }, { frames: 1, http: 0 }])
  const pair = bothWires(t, (req, res) => {
    if (req.url === '/long') return answering(2, ['abc', 'def'])(req, res, 'frames')
    res.end('next')
  })
  t.same(await outcome(pair.wires.frames, `${pair.origin}/long`), { status: 200, body: 'ab', infos: [] })
  await sleep(30) // the rest of the long answer reaches a stream the caller closed
  t.same(await outcome(pair.wires.frames, `${pair.origin}/next`), { status: 200, body: 'next', infos: [] },
    'the link serves the next request')
  t.same(pair.carried(), { frames: 2, http: 0 })
})

test('no body is checked after a HEAD; a 204 or 304 with a content-length other than 0 fails, as undici fails it', async (t) => {
  /** @param {number} status @param {string} length */
  const bare = (status, length) => /** @type {import('./both-wires.js').WireListener} */ (req, res) => {
    res.writeHead(status, { 'content-length': length })
    res.end()
  }
  const [head, noContent, notModified, zero, plain] = await Promise.all([
    onBoth(t, bare(200, '10'), '/', { request: () => ({ method: 'HEAD' }) }),
    onBoth(t, bare(204, '10'), '/'),
    onBoth(t, bare(304, '10'), '/'),
    onBoth(t, bare(304, '0'), '/'),
    onBoth(t, answering(5, ['he', 'llo']), '/')
  ])
  t.same(head.http, { status: 200, body: '', infos: [] }, 'HEAD: the HTTP wire reads no body')
  t.same(head.frames, head.http, 'nor the frames wire')
  t.same(noContent.http, { error: RES_MISMATCH, infos: [] }, "204 with content-length 10: undici's mismatch")
  t.same(noContent.frames, noContent.http, 'over frames too')
  t.same(notModified.http, { error: RES_MISMATCH, infos: [] }, '304 with content-length 10: the same')
  t.same(notModified.frames, notModified.http)
  t.same(zero.http, { status: 304, body: '', infos: [] }, '304 with content-length 0: served')
  t.same(zero.frames, zero.http)
  t.same(plain.frames, { status: 200, body: 'hello', infos: [] }, 'a body of its length, in two writes: served')
  t.same(plain.http, plain.frames)
  t.same([head, noContent, notModified, zero, plain].map((both) => both.carried.frames.frames), [1, 1, 1, 1, 1])
})

test('a streamed request body past or short of its content-length fails on both wires, the request aborted', async (t) => {
  /** @type {Record<string, { bytes: number, complete: boolean }>} */
  const seen = {}
  /** @param {string} name @returns {import('./both-wires.js').WireListener} */
  const reading = (name) => (req, res, wire) => {
    let bytes = 0
    req.on('data', (c) => { bytes += c.length })
    req.on('end', () => res.end(`got ${bytes}`))
    req.on('close', () => { seen[`${name} ${wire}`] = { bytes, complete: req.complete } })
  }
  /** @param {string} length @param {boolean} [node]  a Readable, not an async generator */
  const upload = (length, node = false) => () => {
    const chunks = ['hel', 'lo']
    const body = node
      ? Readable.from(chunks)
      : (async function * () { for (const chunk of chunks) { await sleep(10); yield chunk } })()
    return { method: 'POST', headers: { 'content-length': length }, body }
  }
  const [long, short, readable, exact] = await Promise.all([
    onBoth(t, reading('long'), '/', { request: upload('4') }),
    onBoth(t, reading('short'), '/', { request: upload('10') }),
    onBoth(t, reading('readable'), '/', { request: upload('4', true) }),
    onBoth(t, reading('exact'), '/', { request: upload('5') })
  ])
  t.same(long.http, { error: REQ_MISMATCH, infos: [] }, 'the HTTP wire: 5 bytes that say 4')
  t.same(long.frames, long.http, 'the frames wire: the same')
  t.same(short.http, { error: REQ_MISMATCH, infos: [] }, 'the HTTP wire: 5 bytes that say 10')
  t.same(short.frames, short.http)
  t.same(readable.http, { error: REQ_MISMATCH, infos: [] }, 'the HTTP wire: a Readable that runs past')
  t.same(readable.frames, readable.http)
  t.same(exact.http, { status: 200, body: 'got 5', infos: [] }, 'a body of its length: served')
  t.same(exact.frames, exact.http)
  t.same([long, short, readable, exact].map((both) => both.carried.frames), Array(4).fill({ frames: 1, http: 0 }),
    'every one carried as frames')
  for (let i = 0; i < 100 && Object.keys(seen).length < 8; i++) await sleep(20)
  t.same(seen, {
    'long http': { bytes: 3, complete: false },
    'long frames': { bytes: 3, complete: false },
    'short http': { bytes: 5, complete: false },
    'short frames': { bytes: 5, complete: false },
    'readable http': { bytes: 3, complete: false },
    'readable frames': { bytes: 3, complete: false },
    'exact http': { bytes: 5, complete: true },
    'exact frames': { bytes: 5, complete: true }
  }, 'the server read up to the chunk that ran past (none of it) or to the end, then the request was aborted')
})

test('strictContentLength: false in the pool: a streamed body with a content-length takes the HTTP wire, which only warns', async (t) => {
  /** @type {import('./both-wires.js').WireListener} */
  const echo = (req, res) => {
    let body = ''
    req.setEncoding('latin1')
    req.on('data', (c) => { body += c })
    req.on('end', () => res.end(body))
  }
  const pair = bothWires(t, echo, { pool: { strictContentLength: false } })
  const stream = () => (async function * () { yield 'hel'; yield 'lo' })()
  const declared = await outcome(pair.wires.frames, `${pair.origin}/`,
    { method: 'POST', headers: { 'content-length': '5' }, body: stream() })
  t.same(declared, { status: 200, body: 'hello', infos: [] })
  t.same(pair.carried(), { frames: 0, http: 1 }, 'over the HTTP wire')
  const chunked = await outcome(pair.wires.frames, `${pair.origin}/`, { method: 'POST', body: stream() })
  t.same(chunked, { status: 200, body: 'hello', infos: [] })
  t.same(pair.carried(), { frames: 1, http: 1 }, 'one without a content-length goes as frames')
})
