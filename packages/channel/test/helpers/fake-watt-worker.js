// @ts-check
// One worker thread of the fake Watt runtime (fake-watt.js): it sets up what Watt gives a
// worker (globalThis.platformatic, workerData) in Watt's order, calls the drop-in's factory
// as Watt does for a runtime-level interceptor, then starts the application's server.
// workerData.fake:
//   server     'http' (createServer + listen), 'new' (new http.Server + listen), 'fastify' (a server
//              announced as Fastify's, never listening), 'two' (two servers), 'none'
//   dropIn     false: the worker does not run the drop-in (its messaging has no handler for it)
//   messaging  false: Watt gave the worker no messaging (the drop-in's callee cannot register)
//   dispatchers  name → the drop-in's options: each a fake mesh composed with its own interceptor
// Every request the server sees is posted to the runtime ({ type: 'seen' }); /hang… waits
// until the runtime says 'release'. The runtime drives the worker with { type: 'rpc' } messages.
import { EventEmitter, once } from 'node:events'
import { channel } from 'node:diagnostics_channel'
import http from 'node:http'
import { parentPort, threadId, workerData } from 'node:worker_threads'
import { Dispatcher, request } from 'undici'
import createMeshPortInterceptor, { meshPortStats } from '../../mesh-port.js'
import { ITC_REQUEST, ITC_RESPONSE, ITC_VERSION } from '../../lib/watt/itc.js'
import { HANDLER_FAILED, HANDLER_NOT_FOUND } from '../../lib/watt/call-errors.js'

const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort)
const fake = workerData.fake ?? {}
const index = Number(workerData.worker.index)
const application = String(workerData.applicationConfig.id)

/** @type {{ level: string, msg: string }[]} */
const logs = []
const logAt = (/** @type {string} */ level) => (/** @type {string} */ msg) => { logs.push({ level, msg }) }
const logger = { debug: logAt('debug'), info: logAt('info'), warn: logAt('warn'), error: logAt('error') }

// The ITC: requests to the runtime (the test's thread), answered by id.
let nextItc = 0
/** @type {Map<number, { resolve: (v: any) => void, reject: (e: Error) => void }>} */
const itcWaiting = new Map()
const itc = {
  /** @param {string} name @param {unknown} [data] */
  send (name, data) {
    const id = nextItc++
    return new Promise((resolve, reject) => {
      itcWaiting.set(id, { resolve, reject })
      port.postMessage({ type: 'itc', id, name, data })
    })
  }
}

// Messaging's handlers, reached by callers on the channels the runtime hands this worker,
// answered in @platformatic/itc's format (a failed handler's error keeps its code).
/** @type {Map<string, (data: any) => unknown>} */
const handlers = new Map()
const messaging = {
  /** @param {string} name @param {(data: any) => unknown} fn */
  handle (name, fn) { handlers.set(name, fn) },
  send () { return Promise.reject(new Error('the fake messaging sends nothing')) }
}

/** @param {import('node:worker_threads').MessagePort} channelPort */
function serveChannel (channelPort) {
  channelPort.on('message', async (/** @type {any} */ message) => {
    if (message?.type !== ITC_REQUEST) return
    const { reqId, name } = message
    /** @type {{ error: object | null, data: unknown, [key: string]: unknown }} */
    const answer = { type: ITC_RESPONSE, version: ITC_VERSION, reqId, name, error: null, data: null }
    const handler = handlers.get(name)
    if (!handler) {
      answer.error = { message: `Handler not found for request: "${name}"`, code: HANDLER_NOT_FOUND }
    } else {
      try {
        answer.data = await handler(message.data)
      } catch (err) {
        const { message: text, code } = /** @type {any} */ (err)
        answer.error = { message: `Handler failed with error: ${text}`, code: HANDLER_FAILED, handlerErrorCode: code }
      }
    }
    channelPort.postMessage(answer)
  })
}

/** Watt's mesh, as far as a caller can tell: it answers 203 and records what reached it. */
class FakeMesh extends Dispatcher {
  constructor () {
    super()
    /** @type {{ origin: string, path: string, method: string, upgrade: unknown }[]} */
    this.seen = []
  }

