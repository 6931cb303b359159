// @ts-check
// pricing-api: quotes an order line from the product's price in the db (one
// fetch), the second service a checkout calls before it writes.
import { fetchJson } from '../../shared/fetch-json.js'
import { MAX_QUANTITY, orderTotalCents } from '../pricing.js'

/** @param {import('fastify').FastifyInstance} app */
export default async function routes (app) {
  const db = /** @type {string} */ (process.env.DB_ORIGIN)
  app.get('/quote', {
    schema: {
      querystring: {
        type: 'object',
        properties: { productId: { type: 'integer', minimum: 1 }, quantity: { type: 'integer', minimum: 1, maximum: MAX_QUANTITY } },
        required: ['productId', 'quantity']
      }
    }
  }, async (request) => {
    const { productId, quantity } = /** @type {{ productId: number, quantity: number }} */ (request.query)
    const product = await fetchJson(`${db}/products/${productId}?fields=id,priceCents`)
    return { productId, quantity, unitCents: product.priceCents, totalCents: orderTotalCents(product.priceCents, quantity) }
  })
}
