// @ts-check
// The API app every kind's frontend calls (copied into each kind's web/api by
// scripts/compat/kinds.js before a start, so that it resolves @platformatic/node from
// that kind's own node_modules). node:http, two workers. /items and /items/:id answer
// fixed JSON with a content-length; /via-frontend calls the kind's app back, so the
// kind is checked as a callee too (which path the drop-in gives it, or why it cannot).
import { createServer } from 'node:http'

const ITEMS = [{ id: 1, name: 'kettle', cents: 2490 }, { id: 2, name: 'mug', cents: 650 }, { id: 3, name: 'teapot', cents: 3100 }]

/**
 * @param {import('node:http').ServerResponse} res
 * @param {number} status
 * @param {unknown} value
 */
function send (res, status, value) {
  const body = JSON.stringify(value)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
  res.end(body)
}

const server = createServer(async (req, res) => {
  const url = new URL(req.url ?? '/', 'http://api')
  if (url.pathname === '/items') return send(res, 200, ITEMS)
  const one = /^\/items\/(\d+)$/.exec(url.pathname)
  if (one) {
    const item = ITEMS.find((i) => i.id === Number(one[1]))
    return item ? send(res, 200, item) : send(res, 404, { error: `no item ${one[1]}` })
  }
  if (url.pathname === '/via-frontend') {
    try {
      const answer = await fetch('http://frontend.plt.local/hello', { cache: 'no-store' })
      return send(res, answer.status, { via: 'api', frontend: await answer.json() })
    } catch (err) {
      return send(res, 502, { error: String(/** @type {Error} */ (err).message) })
    }
  }
  send(res, 404, { error: 'not found' })
})
server.listen({ host: '127.0.0.1', port: 0 })
