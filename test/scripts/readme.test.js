// npm run readme: the committed README's results block is exactly what the
// command writes from the committed result files its start marker names (so CI
// fails when figures drift from data); writing is idempotent; the block follows
// the data: no "× tcp" without tcp, a column group per profile, a row per
// transport measured (a transport the registry adds shows up with no code change).
import t from 'tap'
import { readFileSync } from 'node:fs'
import { relative } from 'node:path'
import { PROJECT_ROOT } from '../../bench/lib/paths.js'
import { BLOCKS, README, hasBlock, renderBlock, replaceBlock, sourcesOf } from '../../scripts/readme/block.js'
import { dataBlock } from '../../scripts/readme/data-block.js'
import { meshPortBlock } from '../../scripts/readme/mesh-port-block.js'
import { fakeAppsResult } from '../helpers/fake-apps-result.js'
import { resultsBlock } from '../../scripts/readme/results-block.js'
import { BASELINE_TRANSPORT, TRANSPORT_NAMES } from '../../lib/topology.js'

const readme = readFileSync(README, 'utf8')

t.test('the committed block is what npm run readme writes from the files it names', async (t) => {
  const sources = sourcesOf(readme)
  t.match(sources.transports, /^results\/published\/.+\.json$/, 'a committed result file')
  const block = renderBlock(sources)
  t.ok(readme.includes(block), `README.md's results block differs from what ${sources.transports} gives: run npm run readme`)
  t.equal(replaceBlock(readme, block), readme, 'writing it again changes nothing (idempotent)')
})

t.test('every generated block is placed and is what npm run readme writes (what npm run readme -- --check checks)', async (t) => {
  for (const [name, block] of Object.entries(BLOCKS)) {
    const file = relative(PROJECT_ROOT, block.file)
    const text = readFileSync(block.file, 'utf8')
    t.ok(hasBlock(text, name), `${file} holds the ${name} block's markers`)
    if (!hasBlock(text, name)) continue
    t.ok(text.includes(renderBlock(sourcesOf(text, name), name)), `${file}'s ${name} block is what its sources give: run npm run readme`)
  }
  t.equal(relative(PROJECT_ROOT, BLOCKS.apps.file), 'docs/suites.md', 'the apps block sits where the apps suite is described')
})

/** A small synthetic transports result: the shape npm run bench writes. */
function fakeResult (transports, profiles = ['latency']) {
  const runs = []
  const summary = {}
  for (const profile of profiles) {
    summary[profile] = {}
    for (const [i, target] of transports.entries()) {
      const rps = 1000 * (i + 1)
      runs.push({
        target,
        transport: target,
        profile,
        round: 1,
        ok: true,
        failures: [],
        connections: 10,
        pipelining: 1,
        fanout: 4,
        size: 64,
        requestsPerSec: rps,
        latencyMs: { avg: 2, p50: 2, p90: 3, p99: 5, max: 9 },
        loadgen: { cpuSeconds: 1, cpuPercent: 10 + i },
        resources: { apps: { tsfastify: { elu: 0.9 }, node3: { elu: 0.1 } }, cpuMicrosPerCall: { total: 100 / (i + 1), entry: 50, downstream: 50 / (i + 1) } }
      })
      summary[profile][target] = { failed: false, rounds: 1, requestsPerSec: { median: rps, min: rps, max: rps, n: 1 } }
    }
    const tcp = runs.find((r) => r.profile === profile && r.target === 'tcp')
    if (tcp && transports.length > 1) for (const target of transports) summary[profile][target].ratioTo_tcp = { median: summary[profile][target].requestsPerSec.median / tcp.requestsPerSec, min: 1, max: 1, n: 1 }
  }
  return {
    schema: 'watt-transport-lab/result@1',
    suite: 'transports',
    source: 'results/fake.json',
    startedAt: '2026-01-01T00:00:00.000Z',
    failed: false,
    complete: true,
    machine: { cpuModel: 'Test CPU', cores: 2, memoryBytes: 2 ** 34, os: 'Linux 6.1 x64', node: 'v20.0.0', versions: { wattpm: '3.67.0', undici: '7', fastify: '5', autocannon: '8' }, git: { commit: 'abc', dirty: false } },
    runtime: { reused: false, pid: 1, source: 'test', versions: { node: 'v24.21.0', watt: '3.67.0' }, env: { CALL_TIMEOUT_MS: '3000', CALLS_IN_FLIGHT_PER_SERVICE: '16' }, workers: {} },
    config: { rounds: 1, duration: 2, warmup: 1 },
    runs,
    summary
  }
}

