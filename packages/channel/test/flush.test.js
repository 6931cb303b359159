// When a channel end's frames leave (flush.js): the flush option's one vocabulary, and the
// outbox that gathers a callback's (or a turn's) frames into one send, held while corked.
import t from 'tap'
import { setImmediate as turn } from 'node:timers/promises'
import { flushOption, Outbox, scheduler } from '../lib/flush.js'

t.test('flushOption: callback or turn, anything else a coded error', async (t) => {
  t.equal(flushOption('callback'), 'callback')
  t.equal(flushOption('turn'), 'turn')
  for (const bad of ['microtask', 'immediate', undefined, null, 1, '']) {
    t.throws(() => flushOption(bad), {
      name: 'InvalidOptionError',
      code: 'WATT_CHANNEL_INVALID_OPTION',
      message: `flush must be 'callback' or 'turn', not ${JSON.stringify(bad)}`
    })
  }
  t.equal(scheduler('turn'), setImmediate)
  t.equal(scheduler('callback'), queueMicrotask)
})

t.test("'callback': one send at the end of the current callback, with every frame pushed in it", async (t) => {
  /** @type {unknown[][]} */
  const sent = []
  const outbox = new Outbox((frames) => sent.push(frames), 'callback')
  outbox.push(1, 1, 'a', 0)
  outbox.push(1, 2, 'b', 0)
  t.same(sent, [], 'nothing sent synchronously')
  await null
  t.same(sent, [[1, 1, 'a', 0, 1, 2, 'b', 0]], 'both frames in one send')
  outbox.push(2, 1, 0, 0)
  await null
  t.same(sent.at(-1), [2, 1, 0, 0], 'a later callback, a new send')
  t.equal(sent.length, 2)
})

t.test("'turn': microtasks of the same turn share the send", async (t) => {
  /** @type {unknown[][]} */
  const sent = []
  const outbox = new Outbox((frames) => sent.push(frames), 'turn')
  outbox.push(1, 1, 'a', 0)
  await null
  outbox.push(1, 2, 'b', 0)
  await null
  t.same(sent, [], 'still this turn')
  await turn()
  t.same(sent, [[1, 1, 'a', 0, 1, 2, 'b', 0]])
})

t.test('corked, nothing leaves; uncorked, what waits is scheduled once', async (t) => {
  /** @type {unknown[][]} */
  const sent = []
  const outbox = new Outbox((frames) => sent.push(frames), 'callback')
  outbox.cork()
  outbox.push(3, 1, 'x', 0)
  await null
  await null
  t.same(sent, [], 'held while corked')
  outbox.push(3, 2, 'y', 0)
  outbox.uncork()
  outbox.uncork()
  await null
  t.same(sent, [[3, 1, 'x', 0, 3, 2, 'y', 0]], 'one send for both, not two')
  outbox.cork()
  outbox.uncork()
  await null
  t.equal(sent.length, 1, 'uncorking an empty outbox sends nothing')
})

t.test('clear() drops what waits; an empty flush sends nothing', async (t) => {
  /** @type {unknown[][]} */
  const sent = []
  const outbox = new Outbox((frames) => sent.push(frames), 'callback')
  outbox.push(1, 1, 'a', 0)
  outbox.clear()
  await null
  t.same(sent, [], 'the scheduled flush finds nothing')
  outbox.push(1, 2, 'b', 0)
  await null
  t.same(sent, [[1, 2, 'b', 0]], 'and the next push schedules again')
})
