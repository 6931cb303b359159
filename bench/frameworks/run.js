// @ts-check
// The frameworks suite: "Hello world" on GET / per framework, each in its own
// process, verified before and during load, rounds interleaved, ranked.
//   npm run bench:frameworks
//   npm run bench:frameworks -- --frameworks fastify,express --connections 200 --duration 10
import { runSuiteCommand } from '../lib/driver.js'
import { FRAMEWORK_PACKAGES, serverFile } from './frameworks.js'
import { measureServer } from './measure.js'
import { casesFrom, FLAGS } from './plan.js'
import { rankingLine, rankTargets } from './ranking.js'
import { frameworkReport } from './report.js'

runSuiteCommand({
  name: 'frameworks',
  command: 'node bench/frameworks/run.js',
  description: 'Hello world on GET / per HTTP framework (autocannon, default -c 200 -d 10), every response verified, ranked fastest first.',
  flags: FLAGS,
  plan: (flags) => ({
    cases: casesFrom(flags),
    rounds: flags.rounds,
    secondsPerCase: flags.duration + flags.warmup + 2,
    baseline: flags.frameworks.includes('node-http') && flags.frameworks.length > 1 ? 'node-http' : undefined,
    extraPackages: FRAMEWORK_PACKAGES
  }),
  measure: (kase, { progress, flags }) => measureServer(serverFile(kase.target), {
    connections: kase.connections,
    pipelining: kase.pipelining,
    duration: flags.duration,
    warmup: flags.warmup,
    readyTimeoutMs: flags.readyTimeout * 1000,
    onTick: (s) => progress.tick(s)
  }),
  afterRuns: (result) => {
    for (const [profile, targets] of Object.entries(result.summary)) {
      process.stdout.write(`ranking (${profile}): ${rankingLine(rankTargets(targets))}\n`)
    }
  },
  report: frameworkReport
})
