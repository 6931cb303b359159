// @ts-check
// PM2 (AGPL-3.0) as an external tool only: its CLI from tools/pm2, run with
// this project's Node, in a private PM2_HOME under the temp folder, with its
// update check, telemetry and host metrics off. Its daemon is killed after
// every use, on Ctrl-C, at exit, and daemons left by a crashed earlier run are
// killed before the next one starts.
import { once } from 'node:events'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PROJECT_ROOT } from '../lib/paths.js'
import { onCleanup, spawnTracked, stopChild } from '../lib/processes.js'
import { isAlive, killAll, waitGone } from './alive.js'

export const PM2_CLI = join(PROJECT_ROOT, 'tools', 'pm2', 'node_modules', 'pm2', 'bin', 'pm2')
export const HOME_PREFIX = 'watt-scale-pm2-'
const APP_NAME = 'scale'
const CLI_TIMEOUT_MS = 30_000

/** Homes this process created and has not cleaned up yet (for the exit hook). */
const liveHomes = new Set()
let exitHookInstalled = false

export function pm2Installed () {
  return existsSync(PM2_CLI)
}

/** @param {string} home */
function pm2Env (home) {
  return {
    ...process.env,
    PM2_HOME: home,
    // The daemon's daily update check; the CLI's first-run "install" ping is
    // skipped by the `touch` file written into the home.
    PM2_DISABLE_VERSION_CHECK: 'true'
  }
}

/**
 * Runs one PM2 CLI command in `home` and returns its output; throws on failure.
 * @param {string} home
 * @param {string[]} args
 */
export async function pm2 (home, args) {
  const { child, exited, output } = spawnTracked(process.execPath, [PM2_CLI, ...args], { env: pm2Env(home) })
  // Raw stdout (the tracked output is split into lines, which would cut a long `jlist` line).
  let stdout = ''
  child.stdout?.on('data', (chunk) => { stdout += chunk })
  const closed = once(child, 'close') // after exit: stdout fully read
  const timer = setTimeout(() => { stopChild(child, { signal: 'SIGKILL' }) }, CLI_TIMEOUT_MS)
  const [{ code, signal }] = await Promise.all([exited, closed]).finally(() => clearTimeout(timer))
  if (code !== 0) throw new Error(`pm2 ${args.join(' ')} failed (${signal ?? `exit ${code}`})\n${output()}`)
  return stdout
}

/**
 * The private home: owner pid (so a later run can tell a crashed run's
 * leftovers), the `touch` marker, host metrics (sysmonit) off.
 */
function createHome () {
  const home = mkdtempSync(join(tmpdir(), HOME_PREFIX))
  writeFileSync(join(home, 'owner.pid'), String(process.pid))
  writeFileSync(join(home, 'touch'), String(Date.now()))
  writeFileSync(join(home, 'module_conf.json'), JSON.stringify({ pm2: { sysmonit: 'false' } }))
  return home
}

/** @param {string} path */
function readPid (path) {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim())
    return Number.isInteger(pid) && pid > 0 ? pid : null
  } catch {
    return null
  }
}

/**
 * The daemon and every app process PM2 recorded in `home`.
 * @param {string} home
 */
export function recordedPids (home) {
  const daemon = readPid(join(home, 'pm2.pid'))
  const pidsDir = join(home, 'pids')
  const apps = existsSync(pidsDir) ? readdirSync(pidsDir).map((name) => readPid(join(pidsDir, name))) : []
  return /** @type {number[]} */ ([daemon, ...apps].filter((pid) => pid !== null))
}

/**
 * Stops everything PM2 runs from `home` (`pm2 kill`, then SIGKILL whatever is
 * still alive) and removes the home. Returns the pids that had to be SIGKILLed.
 * @param {string} home
 * @param {number[]} [knownPids]  pids seen while running (app pid files vanish on kill)
 */
export async function killDaemon (home, knownPids = []) {
  const pids = [...new Set([...recordedPids(home), ...knownPids])]
  if (pids.some(isAlive)) {
    await pm2(home, ['kill']).catch((err) => process.stderr.write(`${err.message}\n`))
  }
  const stubborn = await waitGone(pids, 5000)
  killAll(stubborn)
  await waitGone(stubborn, 2000)
  rmSync(home, { recursive: true, force: true })
  liveHomes.delete(home)
  return stubborn
}

