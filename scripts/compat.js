// @ts-check
// npm run compat — the install-from-tarball check on several Watt releases.
// Packs @watt-lab/channel once; per release (tools/watt-compat/<release>), copies
// the app template to a temp dir with that release's package.json and lockfile,
// `npm install`s the tarball on top, starts it with `wattpm start`, checks every
// answer and reads from the drop-in's counter the path each call took.
//   npm run compat                               every release, result in results/published/compat.json
//   npm run compat -- --releases 3.54.0 --out x  one release, result elsewhere
// Exit 1 when a release fails: a wrong answer, an app that does not start, or a
// call that did not take http-port.
import Table from 'cli-table3'
import { join, resolve } from 'node:path'
import { PROJECT_ROOT } from '../bench/lib/paths.js'
import { parseFlags, runMain } from '../bench/lib/cli.js'
import { machineInfo } from '../bench/lib/machine.js'
import { onCleanup, wasInterrupted } from '../bench/lib/processes.js'
import { createProgress, formatDuration } from '../bench/lib/progress.js'
import { writeResult } from '../bench/lib/results.js'
import { packChannel } from '../test/helpers/pack-channel.js'
import { checkApp, installApp, installedVersions, removeApp, startApp } from './compat/installed-app.js'
import { readRelease, releaseVersions } from './compat/releases.js'

const available = releaseVersions()

runMain(async () => {
  const flags = parseFlags(process.argv.slice(2), {
    releases: { type: 'list', default: available, choices: available, help: 'the Watt releases to check (folders of tools/watt-compat)' },
    out: { type: 'string', default: 'results/published/compat.json', help: 'where the result JSON goes' }
  }, { command: 'npm run compat --', description: 'Installs @watt-lab/channel from its tarball into a Watt app on each release and checks that every call takes http-port.' })

  const startedAt = new Date()
  const progress = createProgress({ steps: flags.releases.length, secondsPerStep: 60 })
  const { tarball, version: channel } = await packChannel()
  const packDir = join(tarball, '..')
  onCleanup(async () => removeApp(packDir))
  const results = []
  try {
    for (const release of flags.releases) {
      if (wasInterrupted()) break
      progress.begin(`Watt ${release}`)
      const result = await checkRelease(release, tarball, (line) => progress.log(line))
      results.push(result)
      progress.end()
      progress.log(`Watt ${release}: ${result.result}${result.reason ? ` (${result.reason})` : ''} in ${formatDuration(result.seconds)}`)
    }
  } finally {
    progress.stop()
    removeApp(packDir)
  }

  const failed = results.filter((r) => r.result !== 'pass')
  const out = writeResult(resolve(PROJECT_ROOT, flags.out), {
    schema: 'watt-transport-lab/compat@1',
    suite: 'compat',
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    seconds: Math.round((Date.now() - startedAt.getTime()) / 1000),
    channel,
    machine: machineInfo(),
    failed: failed.length > 0,
    releases: results
  })
  process.stdout.write(renderTable(results) + '\n')
  process.stdout.write(`result: ${out}\n`)
  if (failed.length) process.stderr.write(`failed on ${failed.map((r) => r.release).join(', ')}\n`)
  return failed.length ? 1 : 0
})

/**
 * @param {string} version
 * @param {string} tarball
 * @param {(line: string) => void} log
 */
async function checkRelease (version, tarball, log) {
  const began = Date.now()
  const release = readRelease(version)
  const seconds = () => Math.round((Date.now() - began) / 1000)
  /** @type {string | null} */
  let dir = null
  const unregister = onCleanup(async () => { if (dir) removeApp(dir) })
  try {
    log(`Watt ${version}: npm install (its lockfile, then the tarball)`)
    dir = await installApp({ tarball, dependencies: release.dependencies, overrides: release.overrides, lockfile: release.lockfile })
    const installed = installedVersions(dir)
    log(`Watt ${version}: wattpm start (runtime ${installed['@platformatic/runtime']})`)
    const app = await startApp(dir, { logLevel: 'info' })
    try {
      const { wrong, targets, pricingWorkers } = await checkApp(app)
      const standsAside = /mesh-port: Watt .* is not supported \(([^)]*)\)/.exec(app.output())
      const offPath = Object.entries(targets).filter(([, seen]) => seen['http-port'] !== seen.calls || seen.mesh !== 0)
      /** @type {string} */
      let reason = ''
      if (wrong.length) reason = `${wrong.length} answers differ, first ${wrong[0].path}: ${wrong[0].status} ${wrong[0].body.slice(0, 120)}`
      else if (standsAside) reason = `the drop-in stood aside: ${standsAside[1]}`
      else if (offPath.length) reason = offPath.map(([target, seen]) => `${target}: ${seen['http-port']} of ${seen.calls} over http-port, ${seen.mesh} over the mesh`).join('; ')
      return { release: version, result: reason ? 'fail' : 'pass', reason, installed, calls: targets, pricingWorkers, seconds: seconds() }
    } finally {
      await app.stop()
    }
  } catch (err) {
    const message = /** @type {Error} */ (err).message
    return { release: version, result: 'fail', reason: firstCause(message), detail: message.slice(-4000), seconds: seconds() }
  } finally {
    if (dir) removeApp(dir)
    unregister()
  }
}

/**
 * The line of an error that says what went wrong (for the table), e.g. a missing
 * module in wattpm's output rather than "the app was not ready".
 * @param {string} message
 */
function firstCause (message) {
  const line = message.split('\n').find((l) => /^\s*(Error|TypeError|SyntaxError)\b|Cannot find|ERR_|npm error/.test(l))
  return (line ?? message.split('\n')[0]).trim().slice(0, 200)
}

/** @param {{ release: string, result: string, reason: string, calls?: Record<string, { calls: number, 'http-port': number, mesh: number }> }[]} results */
function renderTable (results) {
  const table = new Table({ head: ['Watt release', 'result', 'calls over http-port', 'over the mesh', 'reason'], wordWrap: true, colWidths: [14, 8, 22, 15, 50], style: { head: [], border: [] } })
  for (const r of results) {
    const calls = Object.values(r.calls ?? {})
    const sum = (/** @type {'calls' | 'http-port' | 'mesh'} */ key) => calls.reduce((n, c) => n + c[key], 0)
    table.push([r.release, r.result, calls.length ? `${sum('http-port')} of ${sum('calls')}` : '-', calls.length ? String(sum('mesh')) : '-', r.reason || ''])
  }
  return table.toString()
}
