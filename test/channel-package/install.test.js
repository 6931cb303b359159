// @watt-lab/channel installed the way a user installs it: packed with npm pack,
// installed from the tarball into a Watt app in a temp dir outside the repository
// (its own package.json, no workspace links, the Watt packages the project pins),
// started with `wattpm start`. The counter proves the entry's calls to a service
// app and to a node app of 2 workers took http-port, none the mesh; and on a
// Watt it does not support, the drop-in says so once and the app runs on the mesh.
import t from 'tap'
import { lstatSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { PROJECT_ROOT } from '../../bench/lib/paths.js'
import { checkApp, installApp, installedVersions, pinnedWattDependencies, removeApp, startApp } from '../../scripts/compat/installed-app.js'
import { packChannel } from '../helpers/pack-channel.js'
import { until } from '../helpers/wait.js'

t.test('the tarball, installed in an app of its own', async (t) => {
  const { tarball, version } = await packChannel()
  t.teardown(() => removeApp(join(tarball, '..')))
  const pinned = pinnedWattDependencies()
  const dir = await installApp({ tarball, dependencies: pinned })
  t.teardown(() => removeApp(dir))

  t.notOk(realpathSync(dir).startsWith(realpathSync(PROJECT_ROOT)), 'the app lives outside the repository')
  const installed = join(dir, 'node_modules', '@watt-lab', 'channel')
  t.notOk(lstatSync(installed).isSymbolicLink(), 'the package is a copy from the tarball, not a link into the workspace')
  t.match(installedVersions(dir), { ...pinned, '@watt-lab/channel': version }, 'the project\'s Watt packages and the packed version')

  t.test('carries every call over http-port', async (t) => {
    const app = await startApp(dir, { logLevel: 'info' })
    t.teardown(() => app.stop())
    const { wrong, targets } = await checkApp(app)
    t.same(wrong, [], 'every order answered as expected (GETs, JSON POSTs, a 404 and a 400)')
    for (const [target, seen] of Object.entries(targets)) {
      t.equal(seen['http-port'], seen.calls, `front→${target}: ${seen['http-port']} of ${seen.calls} calls over http-port`)
      t.equal(seen.mesh, 0, `front→${target}: none over the mesh`)
    }
    // Logged when the route's handshakes complete; waited for, as pino writes a little later.
    const route = await until(() => app.output().split('\n').find((line) => /mesh-port: pricing over http-port/.test(line)), { what: 'the route to pricing in the log' })
    t.match(route, /pricing over http-port \(2 workers\)/, 'both workers of pricing are linked')
    t.notMatch(app.output(), /is not supported/, 'the drop-in found this Watt supported')
  })

  t.test('on a Watt it does not support, stands aside: one line per application, every call on the mesh', async (t) => {
    // This Watt made older than the floor, in the installed copy only.
    const support = join(installed, 'lib', 'mesh-port', 'support.js')
    const source = readFileSync(support, 'utf8')
    writeFileSync(support, source.replace(/OLDEST_SUPPORTED = '[^']*'/, "OLDEST_SUPPORTED = '99.0.0'"))
    t.teardown(() => writeFileSync(support, source))
    const app = await startApp(dir, { logLevel: 'info' })
    t.teardown(() => app.stop())
    const { wrong, targets } = await checkApp(app)
    t.same(wrong, [], 'every order answered as over the drop-in')
    for (const [target, seen] of Object.entries(targets)) t.same(seen, { calls: seen.calls, 'http-port': 0, mesh: 0 }, `front→${target}: nothing counted by the drop-in`)
    const runtime = installedVersions(dir)['@platformatic/runtime']
    const lines = app.output().split('\n').filter((line) => line.includes('is not supported'))
    t.equal(lines.length, 3, 'one line for each of the 3 applications (pricing runs 2 workers)')
    for (const line of lines) t.match(line, `mesh-port: Watt ${runtime} is not supported (older than 99.0.0, the oldest release tested): every call stays on Watt's mesh`)
    t.notMatch(app.output(), /over http-port/, 'no route was made')
  })
})
