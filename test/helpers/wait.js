// Waiting for a condition instead of sleeping and hoping: tests run on a
// loaded 2-core box, where any fixed sleep is sometimes too short.
import { readFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseInetTable, socketInodes } from '../../bench/reliability/os-sockets.js'

/**
 * Polls `fn` until it returns something truthy and returns that; throws after
 * `timeoutMs` (generous by default: a deadline is a hang detector, not a bound).
 */
export async function until (fn, { timeoutMs = 30_000, intervalMs = 50, what = 'the condition' } = {}) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await fn()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await sleep(intervalMs)
  }
}

/** CPU time (user + system, in clock ticks) a process has used so far, from /proc. */
export function cpuTicks (pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return Number(fields[11]) + Number(fields[12]) // utime, stime (fields 14 and 15 of stat)
}

/** Process state letter from /proc (R, S, Z, …), or null when it is gone. */
export function procState (pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3)
  } catch {
    return null
  }
}

/** Waits until `pid` has used `ticks` more CPU than now: it is busy with a load. */
export async function untilBusy (pid, { ticks = 20, timeoutMs = 60_000, what = `process ${pid} under load` } = {}) {
  const start = cpuTicks(pid)
  return until(() => cpuTicks(pid) - start >= ticks, { timeoutMs, intervalMs: 100, what })
}

/**
 * Established TCP connections held by `pid` (from /proc): a load generator
 * with N connections open is under way, whatever the box's speed.
 */
export function establishedConnections (pid) {
  const inodes = socketInodes(pid)
  let count = 0
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const row of parseInetTable(readFileSync(file, 'utf8'), file.endsWith('6') ? 6 : 4)) {
      if (row.state === '01' && inodes.has(row.inode)) count++
    }
  }
  return count
}
