// @ts-check
// The kinds axis of `npm run compat`: the capabilities Watt users deploy beside their API
// apps (Next.js, NestJS, Vite SSR), one folder each under tools/watt-compat/kinds/<kind>
// with a pinned package.json (its `wattLabKind` field says what to check), its
// package-lock.json and a small app whose `frontend` calls the shared `api` app
// (tools/watt-compat/kinds/api, copied into the kind's web/api so that it resolves
// @platformatic/node from the kind's own node_modules).
// Installed on demand (npm ci --prefix tools/watt-compat/kinds/<kind>, skipped while the
// installed tree matches the lockfile), built with the kind's own `wattpm build` when the
// kind says so (skipped while the sources and lockfile are unchanged), then started twice
// with its own wattpm: over Watt's mesh (its watt.json) and over the drop-in (the same plus
// the undici block; @watt-lab/channel resolves from the project's node_modules, as for the
// test fixtures). Every check path is asked on both, the answers compared byte for byte,
// and the drop-in's counter (watt_lab_mesh_port_requests_total) says which path each call
// took, by calling app and target.
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { delimiter, dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { request } from 'undici'
import { buildOnDemand, npmCiOnDemand, sizeMiB, sourcesUnder, withFolderLock } from '../../bench/lib/on-demand.js'
import { removeStaleManagementDir } from '../../bench/lib/management-dir.js'
import { PROJECT_NODE } from '../../bench/lib/paths.js'
import { freePorts } from '../../bench/lib/ports.js'
import { spawnTracked, stopChild } from '../../bench/lib/processes.js'
import { probe } from '../../bench/lib/runtime.js'
import { MESH_PORT_METRIC } from '../../bench/lib/metrics.js'
import { RELEASES_DIR } from './releases.js'

export const KINDS_DIR = join(RELEASES_DIR, 'kinds')
const API_APP = join(KINDS_DIR, 'api')
/** The drop-in's block, as the channel README gives it. */
const DROP_IN = { interceptors: [{ module: '@watt-lab/channel/mesh-port', options: {} }] }

/**
 * @typedef {object} KindCheck
 * @property {string} path                     asked of the frontend (the entrypoint)
 * @property {Record<string, number>} calls    calls it makes per target app (api, or frontend for the api's call back)
 * @property {number} [status]                 the status it must answer (default 200)
 */
/**
 * @typedef {object} Kind
 * @property {string} name
 * @property {string} dir
 * @property {string} capability        the frontend's capability package (platformatic's next, nest, vite)
 * @property {string} framework         the framework package (its version is recorded)
 * @property {boolean} build            run `wattpm build` before a start
 * @property {KindCheck[]} checks
 * @property {string[]} traps           what a user meets on the way, recorded with the result
 * @property {boolean} light            cheap enough for npm test (installs in seconds, no build)
 * @property {Record<string, string>} dependencies
 */

/** Every kind folder (a package.json with a wattLabKind field), lightest first. @returns {string[]} */
export function kindNames () {
  return readdirSync(KINDS_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(KINDS_DIR, entry.name, 'package.json')))
    .map((entry) => entry.name)
    .filter((name) => JSON.parse(readFileSync(join(KINDS_DIR, name, 'package.json'), 'utf8')).wattLabKind)
    .sort((a, b) => Number(readKind(b).light) - Number(readKind(a).light) || a.localeCompare(b))
}

/**
 * @param {string} name
 * @returns {Kind}
 */
export function readKind (name) {
  const dir = join(KINDS_DIR, name)
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
  const kind = manifest.wattLabKind
  if (!kind) throw new Error(`tools/watt-compat/kinds/${name}/package.json has no wattLabKind field`)
  if (!existsSync(join(dir, 'package-lock.json'))) throw new Error(`no tools/watt-compat/kinds/${name}/package-lock.json`)
  for (const [dep, range] of Object.entries(manifest.dependencies)) {
    if (!/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(String(range))) throw new Error(`tools/watt-compat/kinds/${name}: ${dep} is not pinned to an exact version (${range})`)
  }
  return { name, dir, capability: kind.capability, framework: kind.framework, build: Boolean(kind.build), checks: kind.checks, traps: kind.traps ?? [], light: Boolean(kind.light), dependencies: manifest.dependencies }
}

