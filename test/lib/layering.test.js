// The product (lib/, web/) never imports the harness (bench/): the registry names
// what a transport requires, and the harness alone knows how to start it.
import t from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { REQUIREMENTS } from '../../lib/topology.js'
import { STARTERS } from '../../bench/outside/targets.js'

const root = resolve(import.meta.dirname, '..', '..')
const bench = join(root, 'bench')

/** @param {string} dir */
function sources (dir) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(c|m)?(j|t)s$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((file) => !relative(root, file).split('/').includes('node_modules'))
}

// static imports, re-exports and dynamic import() of a relative path
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g

t.test('no file under lib/ or web/ imports from bench/', async (t) => {
  const files = [...sources(join(root, 'lib')), ...sources(join(root, 'web'))]
  t.ok(files.length > 20, `read ${files.length} files`)
  const offenders = []
  for (const file of files) {
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      const target = resolve(dirname(file), specifier)
      if (target === bench || target.startsWith(bench + '/')) offenders.push(`${relative(root, file)} → ${specifier}`)
    }
  }
  t.same(offenders, [])
})

t.test('the scan sees a relative import into bench/', async (t) => {
  const line = "const x = (await import('../bench/outside/targets.js')).STARTERS"
  t.same([...line.matchAll(SPECIFIER)].map((m) => m[1]), ['../bench/outside/targets.js'])
})

t.test('every requirement the registry calls startable has a starter, and no starter is orphaned', async (t) => {
  const startable = Object.entries(REQUIREMENTS).filter(([, r]) => r.startable).map(([tag]) => tag).sort()
  t.same(Object.keys(STARTERS).sort(), startable)
})
