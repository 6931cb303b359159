// What the container tests share: a Docker engine for this test run, started by
// the first test that needs one (under a lock, so parallel files start one),
// recorded so tap's `after` step (engine-after.js) stops only that one; and if no
// engine can run, why. Unrelated test runs start nothing.
import { spawn } from 'node:child_process'
import { mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { engineAnswers, engineSupport, onPath } from '../../bench/outside/docker.js'

const DIR = join(import.meta.dirname, '..', '..', '.cache')
const STATE = join(DIR, 'test-engine.json')
const LOCK = join(DIR, 'test-engine.lock')
export const ENGINE_LOG = join(DIR, 'test-dockerd.log')

/** @param {{ startedPid?: number, reason?: string }} state */
export function writeEngineState (state) {
  mkdirSync(DIR, { recursive: true })
  writeFileSync(STATE, JSON.stringify(state))
}

export function readEngineState () {
  try {
    return JSON.parse(readFileSync(STATE, 'utf8'))
  } catch {
    return {}
  }
}

/** Runs `fn` holding a directory lock (mkdir is atomic); a holder gone for 3 min is stale. */
async function locked (fn) {
  mkdirSync(DIR, { recursive: true })
  const deadline = Date.now() + 180_000
  while (true) {
    try {
      mkdirSync(LOCK)
      break
    } catch {
      if (Date.now() > deadline) rmSync(LOCK, { recursive: true, force: true })
      await sleep(200)
    }
  }
  try {
    return await fn()
  } finally {
    rmSync(LOCK, { recursive: true, force: true })
  }
}

/** false when an engine answers (starting dockerd for this run if none did), else the reason to skip. */
export async function engineSkip () {
  if (await engineAnswers()) return false
  const support = engineSupport()
  if (!support.ok) return `no Docker engine can run here: ${support.reason}`
  return locked(async () => {
    if (await engineAnswers()) return false
    const earlier = readEngineState().reason
    if (earlier) return `no Docker engine can run here: ${earlier}`
    const dockerd = onPath('dockerd', process.env, ['/usr/sbin', '/sbin']) ?? 'dockerd'
    // Detached: it serves every test file of the run and outlives this one.
    const child = spawn(dockerd, [], { detached: true, stdio: ['ignore', openSync(ENGINE_LOG, 'a'), openSync(ENGINE_LOG, 'a')] })
    child.unref()
    writeEngineState({ startedPid: child.pid })
    const deadline = Date.now() + 60_000
    while (!(await engineAnswers())) {
      if (Date.now() > deadline || child.exitCode !== null) {
        const reason = `dockerd did not start (its log: ${ENGINE_LOG})`
        writeEngineState({ startedPid: child.exitCode === null ? child.pid : undefined, reason })
        return `no Docker engine can run here: ${reason}`
      }
      await sleep(250)
    }
    return false
  })
}
