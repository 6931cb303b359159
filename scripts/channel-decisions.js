// @ts-check
// npm run channel-decisions: writes packages/channel/DECISIONS.md, the entries of
// docs/decisions.md that the package's code cites, so a comment's `(D-hold)` resolves for a
// user of the tarball too. Links into the repository become links to it on the web.
//   npm run channel-decisions              write it
//   npm run channel-decisions -- --check   exit 1 when it is not what would be written
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { parseFlags, runMain } from '../bench/lib/cli.js'
import { PROJECT_ROOT } from '../bench/lib/paths.js'

const PACKAGE = join(PROJECT_ROOT, 'packages', 'channel')
const SHIPPED = join(PACKAGE, 'DECISIONS.md')
const ID = /\bD-[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*/g

/** Every id the package's code cites, in the order of first citation. */
function citedIds () {
  const ids = new Set()
  const lib = join(PACKAGE, 'lib')
  for (const file of readdirSync(lib, { recursive: true }).map(String).filter((f) => f.endsWith('.js')).sort()) {
    for (const id of readFileSync(join(lib, file), 'utf8').match(ID) ?? []) ids.add(id)
  }
  return [...ids]
}

/**
 * The shipped file's text: each cited entry whole, links rewritten.
 * @param {string} decisions  docs/decisions.md
 * @param {string[]} ids
 * @param {string} web  the repository's web address, for links outside the package
 */
function render (decisions, ids, web) {
  const entries = new Map()
  for (const part of decisions.split(/^(?=## )/m)) {
    const id = /^## (D-[A-Za-z0-9-]+):/.exec(part)?.[1]
    if (id) entries.set(id, part.trimEnd())
  }
  const missing = ids.filter((id) => !entries.has(id))
  if (missing.length > 0) throw new Error(`cited in packages/channel/lib but not in docs/decisions.md: ${missing.join(', ')}`)
  const link = (/** @type {string} */ _, /** @type {string} */ text, /** @type {string} */ target) => {
    if (/^[a-z]+:|^#/.test(target)) return `[${text}](${target})`
    const inRepo = relative('.', join('docs', target))
    const inPackage = relative('packages/channel', inRepo)
    return `[${text}](${inPackage.startsWith('..') ? `${web}/blob/main/${inRepo}` : inPackage})`
  }
  const body = [...ids].sort().map((id) => entries.get(id).replace(/\[([^\]]+)\]\(([^)]+)\)/g, link))
  return ['# Decisions cited in the code',
    '',
    'The measured reasons behind the constants and choices that comments in `lib/` cite by id, as',
    `\`(D-hold)\`. Copied from the repository's [docs/decisions.md](${web}/blob/main/docs/decisions.md),`,
    'where the rest are; written by `npm run channel-decisions` there, not by hand.',
    '',
    ...body.flatMap((entry) => [entry, '']),
    ''].join('\n').replace(/\n+$/, '\n')
}

/** The repository's web address, from the package's manifest. */
function webAddress () {
  const url = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')).repository.url
  return url.replace(/^git\+/, '').replace(/\.git$/, '')
}

runMain(async () => {
  const flags = parseFlags(process.argv.slice(2), {
    check: { type: 'boolean', default: false, help: 'only compare: exit 1 when the file is not what would be written' }
  }, { command: 'npm run channel-decisions --', description: 'Writes packages/channel/DECISIONS.md from docs/decisions.md.' })
  const text = render(readFileSync(join(PROJECT_ROOT, 'docs', 'decisions.md'), 'utf8'), citedIds(), webAddress())
  let current = ''
  try { current = readFileSync(SHIPPED, 'utf8') } catch {}
  if (flags.check) {
    if (current !== text) {
      process.stdout.write('packages/channel/DECISIONS.md is out of date: run npm run channel-decisions\n')
      return 1
    }
    process.stdout.write('packages/channel/DECISIONS.md is up to date\n')
    return 0
  }
  writeFileSync(SHIPPED, text)
  process.stdout.write(`wrote packages/channel/DECISIONS.md (${citedIds().length} entries)\n`)
})
