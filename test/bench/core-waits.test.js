import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { schedstatDelta, schedstatByApplication } from '../../bench/lib/core-waits.js'
import { coreWaitPerCall } from '../../bench/transports/cost.js'

/** A fake /proc with one process whose threads have these names, run-queue waits (ns) and times on a core. */
function fakeProc (t, threads) {
  const proc = t.testdir()
  threads.forEach(([name, waitNs, slices = 789], i) => {
    const dir = join(proc, '42', 'task', String(100 + i))
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'comm'), `${name}\n`)
    writeFileSync(join(dir, 'schedstat'), `123456 ${waitNs} ${slices}\n`)
  })
  return proc
}

t.test('waits and times on a core are summed per application over its worker threads; other threads are left out', async (t) => {
  const proc = fakeProc(t, [['node', 9e9, 1], ['tsfastify:0', 1.5e9, 40], ['node3:0', 2e8, 7], ['node3:1', 3e8, 5], ['V8Worker', 7e9, 1], ['libuv-worker', 5e9, 1]])
  t.same(schedstatByApplication(42, proc), { waits: { tsfastify: 1.5, node3: 0.5 }, slices: { tsfastify: 40, node3: 12 } })
})

t.test('null where nothing can be read: no such process, or no Watt worker thread', async (t) => {
  t.equal(schedstatByApplication(43, fakeProc(t, [['tsfastify:0', 1]])), null, 'no such process')
  t.equal(schedstatByApplication(42, fakeProc(t, [['node', 1], ['V8Worker', 2]])), null, 'a process that is not a Watt runtime')
})

t.test('the delta is what was waited between the readings, never below 0; null unless both were read', async (t) => {
  t.same(schedstatDelta({ tsfastify: 1, node3: 2 }, { tsfastify: 1.25, node3: 1.5, type1: 0.5 }), { tsfastify: 0.25, node3: 0, type1: 0.5 })
  t.equal(schedstatDelta(null, { tsfastify: 1 }), null)
  t.equal(schedstatDelta({ tsfastify: 1 }, null), null)
})

t.test('per call: the entry apart from the services, and the entry\'s share of the measured time', async (t) => {
  const load = { durationS: 10, status: { '2xx': 1000, non2xx: 0, byCode: {} } }
  const wait = coreWaitPerCall({ tsfastify: 2, node3: 0.2, type1: 0.2 }, /** @type {any} */ (load), 4)
  t.equal(wait.entryPercent, 20)
  t.equal(wait.microsPerCall.entry, 500)
  t.equal(Math.round(wait.microsPerCall.services), 100)
  t.equal(coreWaitPerCall({ tsfastify: 1 }, /** @type {any} */ ({ durationS: 10, status: { '2xx': 0 } }), 4).microsPerCall.entry, null, 'no call, no figure per call')
  t.notOk('slicesPerCall' in wait, 'no times on a core given: none per call')
  const woken = coreWaitPerCall({ tsfastify: 2 }, /** @type {any} */ (load), 4, { tsfastify: 400, node3: 1000, type1: 600 })
  t.same(woken.slicesPerCall, { entry: 0.1, services: 0.4 }, 'times on a core per downstream call, entry apart')
})
