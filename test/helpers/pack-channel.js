// @ts-check
// Packs @watt-lab/channel the way a publish would (`npm pack`, its lifecycle
// scripts included), so tests install and type-check what a user would get.
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
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
 * @param {{ fresh?: boolean }} [options]  fresh: run npm pack even when the same sources were packed
 *   lately (a copy of that tarball is returned otherwise: see PACK_CACHE)
 * @returns {Promise<{ tarball: string, files: string[], version: string }>}
 */
export async function packChannel (destination = mkdtempSync(join(tmpdir(), 'channel-pack-')), { fresh = false } = {}) {
  const [cmd, args] = npmCommand()
  // One pack at a time per checkout, across processes (tap runs test files in
  // parallel): prepack writes packages/channel/types/ and postpack removes it, so a
  // second pack in between would miss files or read half-written ones.
  const release = await lockPacking()
  try {
    const key = sourcesKey()
    const cached = fresh ? null : fromCache(key, destination)
    if (cached) return cached
    const { stdout } = await promisify(execFile)(cmd, [...args, 'pack', '--json', '--pack-destination', destination], {
      cwd: CHANNEL_DIR,
      maxBuffer: 16 * 1024 * 1024
    })
    // Lifecycle scripts may print before the JSON: it starts at the first '['.
    const [packed] = JSON.parse(stdout.slice(stdout.indexOf('[')))
    const result = { tarball: join(destination, packed.filename), files: packed.files.map((/** @type {{ path: string }} */ f) => f.path), version: packed.version }
    // kept only if no source changed while npm packed (others may be editing them)
    if (sourcesKey() === key) {
      try {
        toCache(key, result)
      } catch {} // a cache that cannot be written only means packing again
    }
    return result
  } finally {
    release()
  }
}

/**
 * Tarballs packed lately, by a hash of what goes into one: the test files that install,
 * type-check or unpack the package share a pack instead of making one each (about 6 s
 * each on a loaded 2-core box). An entry is used for an hour at most.
 */
const PACK_CACHE = join(tmpdir(), `watt-lab-channel-packs-${createHash('sha256').update(CHANNEL_DIR).digest('hex').slice(0, 12)}`)
const PACK_CACHE_MS = 60 * 60_000
/** Not packed (package.json's files), or written by the pack itself. */
const NOT_PACKED = new Set(['node_modules', '.tap', 'coverage', 'types', 'test', 'bench'])

/**
 * A hash of every file the pack reads, the type declarations' compiler included.
 * @returns {string}
 */
function sourcesKey () {
  const hash = createHash('sha256')
  const root = join(CHANNEL_DIR, '..', '..', 'node_modules')
  for (const name of ['typescript', '@types/node']) hash.update(`${name}@${JSON.parse(readFileSync(join(root, name, 'package.json'), 'utf8')).version}\n`)
  const walk = (/** @type {string} */ dir, /** @type {string} */ prefix) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (!prefix && NOT_PACKED.has(entry.name)) continue
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path, `${prefix}${entry.name}/`)
      else if (entry.isFile()) hash.update(`${prefix}${entry.name}\n`).update(readFileSync(path))
    }
  }
  walk(CHANNEL_DIR, '')
  return hash.digest('hex').slice(0, 32)
}

/**
 * A copy of the tarball packed from these sources within the hour, in `destination`.
 * @param {string} key
 * @param {string} destination
 */
function fromCache (key, destination) {
  const entry = join(PACK_CACHE, key)
  try {
    if (Date.now() - statSync(entry).mtimeMs > PACK_CACHE_MS) return null
    const meta = JSON.parse(readFileSync(join(entry, 'meta.json'), 'utf8'))
    const tarball = join(destination, meta.filename)
    copyFileSync(join(entry, meta.filename), tarball)
    return { tarball, files: meta.files, version: meta.version }
  } catch {
    return null
  }
}

/**
 * @param {string} key
 * @param {{ tarball: string, files: string[], version: string }} packed
 */
function toCache (key, { tarball, files, version }) {
  mkdirSync(PACK_CACHE, { recursive: true })
  for (const old of readdirSync(PACK_CACHE)) {
    const path = join(PACK_CACHE, old)
    if (old === key || Date.now() - statSync(path).mtimeMs > PACK_CACHE_MS) rmSync(path, { recursive: true, force: true })
  }
  // complete before it has its name: a reader sees the whole entry or none
  const building = join(PACK_CACHE, `${key}.${process.pid}.tmp`)
  mkdirSync(building)
  copyFileSync(tarball, join(building, basename(tarball)))
  writeFileSync(join(building, 'meta.json'), JSON.stringify({ filename: basename(tarball), files, version }))
  renameSync(building, join(PACK_CACHE, key))
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
