// @ts-check
// What the fuzz pass accepts: no 5xx except a deliberate (fault-injected) 502/504
// naming a service, every 4xx with a JSON error body, no hang, nobody refusing
// connections (a crash). A dropped connection without an answer is allowed
// (e.g. CONNECT-like abuse) but counted.
import { DOWNSTREAM_SERVICES } from '../../../lib/contract.js'

/**
 * @param {import('./cases.js').FuzzCase} fuzzCase
 * @param {import('./raw-http.js').RawAnswer} answer
 * @returns {string | null}  the problem, or null when the answer is acceptable
 */
export function judgeAnswer (fuzzCase, answer) {
  if (answer.outcome === 'timeout') return 'no answer: hung past the timeout'
  if (answer.outcome === 'refused') return 'connection refused: the listener is gone (crash?)'
  if (answer.outcome !== 'answered') return null
  const status = /** @type {number} */ (answer.status)
  if (status >= 500) {
    if ((status === 502 || status === 504) && fuzzCase.deliberateFault && fuzzCase.surface === 'entry') {
      return namesAService(answer.body ?? '') ? null : `${status} without a JSON body naming the service`
    }
    return `${status} (a 5xx nobody asked for)`
  }
  if (status >= 400) {
    if (fuzzCase.method === 'HEAD') return null // HEAD answers carry no body, by HTTP's rules
    return jsonErrorBody(status, answer) ? null : `${status} without a JSON error body`
  }
  return null
}

/**
 * @param {number} status
 * @param {import('./raw-http.js').RawAnswer} answer
 */
function jsonErrorBody (status, answer) {
  if (!/json/i.test(answer.headers?.['content-type'] ?? '')) return false
  try {
    const json = JSON.parse(answer.body ?? '')
    return json !== null && typeof json === 'object' && json.statusCode === status && (typeof json.message === 'string' || typeof json.error === 'string')
  } catch {
    return false
  }
}

/** @param {string} body */
function namesAService (body) {
  try {
    const json = JSON.parse(body)
    return typeof json.service === 'string' && json.service.split(', ').every((/** @type {string} */ name) => DOWNSTREAM_SERVICES.includes(/** @type {any} */ (name)))
  } catch {
    return false
  }
}