/**
 * Kills daemons left in homes whose owning bench process is gone (a run that
 * was SIGKILLed, or crashed before its clean-up). Homes of live runs are left alone.
 * @returns {Promise<number[]>} pids of the leftover daemons that were running
 */
export async function killStaleDaemons () {
  const killed = []
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(HOME_PREFIX)) continue
    const home = join(tmpdir(), name)
    const owner = readPid(join(home, 'owner.pid'))
    if (owner !== null && owner !== process.pid && isAlive(owner)) continue
    if (owner === process.pid && liveHomes.has(home)) continue
    const running = recordedPids(home).filter(isAlive)
    if (running.length) {
      process.stderr.write(`pm2: stopping a daemon left by an earlier run in ${home} (pids ${running.join(', ')})\n`)
      killed.push(...running)
    }
    await killDaemon(home)
  }
  return killed
}

/** Synchronous last resort when the process exits without its clean-up. */
function installExitHook () {
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.on('exit', () => {
    for (const home of liveHomes) {
      killAll(recordedPids(home))
      rmSync(home, { recursive: true, force: true })
    }
  })
}

/**
 * Starts `script` in PM2 cluster mode with `instances` workers.
 * @param {{ script: string, instances: number, env: Record<string, string> }} options
 */
export async function startPm2Cluster ({ script, instances, env }) {
  await killStaleDaemons()
  const home = createHome()
  liveHomes.add(home)
  installExitHook()
  const unregister = onCleanup(async () => { await killDaemon(home) })
  const ecosystem = join(home, 'ecosystem.json')
  writeFileSync(ecosystem, JSON.stringify({
    apps: [{
      name: APP_NAME,
      script,
      exec_mode: 'cluster',
      instances,
      env,
      autorestart: false, // a crashed worker must show, not be replaced mid-run
      pmx: false, // no @pm2/io metrics wrapper in the workers
      automation: false,
      vizion: false, // no git metadata collection
      merge_logs: true,
      out_file: join(home, 'app-out.log'),
      error_file: join(home, 'app-err.log')
    }]
  }))
  /** @type {number[]} */
  let seen = []
  const stop = async () => {
    const stubborn = await killDaemon(home, seen)
    unregister()
    return stubborn
  }
  try {
    await pm2(home, ['start', ecosystem])
    seen = recordedPids(home)
  } catch (err) {
    await stop()
    throw err
  }
  return {
    home,
    /** An instance PM2 started has exited (with autorestart off, it stays down). */
    instanceDied: () => recordedPids(home).slice(1).some((pid) => !isAlive(pid)),
    /** The apps' and the daemon's recent log lines, for start errors. */
    output: () => ['app-err.log', 'app-out.log', 'pm2.log'].map((name) => tail(join(home, name))).filter(Boolean).join('\n'),
    /** The daemon and app pids, as PM2 recorded them. */
    pids: () => (seen = [...new Set([...seen, ...recordedPids(home)])]),
    /** Why PM2's view is not "instances workers online, never restarted", or []. */
    problems: async () => processProblems(await list(home), instances),
    stop
  }
}

/**
 * @param {string} path
 * @param {number} [lines]
 */
function tail (path, lines = 40) {
  try {
    return readFileSync(path, 'utf8').trim().split('\n').slice(-lines).join('\n')
  } catch {
    return ''
  }
}

/**
 * @param {string} home
 * @returns {Promise<any[]>}
 */
async function list (home) {
  const text = await pm2(home, ['jlist'])
  const start = text.indexOf('[')
  return JSON.parse(text.slice(start, text.lastIndexOf(']') + 1))
}

/**
 * @param {any[]} processes  `pm2 jlist` entries
 * @param {number} instances
 */
export function processProblems (processes, instances) {
  const mine = processes.filter((entry) => entry.name === APP_NAME)
  const problems = []
  if (mine.length !== instances) problems.push(`pm2 lists ${mine.length} instance(s), expected ${instances}`)
  for (const entry of mine) {
    const status = entry.pm2_env?.status
    const restarts = entry.pm2_env?.restart_time ?? 0
    if (status !== 'online') problems.push(`pm2 instance ${entry.pm2_env?.pm_id} is ${status}`)
    if (restarts > 0) problems.push(`pm2 instance ${entry.pm2_env?.pm_id} restarted ${restarts} time(s)`)
  }
  return problems
}
