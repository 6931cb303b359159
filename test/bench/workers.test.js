// --workers N: the flag is checked before anything starts (exit 2), the generated
// config gives every downstream service N workers and the entry one (the
// committed configs untouched), and each run records how the calls spread.
import t from 'tap'
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { parsePrometheus, requestDelta } from '../../bench/lib/metrics.js'
import { PROJECT_ROOT } from '../../bench/lib/paths.js'
import { runtimeConfigFile } from '../../bench/lib/runtime-config.js'
import { describeShares, workerCallsOf } from '../../bench/transports/worker-shares.js'
import { ENTRY, MESH_PORT_RUNTIME, SERVICES } from '../../lib/topology.js'

const run = promisify(execFile)
const RUN = join(PROJECT_ROOT, 'bench', 'transports', 'run.js')

t.test('a bad --workers is a usage error (exit 2) before anything starts', async (t) => {
  for (const [value, message] of [['0', /--workers must be from 1 to 16, got 0/], ['1.5', /--workers must be an integer/], ['many', /--workers must be an integer/], ['17', /--workers must be from 1 to 16/]]) {
    const err = await run(process.execPath, [RUN, '--workers', value, '--transports', 'direct'], { cwd: PROJECT_ROOT, timeout: 30_000 }).then(() => null, (e) => e)
    t.equal(err?.code, 2, `--workers ${value} exits 2`)
    t.match(err?.stderr, message, `--workers ${value} says why`)
  }
})

t.test('one worker starts the committed config as it is', async (t) => {
  t.equal(runtimeConfigFile('watt.json', { workers: 1 }), 'watt.json')
  t.equal(runtimeConfigFile(MESH_PORT_RUNTIME.configFile, { workers: 1 }), MESH_PORT_RUNTIME.configFile)
})

t.test('N workers: a generated copy with the services at N, the entry at one, the rest unchanged', async (t) => {
  const dir = t.testdir()
  for (const base of ['watt.json', MESH_PORT_RUNTIME.configFile]) {
    const committed = JSON.parse(readFileSync(join(PROJECT_ROOT, base), 'utf8'))
    const file = runtimeConfigFile(base, { workers: 3, dir })
    t.not(file, base, `${base}: a copy, not the committed file`)
    const config = JSON.parse(readFileSync(join(PROJECT_ROOT, file), 'utf8'))
    t.equal(config.autoload.mappings[ENTRY.name].workers, 1, `${base}: the entry keeps one worker`)
    for (const s of SERVICES) t.same(config.autoload.mappings[s.name], { id: s.name, workers: 3 }, `${base}: ${s.name} runs 3 workers`)
    t.equal(resolve(dir, config.autoload.path), join(PROJECT_ROOT, 'web'), `${base}: the apps are still found`)
    const { autoload, ...rest } = config
    const { autoload: committedAutoload, ...committedRest } = committed
    t.same(rest, committedRest, `${base}: everything else as committed (the drop-in's undici block too)`)
    t.same(JSON.parse(readFileSync(join(PROJECT_ROOT, base), 'utf8')), committed, `${base} itself untouched`)
  }
})

t.test('a preload (the profiler\'s) goes into every application, even at one worker', async (t) => {
  const dir = t.testdir()
  const preload = join(PROJECT_ROOT, 'bench', 'profile', 'preload.js')
  for (const workers of [1, 2]) {
    const file = runtimeConfigFile(MESH_PORT_RUNTIME.configFile, { workers, dir, preload })
    t.not(file, MESH_PORT_RUNTIME.configFile, `${workers} worker(s): a copy`)
    const { mappings } = JSON.parse(readFileSync(join(PROJECT_ROOT, file), 'utf8')).autoload
    t.same(mappings[ENTRY.name], { id: ENTRY.name, workers: 1, preload }, `${workers} worker(s): the entry, one worker, preloaded`)
    for (const s of SERVICES) t.same(mappings[s.name], { id: s.name, workers, preload }, `${workers} worker(s): ${s.name}`)
  }
})

t.test('a preload for some applications only (bench:profile --apps) leaves the others unpreloaded', async (t) => {
  const dir = t.testdir()
  const preload = join(PROJECT_ROOT, 'bench', 'profile', 'preload.js')
  const file = runtimeConfigFile(MESH_PORT_RUNTIME.configFile, { workers: 2, dir, preload, preloadApps: [ENTRY.name] })
  const { mappings } = JSON.parse(readFileSync(join(PROJECT_ROOT, file), 'utf8')).autoload
  t.same(mappings[ENTRY.name], { id: ENTRY.name, workers: 1, preload }, 'the entry is preloaded')
  for (const s of SERVICES) t.same(mappings[s.name], { id: s.name, workers: 2 }, `${s.name} is not`)
})

