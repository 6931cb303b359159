// @ts-check
// Before loading a variant: one known id (and one unknown id), each answered
// and checked in full. A variant that cannot answer correctly once (e.g. the
// buffered variant refusing a dataset too big for one string) fails here with
// the server's own reason, instead of as a wall of errors under load.
import { request } from 'undici'

/**
 * @param {string} baseUrl                            http://127.0.0.1:PORT
 * @param {import('../lib/load.js').RotatingPaths & { idOf: Map<string, string> }} rotation
 * @param {number} timeoutS
 * @param {{ unknownToo: boolean }} options
 * @returns {Promise<string[]>} what went wrong, [] when the answers are right
 */
export async function preflight (baseUrl, rotation, timeoutS, { unknownToo }) {
  const known = rotation.paths[0]
  const unknown = unknownToo ? rotation.paths.find((path) => path !== known && rotation.check(path, '[]') === null) : undefined
  const failures = []
  for (const path of [known, unknown]) {
    if (path === undefined) continue
    try {
      const { statusCode, body } = await request(baseUrl + path, { headersTimeout: timeoutS * 1000, bodyTimeout: timeoutS * 1000 })
      const text = await body.text()
      if (statusCode !== 200) {
        failures.push(`${path} answered ${statusCode}: ${messageOf(text)}`)
        continue
      }
      const wrong = rotation.check(path, text)
      if (wrong) failures.push(`${path}: ${wrong}`)
    } catch (err) {
      failures.push(`${path}: ${/** @type {Error} */ (err).message}`)
    }
  }
  return failures
}

/** @param {string} text */
function messageOf (text) {
  try {
    return JSON.parse(text).message ?? text.slice(0, 200)
  } catch {
    return text.slice(0, 200)
  }
}
