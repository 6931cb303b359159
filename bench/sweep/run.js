// @ts-check
// npm run bench:sweep — throughput and p99 per transport while one of payload
// size, fan-out or connections varies.
import { parseFlags, runMain } from '../lib/cli.js'
import { writeReport } from '../lib/report.js'
import { defaultResultPath } from '../lib/results.js'
import { runTransportSuite } from '../transports/suite.js'
import { FLAGS, sweepCases } from './plan.js'
import { sweepReport } from './report.js'

async function main () {
  const flags = parseFlags(process.argv.slice(2), FLAGS, {
    command: 'node bench/sweep/run.js',
    description: 'Sweep payload size (across the 32 KiB mesh step), fan-out, connections and (tcp-remote) the network round trip for every transport.'
  })
  return runTransportSuite({
    suite: 'sweep',
    flags,
    cases: sweepCases(flags),
    out: flags.out ?? defaultResultPath('sweep'),
    onComplete: (result) => {
      const { md, html } = writeReport(flags.report, sweepReport(result))
      process.stdout.write(`report: ${md}\n        ${html}\n`)
    }
  })
}

runMain(main)
