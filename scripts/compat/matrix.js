// @ts-check
// The matrix `npm run compat` runs: every Watt release × every Node. A cell whose Node the
// release itself declares unsupported (the engines field of wattpm or of a @platformatic
// package in its lockfile) is `unsupported`, with the declaration as its reason, and not
// started; every other cell runs, and anything short of every answer right over http-port
// on the Node asked for is a `fail`, a Node the release does not start on included. Pure
// functions: scripts/compat.js runs the cells.
import { readFileSync } from 'node:fs'

/**
 * @typedef {object} Declared
 * @property {string} name     the package that declares it
 * @property {string} version  its locked version
 * @property {string} node     its engines.node range
 */

/**
 * What the release's own packages (wattpm and every top-level @platformatic/* in its
 * lockfile) declare in engines.node. Third-party dependencies do not speak for Watt.
 * @param {string} lockfile  a package-lock.json (v2 or v3)
 * @returns {Declared[]}
 */
export function releaseEngines (lockfile) {
  const { packages = {} } = JSON.parse(readFileSync(lockfile, 'utf8'))
  /** @type {Declared[]} */
  const declared = []
  for (const [path, entry] of Object.entries(/** @type {Record<string, any>} */ (packages))) {
    const match = /^node_modules\/(wattpm|@platformatic\/[^/]+)$/.exec(path)
    if (match && typeof entry?.engines?.node === 'string') declared.push({ name: match[1], version: entry.version, node: entry.engines.node })
  }
  return declared.sort((a, b) => (a.name === 'wattpm' ? -1 : b.name === 'wattpm' ? 1 : a.name.localeCompare(b.name)))
}

/**
 * @typedef {object} PlannedCell
 * @property {string} release
 * @property {string} node         the major, '22'
 * @property {string} nodeVersion  '22.23.5'
 * @property {'run' | 'unsupported'} plan
 * @property {string} reason       why unsupported ('' when it runs)
 */

/**
 * Every cell, release by release, then Node.
 * @param {{ releases: { version: string, engines: Declared[] }[], nodes: { major: string, version: string }[] }} axes
 * @returns {PlannedCell[]}
 */
export function planMatrix ({ releases, nodes }) {
  /** @type {PlannedCell[]} */
  const cells = []
  for (const release of releases) {
    for (const node of nodes) {
      const refused = release.engines.filter((d) => !satisfies(node.version, d.node))
      const reason = refused.length === 0
        ? ''
        : `${refused[0].name} ${refused[0].version} declares node ${refused[0].node}` +
          (refused.length > 1 ? ` (and ${refused.length - 1} more of its packages)` : '')
      cells.push({ release: release.version, node: node.major, nodeVersion: node.version, plan: reason ? 'unsupported' : 'run', reason })
    }
  }
  return cells
}

/**
 * @typedef {object} Observed
 * @property {string} nodeVersion  the Node the cell asked for, '22.23.5'
 * @property {string | null} seen  process.version as the app answered it
 * @property {{ path: string, status: number, body: string }[]} wrong  answers that differ
 * @property {Record<string, { calls: number, 'http-port': number, mesh: number }>} targets
 * @property {string | null} standsAside  the drop-in's "is not supported" reason, if it logged one
 */

/**
 * A cell that ran: pass, or fail with the first thing that was wrong.
 * @param {Observed} seen
 * @returns {{ result: 'pass' | 'fail', reason: string }}
 */
export function judgeCell (seen) {
  const fail = (/** @type {string} */ reason) => ({ result: /** @type {const} */ ('fail'), reason })
  if (seen.seen !== `v${seen.nodeVersion}`) return fail(`the app ran on Node ${seen.seen ?? '(no answer)'}, not v${seen.nodeVersion}`)
  if (seen.wrong.length) {
    const [first] = seen.wrong
    return fail(`${seen.wrong.length} answers differ, first ${first.path}: ${first.status} ${first.body.slice(0, 120)}`)
  }
  if (seen.standsAside !== null) return fail(`the drop-in stood aside: ${seen.standsAside}`)
  const offPath = Object.entries(seen.targets).filter(([, t]) => t['http-port'] !== t.calls || t.mesh !== 0)
  if (offPath.length) {
    return fail(offPath.map(([target, t]) => `${target}: ${t['http-port']} of ${t.calls} over http-port, ${t.mesh} over the mesh`).join('; '))
  }
  return { result: 'pass', reason: '' }
}

