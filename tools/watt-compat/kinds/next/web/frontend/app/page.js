// @ts-check
// A page rendered on every request (dynamic) from one call to the api app.
import { createElement as h } from 'react'
import { fromApi } from './api.js'

export const dynamic = 'force-dynamic'

export default async function Page () {
  const { status, body } = await fromApi('/items')
  return h('main', null,
    h('h1', null, `items (${status})`),
    h('ul', null, body.map((/** @type {{ id: number, name: string, cents: number }} */ item) => h('li', { key: item.id }, `${item.name}: ${item.cents}`))))
}
