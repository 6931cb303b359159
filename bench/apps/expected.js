// @ts-check
// What each route is asked and must answer, from the seeded rows (dataset.js):
// the request paths (ids in a fixed shuffled order), and a check of every body
// (row counts, ids, sums; for writes, the row as written). Writes also keep the
// references they sent and the ones acknowledged, for the check of the table
// afterwards (writes.js).
import { mulberry32 } from '../data/dataset/prng.js'
import { dataset, PRODUCT_COUNT } from './dataset.js'
import { PAGE_SIZE } from './catalog/catalog-api/routes.js'
import { MAX_QUANTITY, orderTotalCents } from './orders/pricing.js'
import { RELATED } from './storefront/storefront/index.js'

/** Products per page of the gateway's list route. */
export const LIST_LIMIT = 20
/** Paths per rotation: enough that connections do not repeat each other's ids. */
const ROTATION = 2000

/**
 * @typedef {object} WriteLog   what a write route sent and had acknowledged
 * @property {Map<string, number>} sent          ref → the total the row must carry
 * @property {Set<string>} acknowledged          refs answered 2xx with the right row
 * @property {(phase: string) => void} setPhase   refs of the warm-up and the measured load apart
 *
 * @typedef {import('../lib/load.js').RotatingPaths & { readyPath: string, writes?: WriteLog }} RouteLoad
 */

/**
 * @param {string} app
 * @param {string} route
 * @param {{ tag: string, wrong?: boolean }} options  tag: unique per run (a write's references start with it);
 *   wrong: expect one cent more than right, to prove a wrong answer fails the run
 * @returns {RouteLoad}
 */
export function routeLoad (app, route, { tag, wrong = false }) {
  const off = wrong ? 1 : 0
  const key = `${app}/${route}`
  if (key === 'catalog/list') return catalogList(off)
  if (key === 'catalog/item') return catalogItem(off)
  if (key === 'catalog/join') return catalogJoin(off)
  if (key === 'orders/insert') return orderWrite('insert', tag, off)
  if (key === 'orders/checkout') return orderWrite('checkout', tag, off)
  if (key === 'storefront/page') return storefrontPage(off)
  if (key === 'nextstore/page') return nextstorePage(off)
  if (key === 'nextstore/handler') return nextstoreHandler(off)
  throw new Error(`no expectations for ${key}`)
}

/** A fixed shuffled order of 1..n, the same for every path. @param {number} n @param {number} seed */
function shuffled (n, seed) {
  const draw = mulberry32(seed)
  const ids = Array.from({ length: n }, (_, i) => i + 1)
  for (let i = ids.length - 1; i > 0; i--) {
    const j = draw() % (i + 1)
    ;[ids[i], ids[j]] = [ids[j], ids[i]]
  }
  return ids
}

/** @param {unknown} a @param {unknown} b @param {string} what */
function same (a, b, what) {
  return String(a) === String(b) ? null : `${what} ${JSON.stringify(a)}, expected ${JSON.stringify(b)}`
}

/** The first body-check failure, or null. @param {(() => string | null)[]} checks */
function first (checks) {
  for (const check of checks) {
    const wrong = check()
    if (wrong) return wrong
  }
  return null
}

/** @param {string} body */
function parse (body) {
  try {
    return JSON.parse(body)
  } catch {
    return undefined
  }
}

/** @param {(import('./dataset.js').Product)[]} products */
const sumOf = (products) => products.reduce((sum, p) => sum + p.priceCents, 0)

/** @param {number} off @returns {RouteLoad} */
function catalogList (off) {
  const { byCategory, categories } = dataset()
  const ids = shuffled(categories.length, 1)
  const paths = ids.map((c) => `/products/?where.categoryId.eq=${c}&orderby.id=asc&limit=${LIST_LIMIT}`)
  const categoryOf = new Map(paths.map((path, i) => [path, ids[i]]))
  return {
    paths,
    readyPath: paths[0],
    check: (path, body) => {
      const expected = (byCategory.get(/** @type {number} */ (categoryOf.get(path))) ?? []).slice(0, LIST_LIMIT)
      const rows = parse(body)
      if (!Array.isArray(rows)) return `not a JSON array: ${body.slice(0, 80)}`
      return first([
        () => same(rows.length, expected.length, 'rows'),
        () => same(rows.map((r) => r.id).join(','), expected.map((p) => p.id).join(','), 'ids'),
        () => same(rows.reduce((sum, r) => sum + r.priceCents, 0), sumOf(expected) + off, 'sum of priceCents')
      ])
    }
  }
}

/** @param {number} off @returns {RouteLoad} */
function catalogItem (off) {
  const { products } = dataset()
  const paths = shuffled(PRODUCT_COUNT, 2).slice(0, ROTATION).map((id) => `/products/${id}`)
  return {
    paths,
    readyPath: paths[0],
    check: (path, body) => {
      const expected = products[Number(path.slice('/products/'.length)) - 1]
      const row = parse(body)
      if (!row) return `not JSON: ${body.slice(0, 80)}`
      return first([
        () => same(row.id, expected.id, 'id'),
        () => same(row.categoryId, expected.categoryId, 'categoryId'),
        () => same(row.name, expected.name, 'name'),
        () => same(row.priceCents, expected.priceCents + off, 'priceCents')
      ])
    }
  }
}

