// Payload size checks (size.js): a string's UTF-8 length against a limit, counted only when the
// UTF-16 length alone cannot decide; bytes by their length; other cloned values not measured.
import t from 'tap'
import { cloneExceeds, stringExceeds } from '../lib/size.js'

t.test('stringExceeds measures UTF-8 bytes, not UTF-16 units', async (t) => {
  t.notOk(stringExceeds('', 0))
  t.notOk(stringExceeds('abc', 3), 'exactly the limit')
  t.ok(stringExceeds('abcd', 3), 'one over')
  t.notOk(stringExceeds('é', 2), '2 bytes in 1 unit, limit 2')
  t.ok(stringExceeds('é', 1), '2 bytes in 1 unit, limit 1')
  t.ok(stringExceeds('€€', 5), '6 bytes in 2 units')
  t.notOk(stringExceeds('€€', 6))
  t.ok(stringExceeds('😀', 3), 'a surrogate pair is 4 bytes')
  t.notOk(stringExceeds('😀', 4))
  // between max/3 and max units: counted
  const text = 'a'.repeat(50) + '€'.repeat(10) // 60 units, 80 bytes
  t.notOk(stringExceeds(text, 80))
  t.ok(stringExceeds(text, 79))
  t.notOk(stringExceeds(text, 180), 'three bytes a unit fit: not counted, and not over')
})

t.test('cloneExceeds: strings and bytes exactly, other values never', async (t) => {
  t.ok(cloneExceeds('x'.repeat(11), 10))
  t.notOk(cloneExceeds('x'.repeat(10), 10))
  t.ok(cloneExceeds(Buffer.alloc(11), 10), 'a Buffer')
  t.notOk(cloneExceeds(Buffer.alloc(10), 10))
  t.ok(cloneExceeds(new Uint16Array(6), 10), 'a typed array by bytes (12), not elements (6)')
  t.ok(cloneExceeds(new DataView(new ArrayBuffer(11)), 10), 'a DataView')
  t.ok(cloneExceeds(new ArrayBuffer(11), 10), 'an ArrayBuffer')
  t.notOk(cloneExceeds(new ArrayBuffer(10), 10))
  t.notOk(cloneExceeds({ text: 'x'.repeat(1000) }, 10), 'an object is not measured (that would clone it twice)')
  t.notOk(cloneExceeds(['x'.repeat(1000)], 10))
  t.notOk(cloneExceeds(12345678901, 1))
  t.notOk(cloneExceeds(undefined, 0))
})
