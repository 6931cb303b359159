// @ts-check
// The Next.js storefront's packages, installed on demand (bench/lib/on-demand.js): npm ci in
// storefront-next/ from its committed lockfile (Next.js, React and @platformatic/next:
// about 500 MB, 1–2 min here), then its production build with the project's wattpm (about
// 30 s). Both are skipped while their inputs are unchanged, so only the first bench:apps run
// pays. A failure is the reason bench:apps gives when it leaves the app out.
import { join } from 'node:path'
import { buildOnDemand, npmCiOnDemand, sizeMiB, sourcesUnder, withFolderLock } from '../../lib/on-demand.js'
import { PROJECT_NODE, wattpmCli } from '../../lib/paths.js'

export const NEXT_STOREFRONT_DIR = join(import.meta.dirname, 'storefront-next')

/**
 * @param {{ log?: (line: string) => void }} [options]
 * @returns {Promise<{ installSeconds: number, buildSeconds: number, installedMiB: number }>}
 */
export async function installNextStorefront ({ log = () => {} } = {}) {
  const dir = NEXT_STOREFRONT_DIR
  return withFolderLock(dir, async () => {
    const install = await npmCiOnDemand(dir, { log })
    const build = await buildOnDemand(dir, {
      sources: sourcesUnder(dir, /(^|\/)\.next(\/|$)/),
      command: PROJECT_NODE,
      args: [wattpmCli(), 'build'],
      env: { ...process.env, PORT: '0', PLT_METRICS_PORT: '0', PLT_LOG_LEVEL: 'warn' },
      log
    })
    return { installSeconds: install.seconds, buildSeconds: build.seconds, installedMiB: sizeMiB(join(dir, 'node_modules')) }
  })
}
