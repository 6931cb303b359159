// @ts-check
// npm run bench:profile — where the CPU goes per downstream call, per transport
// and per Watt application: a V8 CPU profile of every worker thread, cut to the
// measured load window, grouped by category (mesh, undici, node:http, …).
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { readFile } from 'node:fs/promises'
import { UsageError } from '../lib/cli.js'
import { runSuiteCommand } from '../lib/driver.js'
import { checkOutsideFlags } from '../outside/targets.js'
import { untilOverHttpPort } from '../outside/mesh-port-runtime.js'
import { APPLICATIONS, ENTRY, inOwnRuntime, ownRuntimeOf, routeOf } from '../../lib/topology.js'
import { PROJECT_ROOT } from '../lib/paths.js'
import { privatePorts, runtimeEnv } from '../lib/private-ports.js'
import { startRequirements } from '../lib/requirements.js'
import { startRuntime } from '../lib/runtime.js'
import { readRuntimeSettings } from '../lib/runtime-settings.js'
import { measureVerifiedLoad } from '../lib/verified-load.js'
import { entryLoad } from '../transports/expected.js'
import { FLAGS as TRANSPORT_FLAGS } from '../transports/plan.js'
import { assertTransportsAvailable, OUTSIDE_FLAGS } from '../transports/profiles.js'
import { runtimeConfigFile } from '../lib/runtime-config.js'
import { selfTimeInWindow } from './cpuprofile.js'
import { profileReport } from './report.js'

// The transport comparison's flags and bounds, with this command's defaults.
/** @type {Record<string, import('../lib/cli.js').FlagSpec>} */
const FLAGS = {
  duration: { ...TRANSPORT_FLAGS.duration, default: 10, help: 'seconds of profiled load per transport' },
  warmup: { ...TRANSPORT_FLAGS.warmup, default: 3, help: 'seconds of unprofiled load first' },
  connections: { ...TRANSPORT_FLAGS.connections, default: 10, help: 'client connections' },
  pipelining: { ...TRANSPORT_FLAGS.pipelining, default: 1, help: 'pipelining' },
  transports: TRANSPORT_FLAGS.transports,
  fanout: TRANSPORT_FLAGS.fanout,
  size: TRANSPORT_FLAGS.size,
  // each worker is profiled by a sampling thread of its own: at two workers per service on
  // two cores, two runs served about 40% less than at one (the bench, unprofiled: 5%)
  workers: { ...TRANSPORT_FLAGS.workers, help: 'workers of each downstream service (the entry keeps one); each worker\'s profile is its own, an application\'s are summed' },
  // so that at two workers the entry can be profiled alone, with one sampling thread as at one
  apps: { type: 'list', default: [...APPLICATIONS], choices: [...APPLICATIONS], help: 'which applications get the profiler (the others run unprofiled and are left out of the report)' },
  ...OUTSIDE_FLAGS
}

const PRELOAD = join(PROJECT_ROOT, 'bench', 'profile', 'preload.js')

const nowUs = () => Number(process.hrtime.bigint() / 1000n)

/**
 * @param {import('../lib/types.js').Case} kase
 * @param {Record<string, any>} flags
 * @param {{ tick: (s: number) => void }} progress
 * @param {import('../lib/driver.js').Context} context  gets the runtime's settings (every case's runtime is started alike)
 * @param {Awaited<ReturnType<typeof startRequirements>>} outside  service processes / remote host (not profiled: CPU from /proc)
 */
