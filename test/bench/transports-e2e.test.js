// The transport bench end to end, very short, on private ports, with the runtimes
// it starts itself: the result schema and the report files. A forced failure
// reported as FAILED and the order of profiles and rounds are checked on a running
// runtime the bench reuses (test/bench/reuse.test.js): each bench that starts its
// own runtime costs a start.
import t from 'tap'
import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { MEASURED_NODE_FLAGS } from '../../bench/lib/node-flags.js'
import { isListening } from '../../bench/lib/ports.js'
import { privatePorts, runtimeEnv } from '../../bench/lib/private-ports.js'
import { transportsFlag } from '../../bench/transports/profiles.js'
import { inOwnRuntime, transportNamed } from '../../lib/topology.js'

const run = promisify(execFile)
// Two runtimes (mesh-port's own) and a run per transport: room on a loaded box.
t.setTimeout(360_000)
const root = join(import.meta.dirname, '..', '..')

async function bench (args, env) {
  const ports = runtimeEnv(await privatePorts())
  try {
    const { stdout } = await run(process.execPath, ['bench/transports/run.js', ...args], { cwd: root, env: { ...process.env, ...ports, ...env }, timeout: 400_000 })
    return { code: 0, stdout, ports }
  } catch (err) {
    return { code: err.code, stdout: err.stdout, stderr: err.stderr, ports }
  }
}

// Every default transport a runtime of ours hosts (mesh-port in its own). Those the
// bench starts outside it (service processes, a namespace, containers) have their own
// end-to-end files in test/outside/; starting them here too doubled their cost.
const HOSTED = transportsFlag().default.filter((name) => !transportNamed(name).requires || inOwnRuntime(name))

t.test('every hosted transport, verified, schema and report', async (t) => {
  const dir = t.testdir()
  const out = join(dir, 'b.json')
  const { code, stdout, stderr, ports } = await bench(['--transports', HOSTED.join(','), '--duration', '1', '--warmup', '0', '--profiles', 'latency', '--out', out, '--report', join(dir, 'report'), '--wrk', 'off'])
  t.equal(code, 0, `${stdout}\n${stderr}`)
  const result = JSON.parse(readFileSync(out, 'utf8'))
  t.equal(result.schema, 'watt-transport-lab/result@1')
  t.equal(result.complete, true)
  t.equal(result.failed, false)
  for (const field of ['cpuModel', 'cores', 'memoryBytes', 'os', 'node']) t.ok(result.machine[field], `machine.${field}`)
  for (const name of ['wattpm', 'undici', 'fastify', 'autocannon']) t.match(result.machine.versions[name], /^\d+\.\d+\.\d+/, name)
  t.match(result.machine.git.commit, /^[0-9a-f]{40}$/)
  t.equal(result.config.duration, 1)
  t.same(result.runtime.nodeFlags, MEASURED_NODE_FLAGS, 'the runtime ran with the measured flags, read from its own command line')
  t.same(result.config.outside.about['mesh-port'].runtime.nodeFlags, MEASURED_NODE_FLAGS, 'and so did mesh-port\'s runtime')
  t.match(readFileSync(join(dir, 'report.md'), 'utf8'), `ran with ${MEASURED_NODE_FLAGS.join(' ')}`, 'the report says so')
  t.ok(HOSTED.includes('ipc') && HOSTED.includes('mesh-port') && !HOSTED.includes('tcp-process'), `hosted: ${HOSTED.join(', ')}`)
  t.same(result.runs.map((r) => r.transport), HOSTED, 'every one ran, in registry order')
  for (const r of result.runs) {
    t.equal(r.ok, true, r.transport)
    t.equal(r.profile, 'latency')
    t.equal(r.round, 1)
    t.ok(r.requestsPerSec > 0)
    t.equal(r.status.non2xx, 0)
    t.equal(r.errors + r.timeouts + r.mismatches, 0)
    for (const p of ['avg', 'p50', 'p90', 'p99', 'max']) t.type(r.latencyMs[p], 'number', `latencyMs.${p}`)
    t.ok(r.resources.apps.tsfastify.cpuSeconds > 0, 'entry CPU measured')
    t.ok(r.resources.cpuMicrosPerCall.total > 0)
    t.ok(r.resources.rssAfterBytes > 0)
    // where the kernel keeps run-queue delays, every run in a runtime the bench started has them
    if (existsSync('/proc/self/schedstat')) t.ok(r.resources.coreWait.entryPercent >= 0 && r.resources.coreWait.seconds.tsfastify >= 0, `${r.transport}: the entry's wait for a core`)
  }
  const downstream = result.runs.find((r) => r.transport === 'direct').resources.apps.node3.cpuSeconds
  const viaIpc = result.runs.find((r) => r.transport === 'ipc').resources.apps.node3.cpuSeconds
  t.ok(viaIpc > downstream, 'node3 works for ipc, idles for direct')
  const tcp = result.summary.latency.tcp
  t.equal(tcp.ratioTo_tcp.median, 1)
  t.ok(result.summary.latency.ipc.requestsPerSec.median > 0)
  t.ok(existsSync(join(dir, 'report.md')))
  t.match(readFileSync(join(dir, 'report.html'), 'utf8'), /<svg[^>]*>/)
  t.notOk(await isListening(Number(ports.PORT)), 'the runtime it started is stopped')
})
