// @ts-check
// How fast each parser gets through the data on one core, with no HTTP, disk
// or transport around it: the dataset is read into 64 KiB chunks in memory
// first, then each parser filters it for one id, a few times; the best run
// counts. Run it under the measurement lock:
//   flock /tmp/watt-measure.lock npx node bench/data/parser-speed.js --size 50MB
import { readFileSync } from 'node:fs'
import { Readable, Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { parseFlags, runMain } from '../lib/cli.js'
import { machineInfo } from '../lib/machine.js'
import { SCHEMA, writeResult } from '../lib/results.js'
import { DEFAULT_CACHE_DIR, ensureDataset } from './dataset/cache.js'
import { parseSize } from './dataset/size.js'
import { DATASETS } from './dataset/records.js'
import { bufferedMatches, streamMatches } from './server/json-filter.js'
import { parseRecords, RecordScanner } from './server/record-scanner.js'
import { scanFilter } from './server/scan-filter.js'

const CHUNK = 64 * 1024

/** @type {Record<string, import('../lib/cli.js').FlagSpec>} */
const FLAGS = {
  dataset: { type: 'string', default: 'large', choices: ['small', 'large'], help: 'which dataset' },
  size: { type: 'string', default: '50MB', help: 'dataset size (cached like the bench\'s)' },
  repeat: { type: 'integer', default: 3, min: 1, max: 20, help: 'runs per parser; the best counts' },
  seed: { type: 'integer', default: 1, min: 0, max: 2 ** 31 - 1, help: 'dataset seed' },
  out: { type: 'string', help: 'also write the figures as a result JSON (npm run readme -- --parsers FILE publishes it)' }
}

async function main () {
  const flags = parseFlags(process.argv.slice(2), FLAGS, {
    command: 'node bench/data/parser-speed.js',
    description: 'MB/s of each parser (stream-json, record scanner, JSON.parse) on one core, data in memory.'
  })
  const dataset = /** @type {'small' | 'large'} */ (flags.dataset)
  const { file, manifest } = await ensureDataset({ dataset, targetBytes: parseSize(flags.size), seed: flags.seed, cacheDir: DEFAULT_CACHE_DIR, log: (line) => process.stderr.write(line + '\n') })
  const whole = readFileSync(file)
  /** @type {Buffer[]} */
  const chunks = []
  for (let i = 0; i < whole.length; i += CHUNK) chunks.push(whole.subarray(i, i + CHUNK))
  const { keyField } = DATASETS[dataset]
  const id = Object.keys(manifest.ids)[0]
  const expected = manifest.ids[id].bytes

  /** @type {Record<string, () => Promise<number>>} answer length per run */
  const parsers = {
    'JSON.parse whole (promise)': async () => bufferedMatches(whole.toString('utf8'), keyField, id).length,
    'stream-json 3 (stream)': async () => drain(streamMatches(Readable.from(chunks, { objectMode: false }), keyField, id)),
    'record scanner alone': async () => {
      const scanner = new RecordScanner({ keepBytes: false })
      for (const chunk of chunks) scanner.push(chunk)
      scanner.end()
      return expected // it finds boundaries only
    },
    // what scan costs on data that is not one record per line (pretty-printed or on one line)
    'record scanner + JSON.parse per chunk': async () => {
      const scanner = new RecordScanner()
      let matched = 0
      for (const chunk of chunks) {
        const batch = scanner.push(chunk)
        if (batch) for (const record of parseRecords(batch, scanner.offset)) if (record[keyField] === id) matched++
      }
      scanner.end()
      return matched && expected
    },
    'line cuts + JSON.parse per chunk (scan)': async () => drain(Readable.from(chunks, { objectMode: false }).pipe(scanFilter(keyField, id)))
  }

  const startedAt = new Date().toISOString()
  process.stdout.write(`${dataset} dataset, ${(whole.length / 1e6).toFixed(1)} MB, ${manifest.records} records, id ${id}; best of ${flags.repeat}, Node ${process.version}\n`)
  /** @type {{ name: string, megabytesPerSec: number, bestMs: number }[]} */
  const figures = []
  for (const [name, run] of Object.entries(parsers)) {
    let best = Infinity
    for (let r = 0; r < flags.repeat; r++) {
      const started = process.hrtime.bigint()
      const length = await run()
      const seconds = Number(process.hrtime.bigint() - started) / 1e9
      if (length !== expected) throw new Error(`${name} answered ${length} bytes, expected ${expected}`)
      best = Math.min(best, seconds)
    }
    process.stdout.write(`${name.padEnd(46)} ${(whole.length / 1e6 / best).toFixed(0).padStart(6)} MB/s  (${(best * 1000).toFixed(0)} ms)\n`)
    figures.push({ name, megabytesPerSec: whole.length / 1e6 / best, bestMs: best * 1000 })
  }
  if (flags.out) {
    const path = writeResult(flags.out, {
      schema: SCHEMA,
      suite: 'parser-speed',
      startedAt,
      machine: machineInfo(['stream-json']),
      config: { dataset, bytes: whole.length, records: manifest.records, id, seed: flags.seed, repeat: flags.repeat, chunkBytes: CHUNK },
      parsers: figures
    })
    process.stdout.write(`results: ${path}\n`)
  }
  return 0
}

/**
 * @param {import('node:stream').Readable} readable
 * @returns {Promise<number>} bytes read
 */
async function drain (readable) {
  let bytes = 0
  await pipeline(readable, new Writable({ write (chunk, _encoding, callback) { bytes += chunk.length; callback() } }))
  return bytes
}

runMain(main)