async function profileTransport (kase, flags, progress, context, outside) {
  const dir = join(PROJECT_ROOT, '.cache', 'profile', kase.transport)
  const profiles = join(dir, 'profiles')
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(profiles, { recursive: true })
  // mesh-port is profiled in a runtime with the drop-in, as the bench measures it;
  // a throw-away copy of the committed config adds the profiler's preload
  const own = ownRuntimeOf(kase.transport)
  const configFile = runtimeConfigFile(own ? own.configFile : 'watt.json', { workers: flags.workers, dir: join(dir, 'config'), preload: PRELOAD, preloadApps: flags.apps })
  const runtime = await startRuntime({
    configFile,
    reuse: false,
    env: runtimeEnv(await privatePorts(), { ...outside.env, LAB_PROFILE_DIR: profiles, ...(own ? { [own.env]: '1' } : {}) }),
    ...(own ? { readyPaths: [routeOf(kase.transport)] } : {})
  })
  try {
    if (own) await untilOverHttpPort(runtime.url + routeOf(kase.transport), runtime.metricsUrl)
    context.runtime ??= await readRuntimeSettings(runtime)
    const window = { fromUs: 0, toUs: 0 }
    /** @type {{ before: { services: number | null, relay: number | null } | null, after: { services: number | null, relay: number | null } | null }} */
    const outsideCpu = { before: null, after: null }
    const verified = await measureVerifiedLoad({
      load: entryLoad(runtime.url, kase),
      warmup: flags.warmup,
      duration: flags.duration,
      progress,
      // the profiles are cut to exactly the measured load
      around: async (measure) => {
        window.fromUs = nowUs()
        outsideCpu.before = outside.cpuSeconds(kase.transport)
        const load = await measure()
        outsideCpu.after = outside.cpuSeconds(kase.transport)
        window.toUs = nowUs()
        return { load }
      }
    })
    writeFileSync(join(profiles, 'stop'), '')
    const measured = verified.load
    if (!measured) return verified
    // one profile per worker (the preload names them <application>.<index>)
    const filesOf = (/** @type {string} */ app) => Array.from({ length: app === ENTRY.name ? 1 : flags.workers }, (_, i) => join(profiles, `${app}.${i}.cpuprofile`))
    const profiled = APPLICATIONS.filter((app) => flags.apps.includes(app))
    const files = profiled.flatMap(filesOf)
    for (let i = 0; i < 100 && !files.every((file) => existsSync(file)); i++) await sleep(100)
    const missing = files.filter((file) => !existsSync(file))
    if (missing.length) return { load: measured, failures: [`no profile written: ${missing.map((file) => basename(file)).join(', ')}`] }

    const calls = measured.status['2xx'] * kase.fanout
    /** @type {Record<string, any>} */
    const threads = {}
    for (const app of profiled) {
      // an application's workers summed: its µs per call, and its workers' mean busy share
      const { busyUs, idleUs, categories, top } = selfTimeInWindow(await Promise.all(filesOf(app).map(async (file) => JSON.parse(await readFile(file, 'utf8')))), window)
      threads[app] = {
        busyUsPerCall: busyUs / calls,
        utilisation: busyUs / (busyUs + idleUs || 1),
        categoriesUsPerCall: Object.fromEntries(Object.entries(categories).map(([name, us]) => [name, us / calls])),
        top: top.map(({ name, us }) => ({ name, usPerCall: us / calls }))
      }
    }
    // Service processes outside the runtime are not V8-profiled: their CPU from /proc.
    const { before: outsideBefore, after: outsideAfter } = outsideCpu
    const outsideUsPerCall = outsideBefore?.services != null && outsideAfter?.services != null
      ? { services: (outsideAfter.services - outsideBefore.services) * 1e6 / calls, relay: outsideBefore.relay != null && outsideAfter.relay != null ? (outsideAfter.relay - outsideBefore.relay) * 1e6 / calls : null }
      : null
    return { load: measured, cpuProfile: { downstreamCalls: calls, windowS: (window.toUs - window.fromUs) / 1e6, threads, ...(outsideUsPerCall ? { outsideUsPerCall } : {}) } }
  } finally {
    await runtime.stop()
  }
}

runSuiteCommand({
  name: 'profile',
  command: 'node bench/profile/run.js',
  description: 'CPU profile of every Watt worker per transport: µs per downstream call by category. The profiler adds overhead: compare transports with each other, not with bench figures.',
  flags: FLAGS,
  plan: (flags) => {
    assertTransportsAvailable(flags.transports)
    return {
      cases: flags.transports.map((/** @type {string} */ transport) => ({
        target: transport, transport, profile: 'profiled', connections: flags.connections, pipelining: flags.pipelining, fanout: flags.fanout, size: flags.size
      })),
      rounds: 1,
      secondsPerCase: flags.duration + flags.warmup + 8
    }
  },
  // What the transports need outside the runtime starts once, for every case's runtime.
  setup: async (flags) => {
    await checkOutsideFlags({ rttMs: flags.rttMs, serviceHost: flags.serviceHost })
    // (not mesh-port's runtime: each case starts its own, here with the profiler's preload)
    const outside = await startRequirements(flags.transports.filter((/** @type {string} */ t) => !inOwnRuntime(t)), process.env, { rttMs: flags.rttMs, serviceHost: flags.serviceHost })
    for (const { reason } of outside.skipped) process.stderr.write(`${reason}\n`)
    const transports = flags.transports.filter((/** @type {string} */ t) => !outside.skipped.some((s) => s.transport === t))
    if (transports.length === 0) {
      await outside.stop()
      throw new UsageError(`nothing left to run: ${outside.skipped.map((s) => s.reason).join('; ')}`)
    }
    return { outside, transports, stop: () => outside.stop() }
  },
  afterSetup: (plan, context) => ({
    ...plan,
    cases: plan.cases.filter((kase) => context.transports.includes(kase.transport)),
    config: { ...plan.config, transports: context.transports, outside: { about: context.outside.about, skipped: context.outside.skipped } }
  }),
  measure: (kase, { progress, flags, context }) => profileTransport(kase, flags, progress, context, context.outside),
  report: profileReport
})
