// The entry's tunables, read once from the environment with clear errors.
// Defaults and bounds come from lib/topology.js (watt.env is generated from it too).
import { SETTINGS } from '../../../lib/topology.js'

export interface Settings {
  callTimeoutMs: number
  /** calls in flight to each downstream service on every transport that crosses threads */
  callsInFlightPerService: number
}

export function readSettings (env: NodeJS.ProcessEnv = process.env): Settings {
  return {
    callTimeoutMs: positiveInt(env, 'CALL_TIMEOUT_MS'),
    callsInFlightPerService: positiveInt(env, 'CALLS_IN_FLIGHT_PER_SERVICE')
  }
}

function positiveInt (env: NodeJS.ProcessEnv, name: string): number {
  const setting = SETTINGS.find((s) => s.env === name)
  if (!setting || typeof setting.default !== 'number' || setting.max === undefined) throw new Error(`lib/topology.js has no numeric setting ${name}`)
  const raw = env[name]
  if (raw === undefined || raw === '') return setting.default
  const value = Number(raw)
  if (!Number.isInteger(value) || value < 1 || value > setting.max) {
    throw new RangeError(`${name} must be an integer from 1 to ${setting.max}, got ${JSON.stringify(raw)}`)
  }
  return value
}
