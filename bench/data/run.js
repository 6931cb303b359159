// @ts-check
// The data suite: streaming vs buffered JSON, from disk and from a data-source
// service over Watt's mesh (ipc) and over TCP, on a small and a large dataset.
//   npm run bench:data                            every variant, default sizes
//   npm run bench:data -- --large-size 2GB        the original write-up's scale
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { parseFlags, runMain, UsageError } from '../lib/cli.js'
import { writeReport } from '../lib/report.js'
import { defaultResultPath, writeResult } from '../lib/results.js'
import { runSuite } from '../lib/suite.js'
import { DEFAULT_CACHE_DIR, ensureDataset } from './dataset/cache.js'
import { measureVariant } from './measure.js'
import { casesFrom, FLAGS, resolveTiming, sizesFrom } from './plan.js'
import { dataReport, memoryTable } from './report.js'
import { startDataRuntime } from './runtime.js'
import { crossCheckWithWrk } from './wrk-check.js'

/** Rough seconds to start and stop a runtime, for the progress estimate only. */
const RUNTIME_LIFECYCLE_S = 6

async function main () {
  const flags = parseFlags(process.argv.slice(2), FLAGS, {
    command: 'node bench/data/run.js',
    description: 'Streaming vs buffered JSON endpoints, from disk and over the network (ipc, tcp); every response verified, peak RSS per run.'
  })
  const sizes = sizesFrom(flags)
  const cases = casesFrom(resolveTiming(flags, sizes))
  if (cases.length === 0) throw new UsageError('no variant selected: the large dataset has no disk source; add net-ipc or net-tcp to --sources')
  const out = flags.out ?? defaultResultPath('data')
  const log = (/** @type {string} */ line) => process.stderr.write(line + '\n')

  /** @type {Record<string, import('./dataset/cache.js').CachedDataset>} */
  const datasets = {}
  for (const name of new Set(cases.map((kase) => kase.dataset))) {
    datasets[name] = await ensureDataset({ dataset: name, targetBytes: sizes[name], seed: flags.seed, cacheDir: flags.cacheDir ?? DEFAULT_CACHE_DIR, log })
  }
  const files = { small: datasets.small?.file, large: datasets.large?.file }
  const shared = flags.runtime === 'shared' ? await startDataRuntime({ files }) : null
  if (shared) log(`started the data runtime (pid ${shared.pid}) at ${shared.apiUrl}`)
  /** @type {import('./measure.js').VariantContext} */
  const context = {
    datasets,
    seed: flags.seed,
    timeoutS: flags.timeout,
    freshRuntime: !shared,
    runtimeFor: async () => shared ?? startDataRuntime({ files }),
    release: async (runtime) => { if (runtime !== shared) await runtime.stop() }
  }

  // runs refused by design (507: the buffered variant cannot fit this dataset) fail as runs but not the suite
  let onlyRefusals = false
  try {
    const code = await runSuite({
      suite: 'data',
      config: { ...flags, out, streamJsonVersion: streamJsonVersion(), datasets: Object.fromEntries(Object.entries(datasets).map(([name, { file, manifest }]) => [name, { file, bytes: manifest.bytes, records: manifest.records, sha256: manifest.sha256, seed: manifest.seed }])) },
      cases,
      rounds: flags.rounds,
      secondsPerCase: cases.reduce((sum, kase) => sum + kase.duration + kase.warmup, 0) / cases.length + (shared ? 1 : RUNTIME_LIFECYCLE_S),
      out,
      allowErrors: flags.allowErrors,
      failFast: flags.failFast,
      extraPackages: ['pidusage'],
      measure: (kase, { progress }) => measureVariant(/** @type {import('./plan.js').DataCase} */ (kase), context, progress),
      onComplete: async (result, path) => {
        process.stdout.write(memoryTable(result) + '\n')
        onlyRefusals = result.complete && result.runs.every((/** @type {any} */ run) => run.ok || run.refused)
        if (flags.wrk !== 'off' && !result.failed) {
          result.crossCheck = await crossCheckWithWrk(cases, context)
          writeResult(path, result)
        }
        if (flags.report) {
          const { md, html } = writeReport(flags.report, dataReport(result))
          process.stdout.write(`report: ${md}\n        ${html}\n`)
        }
      }
    })
    if (code === 1 && onlyRefusals) {
      process.stdout.write('every failed run is a buffered variant refusing (507) a dataset it cannot fit, as designed: the suite passes\n')
      return 0
    }
    return code
  } finally {
    await shared?.stop()
  }
}

/** stream-json's exports map hides its package.json from require(): read it beside its entry. */
function streamJsonVersion () {
  try {
    const entry = createRequire(import.meta.url).resolve('stream-json')
    return JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')).version
  } catch {
    return null
  }
}

runMain(main)
