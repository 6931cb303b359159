// tcp-remote's target: the services in a network namespace behind a veth pair,
// with the round trip emulated (netem, or the delay relay here). Proves it
// answers the contract over the veth, holds the RTT, and leaves no namespace,
// veth, qdisc or process behind: on stop, on failure and on Ctrl-C. Skips, with
// the reason, where namespaces cannot be made.
import { createInterface } from 'node:readline'
import t from 'tap'
import { alive } from '../helpers/outside-bench.js'
import { request } from 'undici'
import { labInterfaces, labNamespaces, namespaceSupport } from '../../bench/outside/netns.js'
import { freePorts } from '../../bench/lib/ports.js'
import { spawnTracked } from '../../bench/lib/processes.js'
import { startRemoteHost } from '../../bench/outside/remote-host.js'
import { DOWNSTREAM_SERVICES, helloBody } from '../../lib/contract.js'

// Every step waits for a condition, never a fixed time; on a loaded 2-core box the
// processes and runtimes it starts can take minutes, so the file gets room.
t.setTimeout(360_000)

const HOLDER = new URL('../helpers/outside-holder.js', import.meta.url).pathname

t.test('the reasons given when namespaces cannot be made', async (t) => {
  t.match(namespaceSupport({ uid: 1000 }), { ok: false, reason: /need root/ })
  const allowed = (1n << 12n) | (1n << 21n) // CAP_NET_ADMIN, CAP_SYS_ADMIN
  t.match(namespaceSupport({ uid: 0, ip: '/nonexistent/ip', capabilities: allowed }), { ok: false, reason: /'ip' command is missing.*iproute2/ })
  t.match(namespaceSupport({ uid: 0, capabilities: 0n }), { ok: false, reason: /need root with CAP_NET_ADMIN and CAP_SYS_ADMIN, which this process lacks/ })
  t.match(namespaceSupport({ uid: 0, capabilities: 1n << 12n }), { ok: false, reason: /need root with CAP_SYS_ADMIN,/ })
})

const support = namespaceSupport()
const skip = support.ok ? false : `network namespaces unavailable here: ${support.reason}`

async function ports () {
  const free = await freePorts(4)
  return Object.fromEntries(DOWNSTREAM_SERVICES.map((service, i) => [service, free[i]]))
}

async function nothingLeftOf (t, namespace, pids) {
  t.notOk((await labNamespaces()).includes(namespace), `namespace ${namespace} removed`)
  const index = namespace.split('-')[1]
  t.notOk((await labInterfaces()).some((name) => name.startsWith(`wlab${index}`)), 'its veth pair removed')
  for (const pid of pids) t.notOk(alive(pid), `pid ${pid} gone`)
}

t.test('services on the remote host answer over the veth with the RTT held, and stop clean', { skip }, async (t) => {
  const remote = await startRemoteHost({ rttMs: 0.25, ports: await ports() })
  t.teardown(() => remote.stop())
  t.match(remote.emulation, /^(netem|relay)$/, `emulation: ${remote.emulation}`)
  t.match(remote.remoteAddress, /^10\.213\.0\.\d+$/)
  t.not(remote.remoteAddress, remote.hostAddress)
  const pids = []
  for (const service of DOWNSTREAM_SERVICES) {
    const { host, port } = remote.addresses[service]
    t.equal(host, remote.remoteAddress, `${service} reached at the namespace's own address`)
    const { statusCode, body } = await request(`http://${host}:${port}/hello?size=10`)
    t.equal(statusCode, 200)
    t.same(Buffer.from(await body.arrayBuffer()), helloBody(service, 10), `${service} answers the contract's bytes`)
  }
  const cpu = remote.cpuSeconds()
  for (const service of DOWNSTREAM_SERVICES) t.ok(cpu.services[service] > 0, `${service} CPU from /proc`)
  if (remote.emulation === 'relay') t.ok(cpu.relay > 0, 'relay CPU measured apart')

  // A long RTT is a lower bound any loaded machine honours: the request is held
  // half the RTT on the way in and the answer the other half on the way out.
  await remote.setRtt(300)
  t.equal(remote.rttMs(), 300)
  const { host, port } = remote.addresses.node3
  const started = performance.now()
  const { statusCode, body } = await request(`http://${host}:${port}/hello?size=10`, { reset: true })
  await body.dump()
  t.equal(statusCode, 200)
  t.ok(performance.now() - started >= 290, `a call waits at least the RTT (${(performance.now() - started).toFixed(0)} ms)`)
  await remote.setRtt(0)

  const namespace = remote.namespace
  await remote.stop()
  await nothingLeftOf(t, namespace, pids)
})

t.test('Ctrl-C of the harness removes the namespace, veth pair and processes', { skip }, async (t) => {
  const holder = spawnTracked(process.execPath, [HOLDER, 'remote'])
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: holder.child.stdout }).once('line', resolve)
    holder.exited.then(() => reject(new Error(`holder exited early:\n${holder.output()}`)))
  })
  const { namespace } = JSON.parse(line)
  t.ok((await labNamespaces()).includes(namespace), 'namespace made')
  holder.child.kill('SIGINT')
  const { code } = await holder.exited
  t.equal(code, 130)
  await nothingLeftOf(t, namespace, [])
})
