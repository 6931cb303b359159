// Only lib/topology.js may spell the list of transports out: everything else
// derives it, so adding a transport is one file plus one registry line.
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { TRANSPORT_NAMES, TRANSPORTS } from '../../lib/topology.js'

const root = join(import.meta.dirname, '..', '..')
const REGISTRY = 'lib/topology.js'
const CODE = /\.(c|m)?(js|ts)$|\.json$|^\.ci\/|\.sh$/
const TRANSPORTS_DIR = join(root, 'web', 'tsfastify', 'lib', 'transports')

/**
 * Three or more registered names in a row, separated only by list punctuation
 * (quotes, commas, pipes, slashes, braces, brackets, "vs", "and"): `'a', 'b', 'c'`,
 * `a,b,c`, `{a,b,c}`, `a vs b vs c`. Single names and pairs are fine.
 * @param {readonly string[]} names
 */
export function listPattern (names) {
  const name = `(?:${[...names].sort((a, b) => b.length - a.length).map((n) => n.replace(/[-]/g, '\\-')).join('|')})`
  const sep = String.raw`(?:[\s'"\x60,|/{}\[\]]|\bvs\b|\band\b)+`
  return new RegExp(String.raw`(?<![\w-])${name}(?:${sep}${name}(?![\w-])){2,}`, 'g')
}

function trackedFiles () {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
  // results/published/ holds measured data (what a run recorded), not code that could derive the list
  return out.split('\n').filter((file) => file && CODE.test(file) && !file.startsWith('results/') && existsSync(join(root, file)))
}

// Stand-in names, so this file does not spell the real list out itself.
t.test('the pattern catches the ways a list gets written out', async (t) => {
  const pattern = listPattern(['owl', 'fax', 'drum', 'smoke-signal'])
  for (const text of ["['owl', 'fax', 'drum', 'smoke-signal']", 'owl,fax,drum', '/tsfastify/{owl,fax,drum,smoke-signal}', 'owl vs fax vs drum', "'smoke-signal' | 'drum' | 'fax'", 'owl, fax and drum']) {
    t.match(text, new RegExp(pattern.source), text)
  }
  for (const text of ["['owl', 'fax']", "'fax', 'fax6', 'udp'", 'transport !== "drum"', "['disk', 'owl', 'fax']", 'owl-x, fax, drum']) {
    t.notMatch(text, new RegExp(pattern.source), text)
  }
})

t.test('no file but lib/topology.js spells the transport list out', async (t) => {
  const pattern = listPattern(TRANSPORT_NAMES)
  const offenders = []
  for (const file of trackedFiles()) {
    if (file === REGISTRY || file === 'package-lock.json' || file.endsWith('/package-lock.json')) continue
    const text = readFileSync(join(root, file), 'utf8')
    for (const match of text.matchAll(pattern)) {
      const line = text.slice(0, match.index).split('\n').length
      offenders.push(`${file}:${line}: ${match[0]}`)
    }
  }
  t.same(offenders, [], 'derive the list from lib/topology.js (TRANSPORT_NAMES, availableTransports(), …) instead')
})

t.test('every registered transport has its file exporting create, and every transport file is registered', async (t) => {
  const files = readdirSync(TRANSPORTS_DIR).filter((file) => file.endsWith('.ts'))
  for (const record of TRANSPORTS) {
    if (record.module) continue
    const file = `${record.name}.ts`
    t.ok(files.includes(file), `web/tsfastify/lib/transports/${file} exists`)
    if (!files.includes(file)) continue
    t.match(readFileSync(join(TRANSPORTS_DIR, file), 'utf8'), /export (const|async function|function) create\b/, `${file} exports create`)
  }
  for (const file of files) {
    const exportsCreate = /export (const|async function|function) create\b/.test(readFileSync(join(TRANSPORTS_DIR, file), 'utf8'))
    if (exportsCreate) t.ok(TRANSPORT_NAMES.includes(file.replace(/\.ts$/, '')), `${file} exports create: register it in lib/topology.js`)
  }
})
