// @ts-check
// npm run bench:sweep — throughput and p99 per transport while one of payload
// size, fan-out or connections varies.
import { parseFlags, runMain } from '../lib/cli.js'
import { writeReport } from '../lib/report.js'
import { defaultResultPath } from '../lib/results.js'
import { startRuntime } from '../lib/runtime.js'
import { runSuite } from '../lib/suite.js'
import { measureTransport } from '../transports/measure.js'
import { FLAGS, sweepCases } from './plan.js'
import { sweepReport } from './report.js'

async function main () {
  const flags = parseFlags(process.argv.slice(2), FLAGS, {
    command: 'node bench/sweep/run.js',
    description: 'Sweep payload size (across the 32 KiB mesh step), fan-out and connections for every transport.'
  })
  const out = flags.out ?? defaultResultPath('sweep')
  const runtime = await startRuntime()
  try {
    return await runSuite({
      suite: 'sweep',
      config: { ...flags, out },
      cases: sweepCases(flags),
      rounds: flags.rounds,
      secondsPerCase: flags.duration + flags.warmup + 1,
      baseline: flags.transports.includes('tcp') && flags.transports.length > 1 ? 'tcp' : undefined,
      out,
      allowErrors: flags.allowErrors,
      failFast: flags.failFast,
      measure: (kase, { progress }) => measureTransport(kase, flags, runtime, progress),
      onComplete: (result) => {
        const { md, html } = writeReport(flags.report, sweepReport(result))
        process.stdout.write(`report: ${md}\n        ${html}\n`)
      }
    })
  } finally {
    await runtime.stop()
  }
}

runMain(main)