/**
 * npm ci in the kind's folder unless its node_modules was installed from this lockfile,
 * then the api app copied in, then `wattpm build` when the kind has one and its sources
 * changed since the last (bench/lib/on-demand.js). The caller holds the kind's lock.
 * @param {Kind} kind
 * @param {{ log?: (line: string) => void }} [options]
 * @returns {Promise<{ installSeconds: number, buildSeconds: number, installedMiB: number, installed: Record<string, string> }>}
 */
export async function installKind (kind, { log = () => {} } = {}) {
  const say = (/** @type {string} */ line) => log(`${kind.name}: ${line}`)
  const install = await npmCiOnDemand(kind.dir, { log: say })
  rmSync(join(kind.dir, 'web', 'api'), { recursive: true, force: true })
  cpSync(API_APP, join(kind.dir, 'web', 'api'), { recursive: true })
  const build = kind.build
    ? await buildOnDemand(kind.dir, {
      sources: sourcesUnder(kind.dir, /(^|\/)(\.next|dist|build)(\/|$)|^web\/api(\/|$)|^watt\.mesh-port.*\.json$/),
      command: PROJECT_NODE,
      args: [wattpmOf(kind), 'build'],
      env: kindEnv({ PORT: '0', PLT_METRICS_PORT: '0', PLT_LOG_LEVEL: 'warn' }),
      log: say
    })
    : { seconds: 0 }
  return { installSeconds: install.seconds, buildSeconds: build.seconds, installedMiB: sizeMiB(join(kind.dir, 'node_modules')), installed: installedVersions(kind) }
}

/** @param {Kind} kind */
function wattpmOf (kind) {
  return join(kind.dir, 'node_modules', 'wattpm', 'bin', 'cli.js')
}

/**
 * The project's Node first on PATH (a capability that starts a tool by name runs it on
 * Node 24, not the machine's Node 20).
 * @param {Record<string, string>} extra
 */
function kindEnv (extra) {
  return { ...process.env, PATH: [dirname(PROJECT_NODE), process.env.PATH].filter(Boolean).join(delimiter), ...extra }
}

/**
 * The versions installed in the kind's folder, for the table: every pinned dependency,
 * and the runtime's.
 * @param {Kind} kind
 * @returns {Record<string, string>}
 */
export function installedVersions (kind) {
  const names = [...Object.keys(kind.dependencies), '@platformatic/runtime']
  return Object.fromEntries(names.map((name) => {
    try {
      return [name, JSON.parse(readFileSync(join(kind.dir, 'node_modules', name, 'package.json'), 'utf8')).version]
    } catch {
      return [name, 'absent']
    }
  }))
}

/**
 * @typedef {object} RunningKind
 * @property {string} url
 * @property {string} metricsUrl
 * @property {() => string} output
 * @property {() => Promise<void>} stop
 */

/**
 * Starts the kind's runtime with its own wattpm, over the mesh or the drop-in; ready
 * once every check path answers.
 * @param {Kind} kind
 * @param {{ dropIn: boolean, readyTimeoutMs?: number }} options
 * @returns {Promise<RunningKind>}
 */
