// @ts-check
// The scaling suite: one HTTP handler run as one process, node:cluster,
// reusePort processes, PM2 cluster mode and Watt workers, at scale 1, 2 and
// max, each verified before the load and fully stopped after.
//   npm run bench:scale
//   npm run bench:scale -- --targets node,cluster,reuseport,pm2,watt --scale 2 --duration 40
import { readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import Table from 'cli-table3'
import { parseFlags, runMain, UsageError } from '../lib/cli.js'
import { writeReport } from '../lib/report.js'
import { defaultResultPath, writeResult } from '../lib/results.js'
import { PROJECT_ROOT } from '../lib/paths.js'
import { runSuite } from '../lib/suite.js'
import { hasWrk, WRK_MISSING } from '../lib/wrk.js'
import { measureCase } from './measure.js'
import { casesFrom, FLAGS, resolveScales } from './plan.js'
import { PM2_CLI, pm2Installed } from './pm2.js'
import { ratiosToNode, scaleReport, scaleTable, wrkTable } from './report.js'

async function main () {
  const flags = parseFlags(process.argv.slice(2), FLAGS, {
    command: 'node bench/scale/run.js',
    description: 'One handler scaled five ways (node, cluster, reuseport, pm2, watt), every response verified.\nQuick check: --duration 1 --warmup 0 --wrk off'
  })
  const cores = availableParallelism()
  const cases = casesFrom(flags, cores)
  if (flags.targets.includes('pm2') && !pm2Installed()) {
    throw new UsageError(`PM2 is not installed at ${PM2_CLI}: run npm ci --prefix tools/pm2, or leave pm2 out of --targets`)
  }
  const wrk = flags.wrk !== 'off' && await hasWrk()
  if (flags.wrk !== 'off' && !wrk) process.stderr.write(`${WRK_MISSING}\n`)
  const out = flags.out ?? defaultResultPath('scale')
  const config = { ...flags, out, cores, scales: resolveScales(flags.scale, cores), pm2Version: pm2Version() }

  return runSuite({
    suite: 'scale',
    config,
    cases,
    rounds: flags.rounds,
    secondsPerCase: flags.warmup + flags.duration + (wrk ? flags.wrkDuration : 0) + 4,
    out,
    allowErrors: flags.allowErrors,
    failFast: flags.failFast,
    measure: (kase, { progress }) => measureCase(/** @type {any} */ (kase), flags, { progress, wrk }),
    onComplete: async (result, path) => {
      result.ratioToNode = ratiosToNode(result.runs)
      const wrkFailed = result.runs.filter((/** @type {any} */ run) => run.wrk && !run.wrk.ok)
      result.crossCheck = wrk
        ? { tool: 'wrk', note: `wrk -t${flags.wrkThreads} -c${flags.wrkConnections} -d${flags.wrkDuration}s --latency: status, socket errors and timeouts checked, bodies not.`, failedRuns: wrkFailed.length }
        : { tool: 'wrk', skipped: flags.wrk === 'off' ? 'wrk cross-check turned off (--wrk off)' : WRK_MISSING }
      writeResult(path, result)
      const { headers, rows } = scaleTable(result)
      const table = new Table({ head: headers, style: { head: [], border: [] } })
      table.push(...rows.map((row) => row.map(String)))
      process.stdout.write(`${table.toString()}\n${cores} core(s); the load generator shares them with the servers.\n`)
      if (wrk) {
        const wrkTableText = new Table({ head: wrkTable(result).headers, style: { head: [], border: [] } })
        wrkTableText.push(...wrkTable(result).rows.map((row) => row.map(String)))
        process.stdout.write(`${wrkTableText.toString()}\n`)
        for (const run of wrkFailed) process.stdout.write(`wrk FAILED for ${run.target}@${run.scale} round ${run.round}: ${run.wrk.failures.join('; ')}\n`)
      }
      if (flags.report) {
        const { md, html } = writeReport(flags.report, scaleReport(result))
        process.stdout.write(`report: ${md}\n        ${html}\n`)
      }
    }
  })
}

function pm2Version () {
  try {
    return JSON.parse(readFileSync(join(PROJECT_ROOT, 'tools', 'pm2', 'node_modules', 'pm2', 'package.json'), 'utf8')).version
  } catch {
    return null
  }
}

runMain(main)
