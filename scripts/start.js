// @ts-check
// npm start: the runtime in the foreground, and once every route answers, one
// short block saying where it is, what to curl and how to stop it. (Watt's own
// "listening" line is an info log, hidden at the runtime's `warn` level.)
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { entryPort, HOST } from '../lib/ports.js'
import { startBanner } from '../lib/routes-index.js'
import { removeStaleManagementDir } from '../bench/lib/management-dir.js'
import { PROJECT_NODE, PROJECT_ROOT, wattpmCli } from '../bench/lib/paths.js'
import { waitForReady } from '../bench/lib/runtime.js'
const url = `http://${HOST}:${entryPort()}`

// Its own process group: a terminal's Ctrl-C reaches only this script, which passes
// exactly one signal on (Watt exits at once, ungracefully, on a second one).
const child = spawn(PROJECT_NODE, [wattpmCli(), 'start', '--env', join(PROJECT_ROOT, 'watt.env'), ...process.argv.slice(2)], {
  cwd: PROJECT_ROOT,
  stdio: 'inherit',
  detached: true
})
let stopping = false
let exited = false
for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM', 'SIGHUP'])) {
  process.on(signal, () => {
    if (stopping || exited) return
    stopping = true
    child.kill(signal)
  })
}
child.once('exit', (code, signal) => {
  exited = true
  if (child.pid) removeStaleManagementDir(child.pid) // Watt leaves its management socket dir behind
  process.exitCode = code ?? (signal ? 128 + (signal === 'SIGINT' ? 2 : 15) : 1)
})

try {
  await waitForReady(url, { timeoutMs: 600_000, isDead: () => exited || stopping })
  process.stdout.write(startBanner(url))
} catch (err) {
  if (!exited && !stopping) process.stderr.write(`npm start: ${/** @type {Error} */ (err).message}\n`)
}
