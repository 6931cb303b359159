// No leak after 10,000 http-port requests with aborts: heap after a full GC in
// both threads, and the caller's active handles, against a baseline taken in
// this same test after a warm-up.
import t from 'tap'
import { createHttpPortDispatcher, openConnections } from '../../http.js'
import { fullGc } from '../helpers/http-server-worker.js'
import { startServerWorker } from '../helpers/start-server-worker.js'

const CALLS = 10_000
const LANES = 10

t.test('10,000 requests, one in ten aborted mid-flight: heap and handles back to the baseline', async (t) => {
  const { worker, messaging } = await startServerWorker()
  const dispatcher = createHttpPortDispatcher('server', { messaging, connections: LANES })
  t.teardown(async () => { await dispatcher.destroy(); await worker.terminate() })

  const workerHeap = async () => {
    const answer = await dispatcher.request({ method: 'GET', path: '/heap' })
    return JSON.parse(Buffer.from(await answer.body.arrayBuffer()).toString())
  }
  const callerHeap = () => { fullGc(); return process.memoryUsage().heapUsed }
  const handles = () => process.getActiveResourcesInfo().filter((kind) => kind !== 'TTYWrap').length

  let aborted = 0
  let answered = 0
  async function run (calls) {
    let next = 0
    const lane = async () => {
      while (next < calls) {
        const i = next++
        const controller = new AbortController()
        // every 10th call is aborted at a varying point: before the write, in flight, or never reached
        if (i % 10 === 0) (i % 20 === 0 ? queueMicrotask : setImmediate)(() => controller.abort())
        try {
          const answer = await dispatcher.request({ method: 'GET', path: `/bytes?size=${i % 3 === 0 ? 40_000 : 100}`, signal: controller.signal })
          await answer.body.arrayBuffer()
          answered++
        } catch (err) {
          if (err.name !== 'AbortError') throw err
          aborted++
        }
      }
    }
    await Promise.all(Array.from({ length: LANES }, lane))
  }

  await run(1000) // warm-up: connections, JIT, pools
  const baseline = { caller: callerHeap(), worker: (await workerHeap()).heapUsed, handles: handles() }
  aborted = answered = 0
  await run(CALLS)
  t.ok(aborted > 0 && answered > 0 && aborted + answered === CALLS, `${answered} answered, ${aborted} aborted`)

  // Aborted connections close asynchronously: wait for the handles to settle, generously.
  const deadline = Date.now() + 30_000
  while (handles() > baseline.handles && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
  t.ok(handles() <= baseline.handles, `active handles ${handles()} vs ${baseline.handles} at the baseline`)
  // Every connection an abort closed is gone on both sides; at most one per lane stays open.
  t.ok(openConnections() <= LANES, `${openConnections()} connections open in the caller`)
  const { heapUsed, connections } = await workerHeap()
  t.ok(connections <= LANES, `${connections} connections open in the callee`)
  const after = { caller: callerHeap(), worker: heapUsed }
  const MiB = 1024 * 1024
  // A leak of one small object per call (10,000 calls) would be megabytes; a few MiB is allocator noise.
  t.ok(after.caller - baseline.caller < 4 * MiB, `caller heap ${(baseline.caller / MiB).toFixed(1)} → ${(after.caller / MiB).toFixed(1)} MiB`)
  t.ok(after.worker - baseline.worker < 4 * MiB, `callee heap ${(baseline.worker / MiB).toFixed(1)} → ${(after.worker / MiB).toFixed(1)} MiB`)
})
