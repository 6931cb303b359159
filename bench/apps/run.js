// @ts-check
// The apps suite: apps shaped like real Watt projects (a gateway composing a
// db and services, writes through a service chain, a node:http BFF), each on
// Watt's mesh (ipc), the mesh-port drop-in and loopback TCP, chosen by the
// app's config file alone; every answer checked against the seeded rows,
// rounds interleaved, ratios to ipc paired per round.
//   npm run bench:apps                                  defaults (≤ 6 min)
//   npm run bench:apps -- --apps catalog --duration 10 --rounds 3
import { runSuiteCommand } from '../lib/driver.js'
import { seededDatabases } from './database.js'
import { CATEGORY_COUNT, DATASET_SEED, PRODUCT_COUNT } from './dataset.js'
import { measureRoute } from './measure.js'
import { APPS, BASELINE_PATH, byApp, casesFrom, FLAGS } from './plan.js'
import { appsReport } from './report.js'
import { installNextStorefront } from './nextstore/install.js'
import { isAlive, stopAll } from '../lib/runtime-set.js'
import { startAppRuntimes } from './runtimes.js'
import { targetVerdicts } from './targets.js'

/** Rough seconds to start an app's three runtimes side by side, spread over its cases, for the progress estimate only. */
const STARTS_PER_CASE_S = 3

/** The apps whose packages are installed on demand (hundreds of MB): app → its installer. */
const INSTALLERS = { nextstore: installNextStorefront }

runSuiteCommand({
  name: 'apps',
  command: 'node bench/apps/run.js',
  description: 'Apps shaped like real Watt projects (gateway + db + services, writes, a node:http BFF) over Watt\'s mesh, the mesh-port drop-in and loopback TCP; every answer checked against the seeded data.',
  flags: FLAGS,
  plan: (flags) => ({
    cases: casesFrom(flags),
    rounds: flags.rounds,
    secondsPerCase: flags.duration + flags.warmup + 1 + STARTS_PER_CASE_S,
    phaseOf: byApp,
    extraPackages: ['@platformatic/gateway', '@platformatic/db', '@platformatic/service', '@platformatic/node', 'better-sqlite3'],
    ...(flags.paths.includes(BASELINE_PATH) && flags.paths.length > 1 ? { baseline: BASELINE_PATH } : {}),
    config: {
      dataset: { seed: DATASET_SEED, categories: CATEGORY_COUNT, products: PRODUCT_COUNT },
      apps: Object.fromEntries(Object.entries(APPS).filter(([app]) => flags.apps.includes(app)).map(([app, { about }]) => [app, about]))
    }
  }),
  setup: async (flags, plan) => {
    // an app that cannot be installed or built is left out, with the reason (afterSetup)
    /** @type {{ app: string, reason: string }[]} */
    const skipped = []
    /** @type {Record<string, any>} */
    const installed = {}
    for (const [app, install] of Object.entries(INSTALLERS)) {
      if (!flags.apps.includes(app)) continue
      try {
        installed[app] = await install({ log: (line) => process.stderr.write(`${app}: ${line}\n`) })
      } catch (err) {
        const message = String(/** @type {Error} */ (err).message)
        // the lines that say what failed, without npm's prefixes and its error code
        const lines = message.split('\n').map((line) => line.replace(/^npm error\s*/, '').trim()).filter((line) => line && !/^code \w+$/.test(line))
        skipped.push({ app, reason: lines.slice(0, 3).join(' ').slice(0, 400) })
        process.stderr.write(`${app}: left out, it could not be installed or built: ${message.slice(0, 2000)}\n`)
      }
    }
    plan = { ...plan, cases: plan.cases.filter((kase) => !skipped.some((s) => s.app === /** @type {import('./plan.js').AppCase} */ (kase).app)) }
    const databases = seededDatabases()
    process.once('exit', databases.remove) // also after Ctrl-C, which exits from the runner
    /** @type {{ key: string, runtimes: Map<string, import('./runtimes.js').AppRuntime> } | null} */
    let current = null
    /** @type {import('./measure.js').AppsContext} */
    const apps = {
      wrong: new Set(flags.wrongExpectation ?? []),
      // an app's runtimes start at its first case and stop when the next app's phase begins
      runtimeFor: async (kase) => {
        const key = byApp(kase)
        if (current?.key !== key) {
          if (current) await stopAll(current.runtimes)
          current = null
          const runtimes = await startAppRuntimes({ app: kase.app, paths: flags.paths, readyPaths: APPS[kase.app].ready, dbFile: databases.copy })
          current = { key, runtimes }
          process.stderr.write(`started ${kase.app} on ${[...runtimes.values()].map((r) => `${r.path} (pid ${r.pid})`).join(', ')}\n`)
        }
        const runtime = /** @type {import('./runtimes.js').AppRuntime} */ (current.runtimes.get(kase.path))
        if (isAlive(runtime)) return runtime
        // a runtime that died (e.g. the better-sqlite3 abort, runtimes.js) fails its run; the next run gets a new one
        process.stderr.write(`${kase.app} on ${kase.path}: the runtime (pid ${runtime.pid}) is gone; starting a new one\n`)
        const [fresh] = (await startAppRuntimes({ app: kase.app, paths: [kase.path], readyPaths: APPS[kase.app].ready, dbFile: databases.copy })).values()
        current.runtimes.set(kase.path, fresh)
        return fresh
      }
    }
    const stop = async () => {
      if (current) await stopAll(current.runtimes)
      databases.remove()
    }
    try {
      // the first app's runtimes before the driver's wait for a quiet machine, so that they settle in it
      if (plan.cases.length) await apps.runtimeFor(/** @type {import('./plan.js').AppCase} */ (plan.cases[0]))
    } catch (err) {
      await stop()
      throw err
    }
    return { apps, stop, skipped, installed }
  },
  afterSetup: (plan, context) => ({
    ...plan,
    cases: plan.cases.filter((kase) => !context.skipped.some((/** @type {{ app: string }} */ s) => s.app === kase.app)),
    config: { ...plan.config, ...(context.skipped.length ? { skipped: context.skipped } : {}), ...(Object.keys(context.installed).length ? { onDemand: context.installed } : {}) }
  }),
  // under the closing table: the issue's targets, from this run
  afterRuns: (result) => {
    process.stdout.write(`targets:\n${targetVerdicts(result).map((v) => `  ${v.met == null ? '-' : v.met ? '✓' : '✗'} ${v.label} (target ${v.goal}): ${v.measured}`).join('\n')}\n`)
  },
  measure: (kase, { round, progress, flags, context }) => measureRoute(/** @type {import('./plan.js').AppCase} */ (kase), { round, progress, flags, context: context.apps }),
  report: appsReport
})
