// @ts-check
// What a variant is asked and what it must answer: the request paths (every
// request another id, a few valid-but-unknown ids among them) and a check of
// each body against the dataset's manifest (length and SHA-256 of the exact
// JSON array; "[]" for an unknown id).
import { createHash } from 'node:crypto'
import { mulberry32 } from './dataset/prng.js'
import { DATASETS, knownIds } from './dataset/records.js'
import { API_PREFIX } from './runtime.js'

/** One unknown id after every this many known ones. */
const UNKNOWN_EVERY = 50

/**
 * @typedef {'disk' | 'net-ipc' | 'net-tcp' | 'net-mesh-port'} Source
 * @typedef {'stream' | 'scan' | 'promise'} Mode
 */

/** The data-api's `via` per network source: net-mesh-port asks as net-ipc does (the mesh's URL); its runtime differs. */
const VIA = { 'net-ipc': 'ipc', 'net-tcp': 'tcp', 'net-mesh-port': 'ipc' }

/**
 * The API path for one id.
 * @param {import('./dataset/records.js').DatasetName} dataset
 * @param {Source} source
 * @param {Mode} mode
 * @param {string} id
 */
export function variantPath (dataset, source, mode, id) {
  const via = source === 'disk' ? '' : `?via=${VIA[source]}`
  const where = dataset === 'small' ? `small/${source === 'disk' ? 'disk' : 'net'}` : 'large'
  return `${API_PREFIX}/data/${where}/${mode}/${id}${via}`
}

/**
 * The ids a run asks for, in the same shuffled order for every variant (so each
 * variant gets the same mix), with unknown ids sprinkled in.
 * @param {import('./dataset/records.js').DatasetName} dataset
 * @param {number} seed
 */
export function idRotation (dataset, seed) {
  const ids = knownIds(dataset)
  const draw = mulberry32(seed ^ 0x5eed)
  for (let i = ids.length - 1; i > 0; i--) {
    const j = draw() % (i + 1)
    ;[ids[i], ids[j]] = [ids[j], ids[i]]
  }
  const { unknownIds } = DATASETS[dataset]
  const rotation = []
  for (let i = 0; i < ids.length; i++) {
    rotation.push(ids[i])
    if (i % UNKNOWN_EVERY === UNKNOWN_EVERY - 1) rotation.push(unknownIds[(i / UNKNOWN_EVERY | 0) % unknownIds.length])
  }
  return rotation
}

/**
 * @param {import('./dataset/generate.js').Manifest} manifest
 * @returns {(id: string, body: string) => string | null}  null when right, else what is wrong
 */
export function bodyChecker (manifest) {
  return (id, body) => {
    const expected = manifest.ids[id]
    if (!expected) return body === '[]' ? null : `expected [] for unknown id ${id}, got ${body.length} bytes`
    if (body.length !== expected.bytes) return `got ${body.length} bytes, expected ${expected.bytes} (${expected.count} records)`
    if (createHash('sha256').update(body).digest('hex') !== expected.sha256) return 'same length, different content'
    return null
  }
}

/**
 * Paths and per-response check for the harness's rotating load.
 * @param {import('./dataset/records.js').DatasetName} dataset
 * @param {Source} source
 * @param {Mode} mode
 * @param {import('./dataset/generate.js').Manifest} manifest
 * @param {number} seed
 * @returns {import('../lib/load.js').RotatingPaths & { idOf: Map<string, string> }}
 */
export function rotatingVariant (dataset, source, mode, manifest, seed) {
  const paths = []
  const idOf = new Map()
  for (const id of idRotation(dataset, seed)) {
    const path = variantPath(dataset, source, mode, id)
    paths.push(path)
    idOf.set(path, id)
  }
  const checkBody = bodyChecker(manifest)
  return {
    paths,
    check: (path, body) => checkBody(/** @type {string} */ (idOf.get(path)), body),
    idOf
  }
}
