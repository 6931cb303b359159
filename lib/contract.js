// @ts-check
// The one contract every downstream service serves and every caller verifies.
// Bodies are built here, once, so the four services and the `direct` floor send
// byte-identical answers and verification can be a plain byte comparison.
import { SERVICES } from './topology.js'

/** The downstream services' names, in fan-out order (from lib/topology.js). */
export const DOWNSTREAM_SERVICES = Object.freeze(SERVICES.map((service) => service.name))
export const MAX_SIZE = 1024 * 1024
export const DEFAULT_SIZE = 64
export const MAX_DELAY_MS = 30_000

/** @typedef {{ service: string, size: number, pad: string }} Hello */
/**
 * Fault injection, bounded so nobody can turn a service into a resource sink.
 * @typedef {{ delay?: number, corrupt?: boolean }} Fault
 */

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789'
const MAX_CACHED = 64
const padCache = new Map()
const bodyCache = new Map()

/**
 * A deterministic pad that varies byte to byte, so a flipped byte anywhere is caught.
 * @param {number} size
 * @returns {string}
 */
export function pad (size) {
  let value = padCache.get(size)
  if (value === undefined) {
    value = ALPHABET.repeat(Math.ceil(size / ALPHABET.length)).slice(0, size)
    if (padCache.size >= MAX_CACHED) padCache.clear()
    padCache.set(size, value)
  }
  return value
}

/**
 * @param {string} service
 * @param {number} size
 * @returns {Hello}
 */
export function helloObject (service, size) {
  return { service, size, pad: pad(size) }
}

/**
 * The exact bytes `GET /hello?size=N` answers with (cached per service and size).
 * @param {string} service
 * @param {number} size
 * @returns {Buffer}
 */
export function helloBody (service, size) {
  const key = service + ':' + size
  let body = bodyCache.get(key)
  if (body === undefined) {
    body = Buffer.from(JSON.stringify(helloObject(service, size)))
    if (bodyCache.size >= MAX_CACHED) bodyCache.clear()
    bodyCache.set(key, body)
  }
  return body
}

/**
 * The one definition of a corrupt answer, for every transport: the right answer
 * with the last character of its pad (of its service name when there is no pad)
 * changed. Same shape and length, wrong content: only a content check catches it.
 * @param {string} service
 * @param {number} size
 * @returns {Hello}
 */
export function corruptHello (service, size) {
  const hello = helloObject(service, size)
  const field = hello.pad ? 'pad' : 'service'
  const value = hello[field]
  return { ...hello, [field]: value.slice(0, -1) + (value.endsWith('!') ? '#' : '!') }
}

/**
 * The corrupt answer as HTTP bytes: corruptHello serialised, one byte off helloBody.
 * @param {string} service
 * @param {number} size
 */
export function corruptBody (service, size) {
  return Buffer.from(JSON.stringify(corruptHello(service, size)))
}

/**
 * Checks an HTTP answer against the contract. Returns null when it is right,
 * otherwise a sentence saying what is wrong.
 * @param {string} service
 * @param {number} size
 * @param {number} status
 * @param {Buffer} body
 * @returns {string | null}
 */
export function checkHelloBody (service, size, status, body) {
  if (status !== 200) return `answered status ${status}`
  const expected = helloBody(service, size)
  if (body.length !== expected.length) return `sent ${body.length} bytes, expected ${expected.length}`
  if (!body.equals(expected)) return 'sent a body that does not match the contract'
  return null
}

/**
 * Checks an RPC answer (a structured-cloned object) against the contract.
 * @param {string} service
 * @param {number} size
 * @param {unknown} value
 * @returns {string | null}
 */
export function checkHelloObject (service, size, value) {
  if (value === null || typeof value !== 'object') return 'answered something that is not an object'
  const hello = /** @type {Hello} */ (value)
  if (hello.service !== service) return `answered as ${JSON.stringify(hello.service)}`
  if (hello.size !== size || typeof hello.pad !== 'string' || hello.pad.length !== size) {
    return `answered size ${hello.size}, expected ${size}`
  }
  if (hello.pad !== pad(size)) return 'answered a pad that does not match the contract'
  return null
}

/**
 * Parses the `/hello` query (or an RPC message). Throws a RangeError with a
 * clear message on bad input; the caller turns that into a 400.
 * @param {Record<string, unknown>} query
 * @returns {{ size: number, fault: Fault }}
 */
export function parseHelloRequest (query) {
  const size = intInRange(query.size, 'size', 0, MAX_SIZE, DEFAULT_SIZE)
  const delay = intInRange(query.delay, 'delay', 0, MAX_DELAY_MS, 0)
  const corrupt = query.corrupt === true || query.corrupt === '1' || query.corrupt === 'true'
  return { size, fault: { delay, corrupt } }
}

/**
 * @param {unknown} raw
 * @param {string} name
 * @param {number} min
 * @param {number} max
 * @param {number} fallback
 */
function intInRange (raw, name, min, max, fallback) {
  if (raw === undefined || raw === '') return fallback
  const value = typeof raw === 'number' ? raw : Number(raw)
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${name} must be an integer from ${min} to ${max}`)
  }
  return value
}