t.test('the channel README\'s drop-in figures: ratios paired per round at each load, FAILED for a failed run', async (t) => {
  // every registered transport, the n-th at n × 1,000 req/s: the block picks the three it compares
  const transports = fakeResult(TRANSPORT_NAMES, ['latency', 'seed'])
  const rps = (/** @type {string} */ name) => 1000 * (TRANSPORT_NAMES.indexOf(name) + 1)
  const [overMesh, overTcp] = [rps('mesh-port') / rps('ipc'), rps('mesh-port') / rps('tcp')].map((r) => r.toFixed(2))
  const apps = fakeAppsResult({ routes: ['catalog/list', 'catalog/item', 'catalog/list@busy'] })
  const block = meshPortBlock({ transports, apps })
  t.match(block, '**What the defaults measured** (written by `npm run readme`', 'figures of the defaults, from the published results')
  t.match(block, `at 10 connections ${rps('mesh-port').toLocaleString('en-US')} req/s, ${overMesh}× Watt's mesh and ${overTcp}× loopback TCP, and at 100 connections × 10 pipelined ${overMesh}× and ${overTcp}×`)
  t.match(block, /1\.50–1\.50× loopback TCP across the routes at 10 connections, and 3\.00–3\.00× and 1\.50–1\.50× at 50/)
  const seed = transports.runs.find((r) => r.profile === 'seed' && r.target === 'mesh-port')
  seed.ok = false
  t.match(meshPortBlock({ transports, apps }), /pipelined FAILED and FAILED/, 'a failed run is never a number')
  t.match(meshPortBlock({ transports, apps }), /1 failed run\(s\)/)
})