export async function startKind (kind, { dropIn, readyTimeoutMs = 120_000 }) {
  let config = 'watt.json'
  if (dropIn) {
    // beside watt.json (its paths are relative to it); removed by stop()
    const plain = JSON.parse(readFileSync(join(kind.dir, 'watt.json'), 'utf8'))
    config = `watt.mesh-port.${process.pid}.json`
    writeFileSync(join(kind.dir, config), JSON.stringify({ ...plain, undici: DROP_IN }, null, 2) + '\n')
  }
  const removeConfig = () => { if (dropIn) rmSync(join(kind.dir, config), { force: true }) }
  const [port, metricsPort] = await freePorts(2)
  const { child, exited, output } = spawnTracked(PROJECT_NODE, [wattpmOf(kind), 'start', '--config', config], {
    cwd: kind.dir,
    env: kindEnv({ PORT: String(port), PLT_METRICS_PORT: String(metricsPort), PLT_LOG_LEVEL: 'info' })
  })
  const state = { dead: false }
  exited.then(() => { state.dead = true })
  child.once('exit', () => { if (child.pid) removeStaleManagementDir(child.pid) })
  const app = { url: `http://127.0.0.1:${port}`, metricsUrl: `http://127.0.0.1:${metricsPort}`, output, stop: async () => { await stopChild(child); removeConfig() } }
  const deadline = Date.now() + readyTimeoutMs
  let last = 'no answer yet'
  while (!state.dead && Date.now() < deadline) {
    const statuses = await Promise.all(kind.checks.map((c) => probe(`${app.url}${c.path}`, 10_000)))
    if (statuses.every((status, i) => status === (kind.checks[i].status ?? 200))) return app
    last = kind.checks.map((c, i) => `${c.path} ${statuses[i]}`).join(', ')
    await sleep(300)
  }
  await app.stop()
  throw new Error(`${kind.name} was not ready (${state.dead ? 'wattpm exited' : `${readyTimeoutMs} ms, last: ${last}`})\n--- wattpm output ---\n${output().slice(-6000)}`)
}

/**
 * The drop-in's counter: `${caller} ${target} ${path}` → calls.
 * @param {string} metricsUrl
 * @returns {Promise<Record<string, number>>}
 */
