// @ts-check
// A Watt app written outside the repository that adopts @watt-lab/channel from
// its packed tarball, the way a user does: the template in
// test/channel-package/fixture/app copied to a temp dir, its own package.json
// (no workspace links), `npm install <tarball>`, then `wattpm start` from the
// app's own node_modules under the project's Node 24, or the Node given (npm run
// compat's Node axis). Used by the install-from-tarball test and by `npm run compat`,
// one release at a time.
import { execFile } from 'node:child_process'
import { copyFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join, relative } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'
import { request } from 'undici'
import { removeStaleManagementDir } from '../../bench/lib/management-dir.js'
import { PROJECT_NODE, PROJECT_ROOT } from '../../bench/lib/paths.js'
import { freePorts } from '../../bench/lib/ports.js'
import { spawnTracked, stopChild } from '../../bench/lib/processes.js'
import { probe } from '../../bench/lib/runtime.js'
import { npmCommand } from '../../test/helpers/pack-channel.js'

export const APP_TEMPLATE = join(PROJECT_ROOT, 'test', 'channel-package', 'fixture', 'app')
const WATT_PACKAGES = ['wattpm', '@platformatic/service', '@platformatic/node']
const REQUESTS_LINE = /^watt_lab_mesh_port_requests_total\{([^}]*)\}\s+(\S+)$/

/**
 * The Watt packages at the versions the project itself pins (root package.json).
 * @returns {Record<string, string>}
 */
export function pinnedWattDependencies () {
  const { dependencies } = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8'))
  return Object.fromEntries(WATT_PACKAGES.map((name) => [name, dependencies[name]]))
}

/**
 * Copies the template to a new temp dir and installs it with the tarball.
 * @param {{ tarball: string, dependencies: Record<string, string>, overrides?: Record<string, string>, lockfile?: string }} options
 *   dependencies: the Watt packages; overrides: npm overrides a release needs to start at all;
 *   lockfile: a package-lock.json that pins their whole tree
 * @returns {Promise<string>} the app's directory (the caller removes it: removeApp)
 */
export async function installApp ({ tarball, dependencies, overrides, lockfile }) {
  const dir = mkdtempSync(join(tmpdir(), 'channel-app-'))
  try {
    cpSync(APP_TEMPLATE, dir, { recursive: true })
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...manifest, dependencies, ...(overrides && { overrides }) }, null, 2) + '\n')
    if (lockfile) copyFileSync(lockfile, join(dir, 'package-lock.json'))
    // --prefix: under `npm run`, npm's own environment must not point the install elsewhere.
    const [cmd, args] = npmCommand()
    await promisify(execFile)(cmd, [...args, 'install', tarball, '--prefix', dir, '--no-audit', '--no-fund', '--prefer-offline'], {
      cwd: dir,
      maxBuffer: 16 * 1024 * 1024
    })
    return dir
  } catch (err) {
    removeApp(dir)
    throw err
  }
}

/** @param {string} dir */
export function removeApp (dir) {
  rmSync(dir, { recursive: true, force: true })
}

/**
 * Compiled addons (.node files) in the app's node_modules, as paths from it. An install
 * under one Node builds or fetches them for that Node's ABI only.
 * @param {string} dir
 * @returns {string[]}
 */
export function nativeAddons (dir) {
  const root = join(dir, 'node_modules')
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.node'))
    .map((path) => relative(dir, join(root, path)))
}

/**
 * The versions npm installed in the app, for the record.
 * @param {string} dir
 * @returns {Record<string, string>}
 */
