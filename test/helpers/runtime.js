// Starts a private runtime on free ports (so tests run beside a user's
// `npm start`) and stops it when the test ends.
import { privatePorts, runtimeEnv } from '../../bench/lib/private-ports.js'
import { startRuntime } from '../../bench/lib/runtime.js'

export async function privateRuntime (t, env = {}) {
  const ports = await privatePorts()
  const runtime = await startRuntime({ env: runtimeEnv(ports, env), reuse: false })
  t.teardown(() => runtime.stop())
  return { ...runtime, ports }
}
