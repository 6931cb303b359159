// @ts-check
// A worker thread with one real http.Server, reachable both over loopback TCP
// and over http-port, so tests compare the two on the very same listener.
//   GET  /bytes?size=N            N deterministic bytes with content-length
//   GET  /chunked?size=N&chunk=M  the same bytes, chunked, in M-byte writes
//   POST /echo                    the request body back, with what the server saw
//   GET  /hang                    never answers (aborts must reach the server)
//   GET  /crash                   throws in the worker (an uncaught exception), or answers 'survived'
//   GET  /events                  what the server saw: ['request /hang', 'close /hang', …]
//   GET  /heap                    heapUsed after a full GC
import { createServer } from 'node:http'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { parentPort, workerData } from 'node:worker_threads'
import { openConnections, serveHttpPort } from '../../lib/http/index.js'
import { messagingFromParent } from './thread-messaging.js'

/** @param {number} size */
export function patternBytes (size) {
  const out = Buffer.allocUnsafe(size)
  for (let i = 0; i < size; i++) out[i] = (i * 31 + (i >> 8)) & 0xff
  return out
}

/** A full GC without --expose-gc on the command line (workers refuse that flag). */
export function fullGc () {
  setFlagsFromString('--expose-gc')
  runInNewContext('gc')()
}

if (parentPort) {
  /** @type {string[]} */
  const events = []
  const server = createServer({ keepAliveTimeout: 10_000 }, (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    const size = Number(url.searchParams.get('size') ?? 0)
    req.on('close', () => { if (!res.writableFinished) events.push(`close ${url.pathname}`) })
    switch (url.pathname) {
      case '/bytes': {
        const body = patternBytes(size)
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length, 'x-size': String(size) })
        res.end(body)
        break
      }
      case '/chunked': {
        const body = patternBytes(size)
        const chunk = Number(url.searchParams.get('chunk') ?? 1000)
        res.writeHead(200, { 'content-type': 'application/octet-stream' })
        let offset = 0
        const writeMore = () => {
          while (offset < body.length) {
            const ok = res.write(body.subarray(offset, offset + chunk))
            offset += chunk
            if (!ok) return res.once('drain', writeMore)
          }
          res.end()
        }
        writeMore()
        break
      }
      case '/echo': {
        /** @type {Buffer[]} */
        const parts = []
        req.on('data', (part) => parts.push(part))
        req.on('end', () => {
          const body = Buffer.concat(parts)
          res.writeHead(201, {
            'content-type': 'application/octet-stream',
            'x-seen-transfer-encoding': String(req.headers['transfer-encoding'] ?? ''),
            'x-seen-content-length': String(req.headers['content-length'] ?? ''),
            'x-seen-host': String(req.headers.host ?? '')
          })
          res.end(body)
        })
        break
      }
      case '/hang':
        events.push('request /hang')
        break
      case '/heap': {
        fullGc()
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ heapUsed: process.memoryUsage().heapUsed, connections: openConnections() }))
        break
      }
      case '/crash':
        // a worker started with { survives: true } answers instead: the one a retry reaches
        if (workerData?.survives) res.end('survived')
        else setImmediate(() => { throw new Error('crashed on purpose') })
        break
      case '/events':
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify(events))
        break
      default:
        res.writeHead(404, { 'content-type': 'text/plain' })
        res.end('no route')
    }
  })
  serveHttpPort(server, { messaging: messagingFromParent() })
  server.listen(0, '127.0.0.1', () => {
    const address = /** @type {import('node:net').AddressInfo} */ (server.address())
    parentPort?.postMessage({ type: 'listening', port: address.port })
  })
  parentPort.on('message', (message) => {
    if (message?.type === 'stop') server.close()
  })
}
