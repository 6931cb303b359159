// @ts-check
// The fuzz pass's requests, as raw bytes (so malformed ones reach the server as
// written): random and malformed query strings, huge values, unknown paths, bad
// methods, oversized and broken headers, broken request lines; on the entry's
// routes (by default the plain runtime's, one per transport available there) and
// on each downstream service's own loopback listener.
import { DOWNSTREAM_SERVICES, MAX_SIZE } from '../../../lib/contract.js'
import { availableTransports, routeOf } from '../../../lib/topology.js'
import { createRandom } from './random.js'

/**
 * @typedef {object} FuzzCase
 * @property {number} id
 * @property {string} surface          'entry' or a downstream service's name (its own port)
 * @property {string} kind             which generator made it
 * @property {string} method
 * @property {Buffer} bytes            exactly what is written to the socket
 * @property {boolean} deliberateFault carries a well-formed ?fault=: a 502/504 is the expected answer
 */

const HEADER_LIMIT = 16 * 1024 // Node's default --max-http-header-size
/** The plain runtime's routes, one per transport available there. */
export const ENTRY_ROUTES = availableTransports().map(routeOf)

/** @type {[number, string][]} */
const KINDS = [
  [30, 'query'],
  [8, 'huge-value'],
  [4, 'oversized-url'],
  [12, 'unknown-path'],
  [12, 'method'],
  [8, 'oversized-headers'],
  [10, 'bad-headers'],
  [10, 'bad-request-line'],
  [6, 'fault']
]

/**
 * @param {{ count: number, seed: number, routes?: readonly string[] }} options
 *   routes: the entry routes the entry's cases go to (mesh-port's runtime: its route alone)
 * @returns {FuzzCase[]}
 */
export function generateCases ({ count, seed, routes = ENTRY_ROUTES }) {
  const r = createRandom(seed)
  const cases = []
  for (let id = 1; id <= count; id++) {
    const surface = r.chance(0.8) ? 'entry' : r.pick(DOWNSTREAM_SERVICES)
    const kind = r.weighted(KINDS)
    cases.push({ id, surface, kind, ...build(r, kind, surface, routes) })
  }
  return cases
}

/**
 * @param {import('./random.js').Random} r
 * @param {string} kind
 * @param {string} surface
 * @param {readonly string[]} routes
 * @returns {{ method: string, bytes: Buffer, deliberateFault: boolean }}
 */
function build (r, kind, surface, routes) {
  const entry = surface === 'entry'
  const route = entry ? r.pick(routes) : '/hello'
  const get = (/** @type {string} */ target, /** @type {Partial<RequestSpec>} */ extra = {}) => ({ method: 'GET', bytes: httpRequest({ method: 'GET', target, ...extra }), deliberateFault: false })

  switch (kind) {
    case 'query':
      return get(route + '?' + randomQuery(r, entry))
    case 'huge-value': {
      const room = HEADER_LIMIT - 512
      const value = r.pick(['9', 'a', '%41', '1,'])
      const key = r.pick(entry ? ['size', 'fanout', 'fault', r.string(8)] : ['size', 'delay', 'corrupt', r.string(8)])
      return get(`${route}?${key}=${value.repeat(Math.floor(r.int(1000, room) / value.length))}`)
    }
    case 'oversized-url':
      return get(`${route}?size=1&pad=${'x'.repeat(r.int(HEADER_LIMIT + 100, 4 * HEADER_LIMIT))}`)
    case 'unknown-path':
      return get(unknownPath(r) + (r.chance(0.3) ? '?' + randomQuery(r, entry) : ''))
    case 'method':
      return badMethod(r, route)
    case 'oversized-headers':
      return get(route, { headers: oversizedHeaders(r) })
    case 'bad-headers':
      return { method: 'GET', bytes: badHeaders(r, route), deliberateFault: false }
    case 'bad-request-line':
      return { method: '?', bytes: badRequestLine(r, route), deliberateFault: false }
    case 'fault': {
      if (!entry) return get(`/hello?corrupt=1&delay=${r.int(0, 300)}&size=${r.int(0, 2048)}`)
      const service = r.pick(DOWNSTREAM_SERVICES)
      const fault = r.chance(0.6) ? `${service}:corrupt` : `${service}:delay:${r.pick([0, 5, 100, 2500, 3500, 99999])}`
      const query = `fault=${encodeURIComponent(fault)}&fanout=${r.int(1, 4)}&size=${r.int(0, 4096)}`
      return { method: 'GET', bytes: httpRequest({ method: 'GET', target: `${route}?${query}` }), deliberateFault: true }
    }
    default:
      throw new Error(`unknown fuzz kind ${kind}`)
  }
}

