// The suite's three configs hold the same apps and code and differ by one
// thing each: mesh-port adds the drop-in's undici block and nothing else; tcp
// gives chat and feed loopback ports of their own and points edge's origins
// there, and nothing else. No path gets an advantage its config does not show.
import t from 'tap'
import { join } from 'node:path'
import { PROJECT_ROOT } from '../../bench/lib/paths.js'
import { configFileOf, TCP_PORT_ENVS } from '../../bench/realtime/runtimes.js'
import { assertOnlyUndiciDiffers, readJson } from '../helpers/config-diff.js'

const file = (path) => join(PROJECT_ROOT, configFileOf(path))

t.test('mesh-port is the mesh\'s config plus the drop-in\'s undici block', async (t) => {
  assertOnlyUndiciDiffers(t, file('ipc'), file('mesh-port'))
})

t.test('tcp is the mesh\'s config with loopback ports in the applications\' env, nothing else', async (t) => {
  const ipc = readJson(file('ipc'))
  const tcp = readJson(file('tcp'))
  const withoutEnv = (config) => ({ ...config, applications: config.applications.map(({ env, ...rest }) => rest) })
  t.strictSame(withoutEnv(tcp), withoutEnv(ipc))
  const envOf = (config, id) => config.applications.find((a) => a.id === id).env
  t.same(envOf(ipc, 'chat'), { REALTIME_TCP_PORT: '' }, 'no port of its own on the mesh')
  t.same(envOf(tcp, 'chat'), { REALTIME_TCP_PORT: '{REALTIME_CHAT_PORT}' })
  t.same(envOf(tcp, 'feed'), { REALTIME_TCP_PORT: '{REALTIME_FEED_PORT}' })
  t.same(envOf(ipc, 'edge'), { CHAT_ORIGIN: 'http://chat.plt.local', FEED_ORIGIN: 'http://feed.plt.local' })
  t.same(envOf(tcp, 'edge'), { CHAT_ORIGIN: 'http://127.0.0.1:{REALTIME_CHAT_PORT}', FEED_ORIGIN: 'http://127.0.0.1:{REALTIME_FEED_PORT}' })
  t.same(TCP_PORT_ENVS, ['REALTIME_CHAT_PORT', 'REALTIME_FEED_PORT'], 'the ports the harness hands out')
  t.equal(ipc.server.hostname, '127.0.0.1')
  t.equal(ipc.metrics.hostname, '127.0.0.1')
})
