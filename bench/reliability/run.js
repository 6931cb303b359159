// @ts-check
// The reliability check: load, leaks, bad input, faults, the scaler, binds and clean
// shutdown, each a pass/fail check with its measured figures, on a runtime of
// its own (free loopback ports). Prints the table, writes the result JSON.
//   npm run check:reliability            every scenario, full length (a few minutes)
//   node bench/reliability/run.js --quick --scenarios faults,binds
import { join } from 'node:path'
import { runSuiteCommand } from '../lib/driver.js'
import { RESULTS_DIR } from '../lib/paths.js'
import { describeSettings, readRuntimeSettings } from '../lib/runtime-settings.js'
import { availableTransports, inOwnRuntime, routeOf } from '../../lib/topology.js'
import { startRequirements } from '../lib/requirements.js'
import { casesFrom, FLAGS, resolveSettings } from './plan.js'
import { startPrivateRuntime } from './private-runtime.js'
import { describeCheck, renderTable } from './table.js'
import { createWattControl } from './watt-control.js'
import { checkBinds } from './scenarios/binds.js'
import { faultUnderLoad } from './scenarios/faults.js'
import { scalerUnderLoad } from './scenarios/scaler.js'
import { callerScaleDown } from './scenarios/caller-scaler.js'
import { workerFaultUnderLoad } from './scenarios/worker-faults.js'
import { fuzzRoutes } from './scenarios/fuzz.js'
import { memoryAcrossRuns } from './scenarios/leaks.js'
import { loadUnderSeedProfile } from './scenarios/load.js'
import { interruptBench } from './scenarios/shutdown.js'

/** @typedef {{ runtime: import('./private-runtime.js').PrivateRuntime, control: import('./watt-control.js').WattControl }} Shared */

