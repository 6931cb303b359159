// Binds, from the OS: every listening socket of the runtime (entry, metrics,
// the four services' own ports) is on 127.0.0.1 and the management API is a
// unix socket in an owner-only directory. (The transport bench's own tree is
// checked mid-run in shutdown.test.js, which starts one anyway.)
import t from 'tap'
import { startPrivateRuntime } from '../../bench/reliability/private-runtime.js'
import { describeSocket, hasProcFs, listeningSockets } from '../../bench/reliability/os-sockets.js'
import { checkTreeBinds } from '../../bench/reliability/scenarios/binds.js'

if (!hasProcFs()) {
  t.skip('binds are read from /proc: Linux only')
} else {
  const runtime = await startPrivateRuntime()
  t.teardown(() => runtime.stop())

  t.test('the runtime listens on 127.0.0.1 only, every port seen', async (t) => {
    const { failures, sockets, management } = checkTreeBinds({ label: 'runtime', pid: runtime.pid, expectedPorts: Object.values(runtime.ports), managementPid: runtime.pid })
    t.same(failures, [])
    const inet = sockets.filter((s) => !s.startsWith('unix'))
    t.same(inet.sort(), Object.values(runtime.ports).map((port) => `tcp 127.0.0.1:${port}`).sort(), 'exactly the six ports, all on 127.0.0.1')
    t.match(management, { listening: true, directoryMode: '700' })
  })

  t.test('the runner (load generator, fuzzer, probes) never listens', async (t) => {
    t.same(listeningSockets([process.pid]).map(describeSocket), [])
  })
}
