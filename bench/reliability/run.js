// @ts-check
// The reliability check: load, leaks, bad input, faults, binds and clean
// shutdown, each a pass/fail check with its measured figures, on a runtime of
// its own (free loopback ports). Prints the table, writes the result JSON.
//   npm run check:reliability            every scenario, full length (a few minutes)
//   node bench/reliability/run.js --quick --scenarios faults,binds
import { join } from 'node:path'
import { parseFlags, runMain } from '../lib/cli.js'
import { RESULTS_DIR } from '../lib/paths.js'
import { defaultResultPath } from '../lib/results.js'
import { runSuite } from '../lib/suite.js'
import { casesFrom, FLAGS, resolveSettings } from './plan.js'
import { startPrivateRuntime } from './private-runtime.js'
import { describeCheck, renderTable } from './table.js'
import { createWattControl } from './watt-control.js'
import { checkBinds } from './scenarios/binds.js'
import { faultUnderLoad } from './scenarios/faults.js'
import { fuzzRoutes } from './scenarios/fuzz.js'
import { memoryAcrossRuns } from './scenarios/leaks.js'
import { loadUnderSeedProfile } from './scenarios/load.js'
import { interruptBench } from './scenarios/shutdown.js'

async function main () {
  const flags = parseFlags(process.argv.slice(2), FLAGS, {
    command: 'node bench/reliability/run.js',
    description: 'Reliability and security checks (load, leaks, fuzz, faults, binds, shutdown), each pass/fail with its figures.'
  })
  const settings = resolveSettings(flags)
  const out = settings.out ?? defaultResultPath('reliability')
  const cases = casesFrom(settings)

  /** @type {import('./private-runtime.js').PrivateRuntime | null} */
  let runtime = null
  /** @type {import('./watt-control.js').WattControl | null} */
  let control = null
  // One runtime for every scenario that needs one, started on first use: the
  // later scenarios (faults, binds) then also see a runtime that has been through the earlier ones.
  const shared = async () => {
    if (!runtime) {
      runtime = await startPrivateRuntime({ callTimeoutMs: settings.callTimeoutMs })
      control = createWattControl(runtime.pid)
      process.stderr.write(`started a private runtime (pid ${runtime.pid}) at ${runtime.url}, CALL_TIMEOUT_MS ${runtime.callTimeoutMs}\n`)
    }
    return { runtime, control: /** @type {import('./watt-control.js').WattControl} */ (control) }
  }

  let anyFailed = false
  try {
    const code = await runSuite({
      suite: 'reliability',
      config: { ...settings, out },
      cases,
      rounds: 1,
      secondsPerCase: 15,
      out,
      describe: describeCheck,
      renderTable: (result) => {
        anyFailed = result.failed
        return renderTable(result)
      },
      measure: async (kase, { progress }) => {
        const onTick = (/** @type {number} */ s) => progress.tick(s)
        if (kase.profile === 'shutdown') {
          return interruptBench({ suite: kase.suite, signal: kase.signal, to: kase.to, when: kase.when, outDir: join(RESULTS_DIR, 'reliability-shutdown') })
        }
        const { runtime, control } = await shared()
        switch (kase.profile) {
          case 'load':
            return loadUnderSeedProfile(runtime, { transport: kase.transport, duration: settings.duration, onTick })
          case 'leaks':
            return memoryAcrossRuns(runtime, control, { runs: settings.leakRuns, secondsPerTransport: settings.leakSeconds, maxGrowth: settings.leakGrowth, onTick })
          case 'fuzz':
            return fuzzRoutes(runtime, { requests: settings.fuzzRequests, seed: settings.fuzzSeed, concurrency: settings.fuzzConcurrency, onTick })
          case 'faults':
            return faultUnderLoad(runtime, control, {
              kind: kase.kind,
              service: settings.faultService,
              holdMs: settings.faultHoldMs,
              connections: settings.faultConnections,
              probeRateHz: settings.probeRate,
              preMs: 2000,
              postMs: 3000,
              recoveryLimitMs: settings.recoveryLimitMs,
              latencySlackMs: settings.latencySlackMs,
              onTick
            })
          case 'binds':
            return checkBinds(runtime, { benchSeconds: 3 })
          default:
            throw new Error(`unknown scenario ${kase.profile}`)
        }
      }
    })
    return code !== 0 ? code : anyFailed ? 1 : 0
  } finally {
    await /** @type {import('./watt-control.js').WattControl | null} */ (control)?.close()
    await /** @type {import('./private-runtime.js').PrivateRuntime | null} */ (runtime)?.stop()
  }
}

runMain(main)
