// One timer for every deadline of a channel (deadlines.js): armed for the earliest, a later
// deadline leaves it alone; when it fires, the owner expires what is due and says what is next.
import t from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import { DeadlineTimer } from '../lib/deadlines.js'

/** Waits for `check` (a re-armed timer may run late on a busy machine: no assert on how late). */
const until = async (/** @type {() => boolean} */ check) => {
  for (let i = 0; i < 400 && !check(); i++) await sleep(5)
}

t.test('armed for the earliest deadline; a later one does not move it', async (t) => {
  /** @type {number[]} */
  const fired = []
  const timer = new DeadlineTimer((now) => { fired.push(now); return Infinity })
  t.teardown(() => timer.stop())
  const soon = performance.now() + 10_000
  timer.arm(soon)
  const armed = timer.timer
  t.ok(armed, 'a timer runs')
  t.equal(timer.at, soon)
  timer.arm(soon + 10_000)
  t.equal(timer.timer, armed, 'a later deadline keeps the timer')
  t.equal(timer.at, soon)
  timer.arm(Infinity)
  t.equal(timer.at, soon, 'Infinity is no deadline')
  const sooner = performance.now() + 5
  timer.arm(sooner)
  t.not(timer.timer, armed, 'an earlier deadline replaces it')
  t.equal(timer.at, sooner)
  await sleep(40)
  t.equal(fired.length, 1, 'fired once, for the earliest')
  t.ok(fired[0] >= sooner - 1, 'not before its deadline')
  t.equal(timer.timer, null, 'and nothing armed after onDue said Infinity')
  t.equal(timer.at, Infinity)
})

t.test('after firing it arms for the deadline onDue returns', async (t) => {
  const deadlines = [performance.now() + 5, performance.now() + 15]
  let calls = 0
  const timer = new DeadlineTimer(() => {
    calls++
    deadlines.shift()
    return deadlines[0] ?? Infinity
  })
  t.teardown(() => timer.stop())
  timer.arm(deadlines[0])
  await until(() => calls === 2)
  await sleep(20)
  t.equal(calls, 2, 'once per deadline, and no more')
  t.equal(timer.timer, null)
})

t.test('stop() cancels it; a deadline already past fires on the next turn', async (t) => {
  let calls = 0
  const timer = new DeadlineTimer(() => { calls++; return Infinity })
  timer.arm(performance.now() + 5)
  timer.stop()
  t.equal(timer.timer, null)
  t.equal(timer.at, Infinity)
  await sleep(20)
  t.equal(calls, 0, 'stopped: never fired')
  timer.arm(performance.now() - 100)
  t.ok(timer.timer, 'a past deadline still arms (at 0 ms)')
  await until(() => calls === 1)
  t.equal(calls, 1)
  timer.stop()
  timer.stop()
  t.equal(timer.timer, null, 'stopping twice is fine')
})
