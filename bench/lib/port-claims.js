// @ts-check
// Claims on the free ports freePorts() hands out, shared by every process of this
// user on the machine. Why: freePorts() asks the OS for a port and closes it again,
// and the runtime binds it seconds later; meanwhile the OS may give the same port
// to another caller (a test running beside it, or the same bench starting a second
// runtime). Watt binds every application's listener with SO_REUSEPORT
// (`reuseTcpPorts`, on by default), so the second runtime does not fail: the two
// share the port and the kernel splits the connections between them. A load then
// gets answers from the wrong runtime (seen as a run of fast 404s). A claim is a
// file named after the port holding the claimer's pid; it lasts until that process
// exits.
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** One directory per user: claims are between this user's processes (ports are machine-wide). */
export const CLAIMS_DIR = join(tmpdir(), `watt-lab-port-claims-${process.getuid?.() ?? 'user'}`)

/** @type {Set<string>} this process's claim files */
const mine = new Set()
let releaseOnExit = false

/**
 * Claims `port` for this process unless a live process (this one included) holds it.
 * @param {number} port
 * @param {string} [dir]
 * @returns {boolean} true when the port is now this process's
 */
export function claimPort (port, dir = CLAIMS_DIR) {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const file = join(dir, String(port))
  // written aside and linked in: a claim is never seen empty, and link fails if one exists
  const draft = `${file}.${process.pid}.draft`
  writeFileSync(draft, String(process.pid))
  try {
    return linkClaim(draft, file)
  } finally {
    rmSync(draft, { force: true })
  }
}

/**
 * @param {string} draft
 * @param {string} file
 */
function linkClaim (draft, file) {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      linkSync(draft, file)
      mine.add(file)
      if (!releaseOnExit) {
        releaseOnExit = true
        process.once('exit', releaseClaims)
      }
      return true
    } catch (err) {
      if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'EEXIST') throw err
      if (isAlive(holder(file))) return false
      // the claimer exited without releasing (SIGKILL): the claim is stale
      rmSync(file, { force: true })
    }
  }
  return false
}

/** Removes this process's claims (on exit; tests call it directly). */
export function releaseClaims () {
  for (const file of mine) {
    if (holder(file) === process.pid) rmSync(file, { force: true })
  }
  mine.clear()
}

/**
 * The pid written in a claim file, or 0 when it cannot be read (treated as stale).
 * @param {string} file
 */
function holder (file) {
  try {
    return Number.parseInt(readFileSync(file, 'utf8'), 10) || 0
  } catch {
    return 0
  }
}

/** @param {number} pid */
function isAlive (pid) {
  if (pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    // EPERM: alive, owned by someone else
    return /** @type {NodeJS.ErrnoException} */ (err).code === 'EPERM'
  }
}
