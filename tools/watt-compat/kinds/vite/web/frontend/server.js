// @ts-check
// The server @platformatic/vite runs in SSR mode (an @platformatic/node app): the page at /
// rendered on every request by Vite's SSR build from one fetch to the api app; /items a
// route that proxies one call; /hello calls nothing (the api calls it back); /via-api
// has the api call this app back. Built files are served from client/dist/client.
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { extname, join, normalize } from 'node:path'

const DIST = join(import.meta.dirname, 'client', 'dist')
const template = readFileSync(join(DIST, 'client', 'index.html'), 'utf8')
const { render } = await import(join(DIST, 'server', 'index.js'))
const TYPES = { '.js': 'text/javascript', '.css': 'text/css' }

/** @param {string} path */
async function fromApi (path) {
  const answer = await fetch(`http://api.plt.local${path}`, { cache: 'no-store' })
  return { status: answer.status, body: await answer.json() }
}

/**
 * @param {import('node:http').ServerResponse} res
 * @param {number} status
 * @param {string} type
 * @param {string | Buffer} body
 */
function send (res, status, type, body) {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) })
  res.end(body)
}

const server = createServer(async (req, res) => {
  const url = new URL(req.url ?? '/', 'http://frontend')
  try {
    if (url.pathname === '/') {
      const { body } = await fromApi('/items')
      return send(res, 200, 'text/html; charset=utf-8', template.replace('<!--ssr-outlet-->', render(body)))
    }
    if (url.pathname === '/items') return send(res, 200, 'application/json', JSON.stringify({ from: 'vite', ...(await fromApi('/items')) }))
    if (url.pathname === '/hello') return send(res, 200, 'application/json', JSON.stringify({ hello: 'vite' }))
    if (url.pathname === '/via-api') return send(res, 200, 'application/json', JSON.stringify({ from: 'vite', ...(await fromApi('/via-frontend')) }))
    if (url.pathname.startsWith('/assets/')) {
      const file = normalize(join(DIST, 'client', url.pathname))
      if (file.startsWith(join(DIST, 'client'))) return send(res, 200, TYPES[/** @type {'.js'} */ (extname(file))] ?? 'application/octet-stream', readFileSync(file))
    }
    send(res, 404, 'application/json', '{"error":"not found"}')
  } catch (err) {
    send(res, 502, 'application/json', JSON.stringify({ error: String(/** @type {Error} */ (err).message) }))
  }
})
server.listen({ host: '127.0.0.1', port: 0 })
