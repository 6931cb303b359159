// @ts-check
// npm run trial:restart — issue 43's trial, reproducible: a node:http front of 2 workers
// calls a Fastify service (`svc`) and an Express app of 2 workers each (the mesh-port
// test fixture's apps), ten callers at once (GETs to both, POSTs to Express); one
// worker of one app is killed, and 4 s later an app is restarted through the management
// API. Over Watt's mesh and over the drop-in, each scenario `--runs` times: what was lost,
// GETs and POSTs apart, and what the drop-in sent again (docs/decisions.md, D-43).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import Table from 'cli-table3'
import { request } from 'undici'
import { parseFlags, runMain } from '../lib/cli.js'
import { parsePrometheus } from '../lib/metrics.js'
import { PROJECT_ROOT } from '../lib/paths.js'
import { freePorts } from '../lib/ports.js'
import { startRuntime } from '../lib/runtime.js'
import { createWattControl } from './watt-control.js'
import { RESTART_AFTER_CRASH_MS } from './faults/one-worker.js'

const FIXTURE = join(PROJECT_ROOT, 'test', 'mesh-port', 'fixture')
const APPS = ['front', 'svc', 'express']
/** [crashed app, restarted app]: the same app, the other one, and the POST target crashed */
const SCENARIOS = [['svc', 'svc'], ['svc', 'express'], ['express', 'express']]
const CALLERS = 10

/**
 * @param {'mesh' | 'drop-in'} mode
 * @param {string} crash
 * @param {string} restart
 */
async function trial (mode, crash, restart) {
  const config = JSON.parse(readFileSync(join(FIXTURE, mode === 'mesh' ? 'watt.json' : 'watt.mesh-port.json'), 'utf8'))
  const web = join(FIXTURE, 'web')
  const mappings = Object.fromEntries(APPS.map((id) => [id, { id, workers: 2 }]))
  config.autoload = { path: web, exclude: ['bare', 'bg', 'factory', 'fastnode', 'plain', 'two', 'svc', 'express', 'front'].filter((app) => !APPS.includes(app)), mappings }
  const dir = join(PROJECT_ROOT, '.cache', 'restart-trial')
  mkdirSync(dir, { recursive: true })
  const configFile = join(dir, `${process.pid}-${mode}.json`)
  writeFileSync(configFile, JSON.stringify(config))
  const [port, metrics, plain] = await freePorts(3)
  const runtime = await startRuntime({ env: { PORT: String(port), PLT_METRICS_PORT: String(metrics), PLAIN_PORT: String(plain), PLT_LOG_LEVEL: 'warn' }, reuse: false, configFile, readyPaths: ['/ready'] })
  const control = createWattControl(/** @type {number} */ (runtime.pid))
  try {
    const call = async (/** @type {string} */ app, /** @type {boolean} */ post) => {
      const query = new URLSearchParams({ to: `http://${app}.plt.local`, path: post ? '/digest' : '/whoami', client: 'fetch', timeout: '15000' })
      try {
        const answer = await request(`${runtime.url}/proxy?${query}`, post ? { method: 'POST', body: JSON.stringify({ order: 'x'.repeat(100) }), headers: { 'content-type': 'application/json' } } : {})
        await answer.body.dump()
        return answer.statusCode === 200
      } catch {
        return false
      }
    }
    for (const app of ['svc', 'express']) await call(app, false)
    const state = { stopped: false }
    const counts = { calls: 0, getLost: 0, postLost: 0 }
    const loop = async (/** @type {number} */ i) => {
      while (!state.stopped) {
        const post = i % 3 === 2
        const ok = await call(post || i % 3 === 1 ? 'express' : 'svc', post)
        counts.calls++
        if (!ok) counts[post ? 'postLost' : 'getLost']++
      }
    }
    const load = Promise.all(Array.from({ length: CALLERS }, (_, i) => loop(i)))
    await sleep(2000)
    const repl = await control.openRepl(`${crash}:1`)
    repl.send('process.exit(1)')
    repl.close()
    await sleep(RESTART_AFTER_CRASH_MS)
    await control.restartApplication(restart)
    await sleep(3000)
    state.stopped = true
    await load
    const retried = parsePrometheus(await (await request(`${runtime.metricsUrl}/metrics`)).body.text()).meshPort
    const sentAgain = (/** @type {string} */ reason) => Object.values(retried).reduce((n, t) => n + (t.retried[reason] ?? 0), 0)
    return { ...counts, crashed: sentAgain('crashed'), refused: sentAgain('refused') }
  } finally {
    await control.close()
    await runtime.stop()
  }
}

runMain(async () => {
  const flags = parseFlags(process.argv.slice(2), {
    runs: { type: 'integer', default: 3, min: 1, max: 20, help: 'runs of each scenario and path' },
    modes: { type: 'list', default: ['drop-in', 'mesh'], choices: ['drop-in', 'mesh'], help: 'paths: the drop-in, Watt\'s mesh' }
  }, { command: 'npm run trial:restart --', description: 'A crash of one worker, then a restart 4 s later, under load: what each path loses.' })
  const table = new Table({ style: { head: [], border: [] }, head: ['path', 'crashed', 'restarted', 'run', 'calls', 'GETs lost', 'POSTs lost', 'sent again (crash)', 'moved (restart)'] })
  let lostGets = 0
  for (const mode of flags.modes) {
    for (const [crash, restart] of SCENARIOS) {
      for (let run = 1; run <= flags.runs; run++) {
        process.stderr.write(`${mode}: crash ${crash}, restart ${restart}, run ${run}/${flags.runs}\n`)
        const r = await trial(mode, crash, restart)
        if (mode === 'drop-in') lostGets += r.getLost
        table.push([mode, crash, restart, run, r.calls, r.getLost, r.postLost, mode === 'mesh' ? '' : r.crashed, mode === 'mesh' ? '' : r.refused])
      }
    }
  }
  process.stdout.write(`${table.toString()}\nPOSTs lost are those in flight on the dead worker when it died (never sent again).\n`)
  return lostGets === 0 ? 0 : 1
})
