// @ts-check
// One run of the SSE fan-out: N subscribers, each a stream the suite's client
// opens to edge, which proxies it from feed over the path. feed publishes
// `rate` events a second to every one of them, each stamped with the time it
// was due; for warm-up + duration seconds. Every stream is checked event by
// event (sequence-check.js). Measured in the window after the warm-up:
// events delivered a second (arrivals in the window, all streams), the lag
// (arrival − stamp) of the events due in it, and the runtime's CPU (/proc) over
// it per event delivered.
import { randomUUID } from 'node:crypto'
import { createHistogram } from 'node:perf_hooks'
import { Agent } from 'undici'
import { requestDelta, scrapeMetrics } from '../lib/metrics.js'
import { processCpuSeconds } from '../lib/proc-cpu.js'
import { JOIN_TIMEOUT_MS } from './feed/hub.js'
import { SequenceCheck } from './sequence-check.js'
import { readSseStream } from './sse-client.js'
import { machineNow } from './shared/sse-event.js'

/** Beyond the topic's own time, how long the streams may take to end before the run gives up on them. */
const END_GRACE_MS = 20_000

/**
 * @param {import('./plan.js').RealtimeCase} kase
 * @param {{ round: number, runtime: import('./runtimes.js').PathRuntime, flags: Record<string, any> }} options
 * @returns {Promise<import('../lib/types.js').Measurement>}
 */
export async function measureFanout (kase, { round, runtime, flags }) {
  const subscribers = /** @type {number} */ (kase.subscribers)
  const { eventRate: rate, eventSize: size } = flags
  const warmupMs = flags.warmup * 1000
  const windowMs = flags.duration * 1000
  const topic = `fanout-${kase.path}-r${round}-${randomUUID().slice(0, 8)}`
  const url = `${runtime.url}/sse/${topic}?subscribers=${subscribers}&rate=${rate}&durationMs=${warmupMs + windowMs}&size=${size}`

  const lag = createHistogram()
  /** @type {{ from: number, to: number } | null} */
  let window = null
  let inWindow = 0
  let received = 0
  /** @type {string[]} */
  const producerErrors = []
  /** @type {{ runtime: number | null, loadgen: NodeJS.CpuUsage }[]} */
  const cpu = []
  const sampleCpu = () => cpu.push({ runtime: runtime.pid ? processCpuSeconds(runtime.pid) : null, loadgen: process.cpuUsage() })
  /** @type {NodeJS.Timeout[]} */
  const timers = []
  const onStart = (/** @type {number} */ t0) => {
    if (window) return
    window = { from: t0 + warmupMs, to: t0 + warmupMs + windowMs }
    timers.push(setTimeout(sampleCpu, Math.max(0, window.from - machineNow())), setTimeout(sampleCpu, Math.max(0, window.to - machineNow())))
  }

  const before = await scrapeMetrics(runtime.metricsUrl).catch(() => null)
  const agent = new Agent({ connections: subscribers + 1, pipelining: 1 })
  const controller = new AbortController()
  const giveUp = setTimeout(() => controller.abort(new Error(`the streams did not end within ${JOIN_TIMEOUT_MS + warmupMs + windowMs + END_GRACE_MS} ms`)), JOIN_TIMEOUT_MS + warmupMs + windowMs + END_GRACE_MS)
  const checks = Array.from({ length: subscribers }, () => new SequenceCheck(size))
  let ends
  try {
    ends = await Promise.all(checks.map((check) => readSseStream(url, {
      dispatcher: agent,
      signal: controller.signal,
      onEvent: (event, arrivedAt) => {
        if (event.event === 'start') return onStart(JSON.parse(event.data).t0)
        if (event.event === 'end') return check.end(JSON.parse(event.data).count)
        if (event.event === 'error') { producerErrors.push(event.data); return }
        received++
        /** @type {any} */
        let data = null
        try { data = JSON.parse(event.data) } catch {}
        check.accept(event.id, data)
        if (!window || typeof data?.t !== 'number') return
        if (arrivedAt >= window.from && arrivedAt < window.to) inWindow++
        if (data.t >= window.from && data.t < window.to) lag.record(Math.max(1, Math.round((arrivedAt - data.t) * 1000)))
      }
    })))
  } finally {
    clearTimeout(giveUp)
    for (const timer of timers) clearTimeout(timer)
    // the last events are due just before the window's end, and the streams may end first: the window ends with them
    if (cpu.length === 1) sampleCpu()
    await agent.close().catch(() => {})
  }
  const after = await scrapeMetrics(runtime.metricsUrl).catch(() => null)

  /** @type {string[]} */
  const failures = []
  const streamErrors = ends.map((end, i) => end.error ? `stream ${i}: ${end.error}` : end.contentType?.startsWith('text/event-stream') ? null : `stream ${i}: content-type ${end.contentType}`).filter((e) => e != null)
  if (producerErrors.length) failures.push(`feed gave up: ${[...new Set(producerErrors.map((e) => JSON.parse(e).message ?? e))].join('; ')}`)
  if (streamErrors.length) failures.push(`${streamErrors.length} of ${subscribers} stream(s) failed: ${[...new Set(streamErrors.map((e) => e.replace(/^stream \d+: /, '')))].slice(0, 3).join('; ')}`)
  const verdicts = checks.map((check) => check.verdict()).filter((v) => v != null)
  if (verdicts.length && !streamErrors.length) failures.push(`${verdicts.length} of ${subscribers} stream(s) failed the event check: ${[...new Set(verdicts)].slice(0, 3).join(' | ')}`)
  if (!failures.length && inWindow === 0) failures.push('no event arrived in the measured window')

  const [from, to] = cpu
  const runtimeCpuS = from?.runtime != null && to?.runtime != null ? to.runtime - from.runtime : null
  const loadgenMicros = from && to ? (to.loadgen.user + to.loadgen.system) - (from.loadgen.user + from.loadgen.system) : null
  const ms = (/** @type {number} */ micros) => micros / 1000
  const total = (/** @type {(c: SequenceCheck) => number} */ pick) => checks.reduce((sum, c) => sum + pick(c), 0)
  return {
    failures,
    requestsPerSec: failures.length ? null : inWindow / flags.duration,
    latencyMs: lag.count ? { avg: ms(lag.mean), p50: ms(lag.percentile(50)), p90: ms(lag.percentile(90)), p99: ms(lag.percentile(99)), max: ms(lag.max) } : undefined,
    sse: {
      topic,
      subscribers,
      rate,
      size,
      offeredPerSec: subscribers * rate,
      received,
      inWindow,
      lagged: lag.count,
      lost: total((c) => c.lost),
      duplicated: total((c) => c.duplicated),
      outOfOrder: total((c) => c.outOfOrder),
      corrupt: total((c) => c.corrupt)
    },
    resources: {
      cpuMicrosPerEvent: runtimeCpuS != null && inWindow ? (runtimeCpuS * 1e6) / inWindow : null,
      runtimeCores: runtimeCpuS != null ? runtimeCpuS / flags.duration : null
    },
    loadgen: loadgenMicros != null ? { cpuSeconds: loadgenMicros / 1e6, cpuPercent: (loadgenMicros / 1e4) / flags.duration } : undefined,
    ...(before && after ? { meshPort: requestDelta(before, after).meshPort } : { resourcesMissing: 'the metrics scrape around the run failed' })
  }
}