t.test('no "× tcp" anywhere when tcp was not measured', async (t) => {
  const block = resultsBlock(fakeResult(['ipc', 'direct']))
  t.notMatch(block, /× tcp|`tcp`'s|against `tcp`/)
  t.match(block, /\| `ipc` \|/)
})

t.test('a transport the registry adds gets its row; ratios only with tcp beside it', async (t) => {
  const block = resultsBlock(fakeResult([...TRANSPORT_NAMES.filter((name) => name !== 'zz-new'), 'zz-new'], ['seed', 'latency']))
  t.match(block, /\| transport \| `latency` \(c 10, p 1\) req\/s \| × tcp \| p99 ms \| `seed`/, 'the low-concurrency profile first')
  const n = TRANSPORT_NAMES.filter((name) => name !== 'zz-new').length + 1
  const rps = (n * 1000).toLocaleString('en-US')
  const ratio = (n / (TRANSPORT_NAMES.indexOf(BASELINE_TRANSPORT) + 1)).toFixed(2)
  t.match(block, `| \`zz-new\` | ${rps} (${rps}–${rps}) | ${ratio}× |`)
  t.match(block, /Node 24\.21\.0 \(the runtime's\)/, 'the runtime\'s Node, not the harness\'s v20')
})

t.test('tcp-container: the block names the engine\'s version, the traffic\'s path and the engine\'s CPU per call', async (t) => {
  const result = fakeResult(['tcp', 'tcp-container'])
  result.runs[1].resources.cpuMicrosPerCall.engine = 42
  result.config.outside = {
    about: { 'tcp-container': { placement: 'a Docker container per service (engine 20.10.24+dfsg1), ports published on 127.0.0.1', engine: '20.10.24+dfsg1', path: '127.0.0.1:<port> → docker-proxy (the engine\'s userland proxy, 4 processes) → bridge watt-lab-1-x → container' } },
    skipped: []
  }
  const block = resultsBlock(result)
  t.match(block, /`tcp-container`'s services ran each in its own Docker container \(engine 20\.10\.24\+dfsg1\), ports published on 127\.0\.0\.1/)
  t.match(block, /the traffic's path: 127\.0\.0\.1:<port> → docker-proxy .* → the run's bridge network → container/, 'the path, without the run\'s own network name')
  t.match(block, /the engine's own CPU \(docker-proxy, containerd-shim: 42 µs per call\) is not in the figures/)
  result.config.outside = { about: {}, skipped: [{ transport: 'tcp-container', reason: 'tcp-container skipped: it needs a Docker engine, and the \'docker\' command is missing' }] }
  t.match(resultsBlock(result), /Not run: tcp-container skipped: it needs a Docker engine/, 'or why it did not run')
})

t.test('a failed transport is FAILED, never a number', async (t) => {
  const result = fakeResult(['ipc', 'tcp'])
  result.summary.latency.ipc = { failed: true, rounds: 1, failures: ['3 timeouts'] }
  result.runs[0].ok = false
  result.failed = true
  t.match(resultsBlock(result), /\| `ipc` \| FAILED \|/)
  t.match(resultsBlock(result), /1 of 2 runs FAILED/)
  t.notMatch(resultsBlock(result), /The mesh \(`ipc`\)/, 'no sentence about a transport that failed')
})

t.test('the sentences follow the data: a slower channel is not called the fastest', async (t) => {
  // fakeResult gives each later transport more req/s
  const watts = ['ipc', BASELINE_TRANSPORT]
  const fast = resultsBlock(fakeResult([...watts, 'rpc', 'port']))
  t.match(fast, /the channel library \(`port`\) is the fastest way measured/)
  const slow = resultsBlock(fakeResult(['port', ...watts, 'rpc']))
  t.notMatch(slow, /the channel library/)
})

t.test('separate processes: the verdict follows the ratios at both concurrencies', async (t) => {
  const verdict = (latency, seed) => {
    const result = fakeResult([BASELINE_TRANSPORT, 'tcp-process'], ['seed', 'latency'])
    result.summary.latency['tcp-process'].ratioTo_tcp.median = latency
    result.summary.seed['tcp-process'].ratioTo_tcp.median = seed
    return /\*\*Separate processes ([^*]+)\*\*/.exec(resultsBlock(result))?.[1]
  }
  t.equal(verdict(1.1, 1.2), 'are not slower than the runtime\'s own loopback here')
  t.equal(verdict(0.8, 0.9), 'cost throughput against the runtime\'s own loopback')
  t.equal(verdict(0.94, 1.1), 'are about as fast as the runtime\'s own loopback here', 'slower at one, faster at the other')
})

t.test('the wrk line gives wrk\'s figures and their spread from autocannon, FAILED never a number, or why it was skipped', async (t) => {
  const result = fakeResult(['ipc', BASELINE_TRANSPORT])
  result.crossCheck = {
    runs: [
      { profile: 'latency', target: 'ipc', ok: true, requestsPerSec: 750 },
      { profile: 'latency', target: BASELINE_TRANSPORT, ok: false, requestsPerSec: 3000 }
    ]
  }
  const line = resultsBlock(result)
  t.match(line, /for the `latency` profile: ipc 750, tcp FAILED req\/s, within 25% of autocannon's medians\./)
  t.notMatch(line, /agrees/)
  result.crossCheck = { skipped: 'wrk is not installed (apt-get install wrk); cross-check skipped' }
  t.match(resultsBlock(result), /No wrk figures: wrk is not installed \(apt-get install wrk\); cross-check skipped\./)
})

t.test('the data block: committed as written, a row per variant naming its parser, REFUSED and FAILED never a number, targets follow the data', async (t) => {
  const dataReadme = readFileSync(BLOCKS.data.file, 'utf8')
  const sources = sourcesOf(dataReadme, 'data')
  t.match(sources.data, /^results\/published\/.+\.json$/, 'a committed result file')
  const block = renderBlock(sources, 'data')
  t.ok(dataReadme.includes(block), `bench/data/README.md's data block differs from what ${Object.values(sources).join(', ')} give: run npm run readme`)
  t.equal(replaceBlock(dataReadme, block, 'data'), dataReadme, 'writing it again changes nothing (idempotent)')

  /** rps by target; a target missing from ok fails, 'refused' ones answer 507 */
  function fakeData (rpsByTarget, { refused = [], failed = [], consumedMiB = {} } = {}) {
    const runs = []
    const summary = { scaled: {} }
    for (const [target, rps] of Object.entries(rpsByTarget)) {
      const [dataset, source, mode] = target.split('/')
      const bad = refused.includes(target) ? 'preflight answered 507: the dataset cannot fit' : failed.includes(target) ? '3 timeouts' : null
      runs.push({ target, dataset, source, mode, round: 1, ok: !bad, failures: bad ? [bad] : [], connections: 2, duration: 30, requestsPerSec: rps, status: { '2xx': rps * 30 }, latencyMs: { avg: 100 / rps, p50: 100, p99: 200 }, datasetBytes: 1e8, peakRssBytes: 400 * 1048576, memoryConsumedBytes: (consumedMiB[target] ?? 40) * 1048576 })
      summary.scaled[target] = bad ? { failed: true, failures: [bad] } : { failed: false, requestsPerSec: { median: rps, min: rps, max: rps } }
    }
    return { suite: 'data', startedAt: '2026-01-01T00:00:00.000Z', source: 'results/fake-data.json', machine: { cpuModel: 'Test CPU', cores: 2, versions: { wattpm: '3.67.0' }, git: { commit: 'abc' } }, config: { rounds: 1, largeSize: '100MB', streamJsonVersion: '3.8.0', datasets: { small: { bytes: 4e6, records: 10 }, large: { bytes: 1e8, records: 100 } } }, runs, summary }
  }
  const fast = dataBlock({ data: fakeData({ 'small/disk/scan': 30, 'small/disk/promise': 20, 'large/net-tcp/stream': 0.4, 'large/net-tcp/scan': 1.2, 'large/net-tcp/promise': 1 }, { refused: ['large/net-tcp/promise'] }) })
  t.match(fast, /\| small\/disk\/scan \| line cuts \+ JSON\.parse \| 30\.00 /, 'the row names its parser')
  // 2 connections × 100 MB ÷ (100 ms ÷ 30) mean answer time
  t.match(fast, /\| small\/disk\/scan \| [^\n]* \| 900 \| 60,000\.0 \|/, 'MB/s from connections, size and mean answer time; answers counted')
  t.match(fast, /\| large\/net-tcp\/stream \| stream-json 3\.8\.0 \|/)
  t.match(fast, /\| large\/net-tcp\/promise \| JSON\.parse whole \| REFUSED \(507\) \|/, 'refused by design, not a number')
  t.match(fast, /scan against promise, small dataset from disk\*\* \(target ≥ 1\.0×\): 1\.50×.*met/)
  t.match(fast, /scan against stream-json, large dataset\*\* \(target ≥ 1\.5×\): net-tcp 3\.00×: met/)
  const slow = dataBlock({ data: fakeData({ 'small/disk/scan': 15, 'small/disk/promise': 20, 'large/net-tcp/stream': 1, 'large/net-tcp/scan': 1.2 }, { failed: [] }) })
  t.match(slow, /small dataset from disk\*\* \(target ≥ 1\.0×\): 0\.75×.*missed/, 'a missed target says so')
  t.match(slow, /net-tcp 1\.20×: missed/)
  const large = fakeData({ 'large/net-ipc/stream': 0.1, 'large/net-ipc/scan': 0.3 }, { failed: ['large/net-ipc/stream'] })
  large.config.largeSize = '2GB'
  const broken = dataBlock({ data: fakeData({ 'small/disk/scan': 15, 'small/disk/promise': 20 }), large })
  t.match(broken, /\| large\/net-ipc\/stream \| stream-json 3\.8\.0 \| FAILED \| 3 timeouts \|/)
  t.match(broken, /Every streaming variant completes at 2GB\*\*: no: large\/net-ipc\/stream FAILED/, 'a failed 2 GB stream is not called complete')
  t.notMatch(fast, /mesh-port drop-in/, 'no net-mesh-port run, no verdict')
  const MESH_PORT = /the mesh source over the mesh-port drop-in \(net-mesh-port\) against tcp\*\* \(target: throughput ≥ tcp's, peak RSS over idle ≤ tcp's \+ 16 MiB\): /
  const dropIn = (rps, consumedMiB) => dataBlock({ data: fakeData({ 'small/net-tcp/scan': 20, 'small/net-mesh-port/scan': rps }, { consumedMiB: { 'small/net-tcp/scan': 40, 'small/net-mesh-port/scan': consumedMiB } }) })
  t.match(dropIn(22, 56), new RegExp(MESH_PORT.source + /small\/scan 1\.10× tcp's req\/s \(met\), 56 MiB over idle against tcp's 40 \(met\): met\./.source), 'as fast as tcp within 16 MiB: met')
  t.match(dropIn(18, 40), /small\/scan 0\.90× tcp's req\/s \(missed\), 40 MiB over idle against tcp's 40 \(met\): missed\./, 'slower than tcp: missed')
  t.match(dropIn(22, 57), /small\/scan 1\.10× tcp's req\/s \(met\), 57 MiB over idle against tcp's 40 \(missed\): missed\./, 'more than 16 MiB over tcp: missed')
})
