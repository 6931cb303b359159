// @ts-check
// Packages installed on demand, through the project's own files: a folder with a pinned
// package.json and its committed lockfile, `npm ci` in it when its node_modules was not
// installed from that lockfile, and a build when its sources changed since the last one.
// Used by npm run compat's kinds (scripts/compat/kinds.js) and by bench:apps' Next.js
// storefront, whose installs are hundreds of megabytes: a second run reuses them. A
// folder is used by one process at a time (a lock in it), so two runs on one checkout
// take turns instead of installing over each other.
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'
import { npmCommand } from '../../test/helpers/pack-channel.js'
import { PROJECT_ROOT } from './paths.js'

/** @param {string[]} files */
export function hashOf (files) {
  const hash = createHash('sha256')
  for (const file of files) hash.update(relative(PROJECT_ROOT, file)).update(readFileSync(file))
  return hash.digest('hex')
}

/**
 * Runs `fn` holding the folder's lock (`.lab-lock`), taken over from a holder that exited.
 * @template T
 * @param {string} dir
 * @param {() => Promise<T>} fn
 * @returns {Promise<T>}
 */
export async function withFolderLock (dir, fn) {
  const lock = join(dir, '.lab-lock')
  for (;;) {
    try {
      mkdirSync(lock)
      writeFileSync(join(lock, 'pid'), String(process.pid))
      break
    } catch (err) {
      if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'EEXIST') throw err
    }
    if (holderGone(lock)) rmSync(lock, { recursive: true, force: true })
    else await sleep(500)
  }
  try {
    return await fn()
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}

/** @param {string} lock */
function holderGone (lock) {
  try {
    const pid = Number(readFileSync(join(lock, 'pid'), 'utf8'))
    if (!Number.isInteger(pid) || pid <= 0) return false // being written right now
    process.kill(pid, 0)
    return false
  } catch (err) {
    return /** @type {NodeJS.ErrnoException} */ (err).code === 'ESRCH'
  }
}

/**
 * `npm ci --prefix dir` unless its node_modules was installed from this package.json and
 * lockfile (a hash of both in `.lab-installed`).
 * @param {string} dir
 * @param {{ log?: (line: string) => void }} [options]
 * @returns {Promise<{ seconds: number, ran: boolean }>}
 */
export async function npmCiOnDemand (dir, { log = () => {} } = {}) {
  const where = relative(PROJECT_ROOT, dir)
  const lockHash = hashOf([join(dir, 'package.json'), join(dir, 'package-lock.json')])
  const mark = join(dir, '.lab-installed')
  const began = Date.now()
  if (existsSync(mark) && readFileSync(mark, 'utf8') === lockHash && existsSync(join(dir, 'node_modules'))) return { seconds: 0, ran: false }
  log(`npm ci --prefix ${where}`)
  rmSync(mark, { force: true })
  const [cmd, args] = npmCommand()
  try {
    await promisify(execFile)(cmd, [...args, 'ci', '--prefix', dir, '--no-audit', '--no-fund'], { cwd: dir, maxBuffer: 64 * 1024 * 1024 })
  } catch (err) {
    const { stderr = '', message } = /** @type {any} */ (err)
    const why = String(stderr || message).split('\n').filter((line) => /npm error|ERR|ENO|E\d{3}/.test(line)).slice(0, 6).join('\n') || message
    throw new Error(`npm ci --prefix ${where} failed:\n${why}`)
  }
  writeFileSync(mark, lockHash)
  return { seconds: Math.round((Date.now() - began) / 1000), ran: true }
}

/**
 * Runs the build unless it last ran on these very sources (a hash of them in `.lab-built`).
 * @param {string} dir
 * @param {{ sources: string[], command: string, args: string[], cwd?: string, env?: NodeJS.ProcessEnv, log?: (line: string) => void }} build
 * @returns {Promise<{ seconds: number, ran: boolean }>}
 */
export async function buildOnDemand (dir, { sources, command, args, cwd = dir, env = process.env, log = () => {} }) {
  const mark = join(dir, '.lab-built')
  const sourceHash = hashOf(sources)
  const began = Date.now()
  if (existsSync(mark) && readFileSync(mark, 'utf8') === sourceHash) return { seconds: 0, ran: false }
  log(`build in ${relative(PROJECT_ROOT, cwd)}: ${args.slice(-1)[0]}`)
  rmSync(mark, { force: true })
  try {
    await promisify(execFile)(command, args, { cwd, env, maxBuffer: 64 * 1024 * 1024, timeout: 600_000 })
  } catch (err) {
    const { stdout = '', stderr = '', message } = /** @type {any} */ (err)
    throw new Error(`the build in ${relative(PROJECT_ROOT, cwd)} failed: ${message}\n${String(stdout).slice(-3000)}\n${String(stderr).slice(-3000)}`)
  }
  writeFileSync(mark, sourceHash)
  return { seconds: Math.round((Date.now() - began) / 1000), ran: true }
}

/**
 * The files under `dir` that make a build, sorted: not node_modules, not what a build,
 * an install or a start writes (`skip`, a pattern of relative paths).
 * @param {string} dir
 * @param {RegExp} skip
 */
export function sourcesUnder (dir, skip) {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((path) => !/(^|\/)node_modules(\/|$)|(^|\/)\.lab-/.test(path) && !skip.test(path) && statSync(join(dir, path)).isFile())
    .sort()
    .map((path) => join(dir, path))
}

/** What a folder holds on disk, in MiB (what an install costs). @param {string} dir */
export function sizeMiB (dir) {
  let bytes = 0
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) bytes += statSync(join(entry.parentPath, entry.name)).size
  }
  return Math.round(bytes / 2 ** 20)
}
