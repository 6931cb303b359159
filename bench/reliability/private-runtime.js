// @ts-check
// A runtime of our own on free loopback ports, so the checks run beside a
// user's `npm start` and other engineers' runtimes without touching them.
// With meshPort, the second runtime mesh-port is measured in (watt.mesh-port.json,
// WATT_LAB_MESH_PORT=1), as bench/outside/mesh-port-runtime.js starts it for the
// benches: the drop-in would turn the plain runtime's ipc into mesh-port, so the
// checks load it apart.
import { rmdirSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { untilOverHttpPort } from '../outside/mesh-port-runtime.js'
import { PROJECT_ROOT } from '../lib/paths.js'
import { privatePorts, runtimeEnv, servicePort } from '../lib/private-ports.js'
import { startRuntime } from '../lib/runtime.js'
import { runtimeConfigFile } from '../lib/runtime-config.js'
import { MESH_PORT_RUNTIME, readyPaths, routeOf, SETTINGS } from '../../lib/topology.js'

export { privatePorts, runtimeEnv, servicePort }

/**
 * @param {{ callTimeoutMs?: number, env?: Record<string, string>, meshPort?: boolean, workers?: Record<string, number> }} [options]
 *   env: more for the runtime, e.g. where the outside transports' targets listen
 *   meshPort: the runtime with the mesh-port drop-in instead of the plain one
 *   workers: services that run more than one worker (a generated config), e.g. { node3: 2 }
 */
export async function startPrivateRuntime ({ callTimeoutMs, env: extra = {}, meshPort = false, workers = {} } = {}) {
  const ports = await privatePorts()
  const env = runtimeEnv(ports, {
    ...extra,
    ...(meshPort ? { [MESH_PORT_RUNTIME.env]: '1' } : {}),
    ...(callTimeoutMs ? { CALL_TIMEOUT_MS: String(callTimeoutMs) } : {})
  })
  const base = meshPort ? MESH_PORT_RUNTIME.configFile : 'watt.json'
  const configFile = runtimeConfigFile(base, { services: workers })
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

/** @typedef {Awaited<ReturnType<typeof startPrivateRuntime>>} PrivateRuntime */
