// @ts-check
// One measured run of one framework: fresh process, verified first answer,
// warm-up, measured load with every body checked, clean stop. Anything that
// goes wrong becomes a failure with its reason, never a number.
import { failuresOf, runLoad } from '../lib/load.js'
import { HELLO } from './hello.js'
import { describeExit, firstAnswer, outputSummary, startServer } from './server-process.js'
import { headerDifferences, helloFailures } from './verify.js'

/**
 * @typedef {object} MeasureOptions
 * @property {number} connections
 * @property {number} pipelining
 * @property {number} duration      seconds measured
 * @property {number} warmup        seconds of unmeasured load first
 * @property {number} [readyTimeoutMs]
 * @property {(elapsedS: number) => void} [onTick]
 */

/**
 * @param {string} file  the framework's server module
 * @param {MeasureOptions} options
 * @returns {Promise<import('../lib/types.js').Measurement>}
 */
export async function measureServer (file, options) {
  const server = await startServer(file)
  /** @type {{ load?: import('../lib/load.js').LoadResult, failures: string[], headers?: Record<string, string>, headerDifferences?: string[] }} */
  let outcome
  try {
    outcome = await loadServer(server, options)
  } catch (err) {
    const reason = /** @type {Error} */ (err).message
    outcome = { failures: [reason] }
  }
  const crashed = server.hasExited()
  // It answered (headers recorded), then died: say so beside the load's errors.
  if (crashed && outcome.headers) {
    outcome.failures.push(`server exited after answering (${describeExit(server.exitStatus())})${outputSummary(server)}`)
  }
  const status = await server.stop()
  if (!crashed && (status.code !== 0 || status.signal)) {
    outcome.failures.push(`did not stop cleanly on SIGINT (${describeExit(status)})${outputSummary(server)}`)
  }
  return { ...outcome, serverPid: server.pid }
}

/**
 * @param {import('./server-process.js').ServerProcess} server
 * @param {MeasureOptions} options
 */
async function loadServer (server, { connections, pipelining, duration, warmup, readyTimeoutMs, onTick }) {
  const answer = await firstAnswer(server, { timeoutMs: readyTimeoutMs })
  const recorded = { headers: withoutDate(answer.headers), headerDifferences: headerDifferences(answer.headers) }
  const wrong = helloFailures(answer)
  if (wrong.length) return { failures: wrong.map((reason) => `first answer: ${reason}`), ...recorded }

  const target = { url: `${server.origin}/`, connections, pipelining, expectBody: HELLO }
  if (warmup > 0) {
    const warm = await runLoad({ ...target, duration: warmup, onTick })
    const warmFailures = failuresOf(warm)
    if (warmFailures.length) return { failures: warmFailures.map((reason) => `warm-up: ${reason}`), ...recorded }
  }
  const load = await runLoad({ ...target, duration, onTick: (s) => onTick?.(warmup + s) })
  return { load, failures: [], ...recorded }
}

/** @param {Record<string, string>} headers */
function withoutDate (headers) {
  const { date, ...rest } = headers
  return rest
}
