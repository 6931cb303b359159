// @ts-check
// Datasets are generated once into the cache folder and reused: the name holds
// everything that decides the bytes (dataset, seed, target size, format), the
// file is written under a temporary name and renamed only when complete, and
// there must be room on the disk before a byte is written.
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, statfsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { onCleanup } from '../../lib/processes.js'
import { PROJECT_ROOT } from '../../lib/paths.js'
import { FORMAT, generateDataset } from './generate.js'
import { formatSize } from './size.js'

export const DEFAULT_CACHE_DIR = join(PROJECT_ROOT, '.cache', 'data')
const DISK_MARGIN_BYTES = 256e6

/**
 * @typedef {{ file: string, manifestFile: string, manifest: import('./generate.js').Manifest, generated: boolean }} CachedDataset
 */

/**
 * @param {string} cacheDir
 * @param {import('./records.js').DatasetName} dataset
 * @param {number} targetBytes
 * @param {number} seed
 */
export function datasetPaths (cacheDir, dataset, targetBytes, seed) {
  const base = join(cacheDir, `${dataset}-seed${seed}-${targetBytes}B-v${FORMAT.split('@')[1]}`)
  return { file: `${base}.json`, manifestFile: `${base}.manifest.json` }
}

/**
 * Returns the cached dataset, generating it first when it is missing or incomplete.
 * @param {object} options
 * @param {import('./records.js').DatasetName} options.dataset
 * @param {number} options.targetBytes
 * @param {number} options.seed
 * @param {string} [options.cacheDir]
 * @param {(line: string) => void} [options.log]
 * @returns {Promise<CachedDataset>}
 */
export async function ensureDataset ({ dataset, targetBytes, seed, cacheDir = DEFAULT_CACHE_DIR, log = () => {} }) {
  const { file, manifestFile } = datasetPaths(cacheDir, dataset, targetBytes, seed)
  const cached = readManifest(manifestFile)
  if (cached && fileSize(file) === cached.bytes) {
    log(`using the cached ${dataset} dataset (${formatSize(cached.bytes)}, seed ${seed}): ${file}`)
    return { file, manifestFile, manifest: cached, generated: false }
  }

  mkdirSync(cacheDir, { recursive: true })
  checkDiskRoom(cacheDir, targetBytes)
  const temporary = `${file}.tmp-${process.pid}`
  const forget = onCleanup(async () => { rmSync(temporary, { force: true }) }) // Ctrl-C mid-way leaves no partial file
  log(`generating the ${dataset} dataset (${formatSize(targetBytes)}, seed ${seed}) into ${file}`)
  const started = Date.now()
  try {
    const manifest = await generateDataset({
      dataset,
      targetBytes,
      seed,
      file: temporary,
      onProgress: (written) => log(`  ${progressLine(written, targetBytes, Date.now() - started)}`)
    })
    renameSync(temporary, file)
    writeFileSync(manifestFile, JSON.stringify(manifest) + '\n')
    log(`  done: ${manifest.records.toLocaleString('en-US')} records, ${formatSize(manifest.bytes)} in ${((Date.now() - started) / 1000).toFixed(1)} s`)
    return { file, manifestFile, manifest, generated: true }
  } finally {
    forget()
    rmSync(temporary, { force: true })
  }
}

/**
 * "640 MB of 2 GB (32%), 95 s, about 200 s left": generating 2 GB takes minutes.
 * @param {number} written
 * @param {number} target
 * @param {number} elapsedMs
 */
export function progressLine (written, target, elapsedMs) {
  const seconds = elapsedMs / 1000
  const left = written > 0 ? (seconds * (target - written)) / written : null
  return `${formatSize(written)} of ${formatSize(target)} (${Math.min(100, Math.floor((100 * written) / target))}%), ${seconds.toFixed(0)} s${left == null ? '' : `, about ${Math.max(0, left).toFixed(0)} s left`}`
}

/** @param {string} path */
function readManifest (path) {
  try {
    const manifest = JSON.parse(readFileSync(path, 'utf8'))
    return manifest.format === FORMAT ? /** @type {import('./generate.js').Manifest} */ (manifest) : null
  } catch {
    return null
  }
}

/** @param {string} path */
function fileSize (path) {
  try {
    return statSync(path).size
  } catch {
    return -1
  }
}

/**
 * @param {string} dir
 * @param {number} bytes
 */
function checkDiskRoom (dir, bytes) {
  const { bavail, bsize } = statfsSync(dir)
  const free = bavail * bsize
  if (free < bytes + DISK_MARGIN_BYTES) {
    throw new Error(`not enough disk space in ${dir} for a ${formatSize(bytes)} dataset: ${formatSize(free)} free, ${formatSize(bytes + DISK_MARGIN_BYTES)} needed`)
  }
}
