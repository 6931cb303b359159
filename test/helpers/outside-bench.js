// Shared by the outside-the-runtime tests: run the transport bench on private
// ports and keep its exit code and output; tell whether a pid is still alive.
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { privatePorts, runtimeEnv } from '../../bench/lib/private-ports.js'

export const run = promisify(execFile)
export const root = join(import.meta.dirname, '..', '..')
export const RUN = join(root, 'bench', 'transports', 'run.js')
export const QUICK = ['--profiles', 'latency', '--duration', '1', '--warmup', '0', '--wrk', 'off']

export async function bench (args, { env = {}, prefix = [] } = {}) {
  const ports = runtimeEnv(await privatePorts())
  const [command, ...rest] = [...prefix, process.execPath, RUN, ...args]
  try {
    const { stdout, stderr } = await run(command, rest, { cwd: root, env: { ...process.env, ...ports, ...env }, timeout: 300_000 })
    return { code: 0, stdout, stderr, ports }
  } catch (err) {
    return { code: err.code, stdout: err.stdout, stderr: err.stderr, ports }
  }
}

export function alive (pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
