// @ts-check
// One run of the WebSocket echo: the suite asks edge's control route to run
// the bounded echo load against chat (edge/ws-echo-load.js) and judges what it
// answers. Any echo that was not the message sent, any socket that failed,
// stalled or could not open, fails the run with the reason, never a number.
import { request } from 'undici'
import { requestDelta, scrapeMetrics } from '../lib/metrics.js'
import { dropInFailures } from './path-check.js'

/** Beyond the load's own time, how long edge may take to open, drain and close (each bounded there). */
const CONTROL_GRACE_MS = 30_000

/**
 * @param {import('./plan.js').RealtimeCase} kase
 * @param {{ runtime: import('./runtimes.js').PathRuntime, flags: Record<string, any> }} options
 * @returns {Promise<import('../lib/types.js').Measurement>}
 */
export async function measureEcho (kase, { runtime, flags }) {
  const settings = { sockets: kase.sockets, size: kase.size, warmupMs: flags.warmup * 1000, durationMs: flags.duration * 1000, connectTimeoutMs: flags.connectTimeout }
  const timeoutMs = settings.warmupMs + settings.durationMs + settings.connectTimeoutMs + CONTROL_GRACE_MS
  const before = await scrapeMetrics(runtime.metricsUrl).catch(() => null)
  const { statusCode, body } = await request(`${runtime.url}/ws-echo`, { method: 'POST', body: JSON.stringify(settings), headers: { 'content-type': 'application/json' }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs })
  const text = await body.text()
  const after = await scrapeMetrics(runtime.metricsUrl).catch(() => null)
  if (statusCode !== 200) return { failures: [`edge's echo route answered ${statusCode}: ${text.slice(0, 300)}`] }
  const stats = JSON.parse(text)
  const meshPort = before && after ? requestDelta(before, after).meshPort : undefined
  const failures = [...echoFailures(stats), ...dropInFailures(kase.path, meshPort, 'WebSocket upgrades')]
  const perRoundTrip = (/** @type {number | null | undefined} */ micros) => (micros != null && stats.roundTrips ? micros / stats.roundTrips : null)
  return {
    failures,
    requestsPerSec: failures.length ? null : stats.roundTripsPerSec,
    ...(stats.latencyMs ? { latencyMs: stats.latencyMs } : {}),
    connectFailed: stats.connected < Number(kase.sockets),
    ws: stats,
    resources: {
      cpuMicrosPerRoundTrip: perRoundTrip(stats.processCpuMicros),
      edgeCpuMicrosPerRoundTrip: perRoundTrip(stats.edgeThreadCpuMicros),
      runtimeCores: stats.windowMs ? stats.processCpuMicros / 1000 / stats.windowMs : null
    },
    ...(meshPort ? { meshPort } : { resourcesMissing: 'the metrics scrape around the run failed' })
  }
}

/**
 * Why an echo run failed, from edge's stats: sockets that could not open, echoes
 * that did not match, sockets that broke or stalled, or no echo at all.
 * @param {any} stats  what edge's /ws-echo answered
 * @returns {string[]}
 */
export function echoFailures (stats) {
  const listed = (/** @type {{ text: string, count: number }[]} */ texts) => texts.map(({ text, count }) => `${text} (×${count})`).join('; ')
  if (stats.connected < stats.sockets) {
    const saw = stats.chatSaw ? `; meanwhile chat's server saw ${stats.chatSaw.upgrades} upgrade(s) and ${stats.chatSaw.plainRequests} plain request(s) of /echo (answered 426${stats.chatSaw.plainRequests && !stats.chatSaw.upgrades ? ': the upgrade did not reach it' : ''})` : ''
    return [`${stats.sockets - stats.connected} of ${stats.sockets} WebSocket(s) to ${stats.url} did not open: ${listed(stats.connectErrors ?? [])}${saw}`]
  }
  const failures = []
  if (stats.mismatches) failures.push(`${stats.mismatches} echo(es) differed from the message sent: ${listed(stats.mismatchExamples ?? [])}`)
  if (stats.brokenSockets) failures.push(`${stats.brokenSockets} socket(s) failed during the run: ${listed(stats.errors ?? [])}`)
  if (stats.stalled) failures.push(`${stats.stalled} socket(s) still waited for an echo after the drain`)
  if (!stats.roundTrips) failures.push('no echo in the measured window')
  return failures
}
