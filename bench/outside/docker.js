// @ts-check
// Talking to the Docker engine: the `docker` client with a timeout and its
// output, whether an engine can run here (and why not), and starting `dockerd`
// when none runs (stopped again only by whoever started it).
import { execFile } from 'node:child_process'
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'
import { spawnTracked, stopChild } from '../lib/processes.js'

const run = promisify(execFile)

/** The label on every container, network and volume the lab makes (value: the run id). */
export const LAB_LABEL = 'watt-lab'
/** The label on the images the lab builds (kept between runs). */
export const IMAGE_LABEL = 'watt-lab.image'

/**
 * First `name` on PATH (then in `alsoIn`), or null.
 * @param {string} name
 * @param {NodeJS.ProcessEnv} [env]
 * @param {string[]} [alsoIn]  e.g. the sbin folders a non-login root PATH lacks
 */
export function onPath (name, env = process.env, alsoIn = []) {
  for (const dir of [...(env.PATH ?? '').split(delimiter), ...alsoIn]) {
    if (dir && existsSync(join(dir, name))) return join(dir, name)
  }
  return null
}

/** @param {NodeJS.ProcessEnv} [env] */
const dockerdOf = (env = process.env) => onPath('dockerd', env, ['/usr/sbin', '/sbin', '/usr/bin'])

/**
 * Runs `docker <args>`; resolves with its output, rejects with stderr in the message.
 * The legacy builder always (DOCKER_BUILDKIT=0): Debian's docker.io ships no buildx,
 * and a newer client would refuse to build without it.
 * @param {string[]} args
 * @param {{ timeoutMs?: number }} [options]
 */
export async function docker (args, { timeoutMs = 120_000 } = {}) {
  const binary = onPath('docker') ?? 'docker'
  try {
    const { stdout, stderr } = await run(binary, args, { timeout: timeoutMs, maxBuffer: 64 << 20, env: { ...process.env, DOCKER_BUILDKIT: '0' } })
    return { stdout, stderr }
  } catch (err) {
    const e = /** @type {any} */ (err)
    throw new Error(`docker ${args.join(' ')} failed: ${(e.stderr || e.message || '').trim()}`)
  }
}

/** True when an engine answers `docker version`. */
export async function engineAnswers () {
  try {
    await docker(['version', '--format', '{{.Server.Version}}'], { timeoutMs: 15_000 })
    return true
  } catch {
    return false
  }
}

/** The engine's version (server), e.g. "20.10.24+dfsg1". */
export async function engineVersion () {
  return (await docker(['version', '--format', '{{.Server.Version}}'], { timeoutMs: 15_000 })).stdout.trim()
}

/**
 * Whether a Docker engine can run here, before trying: the reason when not.
 * @param {{ uid?: number, env?: NodeJS.ProcessEnv }} [options]
 * @returns {{ ok: true } | { ok: false, reason: string }}
 */
export function engineSupport ({ uid = process.getuid?.() ?? -1, env = process.env } = {}) {
  if (!onPath('docker', env)) return { ok: false, reason: "the 'docker' command is missing (apt-get install docker.io)" }
  if (existsSync('/var/run/docker.sock') && uid === 0) return { ok: true }
  if (uid !== 0) return { ok: false, reason: 'no engine answers and starting dockerd needs root (run as root, or give this user access to a running dockerd\'s socket)' }
  if (!dockerdOf(env)) return { ok: false, reason: "no engine runs and 'dockerd' is missing (apt-get install docker.io)" }
  return { ok: true }
}

/**
 * An engine to talk to: the one already running, or a `dockerd` started here
 * (then `stop` stops it; for one already running `stop` does nothing).
 * @param {{ readyTimeoutMs?: number }} [options]
 * @returns {Promise<{ startedHere: boolean, version: string, stop: () => Promise<void> }>}
 */
export async function ensureEngine ({ readyTimeoutMs = 60_000 } = {}) {
  if (await engineAnswers()) return { startedHere: false, version: await engineVersion(), stop: async () => {} }
  const support = engineSupport()
  if (!support.ok) throw new Error(support.reason)
  const dockerd = /** @type {string} */ (dockerdOf())
  const logDir = mkdtempSync(join(tmpdir(), 'watt-lab-dockerd-'))
  const log = join(logDir, 'dockerd.log')
  const fd = openSync(log, 'a')
  // Its own process group: a Ctrl-C at the terminal reaches the harness, which removes
  // its containers first and then stops dockerd; dockerd must not quit under it meanwhile.
  const tracked = spawnTracked(dockerd, [], { stdio: ['ignore', fd, fd], detached: true })
  closeSync(fd)
  let gone = false
  tracked.exited.then(() => { gone = true })
  const deadline = Date.now() + readyTimeoutMs
  while (!(await engineAnswers())) {
    if (gone || Date.now() > deadline) {
      // Another start won the race (its dockerd holds the pid file): use that engine.
      if (gone && await engineAnswers()) return { startedHere: false, version: await engineVersion(), stop: async () => {} }
      await stopChild(tracked.child, { signal: 'SIGTERM', graceMs: 10_000 })
      const tail = readFileSync(log, 'utf8').split('\n').slice(-8).join('\n')
      throw new Error(`dockerd did not start${gone ? '' : ` within ${readyTimeoutMs} ms`} (log ${log}):\n${tail}`)
    }
    await sleep(250)
  }
  return {
    startedHere: true,
    version: await engineVersion(),
    stop: () => stopChild(tracked.child, { signal: 'SIGTERM', graceMs: 15_000 })
  }
}
