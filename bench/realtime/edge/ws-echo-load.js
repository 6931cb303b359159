// @ts-check
// The WebSocket echo load, run inside the edge app against chat: `sockets`
// WebSockets (Node's global WebSocket, so undici's dispatcher and any
// interceptor in front of Watt's mesh see them), each a closed loop of one
// message of `size` bytes at a time. Every echo is checked byte for byte
// (shared/echo-payload.js). Unmeasured for `warmupMs`, measured for
// `durationMs`: round trips finished in that window, their latency in a
// perf_hooks histogram (ns), the process's and this thread's CPU over it. Then
// the echoes in flight are awaited (and checked), and every socket is closed.
// Bounded in time throughout: opening, draining and closing each have a deadline.
import { createHistogram, performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { echoMismatch, echoTemplate, stampEcho } from '../shared/echo-payload.js'

/** After the window, how long the echoes in flight may take. */
const DRAIN_TIMEOUT_MS = 5_000
/** How long the closing handshakes may take at the end. */
const CLOSE_TIMEOUT_MS = 2_000
/** Distinct error texts kept per run (with their counts). */
const KEPT_ERRORS = 5

/**
 * @typedef {object} EchoLoadOptions
 * @property {string} url            ws://…/echo
 * @property {number} sockets
 * @property {number} size           bytes per message
 * @property {number} warmupMs
 * @property {number} durationMs
 * @property {number} connectTimeoutMs
 */

/**
 * @typedef {object} EchoSocket
 * @property {WebSocket} ws
 * @property {Buffer} message     the message in flight (its template, stamped)
 * @property {number} seq
 * @property {bigint} sentAt
 * @property {boolean} waiting    an echo is due
 * @property {boolean} broken
 */

/**
 * @param {EchoLoadOptions} options
 */
export async function runEchoLoad ({ url, sockets, size, warmupMs, durationMs, connectTimeoutMs }) {
  const opening = performance.now()
  const opened = await Promise.all(Array.from({ length: sockets }, () => openSocket(url, connectTimeoutMs)))
  const openMs = performance.now() - opening
  const refused = opened.filter((o) => 'error' in o)
  if (refused.length) {
    await closeAll(opened.flatMap((o) => (o.ws ? [o.ws] : [])))
    return { url, sockets, size, connected: sockets - refused.length, openMs, connectErrors: countTexts(refused.map((o) => /** @type {{ error: string }} */ (o).error)) }
  }

  const histogram = createHistogram()
  /** @type {string[]} */
  const mismatchTexts = []
  /** @type {string[]} */
  const errorTexts = []
  let mismatches = 0
  let roundTrips = 0
  let measuring = false
  let stopping = false
  /** @type {(() => void) | null} */
  let onIdle = null

  /** @type {EchoSocket[]} */
  const loop = opened.map((o, index) => ({ ws: /** @type {{ ws: WebSocket }} */ (o).ws, message: echoTemplate(index, size), seq: 0, sentAt: 0n, waiting: false, broken: false }))
  const send = (/** @type {EchoSocket} */ s) => {
    stampEcho(s.message, s.seq)
    s.waiting = true
    s.sentAt = process.hrtime.bigint()
    s.ws.send(s.message)
  }
  const settle = (/** @type {EchoSocket} */ s) => {
    s.waiting = false
    if (stopping) { if (loop.every((x) => !x.waiting)) onIdle?.() } else if (!s.broken) send(s)
  }
  for (const s of loop) {
    s.ws.addEventListener('message', (event) => {
      const at = process.hrtime.bigint()
      if (!s.waiting) { mismatches++; keep(mismatchTexts, `an echo nobody waited for on socket ${loop.indexOf(s)}`); return }
      const wrong = echoMismatch(event.data, s.message)
      if (wrong) { mismatches++; keep(mismatchTexts, wrong) }
      if (measuring) { roundTrips++; histogram.record(Number(at - s.sentAt) || 1) }
      s.seq++
      settle(s)
    })
    const fail = (/** @type {string} */ text) => {
      if (s.broken) return
      s.broken = true
      keep(errorTexts, text)
      settle(s)
    }
    s.ws.addEventListener('error', (event) => fail(`error: ${errorText(event)}`))
    s.ws.addEventListener('close', (event) => { if (!stopping || s.waiting) fail(`closed ${event.code}${event.reason ? ` ${event.reason}` : ''} during the run`) })
  }

  for (const s of loop) send(s)
  await sleep(warmupMs)
  histogram.reset()
  roundTrips = 0
  const cpuBefore = process.cpuUsage()
  const threadBefore = threadCpu()
  const from = performance.now()
  measuring = true
  await sleep(durationMs)
  measuring = false
  const windowMs = performance.now() - from
  const cpu = process.cpuUsage(cpuBefore)
  const threadAfter = threadCpu()
  stopping = true

  const idle = new Promise((resolve) => { onIdle = () => resolve(undefined) })
  if (loop.some((s) => s.waiting)) await Promise.race([idle, sleep(DRAIN_TIMEOUT_MS)])
  const stalled = loop.filter((s) => s.waiting && !s.broken).length
  await closeAll(loop.map((s) => s.ws))

  const ms = (/** @type {number} */ ns) => ns / 1e6
  return {
    url,
    sockets,
    size,
    connected: sockets,
    openMs,
    windowMs,
    roundTrips,
    roundTripsPerSec: roundTrips / (windowMs / 1000),
    latencyMs: roundTrips ? { avg: ms(histogram.mean), p50: ms(histogram.percentile(50)), p90: ms(histogram.percentile(90)), p99: ms(histogram.percentile(99)), max: ms(histogram.max) } : null,
    mismatches,
    mismatchExamples: countTexts(mismatchTexts),
    errors: errorTexts.length ? countTexts(errorTexts) : [],
    brokenSockets: loop.filter((s) => s.broken).length,
    stalled,
    processCpuMicros: cpu.user + cpu.system,
    edgeThreadCpuMicros: threadBefore != null && threadAfter != null ? threadAfter - threadBefore : null
  }
}

/**
 * Opens one WebSocket, or says why it could not within the deadline.
 * @param {string} url
 * @param {number} timeoutMs
 * @returns {Promise<{ ws: WebSocket } | { error: string, ws?: WebSocket }>}
 */
function openSocket (url, timeoutMs) {
  return new Promise((resolve) => {
    /** @type {WebSocket} */
    let ws
    try {
      ws = new WebSocket(url)
    } catch (err) {
      return resolve({ error: `new WebSocket threw: ${/** @type {Error} */ (err).message}` })
    }
    ws.binaryType = 'arraybuffer'
    /** @type {string | null} */
    let errored = null
    const timer = setTimeout(() => { done({ error: `not open within ${timeoutMs} ms${errored ? ` (${errored})` : ''}`, ws }); ws.close() }, timeoutMs)
    let settled = false
    const done = (/** @type {{ ws: WebSocket } | { error: string, ws?: WebSocket }} */ outcome) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(outcome)
    }
    ws.addEventListener('open', () => done({ ws }), { once: true })
    ws.addEventListener('error', (event) => { errored = `error event, message ${JSON.stringify(errorText(event))}` }, { once: true })
    ws.addEventListener('close', (event) => done({ error: `${errored ?? 'no error event'}, then close ${event.code}${event.reason ? ` "${event.reason}"` : ''} before open` }), { once: true })
  })
}

