// @ts-check
// A runtime of our own on free loopback ports, so the checks run beside a
// user's `npm start` and other engineers' runtimes without touching them.
// With meshPort, the second runtime mesh-port is measured in (watt.mesh-port.json,
// WATT_LAB_MESH_PORT=1), as bench/outside/mesh-port-runtime.js starts it for the
// benches: the drop-in would turn the plain runtime's ipc into mesh-port, so the
// checks load it apart.
import { readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { request } from 'undici'
import { untilOverHttpPort } from '../outside/mesh-port-runtime.js'
import { PROJECT_ROOT } from '../lib/paths.js'
import { privatePorts, runtimeEnv, servicePort } from '../lib/private-ports.js'
import { startRuntime } from '../lib/runtime.js'
import { runtimeConfigFile } from '../lib/runtime-config.js'
import { MESH_PORT_RUNTIME, readyPaths, routeOf, SETTINGS } from '../../lib/topology.js'

export { privatePorts, runtimeEnv, servicePort }

/**
 * @param {{ callTimeoutMs?: number, env?: Record<string, string>, meshPort?: boolean, wire?: string, workers?: Record<string, number> }} [options]
 *   env: more for the runtime, e.g. where the outside transports' targets listen
 *   meshPort: the runtime with the mesh-port drop-in instead of the plain one
 *   wire: the drop-in's wire there ('http', its default, or 'frames': a generated config)
 *   workers: services that run more than one worker (a generated config), e.g. { node3: 2 }
 */
export async function startPrivateRuntime ({ callTimeoutMs, env: extra = {}, meshPort = false, wire = 'http', workers = {} } = {}) {
  const ports = await privatePorts()
  const env = runtimeEnv(ports, {
    ...extra,
    ...(meshPort ? { [MESH_PORT_RUNTIME.env]: '1' } : {}),
    ...(callTimeoutMs ? { CALL_TIMEOUT_MS: String(callTimeoutMs) } : {})
  })
  const base = meshPort ? MESH_PORT_RUNTIME.configFile : 'watt.json'
  const generated = runtimeConfigFile(base, { services: workers })
  const configFile = meshPort && wire !== 'http' ? withWire(generated, base, wire) : generated
  const route = routeOf('mesh-port')
  const started = await startRuntime({ env, reuse: false, configFile, ...(meshPort ? { readyPaths: [route], readyTimeoutMs: 150_000 } : {}) })
  // a generated config goes with its runtime (the checks and tests start several in one process)
  const runtime = configFile === base
    ? started
    : { ...started, stop: async () => { await started.stop(); removeConfig(join(PROJECT_ROOT, configFile)) } }
  const pid = runtime.pid
  if (pid === null) throw new Error('expected a runtime of our own')
  try {
    // the drop-in links on first use: a check must start on the path it checks
    if (meshPort) await untilOverHttpPort(runtime.url + route, runtime.metricsUrl)
    if (meshPort && wire !== 'http') await untilOverWire(runtime.metricsUrl, wire)
  } catch (err) {
    await runtime.stop()
    throw err
  }
  // the transport routes it serves: mesh-port's runtime adds its route to the plain one's
  const routes = readyPaths({ ...process.env, ...(meshPort ? { [MESH_PORT_RUNTIME.env]: '1' } : {}) })
  return { ...runtime, pid, ports, configFile, meshPort, routes, callTimeoutMs: callTimeoutMs ?? Number(SETTINGS.find((s) => s.env === 'CALL_TIMEOUT_MS')?.default) }
}

/**
 * Removes a generated config, and its directory once empty (another runtime's may remain).
 * @param {string} file
 */
function removeConfig (file) {
  rmSync(file, { force: true })
  try {
    rmdirSync(dirname(file))
  } catch {}
}

/**
 * A copy of `file` (generated, or the base config) whose drop-in has `{ wire }`, beside it; a generated
 * `file` is removed (the copy replaces it).
 * @param {string} file  relative to the project
 * @param {string} base
 * @param {string} wire
 * @returns {string}  the copy, relative to the project
 */
function withWire (file, base, wire) {
  const config = JSON.parse(readFileSync(join(PROJECT_ROOT, file), 'utf8'))
  const dropIn = config.undici?.interceptors?.find((/** @type {any} */ i) => String(i.module).includes('mesh-port'))
  if (!dropIn) throw new Error(`${file} has no mesh-port interceptor to set the wire of`)
  dropIn.options = { ...dropIn.options, wire }
  const copy = file.replace(/\.json$/, `.${wire}.json`)
  writeFileSync(join(PROJECT_ROOT, copy), JSON.stringify(config, null, 2))
  if (file !== base) rmSync(join(PROJECT_ROOT, file), { force: true })
  return copy
}

/**
 * Waits until the drop-in's counter shows calls carried by `wire` (its `wire` label): a check over a wire
 * must run on it, not on the HTTP wire a frames link leaves some requests to.
 * @param {string} metricsUrl
 * @param {string} wire
 */
async function untilOverWire (metricsUrl, wire, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs
  const carried = new RegExp(`^watt_lab_mesh_port_requests_total\\{[^}]*wire="${wire}"[^}]*\\} ([0-9.e+]+)`, 'gm')
  while (Date.now() < deadline) {
    const { body } = await request(`${metricsUrl}/metrics`, { headersTimeout: 5000, bodyTimeout: 5000 })
    const text = await body.text()
    if ([...text.matchAll(carried)].some((match) => Number(match[1]) > 0)) return
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`no call went over the drop-in's ${wire} wire within ${timeoutMs} ms (its counter's wire label)`)
}

/** @typedef {Awaited<ReturnType<typeof startPrivateRuntime>>} PrivateRuntime */
