// @ts-check
import { createElement as h } from 'react'

export const metadata = { title: 'storefront' }

/** @param {{ children: import('react').ReactNode }} props */
export default function Layout ({ children }) {
  return h('html', { lang: 'en' }, h('body', null, children))
}
