// @ts-check
// Watt's scaler acting under load (dynamic workers), over Watt's mesh (ipc) and over the
// drop-in (mesh-port): the mesh-port test fixture's node:http front calls `two`, whose
// workers the scaler takes from 1 to 3 and back to 1 (test/mesh-port/fixture/
// watt.mesh-port.dynamic.json; over the mesh the same config without its undici block).
// Callers go on all along, every answer checked (200 and two's /whoami JSON); what failed
// is recorded by status code on each path.
//
// The fixture rather than the lab's five apps: the scaler acts on event-loop use, and a
// lab service's ELU under a fan-out load (0.00-0.20, the entry is the bottleneck) depends
// on the transport and the machine; /block drives two's ELU to ~1 on any machine and
// /whoami leaves it near 0. The scaler's clock and why the front's threshold is 0.05:
// test/mesh-port/dynamic-workers.test.js.
//
// Pass: the scaler acted (two went up to 3 workers and back to 1), every 200 carried the
// right body, and no call hung past its deadline; over the drop-in also no call failed at
// all, every added worker got calls over http-port, none went to the mesh, and its links
// at the end are to the worker left alone. Over Watt's mesh failed calls are recorded,
// not judged: they are Watt's.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { request } from 'undici'
import { parsePrometheus } from '../../lib/metrics.js'
import { PROJECT_ROOT } from '../../lib/paths.js'
import { freePorts } from '../../lib/ports.js'
import { startRuntime } from '../../lib/runtime.js'
import { isAlive } from '../health.js'

const FIXTURE = join(PROJECT_ROOT, 'test', 'mesh-port', 'fixture')
export const SCALER_CONFIG = 'watt.mesh-port.dynamic.json'
const TARGET = 'two'
/** The paths compared: Watt's mesh (the lab's ipc) and the drop-in (mesh-port). */
export const SCALER_PATHS = /** @type {const} */ (['mesh', 'drop-in'])
/** @typedef {typeof SCALER_PATHS[number]} ScalerPath */

/**
 * @typedef {object} ScalerOptions
 * @property {ScalerPath} path
 * @property {number} [callers]     closed-loop callers through the front
 * @property {number} [blockMs]     each busy call blocks a worker of two so long
 * @property {number} [phaseLimitMs] each phase (up, down) must end within this
 * @property {number} [timeoutMs]   each call's deadline in the front
 * @property {(elapsedS: number) => void} [onTick]
 */

/**
 * The config this path runs: the fixture's dynamic one with only the front and two, and
 * over the mesh without the drop-in's undici block.
 * @param {ScalerPath} path
 */
function configFor (path) {
  const config = JSON.parse(readFileSync(join(FIXTURE, SCALER_CONFIG), 'utf8'))
  const web = join(FIXTURE, 'web')
  config.autoload = { ...config.autoload, path: web, exclude: readdirSync(web).filter((app) => app !== 'front' && app !== TARGET) }
  if (path === 'mesh') delete config.undici
  // under the project, so the drop-in's module resolves from its node_modules
  const dir = join(PROJECT_ROOT, '.cache', 'reliability-scaler')
  mkdirSync(dir, { recursive: true })
  const file = join(dir, `${process.pid}-${path}.json`)
  writeFileSync(file, JSON.stringify(config, null, 2))
  return { file, maximum: Number(config.autoload.mappings[TARGET].workers.maximum), minimum: Number(config.autoload.mappings[TARGET].workers.minimum) }
}

/**
 * @param {ScalerOptions} options
 */
export async function scalerUnderLoad ({ path, callers = 8, blockMs = 20, phaseLimitMs = 60_000, timeoutMs = 15_000, onTick }) {
  const { file, maximum, minimum } = configFor(path)
  const [port, metrics, plain] = await freePorts(3)
  const runtime = await startRuntime({ env: { PORT: String(port), PLT_METRICS_PORT: String(metrics), PLAIN_PORT: String(plain), PLT_LOG_LEVEL: 'info' }, reuse: false, configFile: file, readyPaths: ['/ready'] })
  try {
    return await measure(runtime, { path, callers, blockMs, phaseLimitMs, timeoutMs, maximum, minimum, onTick })
  } finally {
    await runtime.stop()
    rmSync(file, { force: true })
  }
}

