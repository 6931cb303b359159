// @ts-check
// Writes a throw-away runtime config for profiling: watt.json (or mesh-port's
// watt.mesh-port.json) as it is, plus a preload (bench/profile/preload.js) in
// every application. The committed file is untouched.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { APPLICATIONS } from '../../lib/topology.js'
import { PROJECT_ROOT } from '../lib/paths.js'

export { APPLICATIONS }

/**
 * @param {string} dir  folder for the config (inside the project, under .cache)
 * @param {string} [base]  the committed config it starts from, relative to the project root
 * @returns {string} the config path relative to the project root
 */
export function writeProfilingConfig (dir, base = 'watt.json') {
  const config = JSON.parse(readFileSync(join(PROJECT_ROOT, base), 'utf8'))
  mkdirSync(dir, { recursive: true })
  config.autoload.path = relative(dir, join(PROJECT_ROOT, config.autoload.path))
  const preload = join(PROJECT_ROOT, 'bench', 'profile', 'preload.js')
  config.autoload.mappings = Object.fromEntries(APPLICATIONS.map((id) => [id, { id, preload }]))
  const file = join(dir, 'watt.json')
  writeFileSync(file, JSON.stringify(config, null, 2))
  return relative(PROJECT_ROOT, file)
}
