// @ts-check
// chat: node:http with `ws` on the server's 'upgrade' event, the way most Node
// WebSocket servers are built (@fastify/websocket and socket.io sit on `ws`).
// /echo sends every message back as it came, binary or text. GET /ready
// answers 200; GET /seen says what reached /echo (upgrades, and plain requests
// answered 426: what a path that drops the upgrade delivers), so a client whose
// WebSocket failed can say why. The same server answers every path: Watt's mesh and the drop-in
// reach it in-thread, the tcp path on its loopback port (shared/listen.js).
import { createServer } from 'node:http'
import { WebSocketServer } from 'ws'
import { listenOnLoopback } from '../shared/listen.js'

/** Far above the suite's 16 KiB messages, far below ws's 100 MiB default. */
const MAX_PAYLOAD_BYTES = 1 << 20

/** What reached /echo since the app started. */
const seen = { upgrades: 0, plainRequests: 0 }

const server = createServer((req, res) => {
  if (req.method === 'GET' && (req.url === '/ready' || req.url === '/seen')) {
    const text = req.url === '/ready' ? 'ok' : JSON.stringify(seen)
    res.writeHead(200, { 'content-type': req.url === '/ready' ? 'text/plain' : 'application/json', 'content-length': Buffer.byteLength(text) })
    return res.end(text)
  }
  // a plain GET of /echo is what a mesh that drops the upgrade headers delivers: say so
  if (req.url === '/echo') seen.plainRequests++
  const status = req.url === '/echo' ? 426 : 404
  const text = status === 426 ? 'a WebSocket upgrade is required' : 'not found'
  res.writeHead(status, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(text), ...(status === 426 ? { upgrade: 'websocket' } : {}) })
  res.end(text)
})

const sockets = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: MAX_PAYLOAD_BYTES })

server.on('upgrade', (req, socket, head) => {
  if (req.url !== '/echo') {
    socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n')
    return
  }
  seen.upgrades++
  sockets.handleUpgrade(req, socket, head, (ws) => {
    ws.on('message', (data, isBinary) => ws.send(/** @type {Buffer} */ (data), { binary: isBinary }))
    ws.on('error', () => ws.terminate())
  })
})

listenOnLoopback(server)
