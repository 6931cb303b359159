// @ts-check
import { createElement as h } from 'react'

export const metadata = { title: 'watt-compat next kind' }

/** @param {{ children: import('react').ReactNode }} props */
export default function Layout ({ children }) {
  return h('html', { lang: 'en' }, h('body', null, children))
}
