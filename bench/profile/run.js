// @ts-check
// npm run bench:profile — where the CPU goes per downstream call, per transport
// and per Watt application: a V8 CPU profile of every worker thread, cut to the
// measured load window, grouped by category (mesh, undici, node:http, …).
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { readFile } from 'node:fs/promises'
import { parseFlags, runMain, UsageError } from '../lib/cli.js'
import { failuresOf, runLoad } from '../lib/load.js'
import { checkOutsideFlags } from '../lib/outside-targets.js'
import { startRequirements } from '../lib/requirements.js'
import { privatePorts, runtimeEnv } from '../lib/private-ports.js'
import { waitUntilSettled } from '../lib/settle.js'
import { writeReport } from '../lib/report.js'
import { defaultResultPath } from '../lib/results.js'
import { PROJECT_ROOT, startRuntime } from '../lib/runtime.js'
import { runSuite } from '../lib/suite.js'
import { entryUrl, expectedEntryBody } from '../transports/expected.js'
import { assertTransportsAvailable, OUTSIDE_FLAGS, transportsFlag } from '../transports/profiles.js'
import { APPLICATIONS, writeProfilingConfig } from './config.js'
import { selfTimeInWindow } from './cpuprofile.js'
import { profileReport } from './report.js'

/** @type {Record<string, import('../lib/cli.js').FlagSpec>} */
const FLAGS = {
  duration: { type: 'integer', default: 10, min: 1, max: 120, help: 'seconds of profiled load per transport' },
  warmup: { type: 'integer', default: 3, min: 0, max: 60, help: 'seconds of unprofiled load first' },
  connections: { type: 'integer', default: 10, min: 1, max: 1000, help: 'client connections' },
  pipelining: { type: 'integer', default: 1, min: 1, max: 100, help: 'pipelining' },
  transports: transportsFlag(),
  fanout: { type: 'integer', default: 4, min: 1, max: 4, help: 'downstream calls per request' },
  size: { type: 'integer', default: 64, min: 0, max: 1048576, help: 'payload bytes per downstream' },
  out: { type: 'string', help: 'result JSON path (default results/profile-<time>.json)' },
  report: { type: 'string', default: 'results/profile', help: 'write <path>.md and <path>.html' },
  ...OUTSIDE_FLAGS
}

const nowUs = () => Number(process.hrtime.bigint() / 1000n)

/**
 * @param {any} kase
 * @param {Record<string, any>} flags
 * @param {{ tick: (s: number) => void }} progress
 * @param {Awaited<ReturnType<typeof startRequirements>>} outside  service processes / remote host (not profiled: CPU from /proc)
 */
async function profileTransport (kase, flags, progress, outside) {
  const dir = join(PROJECT_ROOT, '.cache', 'profile', kase.transport)
  const profiles = join(dir, 'profiles')
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(profiles, { recursive: true })
  const configFile = writeProfilingConfig(join(dir, 'config'))
  const runtime = await startRuntime({
    configFile,
    reuse: false,
    env: runtimeEnv(await privatePorts(), { ...outside.env, LAB_PROFILE_DIR: profiles })
  })
  try {
    const load = {
      url: entryUrl(runtime.url, kase.transport, kase.size, kase.fanout),
      connections: kase.connections,
      pipelining: kase.pipelining,
      expectBody: expectedEntryBody(kase.transport, kase.size, kase.fanout)
    }
    if (flags.warmup > 0) {
      const failures = failuresOf(await runLoad({ ...load, duration: flags.warmup, onTick: (s) => progress.tick(s) }))
      if (failures.length) return { failures: failures.map((f) => `warm-up: ${f}`) }
    }
    await waitUntilSettled(load.url)
    const window = { fromUs: nowUs(), toUs: 0 }
    const outsideBefore = outside.cpuSeconds(kase.transport)
    const measured = await runLoad({ ...load, duration: flags.duration, onTick: (s) => progress.tick(flags.warmup + s) })
    const outsideAfter = outside.cpuSeconds(kase.transport)
    window.toUs = nowUs()
    writeFileSync(join(profiles, 'stop'), '')
    const files = APPLICATIONS.map((app) => join(profiles, `${app}.cpuprofile`))
    for (let i = 0; i < 100 && !files.every((file) => existsSync(file)); i++) await sleep(100)
    const missing = APPLICATIONS.filter((_, i) => !existsSync(files[i]))
    if (missing.length) return { load: measured, failures: [`no profile written by ${missing.join(', ')}`] }

    const calls = measured.status['2xx'] * kase.fanout
    /** @type {Record<string, any>} */
    const threads = {}
    for (const [i, app] of APPLICATIONS.entries()) {
      const { busyUs, idleUs, categories, top } = selfTimeInWindow(JSON.parse(await readFile(files[i], 'utf8')), window)
      threads[app] = {
        busyUsPerCall: busyUs / calls,
        utilisation: busyUs / (busyUs + idleUs || 1),
        categoriesUsPerCall: Object.fromEntries(Object.entries(categories).map(([name, us]) => [name, us / calls])),
        top: top.map(({ name, us }) => ({ name, usPerCall: us / calls }))
      }
    }
    // Service processes outside the runtime are not V8-profiled: their CPU from /proc.
    const outsideUsPerCall = outsideBefore?.services != null && outsideAfter?.services != null
      ? { services: (outsideAfter.services - outsideBefore.services) * 1e6 / calls, relay: outsideBefore.relay != null && outsideAfter.relay != null ? (outsideAfter.relay - outsideBefore.relay) * 1e6 / calls : null }
      : null
    return { load: measured, cpuProfile: { downstreamCalls: calls, windowS: (window.toUs - window.fromUs) / 1e6, threads, ...(outsideUsPerCall ? { outsideUsPerCall } : {}) } }
  } finally {
    await runtime.stop()
  }
}

async function main () {
  const flags = parseFlags(process.argv.slice(2), FLAGS, {
    command: 'node bench/profile/run.js',
    description: 'CPU profile of every Watt worker per transport: µs per downstream call by category. The profiler adds overhead: compare transports with each other, not with bench figures.'
  })
  assertTransportsAvailable(flags.transports)
  await checkOutsideFlags({ rttMs: flags.rttMs, serviceHost: flags.serviceHost })
  const out = flags.out ?? defaultResultPath('profile')
  const outside = await startRequirements(flags.transports, process.env, { rttMs: flags.rttMs, serviceHost: flags.serviceHost })
  try {
    for (const { reason } of outside.skipped) process.stderr.write(`${reason}\n`)
    const transports = flags.transports.filter((/** @type {string} */ t) => !outside.skipped.some((s) => s.transport === t))
    if (transports.length === 0) throw new UsageError(`nothing left to run: ${outside.skipped.map((s) => s.reason).join('; ')}`)
    const cases = transports.map((/** @type {string} */ transport) => ({
      target: transport, transport, profile: 'profiled', connections: flags.connections, pipelining: flags.pipelining, fanout: flags.fanout, size: flags.size
    }))
    return await runSuite({
      suite: 'profile',
      config: { ...flags, out, transports, outside: { about: outside.about, skipped: outside.skipped } },
      cases,
      rounds: 1,
      secondsPerCase: flags.duration + flags.warmup + 8,
      out,
      measure: (kase, { progress }) => profileTransport(kase, flags, progress, outside),
      onComplete: (result) => {
        const { md, html } = writeReport(flags.report, profileReport(result))
        process.stdout.write(`report: ${md}\n        ${html}\n`)
      }
    })
  } finally {
    await outside.stop()
  }
}

runMain(main)
