// The shared-memory ring (shm/ring.js) in one thread, writer and reader on the same buffer:
// its size rules, messages of every size passed whole or in fragments across the ring's end,
// a writer that waits for space, and records that cannot be right refused as PROTOCOL.
import t from 'tap'
import {
  checkRingBytes, createRing, HEADER_BYTES, IDLE, isRing, R, RingReader, RingWriter, W, WAITING
} from '../../lib/shm/ring.js'

const RING = 4096

/** Writes each text and drains after every write, as the two ends would: what the reader saw. */
function pass (/** @type {string[]} */ texts, capacity = RING, max = 1 << 20) {
  const sab = createRing(capacity)
  const writer = new RingWriter(sab)
  const reader = new RingReader(sab, max)
  /** @type {string[]} */
  const out = []
  for (const text of texts) {
    writer.write(text)
    while (writer.backlog > 0 || reader.pending) {
      reader.drain((m) => out.push(m))
      writer.pump()
    }
  }
  return { out, sab, writer, reader }
}

t.test('a ring is a power of two from 4 KiB to 1 GiB, plus its header; it starts idle', async (t) => {
  const sab = createRing(RING)
  t.equal(sab.byteLength, HEADER_BYTES + RING)
  const header = new Int32Array(sab, 0, HEADER_BYTES / 4)
  t.same([header[W], header[R], header[IDLE], header[WAITING]], [0, 0, 1, 0], 'empty, its reader idle')
  for (const ok of [4096, 8192, 256 * 1024, 1 << 30]) t.doesNotThrow(() => checkRingBytes(ok), `${ok}`)
  for (const bad of [0, 2048, 4095, 5000, 4096.5, 1 << 31, NaN, '4096']) {
    t.throws(() => checkRingBytes(/** @type {any} */ (bad)), {
      name: 'InvalidOptionError',
      code: 'WATT_CHANNEL_INVALID_OPTION',
      message: /ringBytes must be a power of two from 4096 bytes to 1 GiB/
    }, `${bad}`)
  }
  t.throws(() => createRing(1000), { code: 'WATT_CHANNEL_INVALID_OPTION' })
})

t.test('isRing: a SharedArrayBuffer of a header and a power of two from 4 KiB', async (t) => {
  t.ok(isRing(createRing(RING)))
  t.ok(isRing(new SharedArrayBuffer(HEADER_BYTES + 8192)))
  t.notOk(isRing(new SharedArrayBuffer(RING)), 'no room for the header')
  t.notOk(isRing(new SharedArrayBuffer(HEADER_BYTES + 2048)), 'too small')
  t.notOk(isRing(new SharedArrayBuffer(HEADER_BYTES + 5000)), 'not a power of two')
  t.notOk(isRing(new ArrayBuffer(HEADER_BYTES + RING)), 'not shared')
  t.notOk(isRing(null))
  t.notOk(isRing({ byteLength: HEADER_BYTES + RING }))
})

t.test('messages arrive whole and in order, ASCII or not, short or many rings long', async (t) => {
  const texts = ['', 'a', 'hello', 'é', '€uro', '😀 emoji', 'x'.repeat(1023), 'y'.repeat(1024), 'z'.repeat(1025),
    'é'.repeat(700), 'a'.repeat(RING * 3 + 17), '€'.repeat(RING * 2), 'end']
  const { out, sab } = pass(texts)
  t.equal(out.length, texts.length)
  for (let i = 0; i < texts.length; i++) t.equal(out[i], texts[i], `message ${i} (${texts[i].length} units)`)
  const header = new Int32Array(sab, 0, HEADER_BYTES / 4)
  t.equal(header[W], header[R], 'all read: R caught up with W')
  t.ok(header[W] > RING, 'the positions ran past the ring\'s end (it wrapped)')
})

