// @ts-check
// The transport comparison: fan-out over every transport registered in
// lib/topology.js under the same load, every response verified, rounds
// interleaved, resources per call.
//   npm run bench:<transport>   one transport, the seed profile
//   npm run bench               the default transports, seed + latency, 3 rounds, report
import { parseFlags, runMain } from '../lib/cli.js'
import { writeReport } from '../lib/report.js'
import { defaultResultPath, writeResult } from '../lib/results.js'
import { casesFrom, FLAGS } from './plan.js'
import { transportReport } from './report.js'
import { runTransportSuite } from './suite.js'
import { crossCheckWithWrk } from './wrk-check.js'

async function main () {
  const flags = parseFlags(process.argv.slice(2), FLAGS, {
    command: 'node bench/transports/run.js',
    description: 'Fan-out throughput and latency per transport, every response verified.'
  })
  const cases = casesFrom(flags)
  return runTransportSuite({
    suite: 'transports',
    flags,
    cases,
    out: flags.out ?? defaultResultPath('transports'),
    onComplete: async (result, path, runtime) => {
      if (flags.wrk !== 'off') {
        result.crossCheck = await crossCheckWithWrk(cases, flags, runtime.url)
        writeResult(path, result)
      }
      if (flags.report) {
        const { md, html } = writeReport(flags.report, transportReport(result))
        process.stdout.write(`report: ${md}\n        ${html}\n`)
      }
    }
  })
}

runMain(main)
