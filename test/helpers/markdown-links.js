// @ts-check
// The relative links and anchors of Markdown files, and which of them do not
// resolve: a target file that does not exist, or an anchor that is no heading's
// GitHub slug in its target. markdown-it parses (so a link inside code is not a
// link), github-slugger makes the anchors GitHub makes (duplicates get -1, -2).
import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, extname, join, relative, resolve } from 'node:path'
import GithubSlugger from 'github-slugger'
import MarkdownIt from 'markdown-it'

const md = new MarkdownIt({ html: true })

/** GitHub's own line anchors on a source file: #L10, #L10-L20 */
const LINE_ANCHOR = /^L\d+(-L\d+)?$/
/** a scheme (https:, mailto:) or a protocol-relative URL: not a file of the repository */
const EXTERNAL = /^([a-z][a-z\d+.-]*:|\/\/)/i

/**
 * @typedef {{ href: string, line: number }} Link
 * @typedef {{ file: string, line: number, href: string, reason: string }} Broken
 */

/**
 * The text GitHub slugs for a heading: its inline content without markup.
 * @param {import('markdown-it').Token[]} children
 */
function headingText (children) {
  return children.filter((t) => t.type === 'text' || t.type === 'code_inline').map((t) => t.content).join('')
}

/**
 * Every anchor a Markdown text defines: its headings' slugs and explicit <a id|name="…">.
 * @param {string} text
 * @returns {Set<string>}
 */
export function anchorsOf (text) {
  const slugger = new GithubSlugger()
  const anchors = new Set()
  const tokens = md.parse(text, {})
  for (const [i, token] of tokens.entries()) {
    if (token.type === 'heading_open') anchors.add(slugger.slug(headingText(tokens[i + 1].children ?? [])))
    if (token.type === 'html_block' || token.type === 'inline') {
      const html = token.type === 'inline' ? (token.children ?? []).filter((t) => t.type === 'html_inline').map((t) => t.content).join('') : token.content
      for (const m of html.matchAll(/<a\s[^>]*\b(?:id|name)="([^"]+)"/g)) anchors.add(m[1])
    }
  }
  return anchors
}

/**
 * Every link and image target of a Markdown text, with the line it starts on.
 * @param {string} text
 * @returns {Link[]}
 */
export function linksOf (text) {
  /** @type {Link[]} */
  const links = []
  for (const token of md.parse(text, {})) {
    if (token.type !== 'inline') continue
    let line = (token.map?.[0] ?? 0) + 1
    for (const child of token.children ?? []) {
      if (child.type === 'softbreak' || child.type === 'hardbreak') line++
      const href = child.type === 'link_open' ? child.attrGet('href') : child.type === 'image' ? child.attrGet('src') : null
      if (href != null) links.push({ href, line })
    }
  }
  return links
}

/** @param {string} text */
function decode (text) {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/**
 * The links of the given Markdown files that do not resolve.
 * @param {string} root   the repository's root (a link starting with / is relative to it)
 * @param {string[]} files  root-relative paths of Markdown files
 * @returns {Broken[]}
 */
export function brokenLinks (root, files) {
  /** @type {Map<string, Set<string>>} */
  const anchorCache = new Map()
  /** @param {string} path */
  const anchors = (path) => {
    if (!anchorCache.has(path)) anchorCache.set(path, anchorsOf(readFileSync(path, 'utf8')))
    return /** @type {Set<string>} */ (anchorCache.get(path))
  }
  /** @type {Broken[]} */
  const broken = []
  for (const file of files) {
    const from = join(root, file)
    for (const { href, line } of linksOf(readFileSync(from, 'utf8'))) {
      if (EXTERNAL.test(href)) continue
      const hash = href.indexOf('#')
      const path = decode(hash === -1 ? href : href.slice(0, hash))
      const anchor = hash === -1 ? null : decode(href.slice(hash + 1))
      const target = path === '' ? from : path.startsWith('/') ? join(root, path) : resolve(dirname(from), path)
      const report = (/** @type {string} */ reason) => broken.push({ file, line, href, reason })
      if (!existsSync(target)) {
        report(`no such file: ${relative(root, target)}`)
        continue
      }
      if (!anchor) continue
      const page = statSync(target).isDirectory() ? join(target, 'README.md') : target
      if (extname(page).toLowerCase() !== '.md') {
        if (!LINE_ANCHOR.test(anchor)) report(`#${anchor}: ${relative(root, page)} is not Markdown, so it has no such anchor`)
        continue
      }
      if (!existsSync(page)) report(`#${anchor}: ${relative(root, target)} has no README.md to hold it`)
      else if (!anchors(page).has(anchor)) report(`#${anchor}: no heading in ${relative(root, page)} has that slug`)
    }
  }
  return broken
}
