// Why the 2 GB streaming answers were cut: Watt's health check replaces a worker
// whose event-loop utilisation stays above `maxELU` (0.99) for `maxUnhealthyChecks`
// checks in a row, and the data-api sits at 100% ELU for as long as it parses
// (minutes at 2 GB). Watt then stops the old worker, waits 10 s for its answers
// (gracefulShutdown.application) and kills it: an answer longer than that (any
// 2 GB one) was cut mid-stream ("other side closed"); short ones finish, so the
// worker change is what this test watches.
// With the health timings shrunk from minutes to seconds: under Watt's default
// maxELU the same load gets the worker replaced (the control: this load does
// trip the check), and under the data runtime's setting it is not, and every
// answer arrives whole.
import t from 'tap'
import { createHash } from 'node:crypto'
import { request } from 'undici'
import { ensureDataset } from '../../bench/data/dataset/cache.js'
import { startDataRuntime } from '../../bench/data/runtime.js'
import { until } from '../helpers/wait.js'

// one check a second, from a second after start; two failed checks in a row replace the worker
const FAST_HEALTH = { DATA_API_HEALTH_INTERVAL_MS: '1000', DATA_API_HEALTH_GRACE_MS: '1000', DATA_API_MAX_UNHEALTHY_CHECKS: '2' }
const ZIPCODE = '10000'

const large = await ensureDataset({ dataset: 'large', targetBytes: 16e6, seed: 5, cacheDir: t.testdir() })
const expected = large.manifest.ids[ZIPCODE]

/**
 * Two clients asking back to back for stream-json answers (the slowest parser:
 * the worker never idles) until `stop()` says so. Counts whole, correct
 * answers and lists anything else.
 * @param {import('../../bench/data/runtime.js').DataRuntime} runtime
 */
function keepParsing (runtime) {
  const state = { running: true }
  const outcome = { whole: 0, problems: /** @type {string[]} */ ([]) }
  const client = async () => {
    while (state.running) {
      try {
        const { statusCode, body } = await request(`${runtime.apiUrl}/data/large/stream/${ZIPCODE}?via=tcp`, { headersTimeout: 120_000, bodyTimeout: 120_000 })
        const text = await body.text()
        const sha256 = createHash('sha256').update(text).digest('hex')
        if (statusCode === 200 && text.length === expected.bytes && sha256 === expected.sha256) outcome.whole++
        else outcome.problems.push(`answer ${statusCode}, ${text.length} bytes, ${sha256 === expected.sha256 ? 'right' : 'wrong'} content`)
      } catch (err) {
        outcome.problems.push(/** @type {Error} */ (err).message)
      }
    }
  }
  const clients = Promise.all([client(), client()])
  return { outcome, stop: async () => { state.running = false; await clients; return outcome } }
}

/** The data-api worker's thread id, or null while it does not answer (being replaced). */
async function workerThread (runtime) {
  try {
    const { statusCode, body } = await request(`${runtime.apiUrl}/stats`, { headersTimeout: 5000, bodyTimeout: 5000 })
    const stats = await body.json()
    return statusCode === 200 ? /** @type {any} */ (stats).threadId : null
  } catch {
    return null
  }
}

// measured by the control, then used to size the real test's run to this box's speed
let replacedAfterMs = 0

t.test('control: under Watt\'s default maxELU, a worker kept parsing is replaced', async (t) => {
  const runtime = await startDataRuntime({ files: { large: large.file }, env: { ...FAST_HEALTH, DATA_API_MAX_ELU: '0.99' } })
  t.teardown(() => runtime.stop())
  const before = await workerThread(runtime)
  t.type(before, 'number', 'the data-api reports its thread')
  const started = Date.now()
  const load = keepParsing(runtime)
  try {
    await until(async () => { const now = await workerThread(runtime); return now !== null && now !== before }, { timeoutMs: 120_000, intervalMs: 250, what: 'the health check to replace the busy data-api worker' })
  } finally {
    replacedAfterMs = Date.now() - started
    await load.stop()
  }
  t.pass(`replaced ${(replacedAfterMs / 1000).toFixed(1)} s into the load`)
})

t.test('the data runtime\'s health settings let a worker parse as long as it must', async (t) => {
  const runtime = await startDataRuntime({ files: { large: large.file }, env: FAST_HEALTH })
  t.teardown(() => runtime.stop())
  const before = await workerThread(runtime)
  t.type(before, 'number', 'the data-api reports its thread')
  // Twice as long as the control needed to get the worker replaced (8 to 30 s; the health
  // window is ~3 s): the health check has run many times meanwhile.
  const spanMs = Math.min(30_000, Math.max(8_000, 2 * replacedAfterMs))
  const load = keepParsing(runtime)
  const deadline = Date.now() + spanMs
  await until(() => Date.now() >= deadline || load.outcome.problems.length > 0, { timeoutMs: spanMs + 60_000, intervalMs: 250, what: 'the load span' })
  const { whole, problems } = await load.stop()
  t.same(problems, [], 'no answer cut, failed or wrong')
  t.ok(whole >= 2, `answers kept arriving whole (${whole} in ${spanMs / 1000} s)`)
  t.equal(await workerThread(runtime), before, 'the same data-api worker answered throughout')
})
