// @ts-check
// Watches one transport while a fault happens: requests sent at a steady rate
// (open loop: a slow answer does not delay the next request), each timed on
// the scenario's clock and its body judged. autocannon gives the load and the
// totals; this gives when errors happened, how long they took and what they
// said. Open loop matters for a hang: closed-loop clients would all wait out
// the same timeout together and sample the window once.
import { setTimeout as sleep } from 'node:timers/promises'
import { Agent, request } from 'undici'
import { expectedEntryBody, entryUrl } from '../../transports/expected.js'

/**
 * @typedef {object} Observation
 * @property {number} at          answer (or failure) time, ms on the scenario clock
 * @property {number} latencyMs
 * @property {number | string} status  HTTP status, or the client error code
 * @property {'verified' | 'named' | 'wrong'} verdict  verified 200, 502/504 naming the service, or anything else
 * @property {string} [detail]    what an error answer said
 */

// Bounds the prober if the entry stops answering: one prober per transport at 200 could
// queue 1,400 connects on a stalled entry, past Node's listen backlog (511). 48 holds 2.4 s
// of answers at 20 Hz (a hang's deadline is 1 s); past that, probes are counted as skipped.
const MAX_IN_FLIGHT = 48

/**
 * Opens a prober on one transport: its MAX_IN_FLIGHT connections are opened now, before
 * any load, and kept (the entry's keep-alive is 72 s). Under a saturating closed-loop load
 * the entry accepts one new connection per event-loop iteration (libuv/libuv#3696; docs/transports-and-fairness.md,
 * "Bound the calls in flight"), measured here with strace at 13–21 a second. A prober that opened its connections
 * under the load queued them behind each other: the first case after start-up saw 480 in
 * the entry's accept queue and probes of every transport, `direct` included, waiting
 * 12–13 s, while autocannon's connections, opened first, answered within 1.4 s.
 * `start(now)` then sends at a steady rate on the scenario's clock.
 * @param {{ baseUrl: string, transport: string, service: string, rateHz: number, timeoutMs: number }} options
 */
export async function openObserver ({ baseUrl, transport, service, rateHz, timeoutMs }) {
  const url = entryUrl(baseUrl, transport, 64, 4)
  const expected = expectedEntryBody(transport, 64, 4)
  const agent = new Agent({ connections: MAX_IN_FLIGHT })
  // as many requests at once as connections: the pool opens one each
  try {
    await Promise.all(Array.from({ length: MAX_IN_FLIGHT }, async () => {
      const { body } = await request(url, { dispatcher: agent, headersTimeout: timeoutMs, bodyTimeout: timeoutMs })
      await body.text()
    }))
  } catch (err) {
    await agent.destroy()
    throw new Error(`${transport}: the prober could not open its connections: ${/** @type {Error} */ (err).message}`)
  }
  /** @type {Observation[]} */
  const observations = []
  /** @type {Set<Promise<void>>} */
  const inFlight = new Set()
  const state = { running: true, skipped: 0 }
  /** @type {() => number} */
  let now = () => 0

  async function probe () {
    const sentAt = now()
    try {
      const { statusCode, body } = await request(url, { dispatcher: agent, headersTimeout: timeoutMs, bodyTimeout: timeoutMs })
      const text = await body.text()
      const at = now()
      observations.push({ at, latencyMs: at - sentAt, status: statusCode, ...judge(statusCode, text, { expected, transport, service }) })
    } catch (err) {
      const at = now()
      observations.push({ at, latencyMs: at - sentAt, status: /** @type {NodeJS.ErrnoException} */ (err).code ?? 'error', verdict: 'wrong', detail: /** @type {Error} */ (err).message })
    }
  }

  /** @type {Promise<void> | null} */
  let pacing = null
  const pace = async () => {
    const interval = 1000 / rateHz
    let next = now()
    while (state.running) {
      if (inFlight.size < MAX_IN_FLIGHT) {
        const pending = probe().finally(() => inFlight.delete(pending))
        inFlight.add(pending)
      } else {
        state.skipped++
      }
      next += interval
      await sleep(Math.max(0, next - now()))
    }
  }

  return {
    /**
     * Starts sending; answers are timed on `clock` (ms on the scenario's clock).
     * @param {() => number} clock
     */
    start (clock) {
      now = clock
      pacing ??= pace()
    },
    /** Stops sending, waits for the answers in flight; resolves with every observation in time order. */
    async stop () {
      state.running = false
      await pacing
      await Promise.all(inFlight)
      await agent.close()
      return { observations: observations.sort((a, b) => a.at - b.at), skipped: state.skipped }
    }
  }
}

/**
 * @param {number} status
 * @param {string} text
 * @param {{ expected: string, transport: string, service: string }} context
 * @returns {{ verdict: Observation['verdict'], detail?: string }}
 */
export function judge (status, text, { expected, transport, service }) {
  if (status === 200) return text === expected ? { verdict: 'verified' } : { verdict: 'wrong', detail: `200 with another body: ${text.slice(0, 120)}` }
  if (status !== 502 && status !== 504) return { verdict: 'wrong', detail: `${status}: ${text.slice(0, 120)}` }
  let json
  try {
    json = JSON.parse(text)
  } catch {
    return { verdict: 'wrong', detail: `${status} without a JSON body: ${text.slice(0, 120)}` }
  }
  const named = typeof json.service === 'string' && json.service.split(', ').includes(service)
  if (json.statusCode !== status || !named || json.transport !== transport || typeof json.message !== 'string') {
    return { verdict: 'wrong', detail: `${status} not naming ${service} over ${transport}: ${text.slice(0, 160)}` }
  }
  return { verdict: 'named', detail: json.message }
}
