// @ts-check
// npm run bench:sweep — throughput and p99 per transport while one of payload
// size, fan-out or connections varies.
import { runSuiteCommand } from '../lib/driver.js'
import { transportSuite } from '../transports/suite.js'
import { FLAGS, sweepCases } from './plan.js'
import { sweepReport } from './report.js'

runSuiteCommand(transportSuite({
  name: 'sweep',
  command: 'node bench/sweep/run.js',
  description: 'Sweep payload size (across the 32 KiB mesh step), fan-out, connections and (tcp-remote) the network round trip for every transport.',
  flags: FLAGS,
  cases: sweepCases,
  report: sweepReport
}))
