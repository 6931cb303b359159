// @ts-check
// catalog-api: a category's page, joined from two db calls made with fetch
// (the category, and its first products): the service-to-db hop of a
// read-heavy app. DB_ORIGIN is http://db.plt.local on the mesh paths and the
// db's loopback port on tcp (the runtime's config says which).
import { fetchJson } from '../../shared/fetch-json.js'

/** How many of a category's products the page lists. */
export const PAGE_SIZE = 20

/** @param {import('fastify').FastifyInstance} app */
export default async function routes (app) {
  const db = /** @type {string} */ (process.env.DB_ORIGIN)
  app.get('/catalog/categories/:id', {
    schema: { params: { type: 'object', properties: { id: { type: 'integer', minimum: 1 } }, required: ['id'] } }
  }, async (request) => {
    const { id } = /** @type {{ id: number }} */ (request.params)
    const [category, products] = await Promise.all([
      fetchJson(`${db}/categories/${id}`),
      fetchJson(`${db}/products?where.categoryId.eq=${id}&orderby.id=asc&limit=${PAGE_SIZE}&fields=id,priceCents`)
    ])
    return {
      id: Number(category.id),
      name: category.name,
      products: products.length,
      ids: products.map((/** @type {{ id: string }} */ p) => Number(p.id)),
      totalPriceCents: products.reduce((/** @type {number} */ sum, /** @type {{ priceCents: number }} */ p) => sum + p.priceCents, 0)
    }
  })
}