runSuiteCommand({
  name: 'reliability',
  command: 'node bench/reliability/run.js',
  description: 'Reliability and security checks (load, leaks, fuzz, faults, scaler, binds, shutdown), each pass/fail with its figures.',
  flags: FLAGS,
  plan: (flags) => {
    const settings = resolveSettings(flags)
    return { cases: casesFrom(settings), rounds: 1, secondsPerCase: 15, config: settings }
  },
  // One runtime for every scenario that needs one, started on first use: the
  // later scenarios (faults, binds) then also see a runtime that has been through the earlier ones.
  // The outside transports' targets (service processes, a remote host) start first, once.
  // mesh-port's cases run against a second private runtime of its own (watt.mesh-port.json,
  // the faulted service at two workers), also started on first use.
  setup: async (flags, plan) => {
    const settings = /** @type {Record<string, any>} */ (plan.config)
    const outside = [...new Set(plan.cases.filter((kase) => kase.transport && !availableTransports().includes(kase.transport) && !inOwnRuntime(kase.transport)).map((kase) => kase.transport))]
    const needs = await startRequirements(outside, process.env, {})
    for (const { reason } of needs.skipped) process.stderr.write(`${reason}\n`)
    const started = outside.filter((transport) => !needs.skipped.some((s) => s.transport === transport))
    /** @type {import('../lib/driver.js').Context & { shared: () => Promise<Shared>, meshPort: () => Promise<Shared>, needs: typeof needs, transports: string[], ownRuntime: string[] }} */
    const context = {
      needs,
      // under load in the faults scenario: the runtime's own transports and the outside ones that started
      transports: [...availableTransports(), ...started],
      // checked in a runtime of their own (mesh-port): never under load in the plain one
      ownRuntime: [...new Set(plan.cases.filter((kase) => kase.transport && inOwnRuntime(kase.transport)).map((kase) => kase.transport))],
      shared: async () => {
        if (!opened) {
          const runtime = await startPrivateRuntime({ callTimeoutMs: settings.callTimeoutMs, env: needs.env })
          opened = { runtime, control: createWattControl(runtime.pid) }
          context.runtime = await readRuntimeSettings(runtime)
          process.stderr.write(`started a private runtime (pid ${runtime.pid}) at ${runtime.url}: ${describeSettings(context.runtime)}\n`)
        }
        return opened
      },
      meshPort: async () => {
        if (!meshOpened) {
          const runtime = await startPrivateRuntime({ callTimeoutMs: settings.callTimeoutMs, meshPort: true, workers: { [settings.faultService]: 2 } })
          meshOpened = { runtime, control: createWattControl(runtime.pid) }
          process.stderr.write(`started mesh-port's private runtime (pid ${runtime.pid}, ${runtime.configFile}, ${settings.faultService} at 2 workers) at ${runtime.url}\n`)
        }
        return meshOpened
      },
      stop: async () => {
        await opened?.control.close()
        await opened?.runtime.stop()
        await meshOpened?.control.close()
        await meshOpened?.runtime.stop()
        await needs.stop()
      }
    }
    /** @type {Shared | null} */
    let opened = null
    /** @type {Shared | null} */
    let meshOpened = null
    return context
  },
  // Outside transports whose targets could not be made here are left out, and recorded as skipped.
  afterSetup: (plan, context) => ({
    ...plan,
    cases: plan.cases.filter((kase) => !kase.transport || context.transports.includes(kase.transport) || context.ownRuntime.includes(kase.transport)),
    config: { ...plan.config, outside: { about: context.needs.about, skipped: context.needs.skipped } }
  }),
  describe: describeCheck,
  renderTable,
  measure: async (kase, { progress, flags, context }) => {
    const settings = resolveSettings(flags)
    const onTick = (/** @type {number} */ s) => progress.tick(s)
    if (kase.profile === 'shutdown') {
      return interruptBench({ suite: kase.suite, signal: kase.signal, to: kase.to, when: kase.when, outDir: join(RESULTS_DIR, 'reliability-shutdown') })
    }
    // a runtime of its own per path (the mesh-port fixture's front and two, dynamic workers)
    if (kase.profile === 'scaler') return scalerUnderLoad({ path: kase.path, onTick })
    if (kase.profile === 'caller-scaler') return callerScaleDown({ path: kase.path, onTick })
    // mesh-port: its own runtime (the drop-in), the faulted service at two workers;
    // there its leaks, fuzz and binds cases look at it alone (`own`)
    const own = kase.transport && inOwnRuntime(kase.transport) ? kase.transport : null
    const { runtime, control } = own ? await context.meshPort() : await context.shared()
    if (kase.oneWorker) {
      return workerFaultUnderLoad(runtime, control, {
        kind: kase.kind,
        service: settings.faultService,
        holdMs: settings.faultHoldMs,
        connections: settings.faultConnections,
        probeRateHz: settings.probeRate,
        preMs: 2000,
        postMs: 3000,
        recoveryLimitMs: settings.recoveryLimitMs,
        latencySlackMs: settings.latencySlackMs,
        maxGapMs: settings.latencySlackMs,
        onTick
      })
    }
    switch (kase.profile) {
      case 'load':
        return loadUnderSeedProfile(runtime, { transport: kase.transport, duration: settings.duration, onTick })
      case 'leaks':
        return memoryAcrossRuns(runtime, control, { runs: settings.leakRuns, secondsPerTransport: settings.leakSeconds, maxGrowth: settings.leakGrowth, ...(own ? { transports: [own] } : {}), onTick })
      case 'fuzz':
        return fuzzRoutes(runtime, { requests: settings.fuzzRequests, seed: settings.fuzzSeed, concurrency: settings.fuzzConcurrency, ...(own ? { routes: [routeOf(own)] } : {}), onTick })
      case 'faults':
        return faultUnderLoad(runtime, control, {
          kind: kase.kind,
          service: settings.faultService,
          holdMs: settings.faultHoldMs,
          connections: settings.faultConnections,
          probeRateHz: settings.probeRate,
          transports: context.transports,
          outside: kase.transport,
          processes: kase.transport ? context.needs.faultsOf(kase.transport) : null,
          preMs: 2000,
          postMs: 3000,
          recoveryLimitMs: settings.recoveryLimitMs,
          latencySlackMs: settings.latencySlackMs,
          onTick
        })
      case 'binds':
        // a bench over mesh-port is checked mid-run by its shutdown case
        return own ? checkBinds(runtime, { label: `${own}'s runtime` }) : checkBinds(runtime, { benchSeconds: 3 })
      default:
        throw new Error(`unknown scenario ${kase.profile}`)
    }
  }
})
