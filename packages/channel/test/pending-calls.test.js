// A client's pending calls (pending-calls.js): ids in order, one deadline timer that fires
// onTimeout for each call due, a settle that happens once and unhooks the abort listener.
import t from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import { PendingCalls } from '../lib/pending-calls.js'

const noop = () => {}

t.test('calls get ids 1, 2, 3…, and are found by id until settled', async (t) => {
  const calls = new PendingCalls(noop)
  t.teardown(() => calls.stop())
  const a = calls.add('echo', 'x', 60_000, undefined, noop, noop)
  const b = calls.add('echo', 'y', 60_000, undefined, noop, noop)
  t.same([a.id, b.id], [1, 2])
  t.match(a, { name: 'echo', payload: 'x', timeoutMs: 60_000, sent: false, signal: undefined, onAbort: undefined })
  t.ok(a.deadline > performance.now() + 59_000, 'the deadline is now + timeoutMs')
  t.equal(calls.size, 2)
  t.equal(calls.get(2), b)
  t.ok(calls.has(1))
  t.equal(calls.settle(a), a, 'settled: returned')
  t.equal(calls.settle(a), null, 'settled twice: null the second time')
  t.notOk(calls.has(1))
  t.equal(calls.get(1), undefined)
  t.equal(calls.size, 1)
  t.equal(calls.add('n', 0, 60_000, undefined, noop, noop).id, 3, 'ids are not reused')
})

t.test('list() is a copy: settling while iterating is safe', async (t) => {
  const calls = new PendingCalls(noop)
  t.teardown(() => calls.stop())
  for (let i = 0; i < 5; i++) calls.add('c', i, 60_000, undefined, noop, noop)
  const listed = calls.list()
  for (const entry of listed) calls.settle(entry)
  t.equal(listed.length, 5)
  t.equal(calls.size, 0)
})

t.test('a call past its deadline goes to onTimeout; the others wait', async (t) => {
  /** @type {string[]} */
  const timedOut = []
  const calls = new PendingCalls((entry) => { timedOut.push(entry.name); calls.settle(entry) })
  t.teardown(() => calls.stop())
  calls.add('quick', 0, 10, undefined, noop, noop)
  calls.add('slow', 0, 60_000, undefined, noop, noop)
  calls.add('next', 0, 30, undefined, noop, noop)
  for (let i = 0; i < 400 && timedOut.length < 2; i++) await sleep(5) // re-armed timers may run late: no assert on when
  t.same(timedOut, ['quick', 'next'], 'each at its own deadline, the timer re-armed between')
  t.same(calls.list().map((e) => e.name), ['slow'])
})

t.test('the last call settled stops the timer: nothing fires for a settled call', async (t) => {
  let timedOut = 0
  const calls = new PendingCalls(() => { timedOut++ })
  const entry = calls.add('c', 0, 10, undefined, noop, noop)
  calls.settle(entry)
  await sleep(30)
  t.equal(timedOut, 0)
})

t.test('settle() removes the abort listener the client hooked', async (t) => {
  const calls = new PendingCalls(noop)
  t.teardown(() => calls.stop())
  const controller = new AbortController()
  let aborted = 0
  const entry = calls.add('c', 0, 60_000, controller.signal, noop, noop)
  entry.onAbort = () => { aborted++ }
  controller.signal.addEventListener('abort', entry.onAbort)
  calls.settle(entry)
  controller.abort()
  t.equal(aborted, 0, 'a settled call hears no abort')
})