/**
 * An error event's text: its message, and its error's message and cause when it has them.
 * @param {Event} event
 */
function errorText (event) {
  const e = /** @type {any} */ (event)
  const parts = [e.message, e.error?.message, e.error?.cause?.message ?? e.error?.cause?.code].filter((p) => typeof p === 'string' && p !== '')
  return [...new Set(parts)].join(': ')
}

/**
 * Closes every socket (1000) and waits for their close events, up to CLOSE_TIMEOUT_MS.
 * @param {WebSocket[]} sockets
 */
async function closeAll (sockets) {
  const closed = sockets.map((ws) => ws.readyState === WebSocket.CLOSED ? Promise.resolve() : new Promise((resolve) => ws.addEventListener('close', () => resolve(undefined), { once: true })))
  for (const ws of sockets) if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close(1000)
  await Promise.race([Promise.all(closed), sleep(CLOSE_TIMEOUT_MS)])
}

/** This thread's CPU µs (Node ≥ 23.9), or null. */
function threadCpu () {
  const usage = /** @type {any} */ (process).threadCpuUsage?.()
  return usage ? usage.user + usage.system : null
}

/** Texts kept per kind before they are counted: enough for the distinct ones. */
const KEPT_TEXTS = 1000

/** @param {string[]} list @param {string} text */
function keep (list, text) {
  if (list.length < KEPT_TEXTS) list.push(text)
}

/**
 * Distinct texts with their counts, most frequent first, at most KEPT_ERRORS.
 * @param {string[]} texts
 * @returns {{ text: string, count: number }[]}
 */
export function countTexts (texts) {
  /** @type {Map<string, number>} */
  const counts = new Map()
  for (const text of texts) counts.set(text, (counts.get(text) ?? 0) + 1)
  return [...counts].sort((a, b) => b[1] - a[1]).slice(0, KEPT_ERRORS).map(([text, count]) => ({ text, count }))
}
