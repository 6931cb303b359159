// @ts-check
// Watt's management API socket of a runtime started by `wattpm start`, and the
// clean-up of the directory Watt leaves behind when it exits.
import { readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

/**
 * Where a runtime started by `wattpm start` listens for management calls
 * (@platformatic/runtime lib/management-api.js).
 * @param {number} pid
 */
export function managementSocketPath (pid) {
  return join(tmpdir(), 'platformatic', 'runtimes', String(pid), 'socket')
}

/**
 * Watt exits before its management API's clean-up runs, leaving
 * /tmp/platformatic/runtimes/<pid>/socket behind. Removes that directory for a
 * runtime we started, once its process is gone; says whether there was one.
 * @param {number} pid
 */
export function removeStaleManagementDir (pid) {
  const dir = dirname(managementSocketPath(pid))
  try {
    process.kill(pid, 0)
    return false // still running (or the pid was reused): not ours to touch
  } catch {}
  let entries
  try {
    entries = readdirSync(dir)
  } catch {
    return false
  }
  if (entries.some((name) => name !== 'socket')) return true // unexpected content: leave it
  rmSync(dir, { recursive: true, force: true })
  return true
}
