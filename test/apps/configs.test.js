// Each app's three configs hold the same apps and code and differ by one thing
// each: mesh-port adds the drop-in's undici block and nothing else; tcp gives
// the applications other env values (their loopback ports and origins there)
// and nothing else. No path can get an advantage the config does not show.
import t from 'tap'
import { join } from 'node:path'
import { PROJECT_ROOT } from '../../bench/lib/paths.js'
import { APPS } from '../../bench/apps/plan.js'
import { configFileOf, TCP_PORT_ENVS } from '../../bench/apps/runtimes.js'
import { assertOnlyUndiciDiffers, readJson } from '../helpers/config-diff.js'

const file = (app, path) => join(PROJECT_ROOT, configFileOf(app, path))
const portEnvOf = (id) => `APPS_${id.toUpperCase().replace(/-/g, '_')}_PORT`
const ORIGIN = /^([A-Z_]+)_ORIGIN$/

for (const app of Object.keys(APPS)) {
  t.test(`${app}: mesh-port is ipc plus the drop-in's undici block`, async (t) => {
    assertOnlyUndiciDiffers(t, file(app, 'ipc'), file(app, 'mesh-port'))
  })

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
