// @ts-check
// The frameworks suite's flags and the cases they expand to.
import { packageVersion } from '../lib/machine.js'
import { FRAMEWORKS, packageOf } from './frameworks.js'

/** @type {Record<string, import('../lib/cli.js').FlagSpec>} */
export const FLAGS = {
  frameworks: { type: 'list', default: [...FRAMEWORKS], choices: FRAMEWORKS, help: 'which frameworks' },
  connections: { type: 'integer', default: 200, min: 1, max: 10_000, help: 'autocannon -c, as the original write-up' },
  pipelining: { type: 'integer', default: 1, min: 1, max: 100, help: 'autocannon -p' },
  duration: { type: 'integer', default: 10, min: 1, max: 600, help: 'seconds measured per run (autocannon -d)' },
  warmup: { type: 'integer', default: 3, min: 0, max: 120, help: 'seconds of unmeasured load before each run' },
  rounds: { type: 'integer', default: 3, min: 1, max: 50, help: 'interleaved rounds (A B C A B C …), a fresh process each run' },
  'ready-timeout': { type: 'integer', default: 20, min: 1, max: 300, help: 'seconds a server may take to answer its first request' },
  // --out, --report, --allow-errors and --fail-fast come from the driver (bench/lib/driver.js)
}

/**
 * One case per framework, all in one load profile named after it (e.g. c200-p1).
 * @param {Record<string, any>} flags
 */
export function casesFrom (flags) {
  const profile = `c${flags.connections}-p${flags.pipelining}`
  return flags.frameworks.map((/** @type {string} */ name) => {
    const pkg = packageOf(name)
    return {
      target: name,
      profile,
      package: pkg ?? 'node',
      version: pkg ? packageVersion(pkg) : process.version,
      connections: flags.connections,
      pipelining: flags.pipelining
    }
  })
}
