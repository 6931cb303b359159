// Two runtime configs that must differ by the drop-in's `undici` block alone.
import { readFileSync } from 'node:fs'

export const MESH_PORT_UNDICI = { interceptors: [{ module: '@watt-lab/channel/mesh-port', options: {} }] }

/** @param {string} file */
export function readJson (file) {
  return JSON.parse(readFileSync(file, 'utf8'))
}

/**
 * Asserts that `withDropIn` is `plain` plus the drop-in's undici block, nothing else.
 * @param {any} t  tap test
 * @param {string} plainFile
 * @param {string} dropInFile
 */
export function assertOnlyUndiciDiffers (t, plainFile, dropInFile) {
  const plain = readJson(plainFile)
  const { undici, ...rest } = readJson(dropInFile)
  t.notOk('undici' in plain, `${plainFile} has no undici block`)
  t.same(undici, MESH_PORT_UNDICI, `${dropInFile}'s undici block is the drop-in's`)
  t.strictSame(rest, plain, 'everything else is identical')
}
