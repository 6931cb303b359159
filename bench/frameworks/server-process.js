// @ts-check
// One framework server in its own process: start it on a free port, wait until
// it answers, stop it and tell a clean stop (exit 0) from anything else.
import { setTimeout as sleep } from 'node:timers/promises'
import { freePorts } from '../lib/ports.js'
import { spawnTracked, stopChild } from '../lib/processes.js'
import { PROJECT_ROOT } from '../lib/paths.js'
import { getHello } from './verify.js'

/**
 * @typedef {object} ServerProcess
 * @property {string} origin                     http://127.0.0.1:PORT
 * @property {number} port
 * @property {number | undefined} pid
 * @property {() => boolean} hasExited
 * @property {() => { code: number | null, signal: string | null } | null} exitStatus  null while running
 * @property {(lines?: number) => string} outputTail
 * @property {() => Promise<{ code: number | null, signal: string | null }>} stop
 */

/**
 * @param {string} file   the server module
 * @returns {Promise<ServerProcess>}
 */
export async function startServer (file) {
  const [port] = await freePorts(1)
  const { child, exited, output } = spawnTracked(process.execPath, [file, String(port)], { cwd: PROJECT_ROOT })
  /** @type {{ code: number | null, signal: string | null } | null} */
  let status = null
  exited.then((value) => { status = value })
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid,
    hasExited: () => status !== null,
    exitStatus: () => status,
    outputTail: (lines = 8) => output().split('\n').slice(-lines).join('\n'),
    stop: async () => {
      await stopChild(child, { signal: 'SIGINT', graceMs: 8000 })
      return await exited
    }
  }
}

/**
 * Polls GET / until the server answers at all (any status: the caller judges
 * the answer) and returns that first answer. Throws when the process exits
 * first or nothing answers in time.
 * @param {ServerProcess} server
 * @param {{ timeoutMs?: number }} [options]
 */
export async function firstAnswer (server, { timeoutMs = 20_000 } = {}) {
  const deadline = Date.now() + timeoutMs
  let last = 'no answer yet'
  while (Date.now() < deadline) {
    if (server.hasExited()) throw new Error(`exited before answering (${describeExit(server.exitStatus())})${outputSummary(server)}`)
    try {
      return await getHello(server.origin)
    } catch (err) {
      last = /** @type {NodeJS.ErrnoException} */ (err).code ?? /** @type {Error} */ (err).message
    }
    await sleep(100)
  }
  throw new Error(`did not answer within ${timeoutMs} ms (${last})${outputSummary(server)}`)
}

/** @param {{ code: number | null, signal: string | null } | null} status */
export function describeExit (status) {
  if (!status) return 'still running'
  return status.signal ? `killed by ${status.signal}` : `exit code ${status.code}`
}

/**
 * The last lines the server printed, on one line, for a failure reason.
 * @param {ServerProcess} server
 */
export function outputSummary (server) {
  const text = server.outputTail().trim()
  return text ? `; output: ${text.replace(/\s*\n\s*/g, ' | ')}` : ''
}
