// The frame format every channel kind shares (batch.js): four slots per frame, ids positive
// 31-bit integers, and the error codes a callee may name in an ERR frame.
import t from 'tap'
import { CALL, CANCEL, ERR, FAIL, isBatch, isId, OK, REMOTE_CODES, STRIDE } from '../lib/batch.js'
import { CODES } from '../lib/errors.js'

t.test('ops are five distinct numbers, four slots a frame', async (t) => {
  t.equal(STRIDE, 4)
  t.equal(new Set([CALL, CANCEL, OK, ERR, FAIL]).size, 5)
  for (const op of [CALL, CANCEL, OK, ERR, FAIL]) t.ok(Number.isInteger(op) && op > 0, `op ${op}`)
})

t.test('a batch is a non-empty array of whole frames', async (t) => {
  t.ok(isBatch([CALL, 1, 'echo', 'x']))
  t.ok(isBatch([CALL, 1, 'a', 0, CANCEL, 1, 0, 0]))
  t.notOk(isBatch([]), 'empty')
  t.notOk(isBatch([CALL, 1, 'echo']), 'a frame cut short')
  t.notOk(isBatch([CALL, 1, 'a', 0, CANCEL]), 'a whole frame and a piece')
  t.notOk(isBatch('1,1,a,0'), 'a string')
  t.notOk(isBatch({ length: 4 }), 'array-like is not an array')
  t.notOk(isBatch(null))
  t.notOk(isBatch(undefined))
})

t.test('an id is an integer from 1 to 2^31 - 1', async (t) => {
  for (const id of [1, 2, 1000, 0x7fffffff]) t.ok(isId(id), `${id}`)
  for (const id of [0, -1, 0x80000000, 1.5, NaN, Infinity, '1', null, undefined, 1n]) {
    t.notOk(isId(id), `${typeof id} ${String(id)}`)
  }
})

t.test('a callee may name only its own error codes in ERR; the rest read as REMOTE', async (t) => {
  t.same([...REMOTE_CODES].sort(), [CODES.BAD_PAYLOAD, CODES.REMOTE, CODES.TOO_LARGE, CODES.UNKNOWN_HANDLER].sort())
  for (const code of [CODES.CLOSED, CODES.TIMEOUT, CODES.ABORTED, CODES.PROTOCOL, CODES.UNREACHABLE]) {
    t.notOk(REMOTE_CODES.has(code), `${code} is the caller's to decide`)
  }
})
