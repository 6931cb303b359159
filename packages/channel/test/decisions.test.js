// The decisions the code cites ship with the package: every `(D-…)` in lib/ has its entry in
// DECISIONS.md, and every link there into the package resolves.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'

const root = new URL('..', import.meta.url).pathname
const shipped = readFileSync(join(root, 'DECISIONS.md'), 'utf8')

t.test('every id the code cites has its entry in DECISIONS.md', async (t) => {
  const headings = new Set([...shipped.matchAll(/^## (D-[A-Za-z0-9-]+):/gm)].map((m) => m[1]))
  const lib = join(root, 'lib')
  const cited = new Set()
  for (const file of readdirSync(lib, { recursive: true }).map(String).filter((f) => f.endsWith('.js'))) {
    for (const id of readFileSync(join(lib, file), 'utf8').match(/\bD-[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*/g) ?? []) cited.add(id)
  }
  t.ok(cited.size > 5, `${cited.size} ids cited`)
  t.same([...cited].filter((id) => !headings.has(id)), [], 'none missing')
  t.ok(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).files.includes('DECISIONS.md'), 'and it is in the tarball')
})

t.test('its links into the package point at files that exist', async (t) => {
  const links = [...shipped.matchAll(/\]\(([^)#]+)\)/g)].map((m) => m[1]).filter((l) => !/^[a-z]+:/.test(l))
  t.ok(links.length > 0)
  t.same(links.filter((l) => !existsSync(join(root, l))), [])
})
