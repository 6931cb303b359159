// @ts-check
// Is a process still there? A zombie counts as gone: it holds no port and no
// CPU, and in containers whose PID 1 does not reap orphans (a PM2 daemon is
// one) it can stay in the process table long after it exited.
import { readFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'

/** @param {number} pid */
export function isAlive (pid) {
  try {
    process.kill(pid, 0)
  } catch (err) {
    return /** @type {NodeJS.ErrnoException} */ (err).code === 'EPERM'
  }
  try {
    // /proc/<pid>/stat: "pid (comm) S …"; comm may contain spaces or parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return true // no /proc (not Linux): kill(0) said it exists
  }
}

/**
 * Waits until none of `pids` is alive; returns the ones still alive at the deadline.
 * @param {number[]} pids
 * @param {number} [timeoutMs]
 */
export async function waitGone (pids, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs
  let alive = pids.filter(isAlive)
  while (alive.length > 0 && Date.now() < deadline) {
    await sleep(50)
    alive = alive.filter(isAlive)
  }
  return alive
}

/**
 * SIGKILLs whatever of `pids` is still alive (last resort after a polite stop).
 * @param {number[]} pids
 */
export function killAll (pids) {
  for (const pid of pids) {
    try { process.kill(pid, 'SIGKILL') } catch {}
  }
}
