// @ts-check
// What ran where: CPU, cores, memory, OS, Node, the versions that matter and the
// git commit, recorded in every result file.
import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { existsSync, readFileSync } from 'node:fs'
import os from 'node:os'
import { dirname, join } from 'node:path'
import { PROJECT_ROOT } from './paths.js'

const require = createRequire(import.meta.url)
export const CORE_PACKAGES = ['wattpm', '@platformatic/service', '@platformatic/node', 'undici', 'fastify', 'autocannon']

/**
 * @param {string} name
 * @returns {string | null}
 */
export function packageVersion (name) {
  try {
    return require(`${name}/package.json`).version
  } catch {
    // some packages' exports hide package.json: walk up from their entry point
    try {
      let dir = dirname(require.resolve(name))
      while (dir !== dirname(dir)) {
        const file = join(dir, 'package.json')
        if (existsSync(file) && JSON.parse(readFileSync(file, 'utf8')).name === name) return JSON.parse(readFileSync(file, 'utf8')).version
        dir = dirname(dir)
      }
    } catch {}
    return null
  }
}

/** @param {string[]} args */
function git (args) {
  try {
    return execFileSync('git', args, { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim()
  } catch {
    return null
  }
}

/**
 * @param {string[]} [extraPackages]
 */
export function machineInfo (extraPackages = []) {
  const cpus = os.cpus()
  /** @type {Record<string, string | null>} */
  const versions = { node: process.version }
  for (const name of [...CORE_PACKAGES, ...extraPackages]) versions[name] = packageVersion(name)
  const commit = git(['rev-parse', 'HEAD'])
  return {
    cpuModel: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memoryBytes: os.totalmem(),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    hostname: os.hostname(),
    node: process.version,
    versions,
    git: { commit, dirty: commit ? git(['status', '--porcelain']) !== '' : null },
    note: 'the load generator runs on the same machine and shares its cores with the servers'
  }
}