/**
 * Whether a Node version satisfies an engines range. Covers the forms engines fields use:
 * `||`, comparator sets (`>=20.6.0 <23`), `^`, `~`, x-ranges (`22`, `20.x`, `6.*`, `*`) and
 * hyphen ranges (`20 - 22`). A form it cannot read throws, rather than guess.
 * @param {string} version  '22.23.5' or 'v22.23.5'
 * @param {string} range
 * @returns {boolean}
 */
export function satisfies (version, range) {
  const v = parseVersion(version.replace(/^v/, ''))
  if (!v || v.some((n) => n === null)) throw new Error(`not a version: ${version}`)
  const exact = /** @type {number[]} */ (v)
  return range.split('||').some((set) => comparators(set.trim(), range).every(([op, bound]) => {
    const c = compare(exact, bound)
    return op === '>=' ? c >= 0 : op === '<' ? c < 0 : c === 0
  }))
}

/**
 * A comparator set as [op, version] pairs, with op one of '>=', '<', '='.
 * @param {string} set
 * @param {string} range  the whole range, for the error
 * @returns {[string, number[]][]}
 */
function comparators (set, range) {
  if (set === '' || set === '*' || set === 'x') return []
  const hyphen = /^(\S+)\s+-\s+(\S+)$/.exec(set)
  if (hyphen) return [...comparator(`>=${hyphen[1]}`, range), ...comparator(`<=${hyphen[2]}`, range)]
  return set.replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1').split(/\s+/).flatMap((token) => comparator(token, range))
}

/**
 * @param {string} token
 * @param {string} range
 * @returns {[string, number[]][]}
 */
function comparator (token, range) {
  const match = /^(>=|<=|>|<|=|\^|~)?v?([0-9xX*]+(?:\.[0-9xX*]+){0,2})(?:-[0-9A-Za-z.-]+)?$/.exec(token)
  const parts = match && parseVersion(match[2])
  if (!match || !parts) throw new Error(`cannot read the engines range ${JSON.stringify(range)} (at ${JSON.stringify(token)})`)
  const op = match[1] ?? '='
  const given = parts.findIndex((n) => n === null)
  const known = given === -1 ? 3 : given // how many leading parts are numbers
  const [major, minor, patch] = parts.map((n) => n ?? 0)
  const floor = [major, minor, patch]
  /** the first version past the given prefix: 22 → 23.0.0, 22.1 → 22.2.0 */
  const past = known === 0 ? null : known === 1 ? [major + 1, 0, 0] : known === 2 ? [major, minor + 1, 0] : [major, minor, patch + 1]
  if (known === 0) return op === '<' || op === '>' ? [['<', [0, 0, 0]]] : []
  switch (op) {
    case '>=': return [['>=', floor]]
    case '>': return [['>=', /** @type {number[]} */ (past)]]
    case '<': return [['<', floor]]
    case '<=': return [['<', /** @type {number[]} */ (past)]]
    case '^': {
      const ceiling = major > 0 || known === 1 ? [major + 1, 0, 0] : minor > 0 || known === 2 ? [0, minor + 1, 0] : [0, 0, patch + 1]
      return [['>=', floor], ['<', ceiling]]
    }
    case '~': return [['>=', floor], ['<', known === 1 ? [major + 1, 0, 0] : [major, minor + 1, 0]]]
    default: return known === 3 ? [['=', floor]] : [['>=', floor], ['<', /** @type {number[]} */ (past)]]
  }
}

/**
 * '22.19.0' → [22, 19, 0]; '20.x' → [20, null, null]; '22' → [22, null, null]; null if not one.
 * @param {string} text
 * @returns {(number | null)[] | null}
 */
function parseVersion (text) {
  const parts = text.split('.')
  if (parts.length > 3) return null
  /** @type {(number | null)[]} */
  const out = []
  for (const part of parts) {
    if (/^[xX*]$/.test(part)) out.push(null)
    else if (/^\d+$/.test(part) && out.every((n) => n !== null)) out.push(Number(part))
    else return null
  }
  while (out.length < 3) out.push(null)
  return out
}

/** @param {number[]} a @param {number[]} b */
function compare (a, b) {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1
  return 0
}
