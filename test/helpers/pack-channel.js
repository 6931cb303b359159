// @ts-check
// Packs @watt-lab/channel the way a publish would (`npm pack`, its lifecycle
// scripts included), so tests install and type-check what a user would get.
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'

export const CHANNEL_DIR = join(import.meta.dirname, '..', '..', 'packages', 'channel')

/** A lock older than this is taken as left behind by a process that died packing. */
const STALE_LOCK_MS = 5 * 60_000

/**
 * The npm CLI this run was started with (npm sets npm_execpath for its scripts),
 * else `npm` on PATH: [command, leading args].
 * @returns {[string, string[]]}
 */
export function npmCommand () {
  const cli = process.env.npm_execpath
  if (cli && /npm-cli\.js$/.test(cli)) return [process.env.npm_node_execpath || 'node', [cli]]
  return ['npm', []]
}

/**
 * @param {string} [destination]  a folder for the tarball (default: a new one under the OS temp dir)
 * @returns {Promise<{ tarball: string, files: string[], version: string }>}
 */
export async function packChannel (destination = mkdtempSync(join(tmpdir(), 'channel-pack-'))) {
  const [cmd, args] = npmCommand()
  // One pack at a time per checkout, across processes (tap runs test files in
  // parallel): prepack writes packages/channel/types/ and postpack removes it, so a
  // second pack in between would miss files or read half-written ones.
  const release = await lockPacking()
  let stdout
  try {
    ({ stdout } = await promisify(execFile)(cmd, [...args, 'pack', '--json', '--pack-destination', destination], {
      cwd: CHANNEL_DIR,
      maxBuffer: 16 * 1024 * 1024
    }))
  } finally {
    release()
  }
  // Lifecycle scripts may print before the JSON: it starts at the first '['.
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf('[')))
  return { tarball: join(destination, packed.filename), files: packed.files.map((/** @type {{ path: string }} */ f) => f.path), version: packed.version }
}

/**
 * Unpacks `tarball` as `<nodeModules>/@watt-lab/channel`, as npm would install
 * it (without its dependencies: the caller provides those).
 * @param {string} tarball
 * @param {string} nodeModules
 * @returns {Promise<string>} the package's directory
 */
export async function extractChannel (tarball, nodeModules) {
  const dir = join(nodeModules, '@watt-lab', 'channel')
  mkdirSync(dir, { recursive: true })
  // npm tarballs hold everything under package/
  await promisify(execFile)('tar', ['-xzf', tarball, '-C', dir, '--strip-components=1'])
  return dir
}

/**
 * Takes the pack lock of this checkout (a directory made atomically under the OS
 * temp dir), waiting for another process's pack to finish. packChannel takes it;
 * anything else that runs the package's prepack/postpack (`npm pack --dry-run`)
 * should too.
 * @returns {Promise<() => void>} releases it
 */
export async function lockPacking () {
  const lock = join(tmpdir(), `watt-lab-channel-pack-${createHash('sha256').update(CHANNEL_DIR).digest('hex').slice(0, 12)}.lock`)
  for (;;) {
    try {
      mkdirSync(lock)
      writeFileSync(join(lock, 'pid'), String(process.pid))
      return () => rmSync(lock, { recursive: true, force: true })
    } catch (err) {
      if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'EEXIST') throw err
    }
    if (lockLeftBehind(lock)) rmSync(lock, { recursive: true, force: true })
    else await sleep(100)
  }
}

/**
 * Whether the process holding `lock` is gone, or has held it for too long.
 * @param {string} lock
 */
function lockLeftBehind (lock) {
  try {
    if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) return true
    const pid = Number(readFileSync(join(lock, 'pid'), 'utf8'))
    if (!Number.isInteger(pid) || pid <= 0) return false // being written right now
    process.kill(pid, 0)
    return false
  } catch (err) {
    const code = /** @type {NodeJS.ErrnoException} */ (err).code
    return code === 'ESRCH' // the holder exited without releasing; ENOENT: released meanwhile, try again
  }
}
