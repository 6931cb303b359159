// Datasets: same seed, same bytes (pinned), a manifest that says exactly what
// a filter must answer (checked against a filter computed here), and a cache
// that reuses complete files, regenerates broken ones and refuses to fill a disk.
import t from 'tap'
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, truncateSync } from 'node:fs'
import { join } from 'node:path'
import { ensureDataset, progressLine } from '../../bench/data/dataset/cache.js'
import { generateDataset } from '../../bench/data/dataset/generate.js'
import { formatSize, parseSize } from '../../bench/data/dataset/size.js'

const sha256 = (text) => createHash('sha256').update(text).digest('hex')

t.test('sizes parse as people type them, and nonsense is refused', async (t) => {
  t.equal(parseSize('4MB'), 4e6)
  t.equal(parseSize('2GB'), 2e9)
  t.equal(parseSize('1.5 gb'), 1.5e9)
  t.equal(parseSize('512MiB'), 512 * 2 ** 20)
  t.equal(parseSize('20000'), 20000)
  for (const bad of ['', 'MB', '-1MB', '2XB', '1e9', '4 M B']) t.throws(() => parseSize(bad), RangeError, bad)
  t.equal(formatSize(2e9), '2 GB')
  t.equal(formatSize(4_000_203), '4.0 MB')
})

t.test('the same seed gives the same bytes, pinned so no machine or refactor can drift', async (t) => {
  const dir = t.testdir()
  const pinned = {
    small: { bytes: 20151, records: 96, sha256: '5ef03f6b45c5a59f2d0e7560602dc20cdaed901bd0e82e660809074e39c83320' },
    large: { bytes: 20068, records: 113, sha256: 'b909f91438714da84056bb4287d81df686ac14b09d59bfacd2a7777a3baa3691' }
  }
  for (const dataset of ['small', 'large']) {
    const file = join(dir, `${dataset}.json`)
    const manifest = await generateDataset({ dataset, targetBytes: 20000, seed: 1, file })
    t.same({ bytes: manifest.bytes, records: manifest.records, sha256: manifest.sha256 }, pinned[dataset], `${dataset} seed 1`)
    t.equal(sha256(readFileSync(file)), manifest.sha256, 'the manifest hash is the file\'s')
    const again = await generateDataset({ dataset, targetBytes: 20000, seed: 1, file: join(dir, `${dataset}-again.json`) })
    t.equal(again.sha256, manifest.sha256, 'a second run writes the same bytes')
    const other = await generateDataset({ dataset, targetBytes: 20000, seed: 2, file: join(dir, `${dataset}-seed2.json`) })
    t.not(other.sha256, manifest.sha256, 'another seed, other bytes')
  }
})

t.test('the manifest says exactly what filtering by each id must answer', async (t) => {
  const dir = t.testdir()
  for (const [dataset, keyField] of [['small', 'speakerId'], ['large', 'zipcode']]) {
    const file = join(dir, `${dataset}.json`)
    const manifest = await generateDataset({ dataset, targetBytes: 300_000, seed: 5, file })
    const text = readFileSync(file, 'utf8')
    t.ok(manifest.bytes >= 300_000 && manifest.bytes < 301_000, `${dataset} reaches its target size (${manifest.bytes})`)
    t.match(text, /^\[\n\{.*\},\n\{/, 'a JSON array, one record per line')
    t.ok(/^[\x20-\x7e\n]*$/.test(text), 'ASCII only: characters are bytes')
    const records = JSON.parse(text)
    t.equal(records.length, manifest.records)
    t.ok(records.every((record) => Object.keys(record)[1] === keyField), `${keyField} is every record's second key`)
    const ids = new Set(records.map((record) => record[keyField]))
    t.same(Object.keys(manifest.ids).sort(), [...ids].sort(), 'one manifest entry per id present')
    let checked = 0
    for (const id of ids) {
      const expected = JSON.stringify(records.filter((record) => record[keyField] === id))
      const entry = manifest.ids[id]
      if (entry.bytes !== expected.length || entry.sha256 !== sha256(expected) || entry.count !== JSON.parse(expected).length) {
        t.fail(`${dataset} ${id}: manifest ${JSON.stringify(entry)} does not describe the filtered answer`)
      }
      checked++
    }
    t.equal(checked, ids.size, `${dataset}: all ${checked} ids checked against an independent filter`)
  }
})

t.test('the cache reuses a complete dataset, regenerates a broken one, leaves no partial file', async (t) => {
  const cacheDir = t.testdir()
  const first = await ensureDataset({ dataset: 'small', targetBytes: 50_000, seed: 9, cacheDir })
  t.equal(first.generated, true)
  const second = await ensureDataset({ dataset: 'small', targetBytes: 50_000, seed: 9, cacheDir })
  t.equal(second.generated, false, 'reused')
  t.equal(second.file, first.file)
  truncateSync(first.file, 1000)
  const repaired = await ensureDataset({ dataset: 'small', targetBytes: 50_000, seed: 9, cacheDir })
  t.equal(repaired.generated, true, 'a file of the wrong size is regenerated')
  t.equal(sha256(readFileSync(repaired.file)), first.manifest.sha256, 'with the same bytes as before')
  t.same(readdirSync(cacheDir).filter((name) => name.includes('.tmp-')), [], 'no temporary file left')
})

t.test('a dataset the disk cannot hold is refused before a byte is written', async (t) => {
  const cacheDir = t.testdir()
  await t.rejects(ensureDataset({ dataset: 'large', targetBytes: 1e15, seed: 1, cacheDir }), /not enough disk space/)
  t.same(readdirSync(cacheDir), [], 'nothing written')
})

t.test('generation progress shows the share done, the time spent and the time left', async (t) => {
  t.equal(progressLine(640e6, 2e9, 95_000), '640 MB of 2 GB (32%), 95 s, about 202 s left')
  t.equal(progressLine(0, 2e9, 0), '0 B of 2 GB (0%), 0 s')
})
