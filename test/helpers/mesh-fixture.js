// Starts test/mesh-port/fixture (a front caller and one target per app kind) on
// free loopback ports, with Watt's mesh (watt.json) or the drop-in
// (watt.mesh-port.json), and stops it when the test ends.
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { request } from 'undici'
import { freePorts } from '../../bench/lib/ports.js'
import { startRuntime } from '../../bench/lib/runtime.js'

const FIXTURE = join(import.meta.dirname, '..', 'mesh-port', 'fixture')
// Under the project, so the config's interceptor module resolves from its node_modules.
const DERIVED = join(import.meta.dirname, '..', '..', '.cache', 'mesh-fixture')
let derived = 0

/**
 * @param {import('tap').Test} t
 * @param {'mesh' | 'drop-in'} mode
 * @param {{ apps?: string[], watch?: boolean, workers?: Record<string, number>, dropIn?: Record<string, unknown>, config?: string, env?: Record<string, string> }} [options]  `apps`: only these apps beside
 *   the front (each app is a worker to start: the whole fixture costs a loaded box some
 *   20 s); `watch`: Watt's hot reload on, over a private copy of the apps, whose files
 *   the test may edit (`appDir`); `workers`: workers per app, where not one; `dropIn`: the
 *   drop-in's options in the undici block (mode 'drop-in'); `config`: another config of the
 *   fixture folder in place of the mode's (e.g. 'watt.mesh-port.dynamic.json'); `env`: more
 *   variables for the runtime (a config's `{NAME}` placeholders)
 */
export async function startFixture (t, mode, { apps, watch = false, workers, dropIn, config, env } = {}) {
  const [port, metrics, plain] = await freePorts(3)
  let configFile = join(FIXTURE, config ?? (mode === 'mesh' ? 'watt.json' : 'watt.mesh-port.json'))
  const keep = apps ? ['front', ...apps] : readdirSync(join(FIXTURE, 'web'))
  const copy = watch ? copyFixture(keep) : undefined
  const derivedConfig = Boolean(apps || copy || workers || dropIn)
  if (derivedConfig) configFile = withOnly(configFile, keep, copy, workers, dropIn)
  const runtime = await startRuntime({
    env: { PORT: String(port), PLT_METRICS_PORT: String(metrics), PLAIN_PORT: String(plain), PLT_LOG_LEVEL: 'info', ...env },
    reuse: false,
    configFile,
    readyPaths: ['/ready']
  })
  t.teardown(async () => {
    // A failed test shows what the drop-in decided and why.
    if (!t.passing()) t.comment(runtime.output().split('\n').filter((line) => line.includes('mesh-port')).join('\n'))
    await runtime.stop()
    if (derivedConfig) rmSync(configFile, { force: true })
    if (copy) rmSync(copy, { recursive: true, force: true })
  })

  /**
   * One call through the front: `to` is an origin (http://plain.plt.local, or TCP).
   * @param {string} to
   * @param {string} path
   * @param {{ method?: string, body?: any, headers?: Record<string, string>, client?: 'fetch', timeout?: number }} [options]
   */
  async function call (to, path, { method = 'GET', body, headers, client, timeout } = {}) {
    const query = new URLSearchParams({ to, path, ...(client ? { client } : {}), ...(timeout ? { timeout: String(timeout) } : {}) })
    const answer = await request(`${runtime.url}/proxy?${query}`, { method: /** @type {any} */ (method), body, headers })
    const bytes = Buffer.from(await answer.body.arrayBuffer())
    return { status: answer.statusCode, headers: answer.headers, bytes, text: bytes.toString('latin1') }
  }

  /** @returns {Promise<Record<string, { path: string, reason: string, meshCalls: number, workers: { worker: number, thread: number, calls: number }[] }>>} */
  async function stats () {
    const answer = await request(`${runtime.url}/stats`)
    return /** @type {any} */ (await answer.body.json())
  }

  /**
   * One of the drop-in's counters, from Watt's metrics endpoint, summed over the labels named.
   * @param {string} metric
   * @param {string[]} keys
   */
  async function summed (metric, keys) {
    const answer = await request(`http://127.0.0.1:${metrics}/metrics`)
    const text = await answer.body.text()
    /** @type {Record<string, number>} */
    const out = {}
    for (const line of text.split('\n')) {
      if (!line.startsWith(`${metric}{`)) continue
      const labels = Object.fromEntries([...line.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]))
      const key = keys.map((k) => labels[k]).join(' ')
      out[key] = (out[key] ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1))
    }
    return out
  }
  /** The requests counter: `${target} ${path} ${targetWorker}` → count. */
  const counted = () => summed('watt_lab_mesh_port_requests_total', ['target', 'path', 'targetWorker'])
  /** The retries counter: `${target} ${reason}` → count. */
  const retried = () => summed('watt_lab_mesh_port_retries_total', ['target', 'reason'])

  /** The folder an app runs from (with `watch`, a copy that the test may edit). @param {string} app */
  const appDir = (app) => join(copy ?? FIXTURE, 'web', app)

  return { ...runtime, plainPort: plain, metricsPort: metrics, call, stats, counted, retried, appDir }
}

/**
 * The fixture's config with every app but `keep` excluded from its autoload; from the
 * copy `root` instead, with Watt's file watching on.
 * @param {string} file
 * @param {string[]} keep
 * @param {string} [root]
 * @param {Record<string, number>} [workers]
 * @param {Record<string, unknown>} [dropIn]  options for the config's interceptor
 */
function withOnly (file, keep, root, workers = {}, dropIn) {
  const config = JSON.parse(readFileSync(file, 'utf8'))
  const web = join(root ?? FIXTURE, 'web')
  const all = readdirSync(join(FIXTURE, 'web'))
  const unknown = keep.filter((app) => !all.includes(app))
  if (unknown.length > 0) throw new Error(`no fixture app ${unknown.join(', ')}`)
  const mappings = { ...config.autoload.mappings }
  for (const [app, count] of Object.entries(workers)) mappings[app] = { ...mappings[app], id: app, workers: count }
  config.autoload = { ...config.autoload, path: web, exclude: readdirSync(web).filter((app) => !keep.includes(app)), mappings }
  if (root) config.watch = true
  if (dropIn) {
    if (!config.undici?.interceptors?.length) throw new Error(`${file} has no undici interceptor to give options to`)
    config.undici.interceptors = config.undici.interceptors.map((/** @type {any} */ i) => ({ ...i, options: { ...i.options, ...dropIn } }))
  }
  mkdirSync(DERIVED, { recursive: true })
  const out = join(DERIVED, `${process.pid}-${++derived}.json`)
  writeFileSync(out, JSON.stringify(config, null, 2))
  return out
}

/**
 * A copy of the fixture's shared code and of these apps, under the project (so their
 * imports resolve from its node_modules).
 * @param {string[]} apps
 */
function copyFixture (apps) {
  const root = join(DERIVED, `${process.pid}-${++derived}`)
  cpSync(join(FIXTURE, 'lib'), join(root, 'lib'), { recursive: true })
  for (const app of apps) cpSync(join(FIXTURE, 'web', app), join(root, 'web', app), { recursive: true })
  return root
}
