// @ts-check
// The generated blocks of the READMEs: each between a start marker that names
// the result files it was written from and an end marker. Reading, rendering,
// replacing; one mechanism for every block (BLOCKS).
import { existsSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { PROJECT_ROOT } from '../../bench/lib/paths.js'
import { readResult } from '../../bench/lib/results.js'
import { appsBlock, appsPlaceholder, appsSummaryBlock } from './apps-block.js'
import { compatBlock } from './compat-block.js'
import { dataBlock } from './data-block.js'
import { meshPortBlock } from './mesh-port-block.js'
import { realtimeBlock, realtimePlaceholder } from './realtime-block.js'
import { resultsBlock } from './results-block.js'

export const README = join(PROJECT_ROOT, 'README.md')

/**
 * @typedef {object} BlockSpec
 * @property {string} file            the markdown file that holds the block
 * @property {Record<string, { path: string, suite: string, required?: boolean }>} sources
 *   what the block is written from: a role, its default (published) path and the suite of its result
 * @property {(results: Record<string, any>) => string} render  the block's text from the results by role
 * @property {boolean} [optional]     a file without the block's markers is left alone (a block not placed yet)
 * @property {(path: string) => string} [placeholder]  the text while its required result is not published yet
 */

/** @type {Record<string, BlockSpec>} */
export const BLOCKS = {
  results: {
    file: README,
    sources: {
      transports: { path: 'results/published/transports.json', suite: 'transports', required: true },
      profile: { path: 'results/published/profile.json', suite: 'profile' }
    },
    render: (results) => resultsBlock(results.transports, results.profile ?? null)
  },
  data: {
    file: join(PROJECT_ROOT, 'bench/data/README.md'),
    sources: {
      data: { path: 'results/published/data.json', suite: 'data', required: true },
      large: { path: 'results/published/data-2GB.json', suite: 'data' },
      parsers: { path: 'results/published/parsers.json', suite: 'parser-speed' }
    },
    render: (results) => dataBlock(/** @type {{ data: any }} */ (results))
  },
  compat: {
    file: join(PROJECT_ROOT, 'packages/channel/README.md'),
    sources: {
      compat: { path: 'results/published/compat.json', suite: 'compat', required: true }
    },
    render: (results) => compatBlock(results.compat)
  },
  // the drop-in's figures as shipped, beside its options in the channel README
  'mesh-port': {
    file: join(PROJECT_ROOT, 'packages/channel/README.md'),
    optional: true,
    sources: {
      transports: { path: 'results/published/transports.json', suite: 'transports', required: true },
      apps: { path: 'results/published/apps.json', suite: 'apps', required: true }
    },
    render: (results) => meshPortBlock(/** @type {{ transports: any, apps: any }} */ (results))
  },
  apps: {
    file: join(PROJECT_ROOT, 'docs/suites.md'),
    optional: true,
    sources: {
      apps: { path: 'results/published/apps.json', suite: 'apps', required: true }
    },
    render: (results) => appsBlock(/** @type {{ apps: any }} */ (results)),
    placeholder: appsPlaceholder
  },
  // the same result, a few lines on the front door (the tables stay in docs/suites.md)
  'apps-summary': {
    file: README,
    optional: true,
    sources: {
      apps: { path: 'results/published/apps.json', suite: 'apps', required: true }
    },
    render: (results) => appsSummaryBlock(/** @type {{ apps: any }} */ (results)),
    placeholder: appsPlaceholder
  },
  // the realtime suite's figures, in its own README (WebSockets, SSE, a client that leaves)
  realtime: {
    file: join(PROJECT_ROOT, 'bench/realtime/README.md'),
    optional: true,
    sources: {
      realtime: { path: 'results/published/realtime.json', suite: 'realtime', required: true }
    },
    render: (results) => realtimeBlock(/** @type {{ realtime: any }} */ (results)),
    placeholder: realtimePlaceholder
  }
}

/** @param {string} name */
function spec (name) {
  const block = BLOCKS[name]
  if (!block) throw new Error(`no generated block named ${name}`)
  return block
}

/** @param {string} name */
const startMarker = (name) => new RegExp(`<!-- ${name}:start(?<sources>[^>]*)-->\\n`)
/** @param {string} name */
const endMarker = (name) => `<!-- ${name}:end -->`

/**
 * Whether the file holds the block's start marker.
 * @param {string} text
 * @param {string} name
 */
export function hasBlock (text, name) {
  return startMarker(name).test(text)
}

/**
 * The block's sources as named in its start marker (project-relative paths).
 * @param {string} text  the file that holds the block
 * @param {string} [name]
 * @returns {Record<string, string>}
 */
export function sourcesOf (text, name = 'results') {
  const block = spec(name)
  const match = startMarker(name).exec(text)
  if (!match) throw new Error(`${relative(PROJECT_ROOT, block.file)} has no <!-- ${name}:start --> marker`)
  const named = Object.fromEntries([...(match.groups?.sources ?? '').matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]]))
  /** @type {Record<string, string>} */
  const sources = {}
  for (const [role, { path, required }] of Object.entries(block.sources)) {
    if (named[role]) sources[role] = named[role]
    else if (required) sources[role] = path
  }
  return sources
}

/**
 * The whole block, markers included, written from the named files.
 * @param {Record<string, string>} sources  project-relative paths by role
 * @param {string} [name]
 */
export function renderBlock (sources, name = 'results') {
  const block = spec(name)
  /** @type {Record<string, any>} */
  const results = {}
  const named = Object.entries(sources).map(([role, path]) => `${role}=${path}`).join(' ')
  const unpublished = Object.entries(sources).find(([role, path]) => block.sources[role]?.required && !existsSync(join(PROJECT_ROOT, path)))
  if (unpublished && block.placeholder) return `<!-- ${name}:start ${named} (written by npm run readme: edit scripts/readme/, not here) -->\n${block.placeholder(unpublished[1])}${endMarker(name)}`
  for (const [role, path] of Object.entries(sources)) {
    const expected = block.sources[role]?.suite
    if (!expected) throw new Error(`the ${name} block has no source called ${role}`)
    const result = readResult(path)
    if (result.suite !== expected) throw new Error(`${path} is a ${result.suite} result, not ${expected}`)
    results[role] = result
  }
  return `<!-- ${name}:start ${named} (written by npm run readme: edit scripts/readme/, not here) -->\n${block.render(results)}${endMarker(name)}`
}

/**
 * Text with its block replaced.
 * @param {string} text
 * @param {string} block
 * @param {string} [name]
 */
export function replaceBlock (text, block, name = 'results') {
  const match = startMarker(name).exec(text)
  const end = text.indexOf(endMarker(name))
  if (!match || end < match.index) throw new Error(`${relative(PROJECT_ROOT, spec(name).file)} needs <!-- ${name}:start … --> and ${endMarker(name)} in that order`)
  return text.slice(0, match.index) + block + text.slice(end + endMarker(name).length)
}

/** @param {string} path */
export function projectRelative (path) {
  return relative(PROJECT_ROOT, resolve(path))
}
