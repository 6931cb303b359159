// @ts-check
// The storefront's one way to the catalog: Next's fetch (dispatched by the runtime: Watt's
// mesh, the drop-in, or loopback TCP when GATEWAY_ORIGIN is the gateway's own port), never
// cached. A non-2xx answer throws: the page or route then fails, and the run with it.

/** @param {string} path */
export async function fromGateway (path) {
  const answer = await fetch(`${process.env.GATEWAY_ORIGIN}${path}`, { cache: 'no-store' })
  if (!answer.ok) throw new Error(`${path}: the gateway answered ${answer.status}`)
  return answer.json()
}