  /** @param {any} opts @param {any} handler */
  dispatch (opts, handler) {
    const { origin, path, method, upgrade } = opts
    this.seen.push({ origin: String(origin), path, method, upgrade: upgrade ?? null })
    setImmediate(() => {
      handler.onConnect(() => {})
      if (upgrade || method === 'CONNECT') return handler.onError(new Error('the mesh has no upgrades'))
      handler.onHeaders(203, [Buffer.from('x-via'), Buffer.from('mesh')], () => {}, 'Mesh')
      handler.onData(Buffer.from(`mesh: ${method} ${origin}${path}`))
      handler.onComplete([])
    })
    return true
  }
}

const mesh = new FakeMesh()
globalThis.platformatic = /** @type {any} */ ({ events: new EventEmitter(), itc, logger, applicationId: application })
// A caller's messaging exists before the drop-in installs (callee.js registers at once); a
// target's comes just before 'start', as in Watt (callee.js waits for the event).
if (fake.messagingFirst) globalThis.platformatic.messaging = messaging
/** @type {Map<string, Dispatcher>} */
const dispatchers = new Map()
if (fake.dropIn !== false) {
  for (const [name, options] of Object.entries(fake.dispatchers ?? { default: {} })) {
    dispatchers.set(name, mesh.compose(createMeshPortInterceptor(options)))
  }
}
if (fake.messaging !== false) globalThis.platformatic.messaging = messaging
globalThis.platformatic.events.emit('start')

/** @type {http.ServerResponse[]} */
const hanging = []
let released = false
let ready = fake.server !== 'fastify'

/** @type {http.RequestListener} */
function listener (req, res) {
  /** @type {Buffer[]} */
  const parts = []
  req.on('data', (part) => parts.push(part))
  req.on('end', () => {
    port.postMessage({ type: 'seen', method: req.method, path: req.url })
    const answer = () => {
      res.setHeader('content-type', 'application/json')
      const body = Buffer.concat(parts).toString()
      res.end(JSON.stringify({ worker: index, thread: threadId, method: req.method, path: req.url, ready, body }))
    }
    if (req.url?.startsWith('/hang') && !released) hanging.push(Object.assign(res, { answer }))
    else answer()
  })
}

/**
 * An upgrade of /ws is taken (101, then every byte echoed back with the worker's index before it),
 * as `ws` takes one on the server's 'upgrade' event; any other is answered 426.
 * @param {http.IncomingMessage} req
 * @param {import('node:stream').Duplex} socket
 */
function onUpgrade (req, socket) {
  port.postMessage({ type: 'seen', method: req.method, path: req.url, upgrade: req.headers.upgrade })
  if (req.url !== '/ws') return socket.end('HTTP/1.1 426 Upgrade Required\r\nconnection: close\r\ncontent-length: 0\r\n\r\n')
  socket.write('HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\n\r\n')
  socket.on('data', (data) => socket.write(`${index}:${data}`))
  socket.on('end', () => socket.end())
}

/** @param {http.Server} server */
const listen = (server) => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
/** @type {http.Server[]} */
const servers = []
if (fake.server === 'http' || fake.server === undefined) {
  servers.push(http.createServer({ keepAliveTimeout: 10_000 }, listener))
} else if (fake.server === 'new') {
  // not made by createServer: found when it listens (the tracing channel)
  servers.push(new http.Server(listener))
} else if (fake.server === 'two') {
  servers.push(http.createServer(listener), http.createServer(listener))
} else if (fake.server === 'fastify') {
  const server = http.createServer(listener)
  // what Fastify publishes as it is built; ready() must run before the server takes http-port
  const whenReady = () => new Promise((resolve) => setTimeout(() => { ready = true; resolve(undefined) }, 50))
  channel('fastify.initialization').publish({ fastify: { server, ready: whenReady } })
  // a non-entrypoint service: never listens
} else if (fake.server !== 'none') {
  throw new Error(`unknown fake server ${fake.server}`)
}
for (const server of servers) server.on('upgrade', onUpgrade)
await Promise.all(servers.map(listen))

