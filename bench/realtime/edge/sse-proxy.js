// @ts-check
// The entry's SSE route: each stream a client opens is the same stream from
// feed, fetched over the path the configuration chose and piped through with
// backpressure. When the client leaves, the call to feed is aborted: whether
// feed's response learns it is the path's business (the "client leaves" check).
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'

/** A feed that does not answer with its head by then fails the stream. */
const HEAD_TIMEOUT_MS = 20_000

/**
 * @param {string} feedUrl  the stream's URL on feed
 * @param {import('node:http').IncomingMessage} req
 * @param {import('node:http').ServerResponse} res
 */
export async function proxySse (feedUrl, req, res) {
  const controller = new AbortController()
  res.once('close', () => { if (!res.writableFinished) controller.abort(new Error('the client left')) })
  const headTimer = setTimeout(() => controller.abort(new Error(`feed sent no head within ${HEAD_TIMEOUT_MS} ms`)), HEAD_TIMEOUT_MS)
  /** @type {Response} */
  let upstream
  try {
    upstream = await fetch(feedUrl, { signal: controller.signal, headers: { accept: 'text/event-stream' } })
  } catch (err) {
    clearTimeout(headTimer)
    if (!res.headersSent && !res.destroyed) sendText(res, 502, `feed: ${/** @type {Error} */ (err).message}`)
    return
  }
  clearTimeout(headTimer)
  if (upstream.status !== 200 || !upstream.body) {
    const text = await upstream.text().catch(() => '')
    return sendText(res, upstream.status === 200 ? 502 : upstream.status, text || `feed answered ${upstream.status}`)
  }
  res.writeHead(200, { 'content-type': upstream.headers.get('content-type') ?? 'text/event-stream', 'cache-control': 'no-cache' })
  res.flushHeaders()
  try {
    await pipeline(Readable.fromWeb(/** @type {import('node:stream/web').ReadableStream} */ (upstream.body)), res, { signal: controller.signal })
  } catch {
    // the client left (the abort above), or feed's stream broke: either way this stream is over
    if (!res.destroyed) res.destroy()
  }
}

/** @param {import('node:http').ServerResponse} res @param {number} status @param {string} text */
export function sendText (res, status, text) {
  res.writeHead(status, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(text) })
  res.end(text)
}
