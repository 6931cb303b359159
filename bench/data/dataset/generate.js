// @ts-check
// Writes a dataset: a JSON array, one record per line, until it reaches the
// target size, plus its manifest: for every id, what `GET …/:id` must answer
// (record count, body length and SHA-256 of the exact JSON array), so a load
// generator can verify every response without re-reading the dataset.
import { createHash } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { once } from 'node:events'
import { mulberry32 } from './prng.js'
import { DATASETS } from './records.js'

export const FORMAT = 'watt-transport-lab/dataset@1'
const CHUNK_CHARS = 1 << 20

/**
 * @typedef {{ count: number, bytes: number, sha256: string }} Expected
 * @typedef {object} Manifest
 * @property {string} format
 * @property {import('./records.js').DatasetName} dataset
 * @property {string} kind
 * @property {string} keyField
 * @property {number} seed
 * @property {number} targetBytes
 * @property {number} bytes           actual file size (the last record may pass the target)
 * @property {number} records
 * @property {string} sha256          of the whole file
 * @property {Record<string, Expected>} ids  only ids some record carries; others answer []
 */

/**
 * @param {object} options
 * @param {import('./records.js').DatasetName} options.dataset
 * @param {number} options.targetBytes
 * @param {number} options.seed
 * @param {string} options.file                 where to write (the caller renames it into place)
 * @param {(writtenBytes: number) => void} [options.onProgress]  called about every 64 MB
 * @returns {Promise<Manifest>}
 */
export async function generateDataset ({ dataset, targetBytes, seed, file, onProgress }) {
  const kind = DATASETS[dataset]
  const draw = mulberry32(seed)
  const out = createWriteStream(file)
  const fileHash = createHash('sha256')
  /** @type {Map<string, { count: number, bytes: number, hash: import('node:crypto').Hash }>} */
  const perId = new Map()
  let bytes = 0
  let records = 0
  let nextProgress = 64e6
  let chunk = '[\n'
  const flush = async () => {
    fileHash.update(chunk)
    bytes += chunk.length
    if (!out.write(chunk)) await once(out, 'drain')
    chunk = ''
    if (bytes >= nextProgress) { onProgress?.(bytes); nextProgress += 64e6 }
  }
  try {
    // The closing "\n]\n" is 3 bytes: stop once the file would reach the target.
    while (bytes + chunk.length + 3 < targetBytes || records === 0) {
      const record = kind.record(records + 1, draw)
      const text = JSON.stringify(record)
      chunk += (records > 0 ? ',\n' : '') + text
      records++
      const id = /** @type {string} */ (record[kind.keyField])
      let entry = perId.get(id)
      if (!entry) {
        entry = { count: 0, bytes: 1, hash: createHash('sha256').update('[') }
        perId.set(id, entry)
      }
      if (entry.count > 0) { entry.hash.update(','); entry.bytes++ }
      entry.hash.update(text)
      entry.bytes += text.length
      entry.count++
      if (chunk.length >= CHUNK_CHARS) await flush()
    }
    chunk += '\n]\n'
    await flush()
    out.end()
    await once(out, 'finish')
  } catch (err) {
    out.destroy()
    throw err
  }
  /** @type {Record<string, Expected>} */
  const ids = {}
  for (const [id, entry] of [...perId].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    ids[id] = { count: entry.count, bytes: entry.bytes + 1, sha256: entry.hash.update(']').digest('hex') }
  }
  return { format: FORMAT, dataset, kind: kind.kind, keyField: kind.keyField, seed, targetBytes, bytes, records, sha256: fileHash.digest('hex'), ids }
}
