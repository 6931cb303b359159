// @ts-check
// Is this the answer every server must give? Status and body are hard
// requirements; headers are compared with node:http's and differences reported.
import { Client } from 'undici'
import { CONTENT_LENGTH, CONTENT_TYPE, HELLO } from './hello.js'

// Our two headers plus what node:http adds on a keep-alive connection; `date`
// changes every second, so only its presence is not compared.
export const EXPECTED_HEADERS = /** @type {Record<string, string>} */ ({
  'content-type': CONTENT_TYPE,
  'content-length': CONTENT_LENGTH,
  connection: 'keep-alive',
  'keep-alive': 'timeout=5'
})
const IGNORED = new Set(['date'])

/**
 * @typedef {{ statusCode: number, body: string, headers: Record<string, string> }} HelloAnswer
 */

/**
 * One keep-alive GET / on a client of its own, closed afterwards so no idle
 * socket of ours delays the server's stop; headers lower-cased.
 * @param {string} origin  http://127.0.0.1:PORT
 * @returns {Promise<HelloAnswer>}
 */
export async function getHello (origin) {
  const client = new Client(origin, { headersTimeout: 3000, bodyTimeout: 3000 })
  try {
    const { statusCode, headers, body } = await client.request({ method: 'GET', path: '/' })
    /** @type {Record<string, string>} */
    const flat = {}
    for (const [name, value] of Object.entries(headers)) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value)
    return { statusCode, headers: flat, body: await body.text() }
  } finally {
    await client.close()
  }
}

/**
 * Why this answer is wrong, or [] when it is right.
 * @param {HelloAnswer} answer
 */
export function helloFailures ({ statusCode, body }) {
  const failures = []
  if (statusCode !== 200) failures.push(`status ${statusCode}, expected 200`)
  if (body !== HELLO) failures.push(`body ${JSON.stringify(body.slice(0, 60))}, expected ${JSON.stringify(HELLO)}`)
  return failures
}

/**
 * How the headers differ from what node:http sends, e.g. ['extra x-powered-by: Express'].
 * @param {Record<string, string>} headers  lower-cased
 */
export function headerDifferences (headers) {
  const differences = []
  for (const [name, value] of Object.entries(EXPECTED_HEADERS)) {
    if (!(name in headers)) differences.push(`missing ${name}`)
    else if (headers[name] !== value) differences.push(`${name}: ${headers[name]} (node:http: ${value})`)
  }
  for (const [name, value] of Object.entries(headers)) {
    if (!(name in EXPECTED_HEADERS) && !IGNORED.has(name)) differences.push(`extra ${name}: ${value}`)
  }
  return differences
}
