// @ts-check
// Readiness and verification before any load: wait until all N workers answer
// (a fresh connection per probe, so the primary, the kernel or Watt spreads the
// probes), then check the measured response's status, bytes and headers.
import { Agent, get } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { BODY, CONTENT_TYPE, MEASURED_PATH, WORKER_PATH } from './handler.js'

// What node:http sends for the handler, in every target: nothing added, nothing missing.
export const EXPECTED_HEADER_NAMES = ['connection', 'content-length', 'content-type', 'date', 'keep-alive']

/**
 * One GET over its own connection, closed afterwards. keepAlive asks like a
 * load generator does (the answer then carries keep-alive headers).
 * @param {string} url
 * @param {{ timeoutMs?: number, keepAlive?: boolean }} [options]
 * @returns {Promise<{ status: number, headers: import('node:http').IncomingHttpHeaders, body: string }>}
 */
export function getOnce (url, { timeoutMs = 2000, keepAlive = false } = {}) {
  const agent = keepAlive ? new Agent({ keepAlive: true, maxSockets: 1 }) : false
  return new Promise((resolve, reject) => {
    const req = get(url, { agent, timeout: timeoutMs }, (res) => {
      const chunks = /** @type {Buffer[]} */ ([])
      res.on('data', (chunk) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }))
      res.on('error', reject)
    })
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)))
    req.on('error', reject)
  }).finally(() => { if (agent) agent.destroy() })
}

/**
 * Polls until `count` distinct workers answered, then probes a little more to
 * catch a target running more workers than asked for.
 * @param {string} baseUrl
 * @param {number} count
 * @param {{ timeoutMs?: number, isDead?: () => boolean }} [options]
 * @returns {Promise<string[]>} the worker ids ("pid:threadId")
 */
export async function waitForWorkers (baseUrl, count, { timeoutMs = 60_000, isDead = () => false } = {}) {
  const deadline = Date.now() + timeoutMs
  const seen = new Set()
  let last = 'no answer yet'
  while (seen.size < count) {
    if (isDead()) throw new Error('the target exited before it was ready')
    if (Date.now() > deadline) {
      throw new Error(`${seen.size} of ${count} worker(s) answered within ${timeoutMs} ms (last: ${last})`)
    }
    const id = await probeWorker(baseUrl)
    if (id.ok) seen.add(id.value)
    else {
      last = id.value
      await sleep(100)
    }
  }
  for (let i = 0; i < 4 * count; i++) {
    const id = await probeWorker(baseUrl)
    if (id.ok) seen.add(id.value)
  }
  if (seen.size > count) throw new Error(`${seen.size} workers answered, ${count} expected (${[...seen].join(', ')})`)
  return [...seen].sort()
}

/** @param {string} baseUrl */
async function probeWorker (baseUrl) {
  try {
    const { status, body } = await getOnce(baseUrl + WORKER_PATH)
    return status === 200 && /^\d+:\d+$/.test(body) ? { ok: true, value: body } : { ok: false, value: `status ${status}` }
  } catch (err) {
    return { ok: false, value: /** @type {NodeJS.ErrnoException} */ (err).code ?? /** @type {Error} */ (err).message }
  }
}

/**
 * Why the measured response is not the expected one, or [] when it is.
 * @param {string} baseUrl
 * @returns {Promise<string[]>}
 */
export async function verifyResponse (baseUrl) {
  const { status, headers, body } = await getOnce(baseUrl + MEASURED_PATH, { keepAlive: true })
  const problems = []
  if (status !== 200) problems.push(`status ${status}, expected 200`)
  if (body !== BODY) problems.push(`body ${JSON.stringify(body.slice(0, 80))}, expected ${JSON.stringify(BODY)}`)
  if (headers['content-type'] !== CONTENT_TYPE) problems.push(`content-type ${headers['content-type']}, expected ${CONTENT_TYPE}`)
  if (headers['content-length'] !== String(Buffer.byteLength(BODY))) problems.push(`content-length ${headers['content-length']}, expected ${Buffer.byteLength(BODY)}`)
  const names = Object.keys(headers).sort().join(',')
  if (names !== EXPECTED_HEADER_NAMES.join(',')) problems.push(`headers ${names}, expected ${EXPECTED_HEADER_NAMES.join(',')}`)
  return problems
}
