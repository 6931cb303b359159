// @ts-check
// How long each Watt application's threads were ready to run but waited for a
// core: the kernel's run-queue delay (/proc/<pid>/task/<tid>/schedstat, second
// field, ns), and how many times they were put on a core (third field: each
// wake-up, and each return after being preempted), summed over the threads Watt
// names `<application>:<worker>` (the kernel keeps 15 bytes of a name: an id of 14
// or more is not counted).
// CPU seconds say what a call costs; this says why a runtime with more threads
// than cores serves less: its entry thread, the bottleneck, stands in line, and
// threads that wake more often per call pay for it.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/** A Watt worker thread's name: application id, ':', worker index. */
const WORKER_THREAD = /^(.+):(\d+)$/

/**
 * Each application's threads so far: seconds waited for a core, and times put on
 * one; null where the kernel keeps no such count (no /proc, schedstat off) or the
 * process is gone.
 * @param {number} pid
 * @param {string} [proc]  the /proc to read (a test gives its own)
 * @returns {{ waits: Record<string, number>, slices: Record<string, number> } | null}
 */
export function schedstatByApplication (pid, proc = '/proc') {
  let tids
  try {
    tids = readdirSync(join(proc, String(pid), 'task'))
  } catch {
    return null
  }
  /** @type {Record<string, number>} */
  const waits = {}
  /** @type {Record<string, number>} */
  const slices = {}
  let counted = 0
  for (const tid of tids) {
    let name, schedstat
    try {
      name = readFileSync(join(proc, String(pid), 'task', tid, 'comm'), 'utf8').trim()
      schedstat = readFileSync(join(proc, String(pid), 'task', tid, 'schedstat'), 'utf8')
    } catch {
      continue // the thread ended between the listing and the read
    }
    const app = WORKER_THREAD.exec(name)?.[1]
    const [, waitNs, timeslices] = schedstat.trim().split(/\s+/).map(Number)
    if (!app || !Number.isFinite(waitNs)) continue
    waits[app] = (waits[app] ?? 0) + waitNs / 1e9
    if (Number.isFinite(timeslices)) slices[app] = (slices[app] ?? 0) + timeslices
    counted++
  }
  return counted > 0 ? { waits, slices } : null
}

/**
 * The waits (or times on a core) between two readings; null unless both were read.
 * A thread that ended meanwhile takes its count along, so an application never
 * goes below 0.
 * @param {Record<string, number> | null} before
 * @param {Record<string, number> | null} after
 * @returns {Record<string, number> | null}
 */
export function schedstatDelta (before, after) {
  if (!before || !after) return null
  return Object.fromEntries(Object.entries(after).map(([app, s]) => [app, Math.max(0, s - (before[app] ?? 0))]))
}
