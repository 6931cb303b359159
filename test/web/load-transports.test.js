// The entry builds its transports from the registry: one module each, create()
// with the entry's settings and the registered name, and the per-service in-flight
// bound applied from `crossesThreads` (unless the transport bounds itself).
import t from 'tap'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

const dir = t.testdir()
// A transport that records how many of its calls run at once, per service.
const probe = `
export const create = ({ name, callsInFlightPerService }) => {
  let running = 0
  const transport = {
    name,
    seen: { max: 0, bound: callsInFlightPerService },
    async call (call) {
      running++
      transport.seen.max = Math.max(transport.seen.max, running)
      await new Promise((resolve) => setTimeout(resolve, 20))
      running--
      return { service: call.service, status: 200, bytes: 1 }
    }
  }
  globalThis.__probes = { ...globalThis.__probes, [name]: transport }
  return transport
}
`
writeFileSync(join(dir, 'probe.js'), probe)
writeFileSync(join(dir, 'self-bounded.js'), probe.replace('name,\n    seen', 'name,\n    limitsInFlight: true,\n    seen'))
writeFileSync(join(dir, 'extra.json'), JSON.stringify([
  { name: 'probe-cross', description: 'crosses threads', crossesThreads: true, http: false, module: join(dir, 'probe.js') },
  { name: 'probe-local', description: 'stays in the entry thread', crossesThreads: false, http: false, module: join(dir, 'probe.js') },
  { name: 'probe-self', description: 'crosses threads, bounds itself', crossesThreads: true, http: false, module: join(dir, 'self-bounded.js') }
]))
process.env.LAB_EXTRA_TRANSPORTS = join(dir, 'extra.json')
const { TRANSPORT_NAMES, transportNamed } = await import('../../lib/topology.js')
const { loadTransports } = await import('../../web/tsfastify/lib/load-transports.ts')

const loaded = await loadTransports({ callTimeoutMs: 1000, callsInFlightPerService: 3 }, {})
t.teardown(() => Promise.all(loaded.map((entry) => entry.available && entry.transport.close?.())))

t.test('one transport per registry record, in order, named by the registry', async (t) => {
  t.same(loaded.map((entry) => entry.name), TRANSPORT_NAMES)
  for (const entry of loaded) {
    if (transportNamed(entry.name).requires) {
      // its targets are not running (nothing in env says where): not available, and why
      t.match(entry, { available: false, reason: /not set/ }, entry.name)
      continue
    }
    t.equal(entry.available, true, entry.name)
    t.equal(entry.transport.name, entry.name)
  }
})

async function maxInFlight (name) {
  const { transport } = loaded.find((entry) => entry.name === name)
  const signal = new AbortController().signal
  await Promise.all(Array.from({ length: 12 }, () => transport.call({ service: 'node3', size: 1 }, signal)))
  return globalThis.__probes[name].seen.max
}

t.test('the in-flight bound follows crossesThreads', async (t) => {
  t.equal(await maxInFlight('probe-cross'), 3, 'crosses threads: at most callsInFlightPerService per service')
  t.equal(await maxInFlight('probe-local'), 12, 'stays in the entry thread: no queue')
  t.equal(await maxInFlight('probe-self'), 12, 'limitsInFlight: the entry adds no queue of its own')
})
