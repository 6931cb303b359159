// @ts-check
// The transport comparison: fan-out over every transport registered in
// lib/topology.js under the same load, every response verified, rounds
// interleaved within each profile, resources per call.
//   npm run bench:<transport>   one transport, the seed profile
//   npm run bench               the default transports, latency then seed, 3 rounds each, report
//                               (ending with the published apps figures, when results/published/apps.json exists)
import { runSuiteCommand } from '../lib/driver.js'
import { byProfile, casesFrom, FLAGS } from './plan.js'
import { mainReport } from './published-apps.js'
import { transportSuite } from './suite.js'
import { crossCheckWithWrk } from './wrk-check.js'

runSuiteCommand(transportSuite({
  name: 'transports',
  command: 'node bench/transports/run.js',
  description: 'Fan-out throughput and latency per transport, every response verified.',
  flags: FLAGS,
  cases: casesFrom,
  phaseOf: byProfile,
  report: mainReport,
  crossCheck: (result, { flags, plan, context }) => crossCheckWithWrk(plan.cases, flags, (transport) => (context.needs.runtimeFor(transport) ?? context.runtimeHandle).url)
}))
