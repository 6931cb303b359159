// Each private part of Node's http server that lib/node-internals.js touches, checked on the
// Node running the tests (22, 24 and 26 are the targets): a release that renames, removes or
// changes one fails here, naming the field and the Node version, rather than in the frames wire.
import t from 'tap'
import { EventEmitter, once } from 'node:events'
import http from 'node:http'
import net from 'node:net'
import {
  addHeaderLines, assignSocket, checkingInterval, chunkedEncoding, clearNeedDrain, detachSocket, dumpUnread, hostRequired,
  httpMessageOf, isClosed, isDumped, keepAlive, markClosed, needDrainSymbol, replaceStoreHeader, requestsLimit,
  responseOptions, serverClasses, setChunkedEncoding, socketPrivates, storedHead, storedTrailer, storeHeader
} from '../lib/node-internals.js'

/** The failure message: the field, the Node release, what no longer holds. */
/** @param {string} field @param {string} what */
const about = (field, what) => `${field} on Node ${process.version}: ${what}`

/** A request as Node's parser leaves it, with no socket (as the frames wire makes them). */
function request (method = 'GET') {
  const req = /** @type {any} */ (new http.IncomingMessage(/** @type {any} */ (null)))
  Object.assign(req, { method, url: '/', httpVersionMajor: 1, httpVersionMinor: 1, httpVersion: '1.1' })
  return req
}

/** A response to `request()`, with the head _storeHeader rendered kept in `res.head`. */
function response (options = {}) {
  const res = /** @type {any} */ (new http.ServerResponse(request(), options))
  replaceStoreHeader(res, function (firstLine, headers) {
    storeHeader(this, firstLine, headers)
    this.head = storedHead(this)
  })
  return res
}

/** A stand-in for the socket Node's server gives a response: what the frames wire's Exchange offers. */
function fakeSocket ({ accept = true } = {}) {
  const socket = Object.assign(new EventEmitter(), socketPrivates(), {
    written: '',
    writable: true,
    destroyed: false,
    writableCorked: 0,
    writableLength: 0,
    writableHighWaterMark: 16384,
    cork () {},
    uncork () {},
    write (/** @type {any} */ data, /** @type {any} */ encoding, /** @type {any} */ callback) {
      if (typeof encoding === 'function') callback = encoding
      socket.written += String(data)
      if (callback) process.nextTick(callback)
      return accept
    }
  })
  return socket
}

/** A real server answering with `handler`, and the raw bytes of one request's answer. */
async function exchange (t, handler, text = 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', options = {}) {
  const server = http.createServer(options, handler)
  await once(server.listen(0, '127.0.0.1'), 'listening')
  t.teardown(() => { server.closeAllConnections(); server.close() })
  const socket = net.connect(/** @type {import('node:net').AddressInfo} */ (server.address()).port, '127.0.0.1')
  socket.end(text)
  let raw = ''
  for await (const chunk of socket) raw += chunk
  return { server, raw }
}

t.test('_storeHeader renders the head into _header, and an own replacement is called instead', async (t) => {
  t.equal(typeof (/** @type {any} */ (http.OutgoingMessage.prototype))._storeHeader, 'function',
    about('OutgoingMessage.prototype._storeHeader', 'is a function'))
  let head = ''
  const { raw } = await exchange(t, (req, res) => {
    replaceStoreHeader(res, function (firstLine, headers) {
      storeHeader(this, firstLine, headers)
      head = storedHead(this)
    })
    res.setHeader('X-Test', '1')
    res.end('ok')
  })
  t.match(head, /^HTTP\/1\.1 200 OK\r\nX-Test: 1\r\n[^]*Content-Length: 2\r\n\r\n$/,
    about('_header', 'the head _storeHeader rendered'))
  t.ok(raw.startsWith(head), about('_storeHeader', 'Node calls the response\'s own one, and writes _header'))
})

t.test('chunkedEncoding: set by _storeHeader, and read by write() and end()', async (t) => {
  const sized = response()
  sized.setHeader('Content-Length', 2)
  sized.writeHead(200)
  t.equal(chunkedEncoding(sized), false, about('chunkedEncoding', 'false with a Content-Length'))
  const streamed = response()
  streamed.writeHead(200)
  t.equal(chunkedEncoding(streamed), true, about('chunkedEncoding', 'true without a length'))
  const { raw } = await exchange(t, (req, res) => {
    replaceStoreHeader(res, function (firstLine, headers) {
      storeHeader(this, firstLine, headers)
      setChunkedEncoding(this, false)
    })
    res.write('hel')
    res.end('lo')
  })
  t.match(raw, /Transfer-Encoding: chunked\r\n/, 'the head still says chunked')
  t.ok(raw.endsWith('\r\n\r\nhello'), about('chunkedEncoding', 'cleared, the body goes unframed and no last chunk'))
})

