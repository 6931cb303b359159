// The bench with tcp-container: a short verified run beside tcp, the services'
// CPU and the engine's apart, the report's distance section naming the engine
// and the path, and no container or network left (compared with `docker ps -a`
// and `docker network ls` filtered by the lab's label: the run's own, and any
// ended run's, since other test files run beside this one). And,
// where no engine can run (here: the bench as an unprivileged user), tcp-container
// is skipped with the reason while the rest runs.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { labelled, orphanRuns } from '../../bench/outside/containers.js'
import { engineSkip } from '../helpers/engine.js'
import { QUICK, alive, bench } from '../helpers/outside-bench.js'

// The first run may build the images (about a minute) before Watt starts.
t.setTimeout(600_000)

// An engine for the whole test run: the first file that needs one starts it (test/helpers/engine.js).
const skip = await engineSkip()

t.test('tcp-container beside tcp: verified, CPU apart from the engine\'s, reported, nothing left', { skip }, async (t) => {
  const dir = t.testdir()
  const out = join(dir, 'r.json')
  const { code, stdout, stderr } = await bench(['--transports', 'tcp,tcp-container', ...QUICK, '--out', out, '--report', join(dir, 'report')])
  t.equal(code, 0, `exit 0\n${stdout}\n${stderr}`)
  const result = JSON.parse(readFileSync(out, 'utf8'))
  t.same(result.runs.map((r) => r.target), ['tcp', 'tcp-container'])
  for (const r of result.runs) t.match(r, { ok: true, errors: 0, timeouts: 0, mismatches: 0, status: { non2xx: 0 } }, r.target)
  const container = result.runs.find((r) => r.target === 'tcp-container')
  const cpu = container.resources.cpuMicrosPerCall
  t.ok(cpu.serviceProcesses > 0, 'the containers\' service processes\' CPU per call')
  t.equal(cpu.services, cpu.serviceProcesses, 'who answered: the containers')
  t.type(cpu.engine, 'number', 'the engine\'s CPU per call, apart')
  t.ok(Math.abs(cpu.total - (cpu.entry + cpu.downstream + cpu.services)) < 1e-6, 'the total is the runtime\'s and the services\', the engine\'s is not in it')
  const about = result.config.outside.about['tcp-container']
  t.match(about, { engine: /^\d+\.\d+/, path: /^127\.0\.0\.1:<port> → /, runId: /^\d+-/ })
  t.notOk(Object.values(about.pids).some(alive), 'the containers\' processes are gone')
  t.same(await labelled(about.runId), { containers: [], networks: [], volumes: [] }, 'the run\'s containers and network removed')
  t.same(await orphanRuns(), [], 'docker ps -a / network ls by the lab\'s label: nothing of any ended run (the bench\'s included)')
  const md = readFileSync(join(dir, 'report.md'), 'utf8')
  t.match(md, /\| tcp-container \| a Docker container on this machine, through its published port \|/)
  t.match(md, new RegExp(`engine ${about.engine.replace(/[.+]/g, '\\$&')}`), 'the report names the engine\'s version')
  t.match(md, /the traffic's path: 127\.0\.0\.1:<port> → /, 'and the path the traffic took')
})

t.test('where no engine can run, tcp-container is skipped with the reason and the rest runs', async (t) => {
  // No docker on the PATH (only `env`, which the harness spawns through): the bench cannot
  // reach or start an engine. (Becoming another user instead fails in a private checkout:
  // that user cannot reach node_modules.)
  const dir = mkdtempSync(join(tmpdir(), 'container-skip-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const bin = join(dir, 'bin')
  mkdirSync(bin)
  symlinkSync(execFileSync('sh', ['-c', 'command -v env']).toString().trim(), join(bin, 'env'))
  const out = join(dir, 'r.json')
  const { code, stdout, stderr } = await bench(['--transports', 'direct,tcp-container', ...QUICK, '--out', out, '--report', join(dir, 'report')], { env: { HOME: dir, PATH: bin } })
  t.equal(code, 0, `exit 0\n${stdout}\n${stderr}`)
  t.match(stderr, /tcp-container skipped: it needs a Docker engine, and the 'docker' command is missing/)
  const result = JSON.parse(readFileSync(out, 'utf8'))
  t.same(result.runs.map((r) => r.target), ['direct'])
  t.match(result.config.outside.skipped, [{ transport: 'tcp-container', reason: /Docker engine/ }])
  t.match(readFileSync(join(dir, 'report.md'), 'utf8'), /Not run: tcp-container skipped/)
})
