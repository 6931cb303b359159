// @ts-check
// The transport comparison: fan-out over ipc, tcp, rpc and direct under the same
// load, every response verified, rounds interleaved, resources per call.
//   npm run bench:ipc | bench:tcp | bench:rpc | bench:direct   one transport, the seed profile
//   npm run bench                                              all transports, seed + latency, 3 rounds, report
import { parseFlags, runMain } from '../lib/cli.js'
import { defaultResultPath, writeResult } from '../lib/results.js'
import { startRuntime } from '../lib/runtime.js'
import { runSuite } from '../lib/suite.js'
import { writeReport } from '../lib/report.js'
import { casesFrom, FLAGS } from './plan.js'
import { measureTransport } from './measure.js'
import { crossCheckWithWrk } from './wrk-check.js'
import { transportReport } from './report.js'

async function main () {
  const flags = parseFlags(process.argv.slice(2), FLAGS, {
    command: 'node bench/transports/run.js',
    description: 'Fan-out throughput and latency per transport, every response verified.'
  })
  const out = flags.out ?? defaultResultPath('transports')
  const cases = casesFrom(flags)
  const runtime = await startRuntime()
  process.stderr.write(runtime.started ? `started the runtime (pid ${runtime.pid}) at ${runtime.url}\n` : `using the runtime already listening at ${runtime.url}\n`)
  try {
    return await runSuite({
      suite: 'transports',
      config: { ...flags, out },
      cases,
      rounds: flags.rounds,
      secondsPerCase: flags.duration + flags.warmup + 1,
      baseline: flags.transports.includes('tcp') && flags.transports.length > 1 ? 'tcp' : undefined,
      out,
      allowErrors: flags.allowErrors,
      failFast: flags.failFast,
      measure: (kase, { progress }) => measureTransport(kase, flags, runtime, progress),
      onComplete: async (result, path) => {
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
  } finally {
    await runtime.stop()
  }
}

runMain(main)
