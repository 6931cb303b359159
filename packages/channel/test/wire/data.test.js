// Data frames: latin1 strings up to STRING_LIMIT, above it a FRAME_BYTES buffer that the
// reader copies out of and hands back. Written from a list of chunks without joining them.
import t from 'tap'
import { receiveBytes, sendChunks } from '../../lib/wire/data.js'
import { FRAME_BYTES, STRING_LIMIT } from '../../lib/wire/signals.js'

/** A mux that records what it is given. */
function recorder () {
  const sent = []
  const handedBack = []
  const spare = []
  return {
    sent,
    handedBack,
    send (id, payload, transfer) { sent.push({ id, payload, transfer }) },
    frameBuffer () { return spare.pop() ?? new ArrayBuffer(FRAME_BYTES) },
    handBack (buffer) { handedBack.push(buffer) }
  }
}

t.test('small data goes as one latin1 string, taken across chunks without joining them', async (t) => {
  const mux = recorder()
  const chunks = [Buffer.from('ab'), Buffer.from([0xff, 0x00]), Buffer.from('cdef')]
  const text = sendChunks(/** @type {any} */ (mux), 7, chunks, 5)
  t.equal(text, 'ab\xff\x00c')
  t.same(mux.sent, [{ id: 7, payload: 'ab\xff\x00c', transfer: undefined }])
  t.same(chunks.map((c) => c.toString()), ['def'], 'the rest stays, cut inside a chunk')
  t.equal(sendChunks(/** @type {any} */ (mux), 7, chunks, 3), 'def')
  t.same(chunks, [], 'all taken')
})

t.test('data above STRING_LIMIT goes in a transferred frame buffer, returned as null', async (t) => {
  const mux = recorder()
  const big = Buffer.alloc(STRING_LIMIT + 1, 7)
  const chunks = [big.subarray(0, 100), big.subarray(100)]
  t.equal(sendChunks(/** @type {any} */ (mux), 3, chunks, big.length), null)
  const [{ payload, transfer }] = mux.sent
  t.ok(payload instanceof Uint8Array)
  t.equal(payload.byteLength, big.length)
  t.equal(payload.buffer.byteLength, FRAME_BYTES, 'a whole frame buffer, to be handed back')
  t.equal(transfer, payload.buffer, 'transferred, not cloned')
  t.ok(Buffer.from(payload).equals(big))
})

t.test('a received frame is copied out and its buffer handed back; a string is decoded as latin1', async (t) => {
  const mux = recorder()
  const frame = new Uint8Array(new ArrayBuffer(FRAME_BYTES), 0, 3)
  frame.set([1, 2, 3])
  const data = receiveBytes(/** @type {any} */ (mux), frame)
  t.same([...data], [1, 2, 3])
  t.not(data.buffer, frame.buffer, 'copied into this thread\'s memory')
  t.same(mux.handedBack, [frame.buffer], 'the buffer goes back to the writer')
  t.same([...receiveBytes(/** @type {any} */ (mux), '\xff\x01')], [255, 1])
  t.equal(receiveBytes(/** @type {any} */ (mux), -1), null, 'a signal is not data')
  const held = Buffer.from('held')
  t.equal(receiveBytes(/** @type {any} */ (mux), held), held, 'bytes already copied out pass as they are')
})