export function installedVersions (dir) {
  const names = [...WATT_PACKAGES, '@platformatic/runtime', '@watt-lab/channel', 'undici']
  return Object.fromEntries(names.map((name) => {
    try {
      return [name, JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')).version]
    } catch {
      return [name, 'absent']
    }
  }))
}

/**
 * @typedef {object} RunningApp
 * @property {string} url
 * @property {string} metricsUrl
 * @property {() => string} output  the runtime's last lines
 * @property {() => Promise<void>} stop
 */

/**
 * `wattpm start` in the app, with the app's own wattpm under the project's Node 24 or
 * the `node` given (its folder first on PATH too, for anything the runtime starts by
 * name); ready once an order (which calls both other apps) answers 200.
 * @param {string} dir
 * @param {{ logLevel?: string, readyTimeoutMs?: number, node?: string }} [options]
 * @returns {Promise<RunningApp>}
 */
export async function startApp (dir, { logLevel = 'warn', readyTimeoutMs = 120_000, node = PROJECT_NODE } = {}) {
  const [port, metricsPort] = await freePorts(2)
  const PATH = [dirname(node), process.env.PATH].filter(Boolean).join(delimiter)
  const { child, exited, output } = spawnTracked(node, [join(dir, 'node_modules', 'wattpm', 'bin', 'cli.js'), 'start'], {
    cwd: dir,
    env: { ...process.env, PATH, PORT: String(port), PLT_METRICS_PORT: String(metricsPort), PLT_LOG_LEVEL: logLevel }
  })
  const state = { dead: false }
  exited.then(() => { state.dead = true })
  child.once('exit', () => { if (child.pid) removeStaleManagementDir(child.pid) })
  const app = { url: `http://127.0.0.1:${port}`, metricsUrl: `http://127.0.0.1:${metricsPort}`, output, stop: () => stopChild(child) }
  const deadline = Date.now() + readyTimeoutMs
  let last = 'no answer yet'
  while (!state.dead && Date.now() < deadline) {
    last = String(await probe(`${app.url}/orders/1`, 5000))
    if (last === '200') return app
    await sleep(200)
  }
  await app.stop()
  throw new Error(`the app was not ready (${state.dead ? 'wattpm exited' : `${readyTimeoutMs} ms, last: ${last}`})\n--- wattpm output ---\n${output()}`)
}

/**
 * The calls an order makes: a GET to catalog, then (for a known item) a JSON POST
 * to pricing. Each with the answer the entry must give.
 */
export const ORDERS = [
  ...[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((i) => {
    const id = String(1 + (i % 3))
    const qty = 1 + (i % 4)
    const cents = { 1: 2490, 2: 650, 3: 3100 }[id] ?? 0
    const name = { 1: 'kettle', 2: 'mug', 3: 'teapot' }[id]
    return { path: `/orders/${id}?qty=${qty}`, status: 200, body: { item: { id, name }, quote: { id, qty, cents: cents * qty } }, pricing: true }
  }),
  { path: '/orders/9', status: 404, body: { error: 'no item 9' }, pricing: false },
  { path: '/orders/2?qty=half', status: 400, body: { error: 'a quote needs a known id and an integer qty' }, pricing: true }
]

/**
 * The Node the entry app runs on, as it says (process.version): the runtime's workers are
 * threads of one process, so one answer speaks for all of them.
 * @param {RunningApp} app
 * @returns {Promise<string>}
 */
export async function appNodeVersion (app) {
  const { statusCode, body } = await request(`${app.url}/node`)
  const text = await body.text()
  if (statusCode !== 200) throw new Error(`/node answered ${statusCode} ${text.slice(0, 200)}`)
  return JSON.parse(text).version
}

/**
 * @typedef {object} CheckResult
 * @property {{ path: string, status: number, body: string }[]} wrong  answers that differ from ORDERS'
 * @property {Record<string, { calls: number, 'http-port': number, mesh: number }>} targets  per target: calls made and the counter's paths
 * @property {Record<string, number>} pricingWorkers  http-port calls per pricing worker
 */

/**
 * Makes every order once and reads, from the drop-in's counter, the path each
 * call to catalog and pricing took.
 * @param {RunningApp} app
 * @returns {Promise<CheckResult>}
 */
export async function checkApp (app) {
  const before = await readCounter(app.metricsUrl)
  const wrong = []
  for (const order of ORDERS) {
    const { statusCode, body } = await request(app.url + order.path)
    const text = await body.text()
    if (statusCode !== order.status || text !== JSON.stringify(order.body)) wrong.push({ path: order.path, status: statusCode, body: text })
  }
  const after = await readCounter(app.metricsUrl)
  const delta = (/** @type {string} */ key) => (after.get(key) ?? 0) - (before.get(key) ?? 0)
  const sum = (/** @type {string} */ target, /** @type {string} */ path) =>
    [...after.keys()].filter((k) => k.startsWith(`${target}|${path}|`)).reduce((n, k) => n + delta(k), 0)
  /** @type {CheckResult['targets']} */
  const targets = {
    catalog: { calls: ORDERS.length, 'http-port': sum('catalog', 'http-port'), mesh: sum('catalog', 'mesh') },
    pricing: { calls: ORDERS.filter((o) => o.pricing).length, 'http-port': sum('pricing', 'http-port'), mesh: sum('pricing', 'mesh') }
  }
  /** @type {Record<string, number>} */
  const pricingWorkers = {}
  for (const key of after.keys()) {
    const [target, path, worker] = key.split('|')
    if (target === 'pricing' && path === 'http-port') pricingWorkers[worker] = (pricingWorkers[worker] ?? 0) + delta(key)
  }
  return { wrong, targets, pricingWorkers }
}

/**
 * The drop-in's counter for calls made by the entry (front), by target|path|targetWorker.
 * @param {string} metricsUrl
 * @returns {Promise<Map<string, number>>}
 */
async function readCounter (metricsUrl) {
  const { statusCode, body } = await request(`${metricsUrl}/metrics`)
  const text = await body.text()
  if (statusCode !== 200) throw new Error(`/metrics answered ${statusCode}`)
  const counts = new Map()
  for (const line of text.split('\n')) {
    const match = REQUESTS_LINE.exec(line)
    if (!match) continue
    const labels = Object.fromEntries([...match[1].matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]))
    if (labels.applicationId !== 'front') continue
    const key = `${labels.target}|${labels.path}|${labels.targetWorker}`
    counts.set(key, (counts.get(key) ?? 0) + Number(match[2]))
  }
  return counts
}
