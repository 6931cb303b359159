// @ts-check
// The exact body the entry must send for a transport, size and fan-out: the
// load generator compares every response against it.
import { DOWNSTREAM_SERVICES, helloBody } from '../../lib/contract.js'

/**
 * @param {string} transport
 * @param {number} size
 * @param {number} fanout
 */
export function expectedEntryBody (transport, size, fanout) {
  const results = DOWNSTREAM_SERVICES.slice(0, fanout).map((service) => ({ service, status: 200, bytes: helloBody(service, size).length }))
  return JSON.stringify({ transport, size, fanout, results })
}

/**
 * @param {string} baseUrl
 * @param {string} transport
 * @param {number} size
 * @param {number} fanout
 * @param {string} [fault]  e.g. node3:corrupt, forwarded as the route's fault parameter
 */
export function entryUrl (baseUrl, transport, size, fanout, fault) {
  return `${baseUrl}/tsfastify/${transport}?size=${size}&fanout=${fanout}${fault ? `&fault=${fault}` : ''}`
}