const scrape = (counts) => [
  ...Object.entries(counts.requests).flatMap(([app, byWorker]) => Object.entries(byWorker).map(([w, n]) =>
    `http_request_all_summary_seconds_count{method="GET",status_code="200",applicationId="${app}",workerId="${w}"} ${n}`)),
  ...Object.entries(counts.meshPort).flatMap(([target, { mesh, httpPort }]) => [
    `watt_lab_mesh_port_requests_total{target="${target}",path="mesh",targetWorker="",applicationId="tsfastify",workerId="0"} ${mesh}`,
    ...Object.entries(httpPort).map(([w, n]) => `watt_lab_mesh_port_requests_total{target="${target}",path="http-port",targetWorker="${w}",applicationId="tsfastify",workerId="0"} ${n}`)
  ])
].join('\n')

t.test('the calls per worker: Watt\'s per-scrape request counts, or the drop-in\'s counter for mesh-port', async (t) => {
  const before = parsePrometheus(scrape({ requests: { node3: { 0: 7, 1: 7 } }, meshPort: { node3: { mesh: 1, httpPort: { 0: 10 } } } }))
  const after = parsePrometheus(scrape({ requests: { node3: { 0: 30, 1: 10 }, tsfastify: { 0: 40 } }, meshPort: { node3: { mesh: 1, httpPort: { 0: 40, 1: 30 } } } }))
  const delta = requestDelta(before, after)
  t.same(delta.requests.node3, { 0: 30, 1: 10 }, 'the summary resets on every scrape: the after scrape is the run')
  t.same(delta.meshPort.node3, { mesh: 0, httpPort: { 0: 30, 1: 30 }, retried: {} }, 'the drop-in counter is cumulative: after − before (no request sent again)')

  const tcp = workerCallsOf('tcp', delta, 2)
  t.same(tcp?.calls.node3, { 0: 30, 1: 10 })
  t.same(tcp?.calls.type1, { 0: 0, 1: 0 }, 'a service without requests counts zero per worker')
  t.match(describeShares(tcp), /node3 75\/25%/)
  const meshPort = workerCallsOf('mesh-port', delta, 2)
  t.same(meshPort?.calls.node3, { 0: 30, 1: 30 })
  t.same(meshPort?.calls.fastify2, { 0: 0, 1: 0 }, 'a worker the drop-in never linked counts zero')
  t.equal(meshPort?.meshFallback, 0)
  t.equal(workerCallsOf('rpc', requestDelta(before, parsePrometheus('')), 2), null, 'no HTTP request counted: no shares')
  t.equal(describeShares(workerCallsOf('tcp', delta, 1)), 'node3 75/25%', 'only services with several workers are shown')
  const fellBack = requestDelta(before, parsePrometheus(scrape({ requests: {}, meshPort: { node3: { mesh: 4, httpPort: { 0: 10 } } } })))
  t.equal(workerCallsOf('mesh-port', fellBack, 1)?.meshFallback, 3, 'calls that took the mesh are counted (the bench fails such a run)')
})

t.test('the tables sum the rounds per target; nothing is added with one worker', async (t) => {
  const { sharesLines, totalWorkerCalls } = await import('../../bench/transports/worker-shares.js')
  const run = (target, round, node3, ok = true) => ({ profile: 'latency', target, round, ok, workerCalls: node3 && { from: 'http server requests', calls: { node3 } } })
  const runs = [run('tcp', 1, { 0: 10, 1: 30 }), run('tcp', 2, { 0: 30, 1: 30 }), run('tcp', 3, { 0: 99, 1: 0 }, false), run('rpc', 1, null)]
  t.same(totalWorkerCalls(runs.filter((r) => r.target === 'tcp')).calls.node3, { 0: 40, 1: 60 }, 'passed rounds summed, the failed one left out')
  t.equal(totalWorkerCalls(runs.filter((r) => r.target === 'rpc')), null)
  const lines = sharesLines({ config: { workers: 2 }, runs })
  t.match(lines, /latency · tcp: node3 40\/60%/)
  t.match(lines, /latency · rpc: not counted/)
  t.equal(sharesLines({ config: { workers: 1 }, runs }), '', 'one worker: no lines')
})
