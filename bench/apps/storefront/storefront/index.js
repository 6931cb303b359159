// @ts-check
// storefront: a plain node:http backend-for-frontend, the shape of a web
// frontend's server side (what Next.js route handlers or an Express BFF do):
// one page is the product, then its category and related products in
// parallel, three fetch calls to the db per request. No gateway, no Fastify.
// DB_ORIGIN is the mesh's name or the db's loopback port, from the config.
import { createServer } from 'node:http'
import { fetchJson } from '../../shared/fetch-json.js'

/** How many related products a page shows. */
export const RELATED = 5
const PAGE = /^\/page\/([1-9][0-9]{0,8})$/

export function create () {
  const db = /** @type {string} */ (process.env.DB_ORIGIN)
  return createServer((req, res) => {
    const match = PAGE.exec(req.url ?? '')
    if (req.method !== 'GET' || !match) return send(res, 404, { error: 'not found' })
    page(db, Number(match[1])).then((body) => send(res, 200, body), (err) => send(res, 502, { error: String(err?.message ?? err) }))
  })
}

/** @param {string} db @param {number} id */
async function page (db, id) {
  const product = await fetchJson(`${db}/products/${id}`)
  const [category, related] = await Promise.all([
    fetchJson(`${db}/categories/${product.categoryId}`),
    fetchJson(`${db}/products?where.categoryId.eq=${product.categoryId}&where.id.neq=${id}&orderby.id=asc&limit=${RELATED}&fields=id,priceCents`)
  ])
  return {
    product: { id: Number(product.id), name: product.name, priceCents: product.priceCents },
    category: { id: Number(category.id), name: category.name },
    related: related.map((/** @type {{ id: string }} */ p) => Number(p.id)),
    relatedTotalCents: related.reduce((/** @type {number} */ sum, /** @type {{ priceCents: number }} */ p) => sum + p.priceCents, 0)
  }
}

/** @param {import('node:http').ServerResponse} res @param {number} status @param {unknown} body */
function send (res, status, body) {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
  res.end(text)
}
