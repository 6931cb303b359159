// @ts-check
// A runtime of our own on free loopback ports, so the checks run beside a
// user's `npm start` and other engineers' runtimes without touching them.
import { privatePorts, runtimeEnv, servicePort } from '../lib/private-ports.js'
import { startRuntime } from '../lib/runtime.js'
import { SETTINGS } from '../../lib/topology.js'

export { privatePorts, runtimeEnv, servicePort }

/**
 * @param {{ callTimeoutMs?: number, env?: Record<string, string> }} [options]
 *   env: more for the runtime, e.g. where the outside transports' targets listen
 */
export async function startPrivateRuntime ({ callTimeoutMs, env: extra = {} } = {}) {
  const ports = await privatePorts()
  const env = runtimeEnv(ports, { ...extra, ...(callTimeoutMs ? { CALL_TIMEOUT_MS: String(callTimeoutMs) } : {}) })
  const runtime = await startRuntime({ env, reuse: false })
  const pid = runtime.pid
  if (pid === null) throw new Error('expected a runtime of our own')
  return { ...runtime, pid, ports, callTimeoutMs: callTimeoutMs ?? Number(SETTINGS.find((s) => s.env === 'CALL_TIMEOUT_MS')?.default) }
}

/** @typedef {Awaited<ReturnType<typeof startPrivateRuntime>>} PrivateRuntime */
