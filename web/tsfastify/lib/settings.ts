// The entry's tunables, read once from the environment with clear errors.
export interface Settings {
  callTimeoutMs: number
  /** calls in flight to each downstream service: tcp pool connections, ipc and rpc queue slots */
  callsInFlightPerService: number
}

export function readSettings (env: NodeJS.ProcessEnv = process.env): Settings {
  return {
    callTimeoutMs: positiveInt(env, 'CALL_TIMEOUT_MS', 3000, 600_000),
    callsInFlightPerService: positiveInt(env, 'CALLS_IN_FLIGHT_PER_SERVICE', 16, 1024)
  }
}

function positiveInt (env: NodeJS.ProcessEnv, name: string, fallback: number, max: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new RangeError(`${name} must be an integer from 1 to ${max}, got ${JSON.stringify(raw)}`)
  }
  return value
}