/** @param {number} off @returns {RouteLoad} */
function catalogJoin (off) {
  const { byCategory, categories } = dataset()
  const ids = shuffled(categories.length, 3)
  const paths = ids.map((c) => `/catalog/categories/${c}`)
  return {
    paths,
    readyPath: paths[0],
    check: (path, body) => {
      const category = categories[Number(path.slice('/catalog/categories/'.length)) - 1]
      const expected = (byCategory.get(category.id) ?? []).slice(0, PAGE_SIZE)
      const page = parse(body)
      if (!page) return `not JSON: ${body.slice(0, 80)}`
      return first([
        () => same(page.id, category.id, 'id'),
        () => same(page.name, category.name, 'name'),
        () => same(page.products, expected.length, 'products'),
        () => same((page.ids ?? []).join(','), expected.map((p) => p.id).join(','), 'ids'),
        () => same(page.totalPriceCents, sumOf(expected) + off, 'totalPriceCents')
      ])
    }
  }
}

/** @param {number} off @returns {RouteLoad} */
function storefrontPage (off) {
  const { products, byCategory, categories } = dataset()
  const paths = shuffled(PRODUCT_COUNT, 4).slice(0, ROTATION).map((id) => `/page/${id}`)
  return {
    paths,
    readyPath: paths[0],
    check: (path, body) => {
      const product = products[Number(path.slice('/page/'.length)) - 1]
      const related = (byCategory.get(product.categoryId) ?? []).filter((p) => p.id !== product.id).slice(0, RELATED)
      const page = parse(body)
      if (!page) return `not JSON: ${body.slice(0, 80)}`
      return first([
        () => same(page.product?.id, product.id, 'product.id'),
        () => same(page.product?.priceCents, product.priceCents, 'product.priceCents'),
        () => same(page.category?.name, categories[product.categoryId - 1].name, 'category.name'),
        () => same((page.related ?? []).join(','), related.map((p) => p.id).join(','), 'related'),
        () => same(page.relatedTotalCents, sumOf(related) + off, 'relatedTotalCents')
      ])
    }
  }
}

/**
 * The Next.js storefront's page: HTML whose <pre id="check"> holds what it rendered from
 * the product and its category (React escapes the JSON's quotes and ampersands).
 * @param {number} off
 * @returns {RouteLoad}
 */
function nextstorePage (off) {
  const { products, categories } = dataset()
  const paths = shuffled(PRODUCT_COUNT, 5).slice(0, ROTATION).map((id) => `/page/${id}`)
  const ENTITIES = { '&quot;': '"', '&#x27;': "'", '&amp;': '&', '&lt;': '<', '&gt;': '>' }
  return {
    paths,
    readyPath: paths[0],
    check: (path, body) => {
      const product = products[Number(path.slice('/page/'.length)) - 1]
      const raw = /<pre id="check">([^<]*)<\/pre>/.exec(body)?.[1]
      const page = raw === undefined ? undefined : parse(raw.replace(/&(quot|#x27|amp|lt|gt);/g, (e) => ENTITIES[/** @type {keyof typeof ENTITIES} */ (e)]))
      if (!page) return `no rendered check in the page: ${body.slice(0, 80)}`
      return first([
        () => same(page.id, product.id, 'id'),
        () => same(page.priceCents, product.priceCents + off, 'priceCents'),
        () => same(page.category, categories[product.categoryId - 1].name, 'category')
      ])
    }
  }
}

/**
 * The Next.js storefront's route handler: the product row, proxied from the gateway.
 * @param {number} off
 * @returns {RouteLoad}
 */
function nextstoreHandler (off) {
  const item = catalogItem(off)
  const paths = shuffled(PRODUCT_COUNT, 6).slice(0, ROTATION).map((id) => `/api/products/${id}`)
  return { paths, readyPath: paths[0], check: (path, body) => item.check(path.replace('/api', ''), body) }
}

/**
 * POSTs that each write one order with its own reference: `insert` straight into the
 * db's REST route (the client sends the total), `checkout` to orders-api (which has it quoted).
 * @param {'insert' | 'checkout'} route
 * @param {string} tag
 * @param {number} off
 * @returns {RouteLoad}
 */
function orderWrite (route, tag, off) {
  const { products } = dataset()
  const path = route === 'insert' ? '/orders/' : '/checkout'
  const draw = mulberry32(5)
  /** @type {WriteLog} */
  const writes = { sent: new Map(), acknowledged: new Set(), setPhase: (p) => { phase = p } }
  let phase = 'w'
  let n = 0
  return {
    paths: [path],
    readyPath: '/products/1',
    writes,
    write: () => {
      const product = products[draw() % PRODUCT_COUNT]
      const quantity = 1 + (draw() % MAX_QUANTITY)
      const ref = `${tag}-${phase}${++n}`
      const totalCents = orderTotalCents(product.priceCents, quantity)
      writes.sent.set(ref, totalCents)
      const order = { ref, productId: product.id, quantity, ...(route === 'insert' ? { totalCents } : {}) }
      return { method: 'POST', body: JSON.stringify(order) }
    },
    check: (_path, body, sent) => {
      const order = parse(sent ?? '')
      const row = parse(body)
      if (!row || !order) return `not JSON: ${body.slice(0, 80)}`
      const wrong = first([
        () => (Number(row.id) > 0 ? null : `id ${JSON.stringify(row.id)}`),
        () => same(row.ref, order.ref, 'ref'),
        () => same(row.productId, order.productId, 'productId'),
        () => same(row.quantity, order.quantity, 'quantity'),
        () => same(row.totalCents, /** @type {number} */ (writes.sent.get(order.ref)) + off, 'totalCents')
      ])
      if (!wrong) writes.acknowledged.add(order.ref)
      return wrong
    }
  }
}
