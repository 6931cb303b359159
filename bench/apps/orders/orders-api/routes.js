// @ts-check
// orders-api: a checkout. Fastify validates the order, pricing-api quotes it
// (a service-to-service call), and the order is written to the db (a POST by
// fetch); the answer is the row as written. The origins come from the
// runtime's config: the mesh's names, or loopback ports on tcp.
import { fetchJson } from '../../shared/fetch-json.js'
import { MAX_QUANTITY } from '../pricing.js'

/** @param {import('fastify').FastifyInstance} app */
export default async function routes (app) {
  const db = /** @type {string} */ (process.env.DB_ORIGIN)
  const pricing = /** @type {string} */ (process.env.PRICING_API_ORIGIN)
  app.post('/checkout', {
    schema: {
      body: {
        type: 'object',
        additionalProperties: false,
        properties: {
          ref: { type: 'string', pattern: '^[a-z0-9-]{1,64}$' },
          productId: { type: 'integer', minimum: 1 },
          quantity: { type: 'integer', minimum: 1, maximum: MAX_QUANTITY }
        },
        required: ['ref', 'productId', 'quantity']
      }
    }
  }, async (request) => {
    const { ref, productId, quantity } = /** @type {{ ref: string, productId: number, quantity: number }} */ (request.body)
    const quote = await fetchJson(`${pricing}/quote?productId=${productId}&quantity=${quantity}`)
    const order = await fetchJson(`${db}/orders/`, { method: 'POST', body: { ref, productId, quantity, totalCents: quote.totalCents } })
    return { id: Number(order.id), ref: order.ref, productId: Number(order.productId), quantity: order.quantity, totalCents: order.totalCents }
  })
}
