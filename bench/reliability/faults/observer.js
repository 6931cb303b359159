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

// Bounds the prober if the entry stops answering: each request in flight holds its own
// connection, and one prober per transport at 200 could queue 1,400 connects on a stalled
// entry, past Node's listen backlog (511); the kernel then drops SYNs and every client,
// autocannon's too, sees "Connect Timeout Error" that says nothing about the transport
// (seen once on a 2-core box with one core busy). 48 holds 2.4 s of answers at 20 Hz (a
// hang's deadline is 1 s); past that, probes are counted as skipped.
const MAX_IN_FLIGHT = 48

/**
 * @param {{ baseUrl: string, transport: string, service: string, rateHz: number, timeoutMs: number, now: () => number }} options
 */
export function observeTransport ({ baseUrl, transport, service, rateHz, timeoutMs, now }) {
  const url = entryUrl(baseUrl, transport, 64, 4)
  const expected = expectedEntryBody(transport, 64, 4)
  const agent = new Agent({ connections: MAX_IN_FLIGHT })
  /** @type {Observation[]} */
  const observations = []
  /** @type {Set<Promise<void>>} */
  const inFlight = new Set()
  const state = { running: true, skipped: 0 }

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

  const pacing = (async () => {
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
  })()

  return {
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
