import t from 'tap'
import { checkHelloBody, checkHelloObject, corruptBody, corruptHello, helloBody, helloObject, MAX_SIZE, parseHelloRequest } from '../../lib/contract.js'

t.test('helloBody is the JSON of helloObject, exactly size pad bytes', async (t) => {
  for (const size of [0, 1, 37, 31 * 1024, 33 * 1024]) {
    const body = helloBody('node3', size)
    const parsed = JSON.parse(body.toString())
    t.equal(parsed.service, 'node3')
    t.equal(parsed.size, size)
    t.equal(parsed.pad.length, size)
    t.same(parsed, helloObject('node3', size))
  }
})

t.test('checkHelloBody accepts the contract and names what is wrong otherwise', async (t) => {
  const body = helloBody('type1', 100)
  t.equal(checkHelloBody('type1', 100, 200, body), null)
  t.match(checkHelloBody('type1', 100, 500, body), /status 500/)
  t.match(checkHelloBody('type1', 101, 200, body), /bytes, expected/)
  t.match(checkHelloBody('type4', 100, 200, body), /does not match/, 'another service\'s body is rejected')
  t.match(checkHelloBody('type1', 100, 200, corruptBody('type1', 100)), /does not match/, 'one flipped byte is caught')
  t.equal(corruptBody('type1', 100).length, body.length, 'corruption keeps the length')
  t.match(checkHelloBody('type1', 0, 200, corruptBody('type1', 0)), /does not match/)
})

t.test('one definition of corrupt: the HTTP bytes are the message answer serialised, one byte off', async (t) => {
  for (const size of [0, 1, 64, 33 * 1024]) {
    const right = helloBody('node3', size)
    const wrong = corruptBody('node3', size)
    t.same(JSON.parse(wrong.toString()), corruptHello('node3', size), `${size} B: same answer on both kinds of transport`)
    t.equal(wrong.length, right.length, `${size} B: same length`)
    t.equal([...right].filter((byte, i) => byte !== wrong[i]).length, 1, `${size} B: exactly one byte differs`)
    t.ok(checkHelloObject('node3', size, corruptHello('node3', size)), `${size} B: a message check catches it too`)
  }
})

t.test('checkHelloObject verifies rpc answers field by field', async (t) => {
  t.equal(checkHelloObject('node3', 10, helloObject('node3', 10)), null)
  t.match(checkHelloObject('node3', 10, null), /not an object/)
  t.match(checkHelloObject('node3', 10, helloObject('type1', 10)), /answered as "type1"/)
  t.match(checkHelloObject('node3', 10, helloObject('node3', 9)), /size 9/)
  t.match(checkHelloObject('node3', 3, { service: 'node3', size: 3, pad: 'abd' }), /pad/)
})

t.test('parseHelloRequest bounds every parameter', async (t) => {
  t.same(parseHelloRequest({}), { size: 64, fault: { delay: 0, corrupt: false } })
  t.same(parseHelloRequest({ size: '10', delay: '5', corrupt: '1' }), { size: 10, fault: { delay: 5, corrupt: true } })
  t.equal(parseHelloRequest({ size: MAX_SIZE }).size, MAX_SIZE)
  for (const bad of [{ size: '-1' }, { size: 'abc' }, { size: '1.5' }, { size: MAX_SIZE + 1 }, { delay: '999999' }]) {
    t.throws(() => parseHelloRequest(bad), RangeError, JSON.stringify(bad))
  }
})
