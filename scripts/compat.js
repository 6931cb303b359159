// @ts-check
// npm run compat — the install-from-tarball check as a matrix: every Watt release
// (tools/watt-compat/<release>) × every Node (tools/node/<major>).
// Packs @watt-lab/channel once; per release, copies the app template to a temp dir with
// that release's package.json and lockfile and `npm install`s the tarball on top; per
// Node (installed on demand: npm ci --prefix tools/node/<major>), starts it with
// `wattpm start` on that Node, checks the Node the app says it runs on, every answer, and
// from the drop-in's counter the path each call took.
// A Node a release's own packages declare unsupported (engines) is `unsupported`, not run;
// anything else short of a pass is a fail.
// Then the kinds axis (compat/kinds.js): Next.js, NestJS and a Vite SSR app, each beside an
// api app, installed and built on demand, on the project's Node, over the mesh and the drop-in.
//   npm run compat                                     the whole matrix, result in results/compat-<time>.json
//   npm run compat -- --releases 3.54.0 --nodes 22,24
//   npm run readme -- --compat results/compat-<time>.json   publishes it (results/published/compat.json)
//                                                            and rewrites the channel README's table
// Exit 1 when a cell fails: the app on another Node than asked, a wrong answer, an app
// that does not start, or a call that did not take http-port.
import Table from 'cli-table3'
import { join, relative, resolve } from 'node:path'
import { PROJECT_ROOT } from '../bench/lib/paths.js'
import { parseFlags, runMain } from '../bench/lib/cli.js'
import { machineInfo } from '../bench/lib/machine.js'
import { onCleanup, wasInterrupted } from '../bench/lib/processes.js'
import { createProgress, formatDuration } from '../bench/lib/progress.js'
import { defaultResultPath, writeResult } from '../bench/lib/results.js'
import { packChannel } from '../test/helpers/pack-channel.js'
import { appNodeVersion, checkApp, installApp, installedVersions, nativeAddons, removeApp, startApp } from './compat/installed-app.js'
import { judgeCell, planMatrix, releaseEngines } from './compat/matrix.js'
import { checkKinds, kindNames } from './compat/kinds.js'
import { installNode, nodeMajors, readNode } from './compat/nodes.js'
import { readRelease, releaseVersions } from './compat/releases.js'

const releasesAvailable = releaseVersions()
const nodesAvailable = nodeMajors()
const kindsAvailable = kindNames()

/** Rough seconds on the 2-core box, for the progress line: a release's install, a cell's start and check. */
const INSTALL_SECONDS = 25
const CELL_SECONDS = 9