t.test('_trailer: the lines addTrailers() stored', async (t) => {
  const res = response()
  t.equal(storedTrailer(res), '', about('_trailer', 'empty before addTrailers()'))
  res.addTrailers({ 'X-Sum': 'abc', 'X-Count': 2 })
  t.equal(storedTrailer(res), 'X-Sum: abc\r\nX-Count: 2\r\n', about('_trailer', '"Name: value\\r\\n" per trailer'))
})

t.test('_addHeaderLines fills rawHeaders and headers, as llhttp\'s callback does', async (t) => {
  const req = request()
  t.equal(typeof req._addHeaderLines, 'function', about('IncomingMessage.prototype._addHeaderLines', 'is a function'))
  const lines = ['Host', 'a.local', 'X-A', '1', 'x-a', '2', 'Set-Cookie', 'c1', 'set-cookie', 'c2']
  addHeaderLines(req, lines)
  t.same(req.rawHeaders, lines, about('_addHeaderLines', 'rawHeaders'))
  const headers = { host: 'a.local', 'x-a': '1, 2', 'set-cookie': ['c1', 'c2'] }
  t.same(req.headers, headers, about('_addHeaderLines', 'headers'))
})

t.test('_dump discards an unread body and sets _dumped', async (t) => {
  const req = request('POST')
  req.push(Buffer.from('abc'))
  req.push(null)
  t.equal(isDumped(req), false, about('_dumped', 'false on a new request'))
  t.equal(typeof req._dump, 'function', about('IncomingMessage.prototype._dump', 'is a function'))
  dumpUnread(req)
  t.equal(isDumped(req), true, about('_dumped', 'true after _dump()'))
  await once(req, 'end')
  t.pass(about('_dump', 'the body was read to its end'))
})

t.test('_consuming: set once the body is read, and then no _dump', async (t) => {
  const req = request('POST')
  t.equal(req._consuming, false, about('_consuming', 'false before any read'))
  req.push(Buffer.from('abc'))
  req.read()
  t.equal(req._consuming, true, about('_consuming', 'true once read'))
  dumpUnread(req)
  t.equal(isDumped(req), false, 'a body being read is not dumped')
})

t.test('_readableState.resumeScheduled: true between resume() and its tick, and then no _dump', async (t) => {
  const req = request('POST')
  const field = '_readableState.resumeScheduled'
  t.equal(req._readableState.resumeScheduled, false, about(field, 'false before resume()'))
  req.resume()
  t.equal(req._readableState.resumeScheduled, true, about(field, 'true right after resume()'))
  dumpUnread(req)
  t.equal(isDumped(req), false, 'a body about to flow is not dumped')
})

t.test('the options Node makes a ServerResponse with: highWaterMark, rejectNonStandardBodyWrites', async (t) => {
  const field = 'server.rejectNonStandardBodyWrites'
  const strict = /** @type {any} */ (http.createServer({ rejectNonStandardBodyWrites: true }))
  t.equal(strict.rejectNonStandardBodyWrites, true, about(field, 'the option'))
  t.equal(/** @type {any} */ (http.createServer()).rejectNonStandardBodyWrites, false, about(field, 'false by default'))
  const head = new http.ServerResponse(request('HEAD'), /** @type {any} */ (responseOptions(strict, 1234)))
  t.equal(head.writableHighWaterMark, 1234, about('ServerResponse options.highWaterMark', 'taken'))
  t.throws(() => head.write('x'), { code: 'ERR_HTTP_BODY_NOT_ALLOWED' },
    about('ServerResponse options.rejectNonStandardBodyWrites', 'a body on HEAD throws'))
})

t.test('_keepAliveTimeout and shouldKeepAlive: the Keep-Alive header', async (t) => {
  const res = response()
  keepAlive(res, 7000)
  res.writeHead(200)
  t.match(res.head, /\r\nConnection: keep-alive\r\nKeep-Alive: timeout=7\r\n/,
    about('_keepAliveTimeout', 'Keep-Alive: timeout=7'))
  const without = response()
  keepAlive(without, 0)
  without.writeHead(200)
  t.notMatch(without.head, /Keep-Alive:/, about('_keepAliveTimeout', 'none at 0'))
})

t.test('assignSocket: the response writes to its socket, through _httpMessage', async (t) => {
  const res = response()
  const socket = fakeSocket()
  assignSocket(res, socket)
  t.equal(httpMessageOf(socket), res, about('socket._httpMessage', 'the response assignSocket gave the socket'))
  t.equal(res.socket, socket)
  t.throws(() => assignSocket(response(), socket), { code: 'ERR_HTTP_SOCKET_ASSIGNED' },
    about('socket._httpMessage', 'read by assignSocket'))
  res.end('hi')
  await once(res, 'finish')
  t.match(socket.written, /^HTTP\/1\.1 200 OK\r\n[^]*\r\n\r\nhi$/,
    about('assignSocket', 'head and body written to the socket'))
})

t.test('_writableState.corked: end() uncorks the socket fully through it', async (t) => {
  const res = response()
  const socket = fakeSocket()
  assignSocket(res, socket)
  res.end()
  t.equal(socket._writableState.corked, 1, about('socket._writableState.corked', 'set by end() before uncork()'))
})

