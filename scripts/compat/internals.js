// @ts-check
// The Node axis's unit check: packages/channel/test/node-internals.test.js (each private field of Node's http
// server the frames wire touches, lib/node-internals.js) run by each pinned Node itself, a few seconds, before
// any Watt app starts on it. A Node that renames or drops one fails here, naming the field.
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { PROJECT_ROOT } from '../../bench/lib/paths.js'

export const INTERNALS_TEST = join('packages', 'channel', 'test', 'node-internals.test.js')

/**
 * @typedef {object} InternalsCheck
 * @property {'pass' | 'fail'} result
 * @property {number} passed  top-level tests (one per field or pair of fields)
 * @property {number} failed
 * @property {string} [detail]  the end of its TAP output, on a failure
 */

/**
 * @param {string} binary  a node
 * @returns {Promise<InternalsCheck>}
 */
export async function checkNodeInternals (binary) {
  try {
    const { stdout } = await promisify(execFile)(binary, [INTERNALS_TEST], { cwd: PROJECT_ROOT, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 })
    return { result: 'pass', ...counts(stdout) }
  } catch (err) {
    const { stdout = '', message } = /** @type {Error & { stdout?: string }} */ (err)
    return { result: 'fail', ...counts(stdout), detail: (stdout || message).slice(-4000) }
  }
}

/** @param {string} tap  TAP output: its top-level ok / not ok lines */
function counts (tap) {
  return { passed: (tap.match(/^ok \d+/gm) ?? []).length, failed: (tap.match(/^not ok \d+/gm) ?? []).length }
}
