// @ts-check
// feed: SSE topics (hub.js). GET /stream/<topic>?subscribers=&rate=&durationMs=&size=
// joins a topic (its first subscriber sets it up; the others must ask the same),
// GET /status/<topic> says what its producer saw (who joined, who left and when,
// what was written), GET /ready answers 200. Ended topics are kept a minute for
// their status, then forgotten.
import { createServer } from 'node:http'
import { listenOnLoopback } from '../shared/listen.js'
import { Hub } from './hub.js'

/** How long an ended topic's status stays readable. */
const KEEP_ENDED_MS = 60_000
const LIMITS = { subscribers: [1, 2000], rate: [1, 10_000], durationMs: [1, 120_000], size: [0, 65_536] }
const TOPIC = /^\/(stream|status)\/([\w.-]{1,120})(?:\?(.*))?$/

/** @type {Map<string, Hub>} */
const hubs = new Map()

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/ready') return sendJson(res, 200, { ok: true })
  const match = TOPIC.exec(req.url ?? '')
  if (req.method !== 'GET' || !match) return sendJson(res, 404, { error: 'not found' })
  const [, route, topic, query = ''] = match
  if (route === 'status') {
    const hub = hubs.get(topic)
    return hub ? sendJson(res, 200, hub.status()) : sendJson(res, 404, { error: `no topic ${topic}` })
  }
  const settings = settingsOf(new URLSearchParams(query))
  if (typeof settings === 'string') return sendJson(res, 400, { error: settings })
  let hub = hubs.get(topic)
  if (!hub) {
    const created = new Hub(topic, settings, () => setTimeout(() => hubs.delete(topic), KEEP_ENDED_MS).unref())
    hubs.set(topic, created)
    hub = created
  }
  if (hub.state !== 'joining') return sendJson(res, 409, { error: `the topic is ${hub.state}: it takes no subscriber now` })
  if (JSON.stringify(hub.settings) !== JSON.stringify(settings)) return sendJson(res, 400, { error: `the topic was set up as ${JSON.stringify(hub.settings)}` })
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  res.write(': joined\n\n') // the head leaves now, not with the first event
  hub.join(res)
})

/**
 * @param {URLSearchParams} params
 * @returns {import('./hub.js').TopicSettings | string}  the settings, or why not
 */
function settingsOf (params) {
  /** @type {Record<string, number>} */
  const settings = {}
  for (const [name, [min, max]] of Object.entries(LIMITS)) {
    const value = Number(params.get(name))
    if (!params.has(name) || !Number.isInteger(value) || value < min || value > max) return `${name} must be an integer from ${min} to ${max}`
    settings[name] = value
  }
  return /** @type {import('./hub.js').TopicSettings} */ (settings)
}

/** @param {import('node:http').ServerResponse} res @param {number} status @param {unknown} body */
function sendJson (res, status, body) {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
  res.end(text)
}

listenOnLoopback(server)
