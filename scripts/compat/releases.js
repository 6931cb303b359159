// @ts-check
// The Watt releases `npm run compat` checks: one folder each under
// tools/watt-compat/<release>, with a package.json that pins wattpm,
// @platformatic/service and @platformatic/node (the nearest release the registry
// serves when it has not that one) and the package-lock.json that pins the rest.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { PROJECT_ROOT } from '../../bench/lib/paths.js'

export const RELEASES_DIR = join(PROJECT_ROOT, 'tools', 'watt-compat')

/**
 * @typedef {object} Release
 * @property {string} version  the wattpm release
 * @property {Record<string, string>} dependencies
 * @property {Record<string, string> | undefined} overrides  what that release needs to start at all
 * @property {string} lockfile
 */

/** Every release folder, oldest first. @returns {string[]} */
export function releaseVersions () {
  return readdirSync(RELEASES_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && /^\d+\.\d+\.\d+$/.test(entry.name))
    .map((entry) => entry.name)
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
}

/**
 * @param {string} version
 * @returns {Release}
 */
export function readRelease (version) {
  const dir = join(RELEASES_DIR, version)
  const lockfile = join(dir, 'package-lock.json')
  if (!existsSync(lockfile)) throw new Error(`no tools/watt-compat/${version}/package-lock.json`)
  const { dependencies, overrides } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
  if (dependencies?.wattpm !== version) throw new Error(`tools/watt-compat/${version}/package.json pins wattpm ${dependencies?.wattpm}`)
  return { version, dependencies, overrides, lockfile }
}
