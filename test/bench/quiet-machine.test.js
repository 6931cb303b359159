// The wait for a quiet machine before a suite's first run: /proc/stat read right,
// and the wait ends on quiet readings in a row, or at its limit, never hangs.
import t from 'tap'
import os from 'node:os'
import { busyCores, cpuTimes, waitForQuietMachine } from '../../bench/lib/quiet-machine.js'

t.test('/proc/stat: busy is everything but idle and iowait', async (t) => {
  const times = cpuTimes('cpu  100 5 50 800 40 3 2 0 0 0\ncpu0 50 2 25 400 20 1 1 0 0 0\n')
  t.same(times, { busy: 160, total: 1000 })
  t.equal(cpuTimes('nothing here'), null)
  t.equal(busyCores({ busy: 0, total: 0 }, { busy: 50, total: 100 }, 2), 1, 'half of all jiffies busy on two cores: one core')
  if (process.platform === 'linux') t.ok(cpuTimes()?.total > 0, 'this machine\'s /proc/stat reads')
})

/** Readings that advance by `busyShares` in turn (share of all CPU time busy per window). */
function fakeReadings (busyShares) {
  let i = 0
  let now = { busy: 0, total: 0 }
  return () => {
    const share = busyShares[Math.min(i++, busyShares.length - 1)]
    now = { busy: now.busy + share * 1000, total: now.total + 1000 }
    return now
  }
}

t.test('quiet once three windows in a row are under the threshold; a busy one starts the count again', async (t) => {
  const cores = os.availableParallelism()
  const busy = 0.9 / cores // 0.9 cores
  const calm = 0.1 / cores
  const seen = []
  // first value is the starting reading; then: busy, calm, calm, busy, calm, calm, calm
  const result = await waitForQuietMachine({ timeoutMs: 60_000, windowMs: 1, read: fakeReadings([0, busy, calm, calm, busy, calm, calm, calm]), onWindow: (b) => seen.push(Number(b.toFixed(2))) })
  t.equal(result.quiet, true)
  t.same(seen, [0.9, 0.1, 0.1, 0.9, 0.1, 0.1, 0.1], 'seven windows: the busy fourth one reset the count')
})

t.test('a machine that stays busy ends the wait at its limit, quiet: false', async (t) => {
  const result = await waitForQuietMachine({ timeoutMs: 50, windowMs: 10, read: fakeReadings([0.9]) })
  t.equal(result.quiet, false)
  t.ok(result.waitedMs >= 50 && result.waitedMs < 5000, `gave up after ${result.waitedMs} ms`)
  t.ok(result.busyCores > 0.3)
})

t.test('no /proc/stat: no wait, and the reason', async (t) => {
  const result = await waitForQuietMachine({ timeoutMs: 60_000, read: () => null })
  t.match(result, { quiet: null, waitedMs: 0, reason: /proc\/stat/ })
})
