// @ts-check
// Optional independent cross-check with wrk (Debian package `wrk`). Absent wrk
// is not an error: the caller reports "skipped" with how to install it.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { spawnTracked } from './processes.js'
import { assertLoopbackUrl } from './loopback.js'

const run = promisify(execFile)

export const WRK_MISSING = 'wrk is not installed (apt-get install wrk); cross-check skipped'

export async function hasWrk () {
  try {
    await run('wrk', ['--version'])
    return true
  } catch (err) {
    // wrk --version exits 1 after printing its version
    return /** @type {any} */ (err).stdout?.includes('wrk') || /** @type {any} */ (err).stderr?.includes('wrk')
  }
}

/**
 * @param {{ url: string, threads: number, connections: number, duration: number, timeoutS?: number }} options
 */
export async function runWrk ({ url, threads, connections, duration, timeoutS = 10 }) {
  assertLoopbackUrl(url)
  // Tracked like every other child, so Ctrl-C stops a running wrk too.
  const { child, exited, output } = spawnTracked('wrk', [`-t${threads}`, `-c${connections}`, `-d${duration}s`, '--timeout', `${timeoutS}s`, '--latency', url])
  const guard = setTimeout(() => child.kill('SIGKILL'), (duration + 30) * 1000)
  const { code } = await exited.finally(() => clearTimeout(guard))
  if (code !== 0) throw new Error(`wrk exited with ${code}: ${output().slice(-500)}`)
  return parseWrk(output())
}

/** @param {string} value e.g. 1.23ms, 870.00us, 2.01s */
function toMs (value) {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(value)
  if (!match) return NaN
  const n = Number(match[1])
  return match[2] === 'us' ? n / 1000 : match[2] === 'ms' ? n : match[2] === 's' ? n * 1000 : n * 60000
}

/**
 * @param {string} text wrk's report
 */
export function parseWrk (text) {
  const latency = /Latency\s+(\S+)\s+(\S+)\s+(\S+)/.exec(text)
  const pct = (/** @type {string} */ p) => toMs(new RegExp(`^\\s+${p}%\\s+(\\S+)`, 'm').exec(text)?.[1] ?? '')
  const requests = /(\d+) requests in ([\d.]+)(\w+)/.exec(text)
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text)
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0)
  const errors = socket ? Number(socket[1]) + Number(socket[2]) + Number(socket[3]) : 0
  const timeouts = socket ? Number(socket[4]) : 0
  const failures = []
  if (non2xx) failures.push(`${non2xx} non-2xx`)
  if (errors) failures.push(`${errors} socket errors`)
  if (timeouts) failures.push(`${timeouts} timeouts`)
  const totalRequests = requests ? Number(requests[1]) : 0
  if (totalRequests === 0) failures.push('no completed request')
  return {
    ok: failures.length === 0,
    failures,
    requestsPerSec: Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? NaN),
    transferPerSec: /Transfer\/sec:\s+(\S+)/.exec(text)?.[1] ?? null,
    totalRequests,
    latencyMs: { avg: latency ? toMs(latency[1]) : NaN, stdev: latency ? toMs(latency[2]) : NaN, max: latency ? toMs(latency[3]) : NaN, p50: pct('50'), p90: pct('90'), p99: pct('99') },
    non2xx,
    errors,
    timeouts
  }
}
