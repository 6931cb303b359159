// @ts-check
// The README's generated block: between a start marker that names the result
// files it was written from and an end marker. Reading, rendering, replacing.
import { readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { PROJECT_ROOT } from '../../bench/lib/paths.js'
import { resultsBlock } from './results-block.js'

export const README = join(PROJECT_ROOT, 'README.md')
export const PUBLISHED = { transports: 'results/published/transports.json', profile: 'results/published/profile.json' }
const START = /<!-- results:start(?<sources>[^>]*)-->\n/
const END = '<!-- results:end -->'

/**
 * The block's sources as named in its start marker (project-relative paths).
 * @param {string} readme
 * @returns {{ transports: string, profile?: string }}
 */
export function sourcesOf (readme) {
  const match = START.exec(readme)
  if (!match) throw new Error('README.md has no <!-- results:start --> marker')
  const named = Object.fromEntries([...(match.groups?.sources ?? '').matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]]))
  return { transports: named.transports ?? PUBLISHED.transports, ...(named.profile ? { profile: named.profile } : {}) }
}

/** @param {string} path  project-relative */
function readResult (path) {
  return { ...JSON.parse(readFileSync(join(PROJECT_ROOT, path), 'utf8')), source: path }
}

/**
 * The whole block, markers included, written from the named files.
 * @param {{ transports: string, profile?: string }} sources  project-relative paths
 */
export function renderBlock (sources) {
  const transports = readResult(sources.transports)
  if (transports.suite !== 'transports') throw new Error(`${sources.transports} is a ${transports.suite} result, not transports`)
  const profile = sources.profile ? readResult(sources.profile) : null
  const named = `transports=${sources.transports}${sources.profile ? ` profile=${sources.profile}` : ''}`
  return `<!-- results:start ${named} (written by npm run readme: edit scripts/readme/, not here) -->\n${resultsBlock(transports, profile)}${END}`
}

/**
 * README text with its block replaced.
 * @param {string} readme
 * @param {string} block
 */
export function replaceBlock (readme, block) {
  const match = START.exec(readme)
  const end = readme.indexOf(END)
  if (!match || end < match.index) throw new Error('README.md needs <!-- results:start … --> and <!-- results:end --> in that order')
  return readme.slice(0, match.index) + block + readme.slice(end + END.length)
}

/** @param {string} path */
export function projectRelative (path) {
  return relative(PROJECT_ROOT, resolve(path))
}
