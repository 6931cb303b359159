// @ts-check
// One SSE stream read by the suite's client (outside the runtime, as a browser
// would be): undici's request on the run's own Agent, the body parsed with
// eventsource-parser, each event handed over with the time its bytes arrived
// (machineNow(), the clock the producer stamps with).
import { createParser } from 'eventsource-parser'
import { request } from 'undici'
import { machineNow } from './shared/sse-event.js'

/** Silence on a stream longer than this fails it (the producer writes far more often, and a topic fills within feed/hub.js JOIN_TIMEOUT_MS or gives up). */
const BODY_TIMEOUT_MS = 30_000

/**
 * @typedef {{ event?: string, id?: string, data: string }} SseEvent
 * @typedef {{ status: number | null, contentType: string | null, error: string | null }} StreamEnd
 */

/**
 * Opens the stream and reads it to its end; resolves then, never rejects.
 * @param {string} url
 * @param {object} options
 * @param {import('undici').Dispatcher} options.dispatcher
 * @param {AbortSignal} options.signal
 * @param {(event: SseEvent, arrivedAt: number) => void} options.onEvent
 * @returns {Promise<StreamEnd>}
 */
export async function readSseStream (url, { dispatcher, signal, onEvent }) {
  /** @type {StreamEnd} */
  const end = { status: null, contentType: null, error: null }
  try {
    const { statusCode, headers, body } = await request(url, { dispatcher, signal, headersTimeout: BODY_TIMEOUT_MS, bodyTimeout: BODY_TIMEOUT_MS, headers: { accept: 'text/event-stream' } })
    end.status = statusCode
    end.contentType = String(headers['content-type'] ?? '')
    if (statusCode !== 200) {
      end.error = `answered ${statusCode}: ${(await body.text()).slice(0, 200)}`
      return end
    }
    let arrivedAt = 0
    const parser = createParser({ onEvent: (event) => onEvent(event, arrivedAt) })
    const decoder = new TextDecoder() // a character split across two chunks stays whole
    for await (const chunk of body) {
      arrivedAt = machineNow()
      parser.feed(decoder.decode(chunk, { stream: true }))
    }
  } catch (err) {
    const e = /** @type {any} */ (err)
    end.error = signal.aborted ? `aborted: ${signal.reason?.message ?? signal.reason}` : `${e.code ? `${e.code}: ` : ''}${e.message}`
  }
  return end
}
