// The bench with tcp-process and tcp-remote: a short verified run with their CPU
// per call from /proc and the report's distance section, and nothing left behind,
// also after Ctrl-C.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import t from 'tap'
import { QUICK, RUN, alive, bench, root, run } from '../helpers/outside-bench.js'
import { labNamespaces, namespaceSupport, OWNERS_DIR } from '../../bench/outside/netns.js'
import { isListening } from '../../bench/lib/ports.js'
import { privatePorts, runtimeEnv } from '../../bench/lib/private-ports.js'
import { spawnTracked } from '../../bench/lib/processes.js'

// Every step waits for a condition, never a fixed time; on a loaded 2-core box the
// processes and runtimes it starts can take minutes, so the file gets room.
t.setTimeout(600_000)

const support = namespaceSupport()

t.test('tcp-process and tcp-remote: verified, CPU per call from /proc, the distance section, nothing left', async (t) => {
  const dir = t.testdir()
  const out = join(dir, 'r.json')
  const transports = ['tcp', 'tcp-process'].concat(support.ok ? ['tcp-remote'] : [], ['direct']).join(',')
  const { code, stdout, stderr } = await bench(['--transports', transports, ...QUICK, '--rtt-ms', '0.5', '--out', out, '--report', join(dir, 'report')])
  t.equal(code, 0, `exit 0\n${stdout}\n${stderr}`)
  const result = JSON.parse(readFileSync(out, 'utf8'))
  t.same(result.runs.map((r) => r.target), transports.split(','))
  for (const r of result.runs) t.match(r, { ok: true, errors: 0, timeouts: 0, mismatches: 0, status: { non2xx: 0 } }, r.target)
  const byTarget = Object.fromEntries(result.runs.map((r) => [r.target, r]))
  t.ok(byTarget['tcp-process'].resources.cpuMicrosPerCall.serviceProcesses > 0, 'service processes\' CPU per call')
  t.equal(byTarget['tcp-process'].resources.cpuMicrosPerCall.services, byTarget['tcp-process'].resources.cpuMicrosPerCall.serviceProcesses)
  const processPids = Object.values(result.config.outside.about['tcp-process'].pids)
  t.equal(processPids.length, 4)
  t.notOk(processPids.some(alive), 'service processes stopped')
  const md = readFileSync(join(dir, 'report.md'), 'utf8')
  t.match(md, /## From the in-process floor to another host/)
  t.match(md, /\| direct \| in the entry \(no call\) \|[\s\S]*\| tcp-process \| another process on this machine \|/, 'ordered floor first')
  if (support.ok) {
    const remote = result.config.outside.about['tcp-remote']
    t.match(remote, { emulation: /^(relay|netem)$/, rttMs: 0.5, namespace: /^wattlab-\d+$/ })
    t.equal(byTarget['tcp-remote'].rttMs, 0.5, 'the run records its RTT')
    t.ok(byTarget['tcp-remote'].resources.cpuMicrosPerCall.serviceProcesses > 0)
    if (remote.emulation === 'relay') {
      t.ok(byTarget['tcp-remote'].resources.cpuMicrosPerCall.relay > 0, 'relay CPU apart')
      t.match(md, /emulated by a \*\*delay relay\*\*/, 'the report states which emulation ran')
    }
    t.match(stderr, /tcp-remote: network namespace wattlab-\d+ behind a veth pair .* RTT 0\.5 ms emulated by (relay|netem)/)
    t.notOk((await labNamespaces()).includes(remote.namespace), 'namespace removed')
  }
})

t.test('Ctrl-C during a bench with both stops the service processes and removes the namespace', async (t) => {
  const ports = runtimeEnv(await privatePorts())
  const transports = support.ok ? 'tcp-process,tcp-remote' : 'tcp-process'
  const dir = t.testdir()
  const child = spawnTracked(process.execPath, [RUN, '--transports', transports, '--profiles', 'latency', '--duration', '60', '--warmup', '0', '--wrk', 'off', '--out', join(dir, 'r.json')], { cwd: root, env: { ...process.env, ...ports } })
  let namespace = null
  await new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.child.stderr })
    lines.on('line', (line) => {
      const match = /network namespace (wattlab-\d+)/.exec(line)
      if (match) namespace = match[1]
      if (/^\[1\/\d+\]/.test(line) || /round 1\/1/.test(line)) resolve()
    })
    child.exited.then(() => reject(new Error(`bench exited early:\n${child.output()}`)))
  })
  const pids = JSON.parse(JSON.stringify(await findServicePids(child.child.pid)))
  t.ok(pids.length >= 4, `service processes running (${pids.length})`)
  child.child.kill('SIGINT')
  const { code } = await child.exited
  t.equal(code, 130)
  const deadline = Date.now() + 30_000
  while (pids.some(alive) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
  t.notOk(pids.some(alive), 'no service process left')
  if (support.ok) {
    t.ok(namespace, 'it had made a namespace')
    // Another test file may claim the freed index at once and make a namespace of the same
    // name: what must be gone is this bench's, recorded by its owner pid.
    const owner = () => { try { return Number(readFileSync(join(OWNERS_DIR, namespace), 'utf8')) } catch { return null } }
    t.notOk((await labNamespaces()).includes(namespace) && owner() === child.child.pid, `${namespace} of pid ${child.child.pid} removed`)
  }
  t.notOk(await isListening(Number(ports.PORT)), 'runtime stopped')
})

/** The bench's children running a service file (direct children: spawned through env, which execs). */
async function findServicePids (parent) {
  const { stdout } = await run('ps', ['-o', 'pid=,args=', '--ppid', String(parent)])
  return stdout.split('\n').filter((line) => /web\/(fastify2|node3|type1|type4)\/index/.test(line)).map((line) => Number(line.trim().split(' ')[0]))
}
