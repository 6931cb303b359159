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
import { UsageError } from '../lib/cli.js'
import { runSuiteCommand } from '../lib/driver.js'
import { PROJECT_ROOT } from '../lib/paths.js'
import { measureCase } from './measure.js'
import { casesFrom, FLAGS, resolveScales } from './plan.js'
import { PM2_CLI, pm2Installed } from './pm2.js'
import { ratiosToNode, scaleReport, scaleTable, wrkTable } from './report.js'

/** @param {import('../lib/report.js').TableData} data */
const consoleTable = ({ headers, rows }) => {
  const table = new Table({ head: headers, style: { head: [], border: [] } })
  table.push(...rows.map((row) => row.map(String)))
  return table.toString()
}

runSuiteCommand({
  name: 'scale',
  command: 'node bench/scale/run.js',
  description: 'One handler scaled five ways (node, cluster, reuseport, pm2, watt), every response verified.\nQuick check: --duration 1 --warmup 0 --wrk off',
  flags: FLAGS,
  // wrk runs beside each autocannon run (the originals' pair), not after all of them
  usesWrk: true,
  plan: (flags, wrk) => {
    const cores = availableParallelism()
    if (flags.targets.includes('pm2') && !pm2Installed()) {
      throw new UsageError(`PM2 is not installed at ${PM2_CLI}: run npm ci --prefix tools/pm2, or leave pm2 out of --targets`)
    }
    return {
      cases: casesFrom(flags, cores),
      rounds: flags.rounds,
      secondsPerCase: flags.warmup + flags.duration + (wrk ? flags.wrkDuration : 0) + 4,
      config: { cores, scales: resolveScales(flags.scale, cores), pm2Version: pm2Version() }
    }
  },
  measure: (kase, { progress, flags, wrk }) => measureCase(/** @type {any} */ (kase), flags, { progress, wrk }),
  afterRuns: (result, { flags, wrk, wrkSkipped }) => {
    result.ratioToNode = ratiosToNode(result.runs)
    process.stdout.write(`${consoleTable(scaleTable(result))}\n${result.config.cores} core(s); the load generator shares them with the servers.\n`)
    if (wrk) {
      process.stdout.write(`${consoleTable(wrkTable(result))}\n`)
      for (const run of result.runs.filter((run) => run.wrk && !run.wrk.ok)) {
        process.stdout.write(`wrk FAILED for ${run.target}@${run.scale} round ${run.round}: ${run.wrk.failures.join('; ')}\n`)
      }
    }
    result.crossCheck = wrk
      ? { tool: 'wrk', note: `wrk -t${flags.wrkThreads} -c${flags.wrkConnections} -d${flags.wrkDuration}s --latency: status, socket errors and timeouts checked, bodies not.`, failedRuns: result.runs.filter((run) => run.wrk && !run.wrk.ok).length }
      : { tool: 'wrk', skipped: wrkSkipped }
  },
  report: scaleReport
})

function pm2Version () {
  try {
    return JSON.parse(readFileSync(join(PROJECT_ROOT, 'tools', 'pm2', 'node_modules', 'pm2', 'package.json'), 'utf8')).version
  } catch {
    return null
  }
}