t.test('detachSocket: the socket is free for the next response', async (t) => {
  const res = response()
  const socket = fakeSocket()
  assignSocket(res, socket)
  res.end()
  await once(res, 'finish')
  detachSocket(res, socket)
  t.equal(httpMessageOf(socket), null, about('detachSocket', 'clears socket._httpMessage'))
  t.equal(res.socket, null, about('detachSocket', 'clears res.socket'))
})

t.test('_httpMessage on a real connection: the response being served, null between', async (t) => {
  /** @type {unknown[]} */
  const seen = []
  await exchange(t, (req, res) => { seen.push(httpMessageOf(req.socket) === res); res.end() })
  t.same(seen, [true], about('socket._httpMessage', 'the response Node\'s server assigned'))
})

t.test('kNeedDrain: found by its description, behind writableNeedDrain', async (t) => {
  const res = response()
  assignSocket(res, fakeSocket({ accept: false }))
  const symbol = needDrainSymbol(res)
  t.equal(typeof symbol, 'symbol', about('OutgoingMessage kNeedDrain', 'an own symbol described "kNeedDrain"'))
  // more than the high-water mark: Node 26 buffers a corked socket's chunks, and counts them against it
  t.equal(res.write('x'.repeat(32 * 1024)), false, 'a full socket')
  t.equal(res.writableNeedDrain, true, about('kNeedDrain', 'set by write() when the socket is full'))
  clearNeedDrain(res)
  t.equal(res.writableNeedDrain, false, about('kNeedDrain', 'cleared, writableNeedDrain follows'))
})

t.test('_closed: set by Node as the response emits close', async (t) => {
  /** @type {any} */
  let res
  await exchange(t, (req, r) => { res = r; r.end() })
  if (!res.closed) await once(res, 'close')
  t.equal(isClosed(res), true, about('ServerResponse._closed', 'true once closed'))
  const fresh = response()
  t.equal(isClosed(fresh), false, about('ServerResponse._closed', 'false on a new response'))
  markClosed(fresh)
  t.equal(isClosed(fresh), true)
})

t.test('the server\'s IncomingMessage and ServerResponse classes, on its symbols', async (t) => {
  class Incoming extends http.IncomingMessage {}
  class Response extends http.ServerResponse {}
  const server = http.createServer({ IncomingMessage: Incoming, ServerResponse: /** @type {any} */ (Response) })
  const custom = serverClasses(server)
  t.equal(custom.IncomingMessage, Incoming, about('server[Symbol(IncomingMessage)]', 'the class createServer took'))
  t.equal(custom.ServerResponse, Response, about('server[Symbol(ServerResponse)]', 'the class createServer took'))
  const defaults = { IncomingMessage: http.IncomingMessage, ServerResponse: http.ServerResponse }
  t.same(serverClasses(http.createServer()), defaults, 'a server made without them: Node\'s own')
})

t.test('_maxRequestsPerSocket and maxRequestsOnConnectionReached: Keep-Alive max=N, Connection: close at the limit', async (t) => {
  const res = response()
  keepAlive(res, 7000)
  requestsLimit(res, 3)
  res.writeHead(200)
  t.match(res.head, /\r\nConnection: keep-alive\r\nKeep-Alive: timeout=7, max=3\r\n/,
    about('_maxRequestsPerSocket', 'Keep-Alive: timeout=7, max=3'))
  const last = response()
  keepAlive(last, 7000)
  requestsLimit(last, 1)
  last.writeHead(200)
  t.match(last.head, /\r\nConnection: close\r\n/, about('maxRequestsOnConnectionReached', 'Connection: close'))
  t.notMatch(last.head, /keep-alive/i, about('maxRequestsOnConnectionReached', 'no keep-alive'))
  // Node's server sets them for each request it parses: compared over both wires in
  // test/mesh-port/frames/callee-contracts.test.js
})

t.test('requireHostHeader: the option, and Node\'s 400 without Host', async (t) => {
  t.equal(hostRequired(http.createServer()), true, about('server.requireHostHeader', 'true by default'))
  t.equal(hostRequired(http.createServer({ requireHostHeader: false })), false, about('server.requireHostHeader', 'the option'))
  const { raw } = await exchange(t, (req, res) => res.end('served'), 'GET / HTTP/1.1\r\nConnection: close\r\n\r\n')
  t.match(raw, /^HTTP\/1\.1 400 Bad Request\r\nConnection: close\r\n/, about('requireHostHeader', 'a 400, Connection: close'))
})

t.test('connectionsCheckingInterval: the option, 30 s by default', async (t) => {
  t.equal(checkingInterval(http.createServer({ connectionsCheckingInterval: 1234 })), 1234,
    about('server.connectionsCheckingInterval', 'the option'))
  t.equal(checkingInterval(http.createServer()), 30_000, about('server.connectionsCheckingInterval', '30 s by default'))
})
