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

/**
 * The verified load of one transport case against the runtime at `baseUrl`:
 * shared by the bench and the profiler, so both check the same bytes.
 * @param {string} baseUrl
 * @param {import('../lib/types.js').Case} kase  transport, size, fanout, connections, pipelining, fault?
 */
export function entryLoad (baseUrl, kase) {
  return {
    url: entryUrl(baseUrl, kase.transport, kase.size, kase.fanout, kase.fault),
    connections: kase.connections,
    pipelining: kase.pipelining,
    expectBody: expectedEntryBody(kase.transport, kase.size, kase.fanout)
  }
}
