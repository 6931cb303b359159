// The entry's tunables, read once from the environment with clear errors.
export interface Settings {
  callTimeoutMs: number
  tcpPoolConnections: number
}

export function readSettings (env: NodeJS.ProcessEnv = process.env): Settings {
  return {
    callTimeoutMs: positiveInt(env, 'CALL_TIMEOUT_MS', 3000, 600_000),
    tcpPoolConnections: positiveInt(env, 'TCP_POOL_CONNECTIONS', 16, 1024)
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
