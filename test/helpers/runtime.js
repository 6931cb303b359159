// Starts a private runtime on free ports (so tests run beside a user's
// `npm start`) and stops it when the test ends.
import { privatePorts, runtimeEnv } from '../../bench/lib/private-ports.js'
import { startRuntime } from '../../bench/lib/runtime.js'

/**
 * @param {object} t  the tap test
 * @param {Record<string, string>} [env]
 * @param {{ configFile?: string, readyPaths?: string[] }} [options]  another config (e.g. watt.mesh-port.json) and its ready routes
 */
export async function privateRuntime (t, env = {}, options = {}) {
  const ports = await privatePorts()
  const runtime = await startRuntime({ env: runtimeEnv(ports, env), reuse: false, ...options })
  t.teardown(() => runtime.stop())
  return { ...runtime, ports }
}