runMain(async () => {
  const flags = parseFlags(process.argv.slice(2), {
    releases: { type: 'list', default: releasesAvailable, choices: releasesAvailable, help: 'the Watt releases to check (folders of tools/watt-compat)' },
    nodes: { type: 'list', default: nodesAvailable, choices: nodesAvailable, help: 'the Node majors to run them on (folders of tools/node)' },
    kinds: { type: 'list', default: kindsAvailable, choices: [...kindsAvailable, 'none'], help: 'the app kinds to check on the project\'s Node (folders of tools/watt-compat/kinds: installed and built on demand; none: only the matrix)' },
    out: { type: 'string', help: 'result JSON path (default results/compat-<time>.json; npm run readme -- --compat FILE publishes it)' }
  }, { command: 'npm run compat --', description: 'Installs @watt-lab/channel from its tarball into a Watt app on each release and checks, on each Node, that every call takes http-port.' })

  const startedAt = new Date()
  /** @type {(import('./compat/releases.js').Release & { engines: import('./compat/matrix.js').Declared[] })[]} */
  const releases = flags.releases.map((/** @type {string} */ version) => {
    const release = readRelease(version)
    return { ...release, engines: releaseEngines(release.lockfile) }
  })
  /** @type {import('./compat/nodes.js').PinnedNode[]} */
  const nodes = flags.nodes.map((/** @type {string} */ major) => readNode(major))
  const plan = planMatrix({ releases, nodes })
  const toRun = plan.filter((cell) => cell.plan === 'run')

  const installs = new Set(toRun.map((c) => c.release)).size
  const steps = installs + toRun.length
  const progress = createProgress({ steps, secondsPerStep: (installs * INSTALL_SECONDS + toRun.length * CELL_SECONDS) / Math.max(1, steps) })
  const log = (/** @type {string} */ line) => progress.log(line)
  for (const cell of plan.filter((c) => c.plan === 'unsupported')) log(`Watt ${cell.release} on Node ${cell.nodeVersion}: unsupported, ${cell.reason}`)
  /** @type {Map<string, string>} major → its node binary */
  const binaries = new Map()
  try {
    for (const major of new Set(toRun.map((c) => c.node))) binaries.set(major, (await installNode(major, { log })).binary)
  } catch (err) {
    progress.stop()
    throw err
  }

  const { tarball, version: channel } = await packChannel()
  const packDir = join(tarball, '..')
  onCleanup(async () => removeApp(packDir))
  /** @type {Record<string, any>[]} */
  const releaseResults = []
  /** @type {Record<string, any>[]} */
  const cells = plan.filter((c) => c.plan === 'unsupported').map(({ plan: _, ...cell }) => ({ ...cell, result: 'unsupported' }))
  try {
    for (const release of releases) {
      const mine = toRun.filter((c) => c.release === release.version)
      if (mine.length === 0 || wasInterrupted()) continue
      const { summary, cells: done } = await checkRelease(release, mine, tarball, binaries, progress)
      releaseResults.push(summary)
      cells.push(...done)
    }
  } finally {
    progress.stop()
    removeApp(packDir)
  }

  // the kinds axis (scripts/compat/kinds.js): each capability's app over the mesh and over the drop-in
  const kindsAsked = flags.kinds.filter((/** @type {string} */ k) => k !== 'none')
  const kinds = wasInterrupted() ? [] : await checkKinds(kindsAsked, { log: (line) => process.stderr.write(`${line}\n`) })
  const kindsFailed = kinds.filter((k) => k.result !== 'pass')

  const order = (/** @type {Record<string, any>} */ c) => plan.findIndex((p) => p.release === c.release && p.node === c.node)
  cells.sort((a, b) => order(a) - order(b))
  const failed = cells.filter((c) => c.result === 'fail')
  const incomplete = cells.length < plan.length || kinds.length < kindsAsked.length
  const out = writeResult(resolve(PROJECT_ROOT, flags.out ?? defaultResultPath('compat')), {
    schema: 'watt-transport-lab/compat@3',
    suite: 'compat',
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    seconds: Math.round((Date.now() - startedAt.getTime()) / 1000),
    channel,
    machine: machineInfo(),
    nodes: nodes.map((n) => ({ major: n.major, version: n.version })),
    failed: failed.length > 0 || kindsFailed.length > 0 || incomplete,
    ...(incomplete && { incomplete: `${plan.length - cells.length} of ${plan.length} cells and ${kindsAsked.length - kinds.length} of ${kindsAsked.length} kinds did not run (interrupted)` }),
    releases: releaseResults,
    cells,
    kinds
  })
  process.stdout.write(renderTable(cells) + '\n')
  for (const k of kinds) process.stdout.write(`kind ${k.kind} (${k.capability}): ${k.result}${k.problems.length ? `: ${k.problems.join('; ')}` : ''}; ${Object.entries(k.calls ?? {}).map(([route, c]) => `${route} ${c['http-port']} of ${c.calls} over http-port${c.mesh ? `, ${c.mesh} on the mesh (${c.decided})` : ''}`).join('; ')}\n`)
  process.stdout.write(`result: ${out}\n`)
  process.stdout.write(`publish it (results/published/compat.json and the channel README's table): npm run readme -- --compat ${relative(PROJECT_ROOT, out)}\n`)
  if (failed.length || kindsFailed.length) process.stderr.write(`failed: ${[...failed.map((c) => `Watt ${c.release} on Node ${c.nodeVersion}`), ...kindsFailed.map((k) => `kind ${k.kind}`)].join(', ')}\n`)
  return failed.length || kindsFailed.length || incomplete ? 1 : 0
})

/**
 * One release: installed once, then each of its cells started and checked in turn.
 * @param {import('./compat/releases.js').Release & { engines: import('./compat/matrix.js').Declared[] }} release
 * @param {import('./compat/matrix.js').PlannedCell[]} planned  its cells that run
 * @param {string} tarball
 * @param {Map<string, string>} binaries
 * @param {ReturnType<typeof createProgress>} progress
 */
