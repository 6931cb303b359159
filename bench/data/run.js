// @ts-check
// The data suite: streaming vs buffered JSON, from disk and from a data-source
// service over Watt's mesh (ipc), over TCP and over the mesh-port drop-in, on a
// small and a large dataset.
//   npm run bench:data                            every variant, default sizes
//   npm run bench:data -- --large-size 2GB        the original write-up's scale
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { UsageError } from '../lib/cli.js'
import { runSuiteCommand } from '../lib/driver.js'
import { DEFAULT_CACHE_DIR, ensureDataset } from './dataset/cache.js'
import { measureVariant } from './measure.js'
import { parserName } from './parsers.js'
import { casesFrom, FLAGS, MODES, resolveTiming, runtimeKindOf, sizesFrom } from './plan.js'
import { dataReport, memoryTable } from './report.js'
import { startDataRuntime } from './runtime.js'
import { crossCheckWithWrk } from './wrk-check.js'

/** Rough seconds to start and stop a runtime, for the progress estimate only. */
const RUNTIME_LIFECYCLE_S = 6
const log = (/** @type {string} */ line) => process.stderr.write(line + '\n')

runSuiteCommand({
  name: 'data',
  command: 'node bench/data/run.js',
  description: 'Streaming vs buffered JSON endpoints, from disk and over the network (the mesh, loopback TCP and the mesh-port drop-in); every response verified, peak RSS per run.',
  flags: FLAGS,
  usesWrk: true,
  plan: async (flags) => {
    const sizes = sizesFrom(flags)
    const cases = casesFrom(resolveTiming(flags, sizes))
    if (cases.length === 0) throw new UsageError('no variant selected: the large dataset has no disk source; add net-ipc, net-tcp or net-mesh-port to --sources')
    /** @type {Record<string, import('./dataset/cache.js').CachedDataset>} */
    const datasets = {}
    for (const name of new Set(cases.map((kase) => kase.dataset))) {
      datasets[name] = await ensureDataset({ dataset: name, targetBytes: sizes[name], seed: flags.seed, cacheDir: flags.cacheDir ?? DEFAULT_CACHE_DIR, log })
    }
    return {
      cases,
      rounds: flags.rounds,
      secondsPerCase: cases.reduce((sum, kase) => sum + kase.duration + kase.warmup, 0) / cases.length + (flags.runtime === 'shared' ? 1 : RUNTIME_LIFECYCLE_S),
      extraPackages: ['pidusage'],
      config: { streamJsonVersion: streamJsonVersion(), parsers: Object.fromEntries(MODES.map((mode) => [mode, parserName(mode, streamJsonVersion())])), datasets: Object.fromEntries(Object.entries(datasets).map(([name, { file, manifest }]) => [name, { file, bytes: manifest.bytes, records: manifest.records, sha256: manifest.sha256, seed: manifest.seed }])) },
      datasets
    }
  },
  setup: async (flags, plan) => {
    const { datasets, cases } = /** @type {any} */ (plan)
    const files = { small: datasets.small?.file, large: datasets.large?.file }
    // --runtime shared: one runtime per config the variants need (net-mesh-port's has the drop-in)
    /** @type {Map<import('./runtime.js').RuntimeKind, import('./runtime.js').DataRuntime>} */
    const shared = new Map()
    const stopShared = async () => { await Promise.all([...shared.values()].map((runtime) => runtime.stop())) }
    if (flags.runtime === 'shared') {
      try {
        for (const kind of new Set(/** @type {import('./plan.js').DataCase[]} */ (cases).map((kase) => runtimeKindOf(kase.source)))) {
          const runtime = await startDataRuntime({ files, kind })
          shared.set(kind, runtime)
          log(`started the ${kind} data runtime (pid ${runtime.pid}) at ${runtime.apiUrl}`)
        }
      } catch (err) {
        await stopShared()
        throw err
      }
    }
    /** @type {import('./measure.js').VariantContext} */
    const variants = {
      datasets,
      seed: flags.seed,
      timeoutS: flags.timeout,
      freshRuntime: shared.size === 0,
      runtimeFor: async (kind) => shared.get(kind) ?? startDataRuntime({ files, kind }),
      release: async (runtime) => { if (shared.get(runtime.kind) !== runtime) await runtime.stop() }
    }
    return { variants, stop: stopShared }
  },
  measure: (kase, { progress, context }) => measureVariant(/** @type {import('./plan.js').DataCase} */ (kase), context.variants, progress),
  afterRuns: (result) => { process.stdout.write(memoryTable(result) + '\n') },
  crossCheck: (result, { plan, context }) => crossCheckWithWrk(/** @type {import('./plan.js').DataCase[]} */ (plan.cases), context.variants),
  // a buffered variant refused (507) at a size it can never fit fails as a run, not the suite
  refusedByDesign: {
    test: (run) => Boolean(run.refused),
    message: 'every failed run is a buffered variant refusing (507) a dataset it cannot fit, as designed: the suite passes'
  },
  report: dataReport
})

/** stream-json's exports map hides its package.json from require(): read it beside its entry. */
function streamJsonVersion () {
  try {
    const entry = createRequire(import.meta.url).resolve('stream-json')
    return JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')).version
  } catch {
    return null
  }
}
