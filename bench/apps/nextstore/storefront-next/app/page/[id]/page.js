// @ts-check
// A product page rendered on every request from two fetch calls through the gateway to the
// db: the product, then its category. What the bench checks is in the <pre id="check">.
import { createElement as h } from 'react'
import { fromGateway } from '../../gateway.js'

export const dynamic = 'force-dynamic'

/** @param {{ params: Promise<{ id: string }> }} props */
export default async function Page ({ params }) {
  const { id } = await params
  const product = await fromGateway(`/products/${Number(id)}`)
  const category = await fromGateway(`/categories/${product.categoryId}`)
  const check = { id: product.id, priceCents: product.priceCents, category: category.name }
  return h('main', null,
    h('h1', null, product.name),
    h('p', null, `${category.name}: ${(product.priceCents / 100).toFixed(2)}`),
    h('pre', { id: 'check' }, JSON.stringify(check)))
}
