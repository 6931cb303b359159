// tcp-process's targets: the four services as their own processes, started with
// readiness waited for, answering the contract, stopped with nothing left, also
// when the harness is interrupted.
import { createInterface } from 'node:readline'
import t from 'tap'
import { alive } from '../helpers/outside-bench.js'
import { request } from 'undici'
import { isListening, freePorts } from '../../bench/lib/ports.js'
import { spawnTracked } from '../../bench/lib/processes.js'
import { startServiceProcesses, serviceEntryFile } from '../../bench/outside/service-processes.js'
import { nodeFlagsOf } from '../../bench/lib/runtime-settings.js'
import { DOWNSTREAM_SERVICES, helloBody } from '../../lib/contract.js'

// Every step waits for a condition, never a fixed time; on a loaded 2-core box the
// processes and runtimes it starts can take minutes, so the file gets room.
t.setTimeout(360_000)

const HOLDER = new URL('../helpers/outside-holder.js', import.meta.url).pathname

async function until (condition, what, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await condition()) return true
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`timed out waiting for ${what}`)
}

t.test('each service runs its own file as its own process and answers the contract', async (t) => {
  t.match(serviceEntryFile('type1'), /web\/type1\/index\.ts$/)
  t.match(serviceEntryFile('fastify2'), /web\/fastify2\/index\.js$/)
  const free = await freePorts(4)
  const ports = Object.fromEntries(DOWNSTREAM_SERVICES.map((service, i) => [service, free[i]]))
  const started = await startServiceProcesses({ ports, nodeFlags: ['--no-memory-reducer'] })
  t.teardown(() => started.stop())
  t.equal(new Set(Object.values(started.pids)).size, 4, 'four distinct processes')
  for (const [service, pid] of Object.entries(started.pids)) t.same(nodeFlagsOf(pid), ['--no-memory-reducer'], `${service} runs with the flags asked for`)
  t.not(Object.values(started.pids).includes(process.pid), 'none of them is us')
  for (const service of DOWNSTREAM_SERVICES) {
    t.same(started.addresses[service], { host: '127.0.0.1', port: ports[service] })
    const { statusCode, headers, body } = await request(`http://127.0.0.1:${ports[service]}/hello?size=100`)
    t.equal(statusCode, 200, `${service} 200`)
    t.equal(Number(headers['content-length']), helloBody(service, 100).length, `${service} content-length`)
    t.same(Buffer.from(await body.arrayBuffer()), helloBody(service, 100), `${service} answers the contract's bytes`)
  }
  const cpu = started.cpuSeconds()
  for (const service of DOWNSTREAM_SERVICES) t.ok(cpu[service] > 0, `${service} CPU read from /proc (${cpu[service]} s)`)

  await started.stop()
  for (const [service, pid] of Object.entries(started.pids)) t.notOk(alive(pid), `${service} (pid ${pid}) is gone`)
  for (const service of DOWNSTREAM_SERVICES) t.notOk(await isListening(ports[service]), `${service}'s port is closed`)
  t.same(started.cpuSeconds(), Object.fromEntries(DOWNSTREAM_SERVICES.map((s) => [s, null])), 'no CPU reading once gone')
})

t.test('a service that cannot start fails the start, with its output, and leaves nothing', async (t) => {
  const [taken] = await freePorts(1)
  const { createServer } = await import('node:net')
  const blocker = createServer().listen(taken, '127.0.0.1')
  t.teardown(() => blocker.close())
  const free = await freePorts(3)
  const ports = { fastify2: free[0], node3: taken, type1: free[1], type4: free[2] }
  await t.rejects(startServiceProcesses({ ports, readyTimeoutMs: 60_000 }), /node3 (exited before it answered|did not answer)[\s\S]*EADDRINUSE/)
  for (const port of free) t.notOk(await isListening(port), `port ${port} closed again`)
})

t.test('Ctrl-C of the harness stops every service process', async (t) => {
  const holder = spawnTracked(process.execPath, [HOLDER, 'processes'])
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: holder.child.stdout }).once('line', resolve)
    holder.exited.then(() => reject(new Error(`holder exited early:\n${holder.output()}`)))
  })
  const { pids } = JSON.parse(line)
  t.equal(pids.length, 4)
  t.ok(pids.every(alive), 'all four running')
  holder.child.kill('SIGINT')
  const { code } = await holder.exited
  t.equal(code, 130, 'interrupted exit code')
  await until(() => !pids.some(alive), 'service processes to be gone')
  t.pass('no service process left')
})
