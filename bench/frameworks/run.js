// @ts-check
// The frameworks suite: "Hello world" on GET / per framework, each in its own
// process, verified before and during load, rounds interleaved, ranked.
//   npm run bench:frameworks
//   npm run bench:frameworks -- --frameworks fastify,express --connections 200 --duration 10
import { parseFlags, runMain } from '../lib/cli.js'
import { writeReport } from '../lib/report.js'
import { defaultResultPath } from '../lib/results.js'
import { runSuite } from '../lib/suite.js'
import { FRAMEWORK_PACKAGES, serverFile } from './frameworks.js'
import { measureServer } from './measure.js'
import { casesFrom, FLAGS } from './plan.js'
import { rankingLine, rankTargets } from './ranking.js'
import { frameworkReport } from './report.js'

async function main () {
  const flags = parseFlags(process.argv.slice(2), FLAGS, {
    command: 'node bench/frameworks/run.js',
    description: 'Hello world on GET / per HTTP framework (autocannon, default -c 200 -d 10), every response verified, ranked fastest first.'
  })
  const out = flags.out ?? defaultResultPath('frameworks')
  const reportBase = flags.report ?? out.replace(/\.json$/, '')
  let failed = false
  const code = await runSuite({
    suite: 'frameworks',
    config: { ...flags, out, report: reportBase },
    cases: casesFrom(flags),
    rounds: flags.rounds,
    secondsPerCase: flags.duration + flags.warmup + 2,
    baseline: flags.frameworks.includes('node-http') && flags.frameworks.length > 1 ? 'node-http' : undefined,
    out,
    failFast: flags.failFast,
    extraPackages: FRAMEWORK_PACKAGES,
    measure: (kase, { progress }) => measureServer(serverFile(kase.target), {
      connections: kase.connections,
      pipelining: kase.pipelining,
      duration: flags.duration,
      warmup: flags.warmup,
      readyTimeoutMs: flags.readyTimeout * 1000,
      onTick: (s) => progress.tick(s)
    }),
    onComplete: (result) => {
      failed = result.failed
      for (const [profile, targets] of Object.entries(result.summary)) {
        process.stdout.write(`ranking (${profile}): ${rankingLine(rankTargets(targets))}\n`)
      }
      const { md, html } = writeReport(reportBase, frameworkReport(result))
      process.stdout.write(`report: ${md}\n        ${html}\n`)
    }
  })
  return code === 0 && failed ? 1 : code
}

runMain(main)
