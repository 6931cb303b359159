// @ts-check
// Runs a bench (e.g. `node bench/transports/run.js …`) as a child on private
// ports, the way a user would, and lets a scenario wait for lines of its output
// (the runtime's pid, a finished run).
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { spawnTracked } from '../lib/processes.js'
import { PROJECT_ROOT } from '../lib/paths.js'

export const TRANSPORTS_BENCH = join('bench', 'transports', 'run.js')

/**
 * @param {{ args: string[], env: Record<string, string>, detached?: boolean }} options
 *   detached: its own process group, so a signal to the group reaches it and the
 *   runtime it starts together, as Ctrl-C in a terminal does
 */
export function spawnTransportsBench (options) {
  return spawnBench(TRANSPORTS_BENCH, options)
}

/**
 * @param {string} script  path from the project root, e.g. bench/scale/run.js
 * @param {{ args: string[], env: Record<string, string>, detached?: boolean }} options
 */
export function spawnBench (script, { args, env, detached = false }) {
  const { child, exited, output } = spawnTracked(process.execPath, [script, ...args], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...env },
    detached
  })
  let text = ''
  const collect = (/** @type {Buffer} */ chunk) => { text += chunk.toString() }
  child.stdout?.on('data', collect)
  child.stderr?.on('data', collect)
  let exitedYet = false
  exited.then(() => { exitedYet = true })

  return {
    child,
    pid: /** @type {number} */ (child.pid),
    exited,
    output,
    /**
     * Resolves with the first match in the output so far or to come.
     * @param {RegExp} pattern
     * @param {number} timeoutMs
     * @returns {Promise<RegExpExecArray>}
     */
    async waitFor (pattern, timeoutMs) {
      const deadline = Date.now() + timeoutMs
      while (Date.now() < deadline) {
        const match = pattern.exec(text)
        if (match) return match
        if (exitedYet) break
        await Promise.race([exited, sleep(100)])
      }
      throw new Error(`the bench did not print ${pattern} within ${timeoutMs} ms${exitedYet ? ' (it exited)' : ''}\n--- output ---\n${output()}`)
    }
  }
}

/** What the bench prints once its runtime answers. */
export const RUNTIME_STARTED = /started the runtime \(pid (\d+)\)/
/** What the bench prints after each measured run. */
export const RUN_FINISHED = /^[✓✗] .*round \d+/m