t.test('a full ring keeps the rest queued, in order, until the reader frees space', async (t) => {
  const sab = createRing(RING)
  const writer = new RingWriter(sab)
  const reader = new RingReader(sab, 1 << 20)
  const big = 'q'.repeat(RING * 2)
  t.ok(writer.write(big), 'part of it was published')
  t.equal(writer.backlog, 1, 'the rest waits')
  t.notOk(writer.pump(), 'no space: nothing more')
  t.notOk(writer.write('after'), 'a message behind it waits too, even one that would fit')
  t.equal(writer.backlog, 2)
  /** @type {string[]} */
  const out = []
  let rounds = 0
  while (writer.backlog > 0 || reader.pending) {
    t.ok(reader.drain((m) => out.push(m)) || !reader.pending, 'each drain frees space')
    writer.pump()
    if (++rounds > 100) break
  }
  t.same(out, [big, 'after'])
  t.ok(rounds > 1, `it took ${rounds} rounds`)
  t.notOk(reader.drain(() => {}), 'nothing left: nothing freed')
})

t.test('a fragment never exceeds a quarter of the ring', async (t) => {
  const sab = createRing(RING)
  const writer = new RingWriter(sab)
  writer.write('w'.repeat(RING))
  const words = new Int32Array(sab, HEADER_BYTES, RING / 4)
  t.equal(words[0], RING / 4, 'the first record holds a quarter ring')
  t.equal(words[1], 1, 'flagged: more follows')
})

t.test('a record that cannot be right is a PROTOCOL error', async (t) => {
  const corrupt = (/** @type {(words: Int32Array, header: Int32Array) => void} */ spoil) => {
    const sab = createRing(RING)
    const writer = new RingWriter(sab)
    writer.write('hello')
    spoil(new Int32Array(sab, HEADER_BYTES, RING / 4), new Int32Array(sab, 0, HEADER_BYTES / 4))
    const reader = new RingReader(sab, 1 << 20)
    return () => reader.drain(() => {})
  }
  const protocol = (/** @type {RegExp} */ message) => ({ name: 'ChannelError', code: 'WATT_CHANNEL_PROTOCOL', message })
  t.throws(corrupt((words) => { words[0] = RING }), protocol(/a corrupt ring record/), 'a length past the ring')
  t.throws(corrupt((words) => { words[0] = -1 }), protocol(/corrupt/), 'a negative length')
  t.throws(corrupt((words) => { words[0] = 64 }), protocol(/corrupt/), 'a length past what was written')
  t.throws(corrupt((words) => { words[1] = 4 }), protocol(/corrupt/), 'an unknown flag')
  t.throws(corrupt((words) => { words[1] = 3 }), protocol(/corrupt/), 'MORE and ASCII together')
  t.throws(corrupt((_, header) => { header[W] = RING * 2 }), protocol(/corrupt/), 'more written than the ring holds')
})

t.test('a message longer than maxMessageBytes is refused before it is put together', async (t) => {
  const sab = createRing(RING)
  const writer = new RingWriter(sab)
  const reader = new RingReader(sab, 1500)
  writer.write('m'.repeat(3000))
  /** @type {string[]} */
  const out = []
  t.throws(() => {
    for (let i = 0; i < 10; i++) { reader.drain((m) => out.push(m)); writer.pump() }
  }, { code: 'WATT_CHANNEL_PROTOCOL', message: 'a message larger than 1500 bytes' })
  t.same(out, [])
  const { out: fits } = pass(['n'.repeat(1500)], RING, 1500)
  t.same(fits, ['n'.repeat(1500)], 'exactly the limit passes')
})

t.test('a writer and reader made on a used ring start where it stands', async (t) => {
  const { sab } = pass(['one', 'two'])
  const writer = new RingWriter(sab)
  const reader = new RingReader(sab, 1 << 20)
  t.notOk(reader.pending, 'nothing old is read again')
  writer.write('three')
  t.ok(reader.pending)
  /** @type {string[]} */
  const out = []
  reader.drain((m) => out.push(m))
  t.same(out, ['three'])
})
