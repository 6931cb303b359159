// bench:apps' Next.js storefront without installing it (bench:apps does, on demand): its
// answers are judged against the seeded rows like every app's, the page by what it rendered
// (React-escaped JSON in <pre id="check">), the route handler as the db's row; a wrong price
// fails both. Its configs are held to the one difference per path by configs.test.js.
import { test } from 'tap'
import { dataset } from '../../bench/apps/dataset.js'
import { routeLoad } from '../../bench/apps/expected.js'
import { APPS } from '../../bench/apps/plan.js'

const escape = (/** @type {string} */ text) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/'/g, '&#x27;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

test('the page and the route handler are checked against the seeded rows', async (t) => {
  t.same(APPS.nextstore.routes, ['page', 'handler'])
  const page = routeLoad('nextstore', 'page', { tag: 't' })
  const path = page.paths[0]
  const product = dataset().products[Number(path.slice('/page/'.length)) - 1]
  const category = dataset().categories[product.categoryId - 1]
  const html = (/** @type {number} */ cents) => `<html><body><main><h1>${escape(product.name)}</h1><pre id="check">${escape(JSON.stringify({ id: product.id, priceCents: cents, category: category.name }))}</pre></main></body></html>`
  t.equal(page.check(path, html(product.priceCents)), null, 'the rendered page passes')
  t.match(page.check(path, html(product.priceCents + 1)), /priceCents/, 'a wrong price fails')
  t.match(page.check(path, '<html>no check</html>'), /no rendered check/, 'a page without what it rendered fails')
  const handler = routeLoad('nextstore', 'handler', { tag: 't' })
  const one = handler.paths[0]
  const row = dataset().products[Number(one.slice('/api/products/'.length)) - 1]
  t.equal(handler.check(one, JSON.stringify(row)), null, 'the proxied row passes')
  t.match(handler.check(one, JSON.stringify({ ...row, priceCents: row.priceCents + 1 })), /priceCents/, 'a wrong row fails')
})
