// @ts-check
// pricing: a plain node:http app (@platformatic/node). It owns the prices and
// builds quotes, asking catalog for the item names with fetch() to
// http://catalog.plt.local. Watt finds the server because it listens; the port
// itself (a free one on 127.0.0.1) is not used by the example.
import { createServer } from 'node:http'

/** @type {Record<string, number>} */
const CENTS = { 1: 2490, 2: 650, 3: 3100 }

const server = createServer((req, res) => {
  route(new URL(req.url ?? '/', 'http://pricing')).then(
    ({ status, body }) => send(res, status, body),
    (err) => send(res, 502, { error: err.message })
  )
})
server.listen({ host: '127.0.0.1', port: 0 })

/**
 * @param {URL} url
 * @returns {Promise<{ status: number, body: unknown }>}
 */
async function route (url) {
  const price = /^\/price\/([^/]+)$/.exec(url.pathname)
  if (price) {
    const cents = CENTS[decodeURIComponent(price[1])]
    return cents === undefined ? { status: 404, body: { error: `no price for ${price[1]}` } } : { status: 200, body: { cents } }
  }
  if (url.pathname === '/quote') return quote((url.searchParams.get('ids') ?? '').split(',').filter(Boolean))
  return { status: 404, body: { error: `no route ${url.pathname}` } }
}

/** @param {string[]} ids */
async function quote (ids) {
  const res = await fetch('http://catalog.plt.local/items')
  if (res.status !== 200) throw new Error(`catalog answered ${res.status}`)
  const items = /** @type {{ id: string, name: string }[]} */ (await res.json())
  const lines = []
  for (const id of ids) {
    const item = items.find((i) => i.id === id)
    if (!item || CENTS[id] === undefined) return { status: 404, body: { error: `no item ${id}` } }
    lines.push({ ...item, cents: CENTS[id] })
  }
  return { status: 200, body: { lines, totalCents: lines.reduce((sum, l) => sum + l.cents, 0) } }
}

/**
 * @param {import('node:http').ServerResponse} res
 * @param {number} status
 * @param {unknown} body
 */
function send (res, status, body) {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
  res.end(text)
}

/** Watt calls this on stop: close the listener so the worker exits at once. */
export function close () {
  server.close()
  server.closeIdleConnections()
}
