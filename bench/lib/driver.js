// @ts-check
// The one suite driver behind every bench and check command. A suite declares
// its flags, cases, measurement, report and optional wrk cross-check; the
// driver owns the rest, identically for all: the shared flags (--out, --report,
// --allow-errors, --fail-fast, --wrk, --quiet-wait), their defaults, a quiet
// machine before the first run, the result file (saved
// after every run, kept on Ctrl-C), the wrk policy, the closing table, the
// report, and the exit codes (0 ok, 1 failed runs, 2 usage, 130 interrupted).
import { describeRun, summaryTable } from './format.js'
import { parseFlags, runMain } from './cli.js'
import { machineInfo } from './machine.js'
import { QUIET_BUSY_CORES, waitForQuietMachine } from './quiet-machine.js'
import { writeReport } from './report.js'
import { defaultResultPath, SCHEMA, summarize, writeResult } from './results.js'
import { runPlan } from './runner.js'
import { hasWrk, WRK_MISSING } from './wrk.js'

/**
 * @typedef {import('./types.js').Case} Case
 * @typedef {import('./types.js').Measurement} Measurement
 * @typedef {import('./types.js').Result} Result
 * @typedef {import('./types.js').Run} Run
 * @typedef {Record<string, any>} Flags
 */

/**
 * @typedef {object} Plan
 * @property {Case[]} cases
 * @property {number} rounds
 * @property {number} secondsPerCase         for the progress estimate
 * @property {(kase: Case) => string} [phaseOf]  cases of one phase run all their rounds before the next phase (runner.js)
 * @property {string} [baseline]             target the per-round ratios are taken against
 * @property {Record<string, any>} [config]  recorded beside the flags
 * @property {string[]} [extraPackages]      versions to record
 */

/**
 * What a suite's setup hands to its measurement. `runtime` (the runtime's own
 * settings) is recorded in the result whenever it is set, also later on.
 * @typedef {{ stop?: () => Promise<void>, runtime?: import('./runtime-settings.js').RuntimeSettings, [key: string]: any }} Context
 */

/**
 * @typedef {object} Suite
 * @property {string} name            result.suite and the default result file's prefix
 * @property {string} command
 * @property {string} description
 * @property {Record<string, import('./cli.js').FlagSpec>} flags  the suite's own flags
 * @property {boolean} [usesWrk]      takes --wrk (a cross-check, or wrk beside each run)
 * @property {(flags: Flags, wrk: boolean) => Plan | Promise<Plan>} plan
 * @property {(flags: Flags, plan: Plan) => Promise<Context>} [setup]
 * @property {(plan: Plan, context: Context) => Plan} [afterSetup]  the plan as setup allows (e.g. transports skipped)
 * @property {(kase: Case, context: { round: number, progress: import('./runner.js').Progress, flags: Flags, context: Context, wrk: boolean }) => Promise<Measurement>} measure
 * @property {(result: Result, context: { flags: Flags, plan: Plan, context: Context }) => Promise<Record<string, any>>} [crossCheck]
 *   runs after the loads when wrk is installed and not turned off, and every run passed
 * @property {(result: Result, context: { flags: Flags, wrk: boolean, wrkSkipped?: string }) => void} [afterRuns]  console output, result additions
 * @property {{ test: (run: Run) => boolean, message: string }} [refusedByDesign]  failed runs the suite expects (e.g. a 507
 *   for a dataset a buffered variant can never fit): still reported as not numbers, but they alone do not fail the command
 * @property {(result: Result) => import('./report.js').Report} [report]
 * @property {(run: Run) => string} [describe]          one line per finished run
 * @property {(result: Result) => string} [renderTable] the closing table (default: req/s per profile and target)
 */

/** @type {Record<string, import('./cli.js').FlagSpec>} */
const SHARED_FLAGS = {
  out: { type: 'string', help: 'result JSON path (default results/<suite>-<time>.json)' },
  report: { type: 'string', help: 'write <path>.md and <path>.html; off for none (default: the result path without .json)' },
  'allow-errors': { type: 'boolean', default: false, help: 'exit 0 even when runs failed (they are still reported as FAILED), to reproduce overload' },
  'fail-fast': { type: 'boolean', default: false, help: 'stop at the first failed run' },
  'quiet-wait': { type: 'integer', default: 30, min: 0, max: 600, help: `seconds to wait at most, after the setup and before the first run, for the machine to be quiet (under ${QUIET_BUSY_CORES} cores busy for 3 s); 0, or --warmup 0, skips it` }
}
/** @type {import('./cli.js').FlagSpec} */
const WRK_FLAG = { type: 'string', default: 'auto', choices: ['auto', 'off'], help: 'cross-check with wrk when installed' }

/**
 * Runs a suite as a command: `runSuiteCommand(suite)` is a whole run.js.
 * @param {Suite} suite
 */
export function runSuiteCommand (suite) {
  runMain(() => driveSuite(suite, process.argv.slice(2)))
}

/**
 * @param {Suite} suite
 * @param {string[]} argv
 * @returns {Promise<number>} exit code
 */
