// @ts-check
// The "client leaves" check of one path: the suite's client opens one SSE
// stream through edge, reads a few events (checked), and leaves (its socket
// destroyed, as a closed browser tab's). edge aborts its call to feed; does
// feed's response learn it ('close' before its end), and how long after the
// client left? Asked of feed's status route (through edge, over the same path)
// every POLL_MS until it says so or the wait runs out. Not being told is the
// finding, not a failure; a stream that fails its checks fails the run.
import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { Agent, request } from 'undici'
import { SequenceCheck } from './sequence-check.js'
import { readSseStream } from './sse-client.js'
import { machineNow } from './shared/sse-event.js'

/** The leaving stream's events a second and length: it ends by itself after that, told or not. */
export const LEAVE_STREAM = { rate: 50, durationMs: 5000 }
const POLL_MS = 10

/**
 * @param {import('./plan.js').RealtimeCase} kase
 * @param {{ round: number, runtime: import('./runtimes.js').PathRuntime, flags: Record<string, any> }} options
 * @returns {Promise<import('../lib/types.js').Measurement>}
 */
export async function measureClientLeaves (kase, { round, runtime, flags }) {
  const { leaveAfter, leaveWait, eventSize: size } = flags
  const topic = `leave-${kase.path}-r${round}-${randomUUID().slice(0, 8)}`
  const url = `${runtime.url}/sse/${topic}?subscribers=1&rate=${LEAVE_STREAM.rate}&durationMs=${LEAVE_STREAM.durationMs}&size=${size}`
  const agent = new Agent({ connections: 2, pipelining: 1 })
  const controller = new AbortController()
  const check = new SequenceCheck(size)
  let seen = 0
  /** @type {number | null} */
  let leftAt = null
  let ended = false
  const leave = () => {
    leftAt = machineNow()
    controller.abort(new Error('the client left'))
  }
  const giveUp = setTimeout(() => controller.abort(new Error(`no ${leaveAfter} events within ${LEAVE_STREAM.durationMs} ms`)), LEAVE_STREAM.durationMs)
  let end
  try {
    end = await readSseStream(url, {
      dispatcher: agent,
      signal: controller.signal,
      onEvent: (event) => {
        if (leftAt != null) return
        if (event.event === 'end') { ended = true; return }
        if (event.event) return
        let data = null
        try { data = JSON.parse(event.data) } catch {}
        check.accept(event.id, data)
        if (++seen === leaveAfter) leave()
      }
    })
  } finally {
    clearTimeout(giveUp)
  }

  /** @type {string[]} */
  const failures = []
  if (leftAt == null) failures.push(`the stream ended before the client left${end.error ? `: ${end.error}` : ended ? ' (its end event came first)' : ''}`)
  check.end(seen) // the events read before leaving are the whole stream as far as this client goes
  const verdict = check.verdict()
  if (verdict) failures.push(`the events before leaving failed the check: ${verdict}`)
  if (failures.length) {
    await agent.close().catch(() => {})
    return { failures }
  }

  const left = Number(leftAt)
  /** @type {any} */
  let status = null
  /** @type {string | null} */
  let statusError = null
  while (machineNow() - left < leaveWait) {
    try {
      const { statusCode, body } = await request(`${runtime.url}/feed-status/${topic}`, { dispatcher: agent, headersTimeout: 2000, bodyTimeout: 2000 })
      const text = await body.text()
      if (statusCode === 200) status = JSON.parse(text)
      else statusError = `feed's status answered ${statusCode}: ${text.slice(0, 200)}`
    } catch (err) {
      statusError = `feed's status: ${/** @type {Error} */ (err).message}`
    }
    if (status?.subscribers?.[0]?.closedAt != null) break
    await sleep(POLL_MS)
  }
  await agent.close().catch(() => {})
  if (!status) return { failures: [statusError ?? 'feed\'s status never answered'] }
  const subscriber = status.subscribers[0]
  const told = subscriber?.closedAt != null
  return {
    failures: [],
    requestsPerSec: null,
    leave: {
      told,
      delayMs: told ? subscriber.closedAt - left : null,
      waitedMs: leaveWait,
      eventsBeforeLeave: seen,
      // what feed wrote into the stream after the client had left, up to when it was told or the wait ran out
      writtenAfterLeave: Math.max(0, (subscriber?.written ?? 0) - seen),
      producerState: status.state
    }
  }
}