/**
 * One request through a named dispatcher, its outcome as data. kind 'raw': dispatch options as
 * given (`origin` a string, 'URL' for url's as a URL object, or absent).
 * @param {{ via?: string, url: string, method?: string, body?: string, kind?: string, origin?: string,
 *   abortAfter?: number }} call
 */
async function call ({ via = 'default', url, method = 'GET', body, kind = 'request', origin, abortAfter }) {
  const dispatcher = /** @type {Dispatcher} */ (dispatchers.get(via))
  const signal = abortAfter === undefined ? undefined : AbortSignal.timeout(abortAfter)
  try {
    if (kind === 'raw') {
      const options = { origin: origin === 'URL' ? new URL(url) : origin, path: new URL(url).pathname, method }
      const answer = await dispatcher.request(/** @type {any} */ (options))
      return { status: answer.statusCode, via: answer.headers['x-via'] ?? 'http-port', body: await answer.body.text() }
    }
    if (kind === 'upgrade') {
      // the bytes after the 101 are the app's: one written, its echo read, then the caller ends it
      const { origin, pathname } = new URL(url)
      const { socket } = await dispatcher.upgrade(/** @type {any} */ ({ origin, path: pathname, protocol: 'websocket' }))
      socket.write(body ?? 'ping')
      const [echoed] = await once(socket, 'data')
      socket.end()
      await once(socket, 'close')
      return { upgraded: true, echoed: String(echoed) }
    }
    if (kind === 'connect') {
      const { origin, pathname } = new URL(url)
      await dispatcher.connect({ origin, path: pathname })
      return { connected: true }
    }
    const answer = await request(url, { dispatcher, method: /** @type {any} */ (method), body, signal })
    return { status: answer.statusCode, via: answer.headers['x-via'] ?? 'http-port', body: await answer.body.text() }
  } catch (err) {
    const { name, code, message } = /** @type {any} */ (err)
    return { error: { name, code, message, application: /** @type {any} */ (err).application } }
  }
}

/** @type {Record<string, (args: any) => unknown>} */
const ops = {
  // issued in one turn, as a Promise.all of fetches would be
  calls: (list) => Promise.all(list.map(call)),
  // The same once the runtime lets go of this thread, blocked meanwhile (flag[1] = 1 says so):
  // what reached its ports during the block (a GOAWAY) is read only after the requests left.
  blockedCalls: ({ flag, list }) => {
    const slots = new Int32Array(flag)
    Atomics.store(slots, 1, 1)
    Atomics.wait(slots, 0, 0, 30_000)
    return Promise.all(list.map(call))
  },
  stats: () => meshPortStats(),
  mesh: () => mesh.seen,
  logs: () => logs,
  stop: () => { globalThis.platformatic.events.emit('stop') },
  release: () => {
    released = true
    for (const res of hanging.splice(0)) /** @type {any} */ (res).answer()
  },
  crash: () => { setImmediate(() => { throw new Error('crashed on purpose') }) },
  // the ITC gone (no Watt runtime to ask): routes looked at from now on cannot ask for workers
  dropItc: () => { delete globalThis.platformatic.itc }
}

port.on('message', async (/** @type {any} */ message) => {
  if (message?.type === 'itc-answer') {
    const waiter = itcWaiting.get(message.id)
    itcWaiting.delete(message.id)
    if (message.error) waiter?.reject(new Error(message.error))
    else waiter?.resolve(message.data)
  } else if (message?.type === 'messaging-channel') {
    serveChannel(message.port)
  } else if (message?.type === 'rpc') {
    try {
      port.postMessage({ type: 'rpc-answer', id: message.id, result: await ops[message.op](message.args) })
    } catch (err) {
      port.postMessage({ type: 'rpc-answer', id: message.id, error: String(/** @type {Error} */ (err).stack) })
    }
  }
})
port.postMessage({ type: 'ready' })