export async function driveSuite (suite, argv) {
  const flags = parseFlags(argv, { ...suite.flags, ...SHARED_FLAGS, ...(suite.usesWrk ? { wrk: WRK_FLAG } : {}) }, { command: suite.command, description: suite.description })
  const out = flags.out ?? defaultResultPath(suite.name)
  const report = flags.report === 'off' ? null : flags.report ?? out.replace(/\.json$/, '')
  const wrk = await wrkPolicy(suite, flags)
  const plan = await suite.plan(flags, wrk.use)
  /** @type {Context} */
  const context = suite.setup ? await suite.setup(flags, plan) : {}
  try {
    const quiet = flags.quietWait > 0 && flags.warmup > 0 ? await quietMachine(flags.quietWait) : undefined
    return await runAndRecord(suite, { flags, plan: suite.afterSetup ? suite.afterSetup(plan, context) : plan, context, out, report, wrk, quiet })
  } finally {
    await context.stop?.()
  }
}

/**
 * Waits for what the setup started to settle (only suites with a warm-up, which prepare
 * their measurements: --warmup 0 means measure at once), saying so on stderr.
 * @param {number} seconds
 */
async function quietMachine (seconds) {
  let shown = false
  const quiet = await waitForQuietMachine({
    timeoutMs: seconds * 1000,
    onWindow: (busy) => {
      if (busy <= QUIET_BUSY_CORES || shown) return
      shown = true
      process.stderr.write(`waiting up to ${seconds} s for the machine to be quiet before the first run (${busy.toFixed(2)} cores busy)\n`)
    }
  })
  if (quiet.quiet === false) process.stderr.write(`the machine stayed busy for ${seconds} s (${quiet.busyCores?.toFixed(2)} cores): measuring anyway, the first runs may be slower (result: quietBeforeRuns)\n`)
  else if (shown) process.stderr.write(`quiet after ${(quiet.waitedMs / 1000).toFixed(0)} s\n`)
  return quiet
}

/**
 * @param {Suite} suite
 * @param {Flags} flags
 * @returns {Promise<{ use: boolean, skipped?: string }>}
 */
async function wrkPolicy (suite, flags) {
  if (!suite.usesWrk) return { use: false }
  if (flags.wrk === 'off') return { use: false, skipped: 'wrk cross-check turned off (--wrk off)' }
  if (await hasWrk()) return { use: true }
  process.stderr.write(`${WRK_MISSING}\n`)
  return { use: false, skipped: WRK_MISSING }
}

/**
 * @param {Suite} suite
 * @param {{ flags: Flags, plan: Plan, context: Context, out: string, report: string | null, wrk: { use: boolean, skipped?: string }, quiet?: import('./quiet-machine.js').QuietResult }} options
 */
async function runAndRecord (suite, { flags, plan, context, out, report, wrk, quiet }) {
  /** @type {Result} */
  const result = {
    schema: SCHEMA,
    suite: suite.name,
    startedAt: new Date().toISOString(),
    finishedAt: null,
    complete: false,
    failed: false,
    interrupted: false,
    machine: machineInfo(plan.extraPackages),
    config: { ...flags, out, report, ...plan.config },
    ...(quiet ? { quietBeforeRuns: quiet } : {}),
    runs: [],
    summary: {}
  }
  const save = () => {
    if (context.runtime) result.runtime = context.runtime
    result.summary = summarize(result.runs, { baseline: plan.baseline })
    result.failed = result.runs.some((run) => !run.ok) || !result.complete
    return writeResult(out, result)
  }

  const { planned, stoppedEarly, interrupted } = await runPlan({
    cases: plan.cases,
    rounds: plan.rounds,
    secondsPerCase: plan.secondsPerCase,
    phaseOf: plan.phaseOf,
    failFast: flags.failFast,
    describe: suite.describe ?? describeRun,
    measure: (kase, { round, progress }) => suite.measure(kase, { round, progress, flags, context, wrk: wrk.use }),
    onRun: (run) => { result.runs.push(run); save() },
    onInterrupt: (total) => {
      result.interrupted = true
      result.finishedAt = new Date().toISOString()
      const path = save()
      process.stderr.write(`interrupted: ${result.runs.length} of ${total} runs kept in ${path}\n`)
      process.exit(130)
    }
  })
  if (interrupted) return 130

  result.complete = !stoppedEarly
  result.finishedAt = new Date().toISOString()
  const path = save()
  process.stdout.write((suite.renderTable ? suite.renderTable(result) : summaryTable(result.summary, plan.baseline)) + '\n')
  suite.afterRuns?.(result, { flags, wrk: wrk.use, wrkSkipped: wrk.skipped })
  if (suite.crossCheck) {
    if (!wrk.use) result.crossCheck = { tool: 'wrk', skipped: wrk.skipped, runs: [] }
    else if (result.failed) result.crossCheck = { tool: 'wrk', skipped: 'not run: some runs failed, so there are no figures to cross-check', runs: [] }
    else result.crossCheck = await suite.crossCheck(result, { flags, plan, context })
  }
  writeResult(path, result)
  if (report && suite.report) {
    const { md, html } = writeReport(report, suite.report(result))
    process.stdout.write(`report: ${md}\n        ${html}\n`)
  }
  process.stdout.write(`results: ${path}\n`)
  const failedRuns = result.runs.filter((run) => !run.ok)
  if (result.failed && result.complete && suite.refusedByDesign && failedRuns.every(suite.refusedByDesign.test)) {
    process.stdout.write(`${suite.refusedByDesign.message}\n`)
    return 0
  }
  if (result.failed) {
    process.stdout.write(`FAILED: ${result.runs.filter((run) => !run.ok).length} failed run(s) of ${planned}${stoppedEarly ? ', stopped early' : ''}\n`)
    return flags.allowErrors ? 0 : 1
  }
  return 0
}
