// @ts-check
// Packs @watt-lab/channel the way a publish would (`npm pack`, its lifecycle
// scripts included), so tests install and type-check what a user would get.
import { execFile } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

export const CHANNEL_DIR = join(import.meta.dirname, '..', '..', 'packages', 'channel')

/**
 * The npm CLI this run was started with (npm sets npm_execpath for its scripts),
 * else `npm` on PATH: [command, leading args].
 * @returns {[string, string[]]}
 */
export function npmCommand () {
  const cli = process.env.npm_execpath
  if (cli && /npm-cli\.js$/.test(cli)) return [process.env.npm_node_execpath || 'node', [cli]]
  return ['npm', []]
}

/**
 * @param {string} [destination]  a folder for the tarball (default: a new one under the OS temp dir)
 * @returns {Promise<{ tarball: string, files: string[], version: string }>}
 */
export async function packChannel (destination = mkdtempSync(join(tmpdir(), 'channel-pack-'))) {
  const [cmd, args] = npmCommand()
  const { stdout } = await promisify(execFile)(cmd, [...args, 'pack', '--json', '--pack-destination', destination], {
    cwd: CHANNEL_DIR,
    maxBuffer: 16 * 1024 * 1024
  })
  // Lifecycle scripts may print before the JSON: it starts at the first '['.
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf('[')))
  return { tarball: join(destination, packed.filename), files: packed.files.map((/** @type {{ path: string }} */ f) => f.path), version: packed.version }
}