/**
 * @typedef {object} RequestSpec
 * @property {string} method
 * @property {string} target
 * @property {string} [version]
 * @property {[string, string][]} [headers]
 * @property {string} [body]
 * @property {boolean} [host]   send a Host header (HTTP/1.1 requires one)
 * @property {string} [eol]
 */

/**
 * A request as bytes; latin1 keeps every char a single byte, as written.
 * `Connection: close` lets the reader take "socket closed" as "answer complete".
 * @param {RequestSpec} spec
 */
export function httpRequest ({ method, target, version = 'HTTP/1.1', headers = [], body = '', host = true, eol = '\r\n' }) {
  const lines = [`${method} ${target} ${version}`]
  if (host) lines.push('Host: 127.0.0.1')
  for (const [name, value] of headers) lines.push(`${name}: ${value}`)
  if (body && !headers.some(([name]) => /^(content-length|transfer-encoding)$/i.test(name))) lines.push(`Content-Length: ${Buffer.byteLength(body, 'latin1')}`)
  lines.push('Connection: close')
  return Buffer.from(lines.join(eol) + eol + eol + body, 'latin1')
}

/**
 * @param {import('./random.js').Random} r
 * @param {boolean} entry
 */
function randomQuery (r, entry) {
  const keys = entry ? ['size', 'fanout', 'fault'] : ['size', 'delay', 'corrupt']
  const junkKeys = ['__proto__', 'constructor', 'prototype', 'size[]', 'size[0]', 'a.b', '', '%00', '=', 'toString', r.string(r.int(1, 30))]
  const parts = []
  for (let i = r.int(0, 6); i > 0; i--) {
    const key = r.chance(0.75) ? r.pick(keys) : r.pick(junkKeys)
    const value = randomValue(r, key, entry)
    const encoded = r.chance(0.6) ? encodeURIComponent(value) : value.replace(/[\s#]/g, (c) => encodeURIComponent(c))
    parts.push(r.chance(0.1) ? key : `${key}=${encoded}`)
  }
  return parts.join(r.chance(0.9) ? '&' : r.pick([';', '&&', '&amp;']))
}

/**
 * @param {import('./random.js').Random} r
 * @param {string} key
 * @param {boolean} entry
 */
function randomValue (r, key, entry) {
  const numbers = ['-1', '1.5', '1e3', '0x10', '+5', '-0', '5abc', 'NaN', 'Infinity', '', ' ', '0'.repeat(50) + '7',
    String(MAX_SIZE + 1), '99999999999999999999', '9'.repeat(r.int(20, 400)), '%zz', '%', '%ff%fe', '%00', '[]', '{}', 'null', 'true',
    '\u0663', '\uff11', 'ünïcödé', '1;DROP TABLE', '../../etc/passwd', '<script>', '$' + '{7*7}']
  if (key === 'size') return r.chance(0.35) ? String(r.int(0, 4096)) : r.pick(numbers)
  if (key === 'fanout') return r.chance(0.35) ? String(r.int(1, 4)) : r.pick([...numbers, '0', '5'])
  if (key === 'delay') return r.chance(0.3) ? String(r.int(0, 50)) : r.pick(numbers.filter((n) => !/^9+$/.test(n)))
  if (key === 'corrupt') return r.pick(['1', 'true', '0', 'yes', '', 'TRUE', '%00'])
  if (key === 'fault') {
    const service = r.pick(DOWNSTREAM_SERVICES)
    return r.pick(['nobody:corrupt', `${service}:explode`, `${service}:delay:`, `${service}:delay:-1`, `${service}:delay:123456`,
      `${service}:corrupt:extra`, ':::', '', `${service.toUpperCase()}:corrupt`, `${service}:delay:1e3`, `${service}:delay:0x10`,
      `${service}:corrupt\n`, `${service} :corrupt`, r.string(r.int(1, 200)), `${service}:delay:${'9'.repeat(r.int(6, 40))}`])
  }
  return entry ? r.pick(numbers) : r.string(r.int(0, 40))
}

/** @param {import('./random.js').Random} r */
function unknownPath (r) {
  const utf8 = (/** @type {string} */ s) => Buffer.from(s, 'utf8').toString('latin1')
  return r.pick([
    '/', '/tsfastify', '/tsfastify/', '/tsfastify/IPC', '/tsfastify/ipc/', '/tsfastify/ipc/extra', '/tsfastify/udp',
    '/tsfastify/../tsfastify/ipc', '/tsfastify/%2e%2e/ipc', '//tsfastify/ipc', '/tsfastify//ipc', '/%00', '/%zz', '/hello',
    '/metrics', '/ready', '/documentation', '/.env', '/favicon.ico', '/tsfastify/ipc;x=1', '/tsfastify/ipc%3Fsize=1',
    '/tsfastify/%69pc', utf8('/tsfastify/ïpc'), '/' + r.string(r.int(1, 60), 'abc/%.-_'), '/' + 'a/'.repeat(r.int(10, 2000)),
    '/' + 'x'.repeat(r.int(100, 12_000)), '/tsfastify/ipc#frag', '/\\tsfastify\\ipc', '/tsfastify/ipc/..%2f..%2f', '/hello/',
    '/HELLO', '/hello/../hello'
  ])
}

/**
 * @param {import('./random.js').Random} r
 * @param {string} route
 * @returns {{ method: string, bytes: Buffer, deliberateFault: boolean }}
 */
function badMethod (r, route) {
  const method = r.pick(['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND', 'SEARCH', 'QUERY', 'FOO', 'get', 'Get', 'M-SEARCH', 'BREW', 'A'.repeat(r.int(10, 300))])
  const body = ['POST', 'PUT', 'PATCH', 'QUERY'].includes(method) && r.chance(0.7)
    ? r.pick(['{"size":1}', '{', 'size=1&fanout=2', 'x'.repeat(r.int(1000, 64_000)), '\u0000\u00ff'])
    : ''
  const headers = /** @type {[string, string][]} */ (body ? [['Content-Type', r.pick(['application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/octet-stream'])]] : [])
  return { method, bytes: httpRequest({ method, target: route + (r.chance(0.5) ? '?size=1' : ''), headers, body }), deliberateFault: false }
}

/**
 * @param {import('./random.js').Random} r
 * @returns {[string, string][]}
 */
function oversizedHeaders (r) {
  switch (r.int(0, 4)) {
    case 0: return [['X-Fuzz', 'v'.repeat(r.int(HEADER_LIMIT + 1, 4 * HEADER_LIMIT))]]
    case 1: return Array.from({ length: r.int(100, 2500) }, (_, i) => /** @type {[string, string]} */ ([`X-H-${i}`, r.string(r.int(1, 12))]))
    case 2: return [['Cookie', Array.from({ length: r.int(500, 3000) }, (_, i) => `c${i}=${r.string(8)}`).join('; ')]]
    case 3: return [['X-' + 'n'.repeat(r.int(HEADER_LIMIT, 2 * HEADER_LIMIT)), 'v']]
    default: return [['X-Fuzz', 'v'.repeat(r.int(1000, HEADER_LIMIT - 1000))]] // large but legal
  }
}

/**
 * @param {import('./random.js').Random} r
 * @param {string} route
 */
function badHeaders (r, route) {
  const target = route + '?size=8'
  const variants = [
    () => httpRequest({ method: 'GET', target, headers: [['X-Bad', 'a\u0000b']] }),
    () => httpRequest({ method: 'GET', target, headers: [['X-Bad\u0001', 'v']] }),
    () => httpRequest({ method: 'GET', target, headers: [['X-Fold', 'a\r\n folded']] }),
    () => httpRequest({ method: 'GET', target, headers: [['NoColonHere\r\nX-A', 'b']] }),
    () => httpRequest({ method: 'GET', target, headers: [['X-A', 'b\rX-B: c']] }),
    () => httpRequest({ method: 'GET', target, headers: [['Content-Length', '3'], ['Transfer-Encoding', 'chunked']], body: '0\r\n\r\n' }),
    () => httpRequest({ method: 'GET', target, headers: [['Content-Length', r.pick(['abc', '-1', '1, 2', '0x10', ' '])]] }),
    () => httpRequest({ method: 'GET', target, headers: [['Content-Length', '2'], ['Content-Length', '3']], body: 'abc' }),
    () => httpRequest({ method: 'GET', target, headers: [['Transfer-Encoding', 'chunked']], body: 'zz\r\nabc\r\n0\r\n\r\n' }),
    () => httpRequest({ method: 'GET', target, headers: [['Transfer-Encoding', 'chunked']], body: '3\r\nabc\r\n0\r\n\r\n' }),
    () => httpRequest({ method: 'GET', target, headers: [['Transfer-Encoding', r.pick(['gzip, chunked', 'chunked, gzip', 'identity', 'x'])]], body: '0\r\n\r\n' }),
    () => httpRequest({ method: 'GET', target, headers: [['Expect', '100-continue']] }),
    () => httpRequest({ method: 'GET', target, headers: [['Expect', r.pick(['something-else', '200-ok'])]] }),
    () => httpRequest({ method: 'GET', target, host: false }),
    () => httpRequest({ method: 'GET', target, headers: [['Host', 'evil.example']] }),
    () => httpRequest({ method: 'GET', target, host: false, headers: [['Host', '']] }),
    () => httpRequest({ method: 'GET', target, headers: [['Upgrade', 'websocket'], ['Sec-WebSocket-Version', '13'], ['Sec-WebSocket-Key', 'dGhlIHNhbXBsZSBub25jZQ==']] }),
    () => httpRequest({ method: 'GET', target, headers: [['X-Latin1', '\u00ff\u00fe\u00e9']] }),
    () => httpRequest({ method: 'GET', target, headers: [['Accept-Encoding', 'gzip;q=' + '9'.repeat(500)], ['Accept', '*/*;q=nope']] }),
    () => httpRequest({ method: 'GET', target, headers: [['Content-Type', 'application/json; charset=' + 'x'.repeat(2000)]] }),
    () => httpRequest({ method: 'GET', target, headers: [['X-Forwarded-For', Array.from({ length: 500 }, () => '10.0.0.1').join(', ')]] })
  ]
  return r.pick(variants)()
}

/**
 * @param {import('./random.js').Random} r
 * @param {string} route
 */
function badRequestLine (r, route) {
  const variants = [
    () => 'garbage\r\n\r\n',
    () => 'GET\r\n\r\n',
    () => `GET ${route}\r\n\r\n`,
    () => `GET ${route} HTTP/2.0\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
    () => `GET ${route} HTTP/1.2\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
    () => `GET ${route} HTTP/3\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
    () => `GET ${route} http/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
    () => `GET ${route} HTTP/1.0\r\n\r\n`,
    () => `GET http://evil.example${route} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
    () => 'OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
    () => `GET ${route}?a=b c HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
    () => `GET ${route}\u0000 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
    () => `GET ${route} HTTP/1.1\nHost: 127.0.0.1\nConnection: close\n\n`,
    () => `\r\n\r\nGET ${route} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
    () => `GET  ${route}  HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
    () => `${'A'.repeat(r.int(100, 5000))} ${route} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
    () => '\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u0001\u00fc\u0003\u0003' + r.string(64), // a TLS ClientHello's start
    () => 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', // the HTTP/2 preface
    () => Array.from({ length: r.int(1, 200) }, () => String.fromCharCode(r.int(0, 255))).join('') + '\r\n\r\n'
  ]
  return Buffer.from(r.pick(variants)(), 'latin1')
}