/**
 * @param {import('../../lib/runtime.js').Runtime} runtime
 * @param {Required<Omit<ScalerOptions, 'onTick'>> & { maximum: number, minimum: number, onTick?: (s: number) => void }} options
 */
async function measure (runtime, { path, callers, blockMs, phaseLimitMs, timeoutMs, maximum, minimum, onTick }) {
  /** @type {{ name: string, ok: boolean, detail?: string }[]} */
  const checks = []
  const check = (/** @type {string} */ name, /** @type {boolean} */ ok, /** @type {string} */ detail = '') => { checks.push({ name, ok, detail }) }
  const json = async (/** @type {string} */ route) => /** @type {any} */ (await (await request(`${runtime.url}${route}`)).body.json())
  /** two's started workers, as the runtime lists them: index → thread */
  const started = async () => new Map(Object.values(/** @type {Record<string, any>} */ (await json('/workers')))
    .filter((w) => w.application === TARGET && w.status === 'started').map((w) => [Number(w.worker), Number(w.thread)]))
  const counters = async () => parsePrometheus(await (await request(`${runtime.metricsUrl}/metrics`)).body.text()).meshPort[TARGET] ?? { mesh: 0, httpPort: {}, retried: {} }
  const origin = `http://${TARGET}.plt.local`
  const call = async (/** @type {string} */ route) => {
    const query = new URLSearchParams({ to: origin, path: route, timeout: String(timeoutMs) })
    const sent = performance.now()
    try {
      const answer = await request(`${runtime.url}/proxy?${query}`, { headersTimeout: timeoutMs + 5000, bodyTimeout: timeoutMs + 5000 })
      return { status: answer.statusCode, text: await answer.body.text(), ms: performance.now() - sent }
    } catch (err) {
      return { status: 0, text: String(/** @type {Error} */ (err).message), ms: performance.now() - sent }
    }
  }

  const first = await call('/whoami')
  if (first.status !== 200) throw new Error(`${TARGET} did not answer before the load: ${first.status} ${first.text.slice(0, 200)}`)
  const before = await counters()
  const startedAt = performance.now()
  const since = () => Math.round(performance.now() - startedAt)
  const ticker = setInterval(() => onTick?.(since() / 1000), 1000)

  // the load: busy (/block) until two is at its maximum, then idle (/whoami) until it is back at its minimum
  const state = { busy: true, stopped: false }
  let calls = 0
  /** @type {Record<string, number>} */
  const failedByCode = {}
  /** @type {string[]} */
  const samples = []
  let slowestFailureMs = 0
  /** @type {Map<number, number>} thread → answers */
  const answeredBy = new Map()
  const loop = async () => {
    while (!state.stopped) {
      const answer = await call(state.busy ? `/block?ms=${blockMs}` : '/whoami')
      calls++
      /** @type {any} */
      let body = null
      try { body = JSON.parse(answer.text) } catch {}
      if (answer.status === 200 && body?.app === TARGET && typeof body.thread === 'number') {
        answeredBy.set(body.thread, (answeredBy.get(body.thread) ?? 0) + 1)
        continue
      }
      const code = answer.status === 200 ? '200 (wrong body)' : String(answer.status || 'no answer')
      failedByCode[code] = (failedByCode[code] ?? 0) + 1
      slowestFailureMs = Math.max(slowestFailureMs, answer.ms)
      if (samples.length < 5) samples.push(`${code} after ${Math.round(answer.ms)} ms: ${answer.text.slice(0, 200)}`)
    }
  }
  const load = Promise.all(Array.from({ length: callers }, loop))

  /** @type {Map<number, number>} every worker of two seen started: index → thread */
  const seen = await started()
  const untilWorkers = async (/** @type {number} */ count) => {
    const deadline = performance.now() + phaseLimitMs
    while (performance.now() < deadline) {
      const now = await started()
      for (const [index, thread] of now) seen.set(index, thread)
      if (now.size === count) return since()
      await sleep(200)
    }
    return null
  }
  const upAtMs = await untilWorkers(maximum)
  // the added workers take calls for a moment under the busy load, then it goes idle
  if (upAtMs !== null) await sleep(1000)
  const upCounters = await counters()
  state.busy = false
  const downAtMs = upAtMs === null ? null : await untilWorkers(minimum)
  await sleep(1000) // calls on the worker left
  state.stopped = true
  await load
  clearInterval(ticker)
  const after = await counters()
  const left = await started()
  const stats = path === 'drop-in' ? (await json('/stats'))[TARGET] : null

  const added = [...seen].filter(([index]) => index !== 0)
  const removed = [...seen].filter(([index]) => !left.has(index))
  const failed = Object.values(failedByCode).reduce((a, b) => a + b, 0)
  const output = runtime.output()
  const scaled = (/** @type {string} */ direction) => [...output.matchAll(new RegExp(`Scaling ${direction} the \\\\"${TARGET}\\\\" app to (\\d+) workers`, 'g'))].map((m) => Number(m[1]))

  check('runtime process alive', runtime.pid !== null && isAlive(runtime.pid))
  check(`the scaler took ${TARGET} up to ${maximum} workers`, upAtMs !== null, `${seen.size} at most within ${phaseLimitMs / 1000} s`)
  check(`the scaler took ${TARGET} back down to ${minimum}`, downAtMs !== null, `${left.size} left within ${phaseLimitMs / 1000} s`)
  check('every 200 carried the right body', !failedByCode['200 (wrong body)'], `${failedByCode['200 (wrong body)'] ?? 0} wrong bodies`)
  check(`no call hung past its ${timeoutMs} ms deadline`, slowestFailureMs <= timeoutMs + 5000, `slowest failure ${Math.round(slowestFailureMs)} ms`)
  const httpPortCalls = (/** @type {any} */ c, /** @type {number} */ index) => c.httpPort[String(index)] ?? 0
  if (path === 'drop-in') {
    check('no call failed', failed === 0, `${failed} failed: ${JSON.stringify(failedByCode)}; ${samples[0] ?? ''}`)
    for (const [index] of added) {
      const n = httpPortCalls(upCounters, index) - httpPortCalls(before, index)
      check(`added worker ${index} got calls over http-port (drop-in counter)`, n > 0, `${n} calls`)
    }
    check('no call left to the mesh', after.mesh === before.mesh, `${after.mesh - before.mesh} over the mesh`)
    const links = /** @type {{ thread: number }[]} */ (stats?.workers ?? []).map((l) => l.thread).sort()
    check('links only to the workers left', JSON.stringify(links) === JSON.stringify([...left.values()].sort()), `links to threads ${links.join(', ') || 'none'}, workers left ${[...left.values()].join(', ')}`)
  }

  return {
    failures: checks.filter((c) => !c.ok).map((c) => `${c.name}${c.detail ? ` (${c.detail})` : ''}`),
    scaler: {
      path,
      application: TARGET,
      config: SCALER_CONFIG,
      workers: { minimum, maximum, seen: seen.size, left: left.size },
      scaledUp: scaled('up'),
      scaledDown: scaled('down'),
      upAtMs,
      downAtMs,
      durationMs: since(),
      callers,
      calls,
      failed,
      failedByCode,
      failedSamples: samples,
      slowestFailureMs: Math.round(slowestFailureMs),
      answersByWorker: Object.fromEntries([...seen].map(([index, thread]) => [index, answeredBy.get(thread) ?? 0])),
      ...(path === 'drop-in'
        ? {
            httpPortByWorker: Object.fromEntries(Object.keys(after.httpPort).map((w) => [w, after.httpPort[w] - (before.httpPort[w] ?? 0)])),
            meshCalls: after.mesh - before.mesh,
            sentAgain: Object.fromEntries(Object.entries(after.retried).map(([why, n]) => [why, n - (before.retried[why] ?? 0)])),
            linksLeft: (stats?.workers ?? []).length
          }
        : {}),
      removedWorkers: removed.map(([index]) => index)
    },
    checks
  }
}