export async function readPaths (metricsUrl) {
  const { statusCode, body } = await request(`${metricsUrl}/metrics`)
  const text = await body.text()
  if (statusCode !== 200) throw new Error(`/metrics answered ${statusCode}`)
  /** @type {Record<string, number>} */
  const counts = {}
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${MESH_PORT_METRIC}{`)) continue
    const labels = Object.fromEntries([...line.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]))
    const key = `${labels.applicationId} ${labels.target} ${labels.path}`
    counts[key] = (counts[key] ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1))
  }
  return counts
}

/**
 * Every check path `rounds` times: status and body of each.
 * @param {RunningKind} app
 * @param {Kind} kind
 * @param {number} rounds
 */
async function ask (app, kind, rounds) {
  /** @type {{ path: string, status: number, body: string }[]} */
  const answers = []
  for (let round = 0; round < rounds; round++) {
    for (const check of kind.checks) {
      const { statusCode, body } = await request(`${app.url}${check.path}`, { headersTimeout: 30_000, bodyTimeout: 30_000 })
      answers.push({ path: check.path, status: statusCode, body: await body.text() })
    }
  }
  return answers
}

/** The drop-in's decision per target, as its log lines say (`mesh-port: api over http-port (2 workers)`). @param {string} output */
export function dropInDecisions (output) {
  /** @type {Record<string, string>} */
  const decided = {}
  for (const match of output.matchAll(/mesh-port: ([\w-]+) over ([^"\\]+)/g)) decided[match[1]] = match[2].trim()
  return decided
}

/**
 * One kind: started over the mesh, then over the drop-in; the same answers on both, and
 * the path of each call from the counter. A call the drop-in leaves to the mesh passes
 * when its log gives the reason (a capability it cannot serve); any other difference fails.
 * @param {Kind} kind
 * @param {{ rounds?: number, log?: (line: string) => void }} [options]
 */
export async function checkKind (kind, { rounds = 3, log = () => {} } = {}) {
  /** @type {string[]} */
  const problems = []
  log(`${kind.name}: over Watt's mesh`)
  const mesh = await startKind(kind, { dropIn: false })
  let overMesh
  try {
    // the first round warms the app up (Next compiles nothing in production, but caches)
    overMesh = await ask(mesh, kind, rounds)
  } finally {
    await mesh.stop()
  }
  log(`${kind.name}: over the drop-in`)
  const dropIn = await startKind(kind, { dropIn: true })
  let overDropIn
  let before
  let after
  let output
  try {
    before = await readPaths(dropIn.metricsUrl)
    overDropIn = await ask(dropIn, kind, rounds)
    after = await readPaths(dropIn.metricsUrl)
    output = dropIn.output()
  } finally {
    await dropIn.stop()
  }
  for (let i = 0; i < overMesh.length; i++) {
    const [m, d] = [overMesh[i], overDropIn[i]]
    const want = kind.checks.find((c) => c.path === m.path)?.status ?? 200
    if (m.status !== want) problems.push(`${m.path}: ${m.status} over the mesh, not ${want}: ${m.body.slice(0, 200)}`)
    if (d.status !== m.status || d.body !== m.body) problems.push(`${m.path}: the drop-in answered ${d.status} ${d.body.slice(0, 200)}, the mesh ${m.status} ${m.body.slice(0, 200)}`)
  }
  // per call: caller (frontend, or api for the call back) → target, by path
  const decided = dropInDecisions(output)
  /** @type {Record<string, { calls: number, 'http-port': number, mesh: number, decided: string | null }>} */
  const calls = {}
  for (const check of kind.checks) {
    for (const [target, n] of Object.entries(check.calls)) {
      const caller = target === 'frontend' ? 'api' : 'frontend'
      const key = `${caller} → ${target}`
      calls[key] ??= { calls: 0, 'http-port': 0, mesh: 0, decided: decided[target] ?? null }
      calls[key].calls += n * rounds
    }
  }
  for (const [key, c] of Object.entries(calls)) {
    const [caller, target] = key.split(' → ')
    for (const path of /** @type {const} */ (['http-port', 'mesh'])) {
      const k = `${caller} ${target} ${path}`
      c[path] = (after[k] ?? 0) - (before[k] ?? 0)
    }
    const counted = c['http-port'] + c.mesh
    if (counted !== c.calls) problems.push(`${key}: the counter saw ${counted} calls (${c['http-port']} over http-port, ${c.mesh} over the mesh), the checks made ${c.calls}`)
    // on the mesh with no reason given is a failure; with one, a fact about the capability
    else if (c.mesh > 0 && !(c.decided && c.decided.startsWith("Watt's mesh"))) problems.push(`${key}: ${c.mesh} of ${c.calls} calls over the mesh, and the drop-in's log gives no reason`)
  }
  return { kind: kind.name, capability: kind.capability, result: problems.length ? 'fail' : 'pass', problems, calls, answers: overMesh.length, traps: kind.traps }
}

/**
 * Every kind asked: installed (and built) on demand, then checked. A kind that cannot be
 * installed, built or started fails with the first line that says why.
 * @param {string[]} names
 * @param {{ rounds?: number, log?: (line: string) => void }} [options]
 */
export async function checkKinds (names, { rounds = 3, log = () => {} } = {}) {
  /** @type {Record<string, any>[]} */
  const results = []
  for (const name of names) {
    const kind = readKind(name)
    const began = Date.now()
    /** @type {Record<string, any>} */
    let installed = {}
    try {
      // one run at a time per kind folder: another compat run on this checkout waits its turn
      await withFolderLock(kind.dir, async () => {
        installed = await installKind(kind, { log })
        const checked = await checkKind(kind, { rounds, log })
        results.push({ ...checked, ...installed, seconds: Math.round((Date.now() - began) / 1000) })
      })
    } catch (err) {
      const message = /** @type {Error} */ (err).message
      const line = message.split('\n').find((l) => /Error|Cannot find|ERR_|npm error|failed/.test(l)) ?? message.split('\n')[0]
      results.push({ kind: name, capability: kind.capability, result: 'fail', problems: [line.trim().slice(0, 300)], detail: message.slice(-4000), traps: kind.traps, ...installed, installed: installed.installed ?? installedVersions(kind), seconds: Math.round((Date.now() - began) / 1000) })
    }
    const last = results[results.length - 1]
    log(`${name}: ${last.result}${last.problems.length ? ` (${last.problems[0]})` : ''} in ${last.seconds} s`)
  }
  return results
}
