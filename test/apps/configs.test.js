// Each app's three configs hold the same apps and code and differ by one thing
// each: mesh-port adds the drop-in's undici block and nothing else; tcp gives
// the applications other env values (their loopback ports and origins there)
// and nothing else. No path can get an advantage the config does not show.
import t from 'tap'
import { join } from 'node:path'
import { PROJECT_ROOT } from '../../bench/lib/paths.js'
import { APPS, EXTRA_PATHS } from '../../bench/apps/plan.js'
import { configFileOf, TCP_PORT_ENVS } from '../../bench/apps/runtimes.js'
import { assertOnlyUndiciDiffers, readJson } from '../helpers/config-diff.js'

const file = (app, path) => join(PROJECT_ROOT, configFileOf(app, path))
const portEnvOf = (id) => `APPS_${id.toUpperCase().replace(/-/g, '_')}_PORT`
const ORIGIN = /^([A-Z_]+)_ORIGIN$/
/** The one drop-in option each extra path sets. */
const EXTRA_OPTIONS = { 'mesh-port-turn': { flush: 'turn' }, 'mesh-port-frames': { wire: 'frames' } }

t.same(Object.keys(EXTRA_OPTIONS), [...EXTRA_PATHS], 'every extra path is checked here')

for (const app of Object.keys(APPS)) {
  t.test(`${app}: mesh-port is ipc plus the drop-in's undici block`, async (t) => {
    assertOnlyUndiciDiffers(t, file(app, 'ipc'), file(app, 'mesh-port'))
  })

  for (const [path, option] of Object.entries(EXTRA_OPTIONS)) {
    t.test(`${app}: ${path} is mesh-port with the drop-in's ${JSON.stringify(option)}, nothing else`, async (t) => {
      const dropIn = readJson(file(app, 'mesh-port'))
      const extra = readJson(file(app, path))
      t.same(extra.undici.interceptors.map((i) => i.options), [option], 'the one option set')
      const withoutOptions = (config) => ({ ...config, undici: { interceptors: config.undici.interceptors.map(({ options, ...rest }) => rest) } })
      t.strictSame(withoutOptions(extra), withoutOptions(dropIn))
    })
  }

  t.test(`${app}: tcp is ipc with the applications' env pointing at loopback ports, nothing else`, async (t) => {
    const ipc = readJson(file(app, 'ipc'))
    const tcp = readJson(file(app, 'tcp'))
    const withoutEnv = (config) => ({ ...config, applications: config.applications.map(({ env, ...rest }) => rest) })
    t.strictSame(withoutEnv(tcp), withoutEnv(ipc), 'the same config once the applications\' env is set aside')
    const ids = ipc.applications.map((a) => a.id)
    for (const [i, application] of ipc.applications.entries()) {
      const tcpEnv = tcp.applications[i].env ?? {}
      t.same(Object.keys(tcpEnv).sort(), Object.keys(application.env ?? {}).sort(), `${application.id}: the same variables`)
      for (const [name, value] of Object.entries(application.env ?? {})) {
        const origin = ORIGIN.exec(name)
        if (origin) {
          const target = origin[1].toLowerCase().replace(/_/g, '-')
          t.ok(ids.includes(target), `${application.id}: ${name} names an application of this runtime`)
          t.equal(value, `http://${target}.plt.local`, `${application.id}: ${name} is the mesh's name on ipc`)
          t.equal(tcpEnv[name], `http://127.0.0.1:{${portEnvOf(target)}}`, `${application.id}: ${name} is ${target}'s loopback port on tcp`)
        } else if (name === 'APPS_TCP_PORT') {
          t.equal(value, '', `${application.id}: no listener of its own on ipc`)
          t.equal(tcpEnv[name], `{${portEnvOf(application.id)}}`, `${application.id}: its own loopback port on tcp`)
          t.ok(TCP_PORT_ENVS.includes(portEnvOf(application.id)), 'a port the harness hands out')
        } else {
          t.fail(`${application.id}: unexpected variable ${name}`)
        }
      }
    }
  })
}
