// The `shm` kind's channel end (shm/end.js): two ends in this thread on two rings and a
// MessageChannel, as a client and its callee hold them. Frames cross as JSON (payload slots hold
// JSON text already), a batch too long for one ring message is cut, a full ring waits for the
// reader's bell, and a corrupt ring or a lost port closes the channel with its code.
import t from 'tap'
import { MessageChannel } from 'node:worker_threads'
import { CALL, ERR, FAIL, OK } from '../../lib/batch.js'
import { CODES } from '../../lib/errors.js'
import { MESSAGE_SLACK, shmEnd } from '../../lib/shm/end.js'
import { createRing, HEADER_BYTES, W } from '../../lib/shm/ring.js'

const until = async (/** @type {() => boolean} */ check, what = 'a condition') => {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5))
  if (!check()) throw new Error(`timed out waiting for ${what}`)
}

/** A caller's end and a callee's, each with what it was handed. */
function ends ({ ringBytes = 64 * 1024, maxMessageBytes = 1 << 20, start = true } = {}) {
  const requests = createRing(ringBytes)
  const answers = createRing(ringBytes)
  const { port1, port2 } = new MessageChannel()
  const caller = shmEnd(port1, { inbound: answers, outbound: requests, maxMessageBytes, flush: 'callback' })
  const callee = shmEnd(port2, { inbound: requests, outbound: answers, maxMessageBytes, flush: 'callback' })
  const seen = { caller: /** @type {unknown[][]} */ ([]), callee: /** @type {unknown[][]} */ ([]) }
  const closes = { caller: /** @type {[string, string][]} */ ([]), callee: /** @type {[string, string][]} */ ([]) }
  const open = () => {
    caller.start((f) => seen.caller.push(/** @type {unknown[]} */ (f)), (c, r) => closes.caller.push([c, r]))
    callee.start((f) => seen.callee.push(/** @type {unknown[]} */ (f)), (c, r) => closes.callee.push([c, r]))
  }
  if (start) open()
  t.teardown(() => { caller.close(); callee.close() })
  return { caller, callee, seen, closes, requests, answers, port1, port2, open }
}

t.test('frames cross both ways as JSON, a callback\'s frames in one message', async (t) => {
  const { caller, callee, seen } = ends()
  caller.push(CALL, 1, 'echo', JSON.stringify({ a: 'é', n: [1, 2] }))
  caller.push(CALL, 2, 'nothing', 'null')
  await until(() => seen.callee.length > 0, 'the calls')
  t.same(seen.callee, [[CALL, 1, 'echo', { a: 'é', n: [1, 2] }, CALL, 2, 'nothing', null]], 'one batch of two')
  callee.push(OK, 1, JSON.stringify({ a: 'é' }), 0)
  callee.push(ERR, 2, CODES.REMOTE, JSON.stringify('boom'))
  await until(() => seen.caller.length > 0, 'the answers')
  t.same(seen.caller, [[OK, 1, { a: 'é' }, 0, ERR, 2, CODES.REMOTE, 'boom']])
})

t.test('records written before start() are read as it starts', async (t) => {
  const { caller, callee, seen } = ends({ start: false })
  caller.push(CALL, 7, 'early', '1')
  await new Promise((resolve) => setTimeout(resolve, 10))
  callee.start((f) => seen.callee.push(/** @type {unknown[]} */ (f)), () => {})
  t.same(seen.callee, [[CALL, 7, 'early', 1]], 'read at once, within start()')
})

t.test('a batch longer than a ring message is cut into several, none lost', async (t) => {
  const { caller, seen } = ends({ ringBytes: 1 << 20 })
  const payload = JSON.stringify('p'.repeat(40 * 1024))
  for (let id = 1; id <= 6; id++) caller.push(CALL, id, 'big', payload)
  await until(() => seen.callee.flat().length === 24, 'six frames')
  t.ok(seen.callee.length > 1, `${seen.callee.length} messages for one batch`)
  t.same(seen.callee.flat().filter((_, i) => i % 4 === 1), [1, 2, 3, 4, 5, 6], 'in order')
})

t.test('more than a ring holds: the writer waits for the reader to free space, then goes on', async (t) => {
  const { caller, seen } = ends({ ringBytes: 4096 })
  const text = 'r'.repeat(20_000)
  for (let id = 1; id <= 3; id++) caller.push(CALL, id, 'big', JSON.stringify(text + id))
  await until(() => seen.callee.flat().length === 12, 'three large calls through a 4 KiB ring')
  t.same(seen.callee.flat().filter((_, i) => i % 4 === 3), [text + 1, text + 2, text + 3])
})

t.test('a corrupt inbound ring closes with PROTOCOL; the other end is told why (FAIL)', async (t) => {
  const { seen, closes, answers, port2 } = ends()
  // a record whose length runs past the ring, in the callee's outbound ring
  const header = new Int32Array(answers, 0, HEADER_BYTES / 4)
  const words = new Int32Array(answers, HEADER_BYTES, 16)
  words[0] = 1 << 30
  words[1] = 0
  Atomics.store(header, W, 64)
  port2.postMessage(0) // the bell, as the callee's own write would ring it
  await until(() => closes.caller.length > 0, "the caller's close")
  const reason = 'unreadable shared-memory frames: a corrupt ring record'
  t.same(closes.caller, [[CODES.PROTOCOL, reason]])
  await until(() => seen.callee.length > 0, 'the FAIL frame')
  t.same(seen.callee, [[FAIL, 0, reason, 0]], 'the callee read why before the port closed')
  await until(() => closes.callee.length > 0, "the callee's close")
  t.same(closes.callee, [[CODES.CLOSED, 'the channel closed (thread stopped, crashed or restarted)']])
})

t.test('a message over maxMessageBytes (+ slack) is PROTOCOL too', async (t) => {
  t.equal(MESSAGE_SLACK, 256 * 1024, 'room for names, ids and texts past the largest payload')
  const { caller, closes } = ends({ maxMessageBytes: 4096 })
  caller.push(CALL, 1, 'big', JSON.stringify('b'.repeat(8000)))
  await until(() => closes.callee.length > 0, "the callee's close")
  t.same(closes.callee, [[CODES.PROTOCOL, 'unreadable shared-memory frames: a message larger than 4096 bytes']])
})

t.test("the peer's port closing is CLOSED; once closed, nothing more is written or delivered", async (t) => {
  const { caller, callee, seen, closes, requests } = ends()
  callee.close()
  await until(() => closes.caller.length > 0, "the caller's close")
  t.same(closes.caller, [[CODES.CLOSED, 'the channel closed (thread stopped, crashed or restarted)']])
  t.same(closes.callee, [], 'its own close() is not reported to the end that closed')
  const before = Atomics.load(new Int32Array(requests, 0, HEADER_BYTES / 4), W)
  caller.push(CALL, 1, 'late', '0')
  await new Promise((resolve) => setTimeout(resolve, 10))
  t.equal(Atomics.load(new Int32Array(requests, 0, HEADER_BYTES / 4), W), before, 'nothing written')
  t.same(seen.callee, [])
  caller.close()
  caller.close()
  t.pass('close() twice is fine')
})
