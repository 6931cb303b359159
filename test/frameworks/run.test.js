// The runner end to end on a short load: the result file (one schema, one run
// per framework and round, versions), the report and the ranking line; usage
// errors; and Ctrl-C leaving partial results and no server behind.
import t from 'tap'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import { spawnTracked } from '../../bench/lib/processes.js'
import { PROJECT_ROOT } from '../../bench/lib/paths.js'
import { untilBusy } from '../helpers/wait.js'

const RUN = join(PROJECT_ROOT, 'bench/frameworks/run.js')

function runBench (args) {
  const tracked = spawnTracked(process.execPath, [RUN, ...args], { cwd: PROJECT_ROOT, env: { ...process.env, CI: '1' } })
  let stdout = ''
  tracked.child.stdout.on('data', (chunk) => { stdout += chunk })
  return { ...tracked, stdout: () => stdout }
}

/** pids whose parent is `pid` (Linux /proc) */
function childrenOf (pid) {
  return readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).filter((entry) => {
    try {
      return readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1].split(' ')[1] === String(pid)
    } catch {
      return false
    }
  }).map(Number)
}

const alive = (pid) => existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].startsWith('Z')

t.test('two frameworks, one short round: result, report and ranking', async (t) => {
  const dir = t.testdir({})
  const out = join(dir, 'frameworks.json')
  const bench = runBench(['--frameworks', 'node-http,fastify', '--duration', '1', '--warmup', '0', '--rounds', '1', '--connections', '10', '--out', out])
  const { code } = await bench.exited
  t.equal(code, 0, bench.output())
  const result = JSON.parse(readFileSync(out, 'utf8'))
  t.equal(result.schema, 'watt-transport-lab/result@1')
  t.equal(result.suite, 'frameworks')
  t.equal(result.complete, true)
  t.equal(result.failed, false)
  t.same(result.runs.map((run) => [run.target, run.profile, run.round, run.ok]), [['node-http', 'c10-p1', 1, true], ['fastify', 'c10-p1', 1, true]])
  t.equal(result.runs[1].version, result.machine.versions.fastify)
  for (const name of ['express', '@hapi/hapi', 'polka', 'restana', 'restify', 'find-my-way', 'fastify']) t.type(result.machine.versions[name], 'string', `${name} version recorded`)
  t.ok(result.summary['c10-p1']['node-http'].requestsPerSec.median > 0)
  t.match(bench.stdout(), /ranking \(c10-p1\): (fastify > node-http|node-http > fastify)\n/)
  t.ok(existsSync(join(dir, 'frameworks.md')) && existsSync(join(dir, 'frameworks.html')), 'report written beside the result')
})

t.test('usage errors exit 2 before starting anything', async (t) => {
  const cases = [['--frameworks', 'koa'], ['--connections', '0'], ['--duration', 'ten']]
  const codes = await Promise.all(cases.map((args) => runBench(args).exited.then(({ code }) => code)))
  t.same(codes, [2, 2, 2])
})

t.test('Ctrl-C stops the server, keeps partial results and exits 130', async (t) => {
  const dir = t.testdir({})
  const out = join(dir, 'partial.json')
  const bench = runBench(['--frameworks', 'node-http,fastify', '--duration', '300', '--warmup', '0', '--rounds', '1', '--connections', '10', '--out', out])
  t.teardown(() => { if (bench.child.exitCode === null) bench.child.kill('SIGKILL') })
  // the framework server, not another child (the bench runs git once to record the commit)
  const isServer = (pid) => { try { return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('bench/frameworks/servers/') } catch { return false } }
  let servers = []
  const deadline = Date.now() + 120_000
  while (servers.length === 0 && Date.now() < deadline) {
    await sleep(100)
    servers = childrenOf(bench.child.pid).filter(isServer)
  }
  t.equal(servers.length, 1, 'one framework server running')
  await untilBusy(servers[0]) // well inside the 300 s measurement: the server is under load
  bench.child.kill('SIGINT')
  const [code] = await once(bench.child, 'exit')
  t.equal(code, 130)
  t.notOk(servers.some(alive), 'no server left running')
  const result = JSON.parse(readFileSync(out, 'utf8'))
  t.equal(result.interrupted, true)
  t.equal(result.failed, true)
})