async function checkRelease (release, planned, tarball, binaries, progress) {
  const version = release.version
  const log = (/** @type {string} */ line) => progress.log(line)
  const began = Date.now()
  /** @type {Record<string, any>} */
  const summary = { release: version, engines: enginesByRange(release.engines) }
  /** @type {Record<string, any>[]} */
  const cells = []
  /** @type {string | null} */
  let dir = null
  const unregister = onCleanup(async () => { if (dir) removeApp(dir) })
  try {
    progress.begin(`Watt ${version}: install`)
    log(`Watt ${version}: npm install (its lockfile, then the tarball)`)
    try {
      dir = await installApp({ tarball, dependencies: release.dependencies, overrides: release.overrides, lockfile: release.lockfile })
    } catch (err) {
      const message = /** @type {Error} */ (err).message
      summary.installSeconds = Math.round((Date.now() - began) / 1000)
      summary.detail = message.slice(-4000)
      const reason = `npm install failed: ${firstCause(message)}`
      log(`Watt ${version}: ${reason}`)
      return { summary, cells: planned.map(({ plan: _, ...cell }) => ({ ...cell, result: 'fail', reason, seconds: 0 })) }
    } finally {
      progress.end()
    }
    summary.installSeconds = Math.round((Date.now() - began) / 1000)
    summary.installed = installedVersions(dir)
    // Installed once for every Node: right while no package compiles for a Node's ABI.
    summary.nativeAddons = nativeAddons(dir)
    if (summary.nativeAddons.length) log(`Watt ${version}: native addons installed under one Node, run on every Node: ${summary.nativeAddons.join(', ')}`)
    for (const cell of planned) {
      if (wasInterrupted()) break
      const label = `Watt ${version} on Node ${cell.nodeVersion}`
      progress.begin(label)
      const result = await checkCell(dir, cell, /** @type {string} */ (binaries.get(cell.node)), log)
      progress.end()
      log(`${label}: ${result.result}${result.reason ? ` (${result.reason})` : ''} in ${formatDuration(result.seconds)}`)
      cells.push(result)
    }
    return { summary, cells }
  } finally {
    if (dir) removeApp(dir)
    unregister()
  }
}

/**
 * One cell: the installed app started on the cell's Node, checked, stopped.
 * @param {string} dir
 * @param {import('./compat/matrix.js').PlannedCell} cell
 * @param {string} node  the binary
 * @param {(line: string) => void} log
 */
async function checkCell (dir, { plan: _, ...cell }, node, log) {
  const began = Date.now()
  const seconds = () => Math.round((Date.now() - began) / 1000)
  try {
    log(`  wattpm start on ${node}`)
    const app = await startApp(dir, { logLevel: 'info', node })
    try {
      const seen = await appNodeVersion(app)
      const { wrong, targets, pricingWorkers } = await checkApp(app)
      const standsAside = /mesh-port: Watt .* is not supported \(([^)]*)\)/.exec(app.output())
      const verdict = judgeCell({ nodeVersion: cell.nodeVersion, seen, wrong, targets, standsAside: standsAside?.[1] ?? null })
      return { ...cell, ...verdict, seenNode: seen, calls: targets, pricingWorkers, seconds: seconds() }
    } finally {
      await app.stop()
    }
  } catch (err) {
    const message = /** @type {Error} */ (err).message
    return { ...cell, result: 'fail', reason: firstCause(message), detail: message.slice(-4000), seconds: seconds() }
  }
}

/**
 * What the release's packages declare, by range: { '>=22.19.0': ['wattpm@3.67.0', …] }.
 * @param {import('./compat/matrix.js').Declared[]} engines
 */
function enginesByRange (engines) {
  /** @type {Record<string, string[]>} */
  const ranges = {}
  for (const { name, version, node } of engines) (ranges[node] ??= []).push(`${name}@${version}`)
  return ranges
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

/**
 * A row per release × Node.
 * @param {Record<string, any>[]} cells
 */
function renderTable (cells) {
  const table = new Table({ head: ['Watt release', 'Node', 'result'], wordWrap: true, colWidths: [14, 10, 44], style: { head: [], border: [] } })
  for (const cell of cells) table.push([cell.release, cell.nodeVersion, describeCell(cell)])
  return table.toString()
}

/** @param {Record<string, any>} cell */
function describeCell (cell) {
  if (cell.result !== 'pass') return `${cell.result}: ${cell.reason}`
  const calls = Object.values(cell.calls ?? {})
  const sum = (/** @type {string} */ key) => calls.reduce((n, c) => n + c[key], 0)
  return `pass, ${sum('http-port')} of ${sum('calls')} over http-port`
}
