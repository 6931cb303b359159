// @ts-check
// The runner every suite uses: cases × rounds interleaved (A B C A B C …),
// progress, failure marking, partial results kept on Ctrl-C or failure, the
// summary table, and the exit code.
import Table from 'cli-table3'
import { fmt } from './format.js'
import { failuresOf } from './load.js'
import { machineInfo } from './machine.js'
import { onInterrupted, wasInterrupted } from './processes.js'
import { createProgress } from './progress.js'
import { SCHEMA, summarize, writeResult } from './results.js'

/**
 * @typedef {{ target: string, profile: string, [key: string]: any }} Case
 * @typedef {{ load?: import('./load.js').LoadResult, failures?: string[], [key: string]: any }} Measurement
 */

/**
 * @param {object} options
 * @param {string} options.suite
 * @param {Record<string, any>} options.config        the flags, recorded as given
 * @param {Case[]} options.cases
 * @param {number} options.rounds
 * @param {number} options.secondsPerCase              for the progress estimate
 * @param {(kase: Case, context: { round: number, progress: ReturnType<typeof createProgress> }) => Promise<Measurement>} options.measure
 * @param {string} options.out
 * @param {string} [options.baseline]                  target the ratios are taken against
 * @param {boolean} [options.allowErrors]              exit 0 even when runs failed (they are still reported as failed)
 * @param {boolean} [options.failFast]                 stop at the first failed run instead of measuring the rest
 * @param {string[]} [options.extraPackages]           versions to record
 * @param {(result: any, path: string) => Promise<void> | void} [options.onComplete]  e.g. write reports
 * @param {(run: any) => string} [options.describe]        one line per finished run (default: req/s and latency)
 * @param {(result: any) => string} [options.renderTable]  the closing table (default: req/s per profile and target),
 *                                                           for suites whose runs are checks rather than loads
 * @returns {Promise<number>} exit code
 */
export async function runSuite ({ suite, config, cases, rounds, secondsPerCase, measure, out, baseline, allowErrors = false, failFast = false, extraPackages = [], onComplete, describe = describeRun, renderTable }) {
  const result = {
    schema: SCHEMA,
    suite,
    startedAt: new Date().toISOString(),
    finishedAt: /** @type {string | null} */ (null),
    complete: false,
    failed: false,
    interrupted: false,
    machine: machineInfo(extraPackages),
    config,
    runs: /** @type {any[]} */ ([]),
    summary: /** @type {any} */ ({})
  }
  const save = () => {
    result.summary = summarize(result.runs, { baseline })
    result.failed = result.runs.some((run) => !run.ok) || !result.complete
    return writeResult(out, result)
  }

  const plan = []
  for (let round = 1; round <= rounds; round++) for (const kase of cases) plan.push({ kase, round })
  const progress = createProgress({ steps: plan.length, secondsPerStep: secondsPerCase })

  onInterrupted(() => {
    progress.stop()
    result.interrupted = true
    result.finishedAt = new Date().toISOString()
    const path = save()
    process.stderr.write(`interrupted: ${result.runs.length} of ${plan.length} runs kept in ${path}\n`)
    process.exit(130)
  })

  let stoppedEarly = false
  for (const { kase, round } of plan) {
    if (wasInterrupted()) return 130
    progress.begin(`${kase.profile} · ${kase.target} · round ${round}/${rounds}`)
    const startedAt = new Date().toISOString()
    let run
    try {
      const { load, failures = [], ...extra } = await measure(kase, { round, progress })
      const all = [...failures, ...(load ? failuresOf(load) : [])]
      run = {
        ...kase,
        round,
        startedAt,
        ok: all.length === 0,
        failures: all,
        requestsPerSec: load ? load.requestsPerSec.avg : null,
        requestsPerSecStats: load?.requestsPerSec,
        latencyMs: load?.latencyMs,
        throughputBytesPerSec: load?.throughputBytes.avg,
        totalRequests: load?.totalRequests,
        status: load ? { '2xx': load.status['2xx'], non2xx: load.status.non2xx, byCode: load.status.byCode } : undefined,
        errors: load?.errors,
        timeouts: load?.timeouts,
        mismatches: load?.mismatches,
        loadgen: load?.loadgen,
        ...extra
      }
    } catch (err) {
      if (wasInterrupted()) return 130
      run = { ...kase, round, startedAt, ok: false, failures: [`did not run: ${/** @type {Error} */ (err).message}`], requestsPerSec: null }
    }
    progress.end()
    result.runs.push(run)
    progress.log(describe(run))
    save()
    if (!run.ok && failFast) {
      stoppedEarly = true
      progress.log('stopping at the first failed run (--fail-fast)')
      break
    }
  }
  progress.stop()

  result.complete = !stoppedEarly
  result.finishedAt = new Date().toISOString()
  const path = save()
  process.stdout.write((renderTable ? renderTable(result) : summaryTable(result.summary, baseline)) + '\n')
  await onComplete?.(result, path)
  process.stdout.write(`results: ${path}\n`)
  if (result.failed) {
    process.stdout.write(`FAILED: ${result.runs.filter((run) => !run.ok).length} failed run(s)${stoppedEarly ? ', stopped early' : ''}\n`)
    return allowErrors ? 0 : 1
  }
  return 0
}

/** @param {any} run */
export function describeRun (run) {
  const head = `${run.profile} · ${run.target} · round ${run.round}`
  if (!run.ok) return `✗ ${head}: FAILED (${run.failures.join('; ')})`
  return `✓ ${head}: ${fmt(run.requestsPerSec)} req/s, p50 ${run.latencyMs.p50} ms, p99 ${run.latencyMs.p99} ms, load generator ${run.loadgen.cpuPercent.toFixed(0)}% CPU`
}

/**
 * @param {Record<string, Record<string, any>>} summary
 * @param {string} [baseline]
 */
export function summaryTable (summary, baseline) {
  const head = ['profile', 'target', 'req/s median', 'min – max', 'p99 ms median', ...(baseline ? [`× ${baseline}`] : [])]
  const table = new Table({ head, style: { head: [], border: [] } })
  for (const [profile, targets] of Object.entries(summary)) {
    for (const [target, entry] of Object.entries(targets)) {
      if (entry.failed) {
        table.push([profile, target, 'FAILED', entry.failures.join('; ').slice(0, 60), '', ...(baseline ? [''] : [])])
        continue
      }
      const r = entry.requestsPerSec
      const ratioEntry = baseline ? entry[`ratioTo_${baseline}`] : null
      table.push([profile, target, fmt(r.median), `${fmt(r.min)} – ${fmt(r.max)}`, String(entry.latencyP99Ms?.median ?? ''),
        ...(baseline ? [ratioEntry ? `${ratioEntry.median.toFixed(2)}×` : '–'] : [])])
    }
  }
  return table.toString()
}
