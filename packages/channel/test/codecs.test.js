// How each kind encodes a payload (codecs.js): `port` passes values as they are but copies a Buffer
// that shares a larger backing store; `shm` sends JSON text, refusing what JSON cannot carry.
import t from 'tap'
import { CODECS, portCodec, shmCodec } from '../lib/codecs.js'

t.test('the codecs by kind', async (t) => {
  t.same(Object.keys(CODECS).sort(), ['port', 'shm'])
  t.equal(CODECS.port, portCodec)
  t.equal(CODECS.shm, shmCodec)
})

t.test('port: values as they are; a pooled Buffer as an exact-size copy', async (t) => {
  const value = { a: [1, 2], m: new Map([[1, 2]]) }
  t.equal(portCodec.encode(value), value, 'the same object: structured clone does the rest')
  t.equal(portCodec.encode('text'), 'text')
  const own = new Uint8Array(16)
  t.equal(portCodec.encode(own), own, 'bytes that own their whole buffer go as they are')
  const pooled = Buffer.from('hello') // from Node's 8 KiB pool
  t.ok(pooled.buffer.byteLength > pooled.byteLength, 'the test Buffer shares a larger store')
  const sent = /** @type {Uint8Array} */ (portCodec.encode(pooled))
  t.not(sent, pooled)
  t.equal(sent.buffer.byteLength, 5, 'a copy of exactly its bytes')
  t.same(Buffer.from(sent).toString(), 'hello')
  const slice = new Uint8Array(new ArrayBuffer(64), 8, 4)
  t.equal(/** @type {Uint8Array} */ (portCodec.encode(slice)).buffer.byteLength, 4, 'any view of a part')
  t.ok(portCodec.exceeds('x'.repeat(5), 4), 'sizes as cloneExceeds')
  t.notOk(portCodec.exceeds({ big: 'x'.repeat(100) }, 4))
})

t.test('shm: JSON text, measured exactly; what JSON cannot carry throws', async (t) => {
  t.equal(shmCodec.encode({ a: 1, b: 'é' }), '{"a":1,"b":"é"}')
  t.equal(shmCodec.encode(undefined), 'null', 'undefined travels as null')
  t.equal(shmCodec.encode(() => {}), 'null', 'as JSON.stringify drops a function')
  t.equal(shmCodec.encode('x'), '"x"')
  t.throws(() => shmCodec.encode(10n), TypeError, 'a BigInt')
  const cycle = {}
  cycle.self = cycle
  t.throws(() => shmCodec.encode(cycle), TypeError, 'a cycle')
  t.ok(shmCodec.exceeds('"é"', 3), 'bytes, not units: 4 bytes')
  t.notOk(shmCodec.exceeds('"é"', 4))
})
