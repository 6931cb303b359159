// The dependency policy's claim (packages/channel/README.md, "Dependencies"):
// the drop-in works when the undici it resolves (its Pool) is another copy, and
// another 7.x, than the runtime's (whose compose() wraps the handlers it is given).
// The packed package is unpacked into a temp dir with one undici 7.x linked as its
// dependency, and fixture/undici-copies/run.js makes requests through another
// copy's `Agent().compose(dropIn)`, as Watt's worker does: every call must take
// http-port (the mesh here cannot reach the host) and arrive intact, both ways
// round, for every undici 7.x copy in the repository's node_modules (7.24.0, the
// floor of the range, comes with @platformatic/gateway 3.54.0), under the project's
// Node 24, and under the Node running the tests if it is another (its own fetch,
// another undici copy again, is one of the calls).
// CHANNEL_UNDICI_COPIES (dirs, ':'-separated) adds copies, for one-off checks.
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { test } from 'tap'
import { PROJECT_NODE } from '../../bench/lib/paths.js'
import { extractChannel, packChannel } from '../helpers/pack-channel.js'

const ROOT = join(import.meta.dirname, '..', '..')
const RUN = join(import.meta.dirname, 'fixture', 'undici-copies', 'run.js')
const REQUESTS = 9 // the calls run.js makes

/** @param {string} dir */
const versionOf = (dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version

/** undici copies in the repository's node_modules (top level and one package down), one per version. */
function undiciCopies () {
  const top = join(ROOT, 'node_modules')
  const dirs = [join(top, 'undici')]
  for (const entry of readdirSync(top)) {
    const packages = entry.startsWith('@') ? readdirSync(join(top, entry)).map((name) => join(top, entry, name)) : [join(top, entry)]
    for (const dir of packages) dirs.push(join(dir, 'node_modules', 'undici'))
  }
  for (const extra of (process.env.CHANNEL_UNDICI_COPIES ?? '').split(':').filter(Boolean)) dirs.push(extra)
  /** @type {Map<string, string>} version → dir */
  const copies = new Map()
  for (const dir of dirs) {
    if (!existsSync(join(dir, 'package.json'))) continue
    const version = versionOf(dir)
    if (!copies.has(version)) copies.set(version, dir)
  }
  return copies
}

/**
 * @param {string} node
 * @param {{ dropIn: string, runtimeUndici: string, interceptorOptions?: object }} options
 */
async function run (node, options) {
  const { stdout } = await promisify(execFile)(node, [RUN, JSON.stringify(options)], { cwd: ROOT, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 })
  return JSON.parse(stdout)
}

test('the drop-in with one undici 7.x and the runtime\'s handlers from another', async (t) => {
  const { tarball } = await packChannel()
  const root = mkdtempSync(join(tmpdir(), 'channel-undici-copies-'))
  t.teardown(() => {
    rmSync(dirname(tarball), { recursive: true, force: true })
    rmSync(root, { recursive: true, force: true })
  })
  const range = JSON.parse(readFileSync(join(ROOT, 'packages', 'channel', 'package.json'), 'utf8')).dependencies.undici
  const floor = range.replace(/^\^/, '')
  const copies = new Map([...undiciCopies()].filter(([version]) => version.startsWith('7.')))
  const rootVersion = versionOf(join(ROOT, 'node_modules', 'undici'))
  t.comment(`undici copies: ${[...copies.keys()].join(', ')}; the package's range: ${range}`)
  t.ok(copies.has(floor), `the floor of the range (${floor}) is among the copies`)
  t.ok(copies.size >= 2, 'at least two undici 7.x versions to cross')

  /** The package installed with `version` as its undici. */
  const installs = new Map()
  const installWith = async (/** @type {string} */ version) => {
    if (!installs.has(version)) {
      const nodeModules = join(root, version, 'node_modules')
      const dir = await extractChannel(tarball, nodeModules)
      mkdirSync(nodeModules, { recursive: true })
      symlinkSync(/** @type {string} */ (copies.get(version)), join(nodeModules, 'undici'), 'dir')
      installs.set(version, join(dir, 'mesh-port.js'))
    }
    return installs.get(version)
  }

  const pairs = []
  for (const version of copies.keys()) {
    if (version === rootVersion) continue
    pairs.push({ dropIn: version, runtime: rootVersion }, { dropIn: rootVersion, runtime: version })
  }
  const nodes = [...new Map([PROJECT_NODE, process.execPath].map((node) => [realpathSync(node), node])).values()]

  for (const node of nodes) {
    for (const pair of pairs) {
      const name = `drop-in's undici ${pair.dropIn}, the runtime's ${pair.runtime}, under ${node === PROJECT_NODE ? "the project's Node" : 'the Node running tap'}`
      await t.test(name, async (t) => {
        const result = await run(node, { dropIn: await installWith(pair.dropIn), runtimeUndici: /** @type {string} */ (copies.get(pair.runtime)) })
        const { versions, cases, handlerKinds, meshCalls, stats } = result
        t.same({ dropIn: versions.dropIn, runtime: versions.runtime }, pair, 'each side resolved the copy meant for it')
        t.comment(`Node's own fetch: undici ${versions.nodeBundled}`)
        const failed = Object.entries(cases).filter(([, c]) => !c.ok)
        t.same(failed, [], 'every call answered')
        t.same(new Set(handlerKinds), new Set(["the runtime's WrapHandler"]), "the drop-in got the runtime copy's wrapped handlers")
        t.same(meshCalls, [], 'none fell through to the mesh')
        t.equal(stats.svc?.path, 'http-port')
        t.equal(stats.svc?.workers?.[0]?.calls, REQUESTS, 'every call went over http-port')
        t.match(cases.request, { statusCode: 200, body: 'hello', setCookie: ['a=1', 'b=2'], servedBy: 'svc' }, 'request(): status, repeated and custom headers, body')
        t.match(cases.requestUpload, { statusCode: 200, bytes: 1024 * 1024 + 7, intact: true }, 'request(): a 1 MiB upload')
        t.match(cases.fetchDownload, { statusCode: 200, bytes: 2 * 1024 * 1024, intact: true }, 'fetch(): a 2 MiB download')
        t.match(cases.fetchJson, { statusCode: 200, echoed: { type: 'application/json', bytes: 17 } }, 'fetch(): a JSON body')
        t.match(cases.stream, { statusCode: 200, intact: true }, 'stream()')
        t.match(cases.notFound, { statusCode: 404, body: { error: 'not found' } }, 'a 404 as the app sent it')
        t.match(cases.builtinFetch, { statusCode: 200, body: 'hello', setCookie: ['a=1', 'b=2'] }, "Node's own fetch")
        t.match(cases.abort, { settled: /^(TimeoutError|AbortError)$/, serverSawClose: true }, "the caller's abort ends the call and reaches the server")
        t.ok(cases.abort.ms < 2000, `at once (${cases.abort.ms} ms)`)
        t.match(cases.afterAbort, { statusCode: 200, body: 'hello' }, 'and the link serves the next call')
      })
    }
  }

  await t.test('control: a target left to the mesh fails here, so the runs above took http-port', async (t) => {
    const { cases, meshCalls, stats } = await run(PROJECT_NODE, { dropIn: await installWith(rootVersion), runtimeUndici: join(ROOT, 'node_modules', 'undici'), interceptorOptions: { exclude: ['svc'] } })
    t.equal(meshCalls.length, REQUESTS, 'every call fell through')
    t.match(cases.request, { ok: false, error: /ENOTFOUND svc\.plt\.local/ })
    t.same(stats, {}, 'no route to svc')
  })
})
