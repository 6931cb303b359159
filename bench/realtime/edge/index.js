// @ts-check
// edge: the runtime's entrypoint, node:http. It reaches chat and feed at the
// origins its configuration gives (CHAT_ORIGIN, FEED_ORIGIN): Watt's mesh names
// (http://<app>.plt.local) on the mesh and drop-in paths, loopback ports on tcp.
//   GET  /ready                 chat's and feed's /ready, over the path
//   POST /ws-echo               the bounded WebSocket echo load against chat (ws-echo-load.js), its stats as JSON
//   GET  /sse/<topic>?…         feed's /stream/<topic>?…, proxied (sse-proxy.js)
//   GET  /feed-status/<topic>   feed's /status/<topic>: what its producer saw
import { createServer } from 'node:http'
import { proxySse, sendText } from './sse-proxy.js'
import { runEchoLoad } from './ws-echo-load.js'

/** Bounds of the echo load's settings: a control route, but never an unbounded one. */
const ECHO_LIMITS = { sockets: [1, 1000], size: [8, 1 << 20], warmupMs: [0, 120_000], durationMs: [1, 120_000], connectTimeoutMs: [1, 60_000] }
/** A call from edge to chat or feed that takes longer fails. */
const CALL_TIMEOUT_MS = 5_000
/** A control request's body never needs more. */
const MAX_BODY_BYTES = 4096

export function create () {
  const chat = /** @type {string} */ (process.env.CHAT_ORIGIN)
  const feed = /** @type {string} */ (process.env.FEED_ORIGIN)
  const chatWs = chat.replace(/^http/, 'ws') + '/echo'
  return createServer((req, res) => {
    const url = req.url ?? '/'
    if (req.method === 'GET' && url === '/ready') return ready([chat, feed], res)
    if (req.method === 'POST' && url === '/ws-echo') return echo(chat, chatWs, req, res)
    if (req.method === 'GET' && url.startsWith('/sse/')) return proxySse(`${feed}/stream/${url.slice('/sse/'.length)}`, req, res)
    if (req.method === 'GET' && url.startsWith('/feed-status/')) return forward(`${feed}/status/${url.slice('/feed-status/'.length)}`, res)
    sendText(res, 404, 'not found')
  })
}

/**
 * @param {string[]} origins
 * @param {import('node:http').ServerResponse} res
 */
async function ready (origins, res) {
  const statuses = await Promise.all(origins.map((origin) => fetch(`${origin}/ready`, { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) }).then(async (r) => { await r.arrayBuffer(); return r.status }, (err) => String(err?.cause?.code ?? err?.message))))
  const ok = statuses.every((s) => s === 200)
  sendJson(res, ok ? 200 : 503, Object.fromEntries(origins.map((o, i) => [o, statuses[i]])))
}

/**
 * @param {string} url
 * @param {import('node:http').ServerResponse} res
 */
async function forward (url, res) {
  try {
    const answer = await fetch(url, { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) })
    const text = await answer.text()
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain', 'content-length': Buffer.byteLength(text) })
    res.end(text)
  } catch (err) {
    sendText(res, 502, `${url}: ${/** @type {Error} */ (err).message}`)
  }
}

/**
 * @param {string} chatOrigin
 * @param {string} url
 * @param {import('node:http').IncomingMessage} req
 * @param {import('node:http').ServerResponse} res
 */
async function echo (chatOrigin, url, req, res) {
  let body = ''
  for await (const chunk of req) {
    body += chunk
    if (body.length > MAX_BODY_BYTES) return sendText(res, 413, 'body too large')
  }
  /** @type {Record<string, number>} */
  const settings = {}
  try {
    const given = JSON.parse(body)
    for (const [name, [min, max]] of Object.entries(ECHO_LIMITS)) {
      const value = given[name]
      if (!Number.isInteger(value) || value < min || value > max) return sendText(res, 400, `${name} must be an integer from ${min} to ${max}`)
      settings[name] = value
    }
  } catch {
    return sendText(res, 400, 'the body must be JSON')
  }
  try {
    const seenBefore = await seenByChat(chatOrigin)
    /** @type {Record<string, any>} */
    const stats = await runEchoLoad({ url, ...(/** @type {any} */ (settings)) })
    // sockets that did not open: what reached chat's /echo meanwhile says where they were lost
    if (stats.connected < stats.sockets) stats.chatSaw = since(seenBefore, await seenByChat(chatOrigin))
    sendJson(res, 200, stats)
  } catch (err) {
    sendText(res, 500, `the echo load failed: ${/** @type {Error} */ (err).stack}`)
  }
}

/**
 * What reached chat's /echo so far (GET /seen over the path), or null when it cannot say.
 * @param {string} origin
 * @returns {Promise<{ upgrades: number, plainRequests: number } | null>}
 */
async function seenByChat (origin) {
  try {
    const answer = await fetch(`${origin}/seen`, { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) })
    return answer.ok ? /** @type {{ upgrades: number, plainRequests: number }} */ (await answer.json()) : null
  } catch {
    return null
  }
}

/**
 * @param {{ upgrades: number, plainRequests: number } | null} before
 * @param {{ upgrades: number, plainRequests: number } | null} after
 */
function since (before, after) {
  return before && after ? { upgrades: after.upgrades - before.upgrades, plainRequests: after.plainRequests - before.plainRequests } : null
}

/** @param {import('node:http').ServerResponse} res @param {number} status @param {unknown} body */
function sendJson (res, status, body) {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
  res.end(text)
}
