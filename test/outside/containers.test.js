// tcp-container's target: the four services each in its own Docker container,
// published on 127.0.0.1 only. Proves they answer the contract through the
// published ports, that their CPU and the engine's are measured apart, and that
// no container or network is left behind: on stop and on Ctrl-C. Needs a Docker
// engine (root and docker.io; dockerd is started when none runs); skips with the
// reason only where none can run.
import { createInterface } from 'node:readline'
import t from 'tap'
import { request } from 'undici'
import { labelled, orphanRuns, startServiceContainers } from '../../bench/outside/containers.js'
import { docker, engineAnswers, engineSupport, ensureEngine } from '../../bench/outside/docker.js'
import { engineSkip } from '../helpers/engine.js'
import { freePorts } from '../../bench/lib/ports.js'
import { spawnTracked } from '../../bench/lib/processes.js'
import { DOWNSTREAM_SERVICES, helloBody } from '../../lib/contract.js'
import { alive } from '../helpers/outside-bench.js'
import { nodeFlagsOf } from '../../bench/lib/runtime-settings.js'

// Every step waits for a condition, never a fixed time; the first run also builds
// the images (about a minute), so the file gets room.
t.setTimeout(480_000)

const HOLDER = new URL('../helpers/outside-holder.js', import.meta.url).pathname

t.test('the reasons given when no engine can run', async (t) => {
  t.match(engineSupport({ uid: 1000 }), { ok: false, reason: /dockerd needs root/ })
  t.match(engineSupport({ uid: 0, env: { PATH: '/nonexistent' } }), { ok: false, reason: /'docker' command is missing.*docker\.io/ })
})

// An engine for the whole test run: the first file that needs one starts it (test/helpers/engine.js).
const skip = await engineSkip()

t.test('an engine the harness did not start is used, and never stopped by it', { skip }, async (t) => {
  const engine = await ensureEngine()
  t.equal(engine.startedHere, false, 'the running engine is found, none started')
  t.match(engine.version, /^\d+\.\d+/)
  await engine.stop()
  t.ok(await engineAnswers(), 'still answers after the harness\'s stop')
})

async function ports () {
  const free = await freePorts(4)
  return Object.fromEntries(DOWNSTREAM_SERVICES.map((service, i) => [service, free[i]]))
}

t.test('services in containers answer through ports published on 127.0.0.1, measured apart from the engine, and stop clean', { skip }, async (t) => {
  const started = await startServiceContainers({ ports: await ports(), nodeFlags: ['--no-memory-reducer'] })
  t.teardown(() => started.stop())
  for (const [service, pid] of Object.entries(started.pids)) t.same(nodeFlagsOf(pid), ['--no-memory-reducer'], `${service}'s process runs the image's script with the flags asked for`)
  const mine = await labelled(started.runId)
  t.equal(mine.containers.length, 4, 'one container per service')
  t.same(mine.networks, [started.network], 'on a network of the run\'s own')
  for (const service of DOWNSTREAM_SERVICES) {
    const { host, port } = started.addresses[service]
    t.equal(host, '127.0.0.1', `${service} reached at the host's loopback`)
    const { stdout } = await docker(['port', started.containers[service]])
    t.same(stdout.trim().split('\n'), [`${port}/tcp -> 127.0.0.1:${port}`], `${service} is published on 127.0.0.1:${port} only`)
    for (let i = 0; i < 50; i++) {
      const answer = await request(`http://${host}:${port}/hello?size=10`)
      const bytes = Buffer.from(await answer.body.arrayBuffer())
      if (i === 0) {
        t.equal(answer.statusCode, 200)
        t.same(bytes, helloBody(service, 10), `${service} answers the contract's bytes through the published port`)
      }
    }
  }
  const cpu = started.cpuSeconds()
  for (const service of DOWNSTREAM_SERVICES) t.ok(cpu.services[service] > 0, `${service}'s process CPU from /proc`)
  t.type(cpu.engine, 'number', 'the engine\'s CPU is measured, apart')
  t.match(started.path(), /^127\.0\.0\.1:<port> → (docker-proxy|the engine's NAT rules)/, 'the path the traffic took is said')
  const { runId } = started
  const pids = Object.values(started.pids)
  await started.stop()
  t.same(await labelled(runId), { containers: [], networks: [], volumes: [] }, 'no container, network or volume of the run left')
  t.same(await orphanRuns(), [], 'docker ps -a / network ls by the lab\'s label: nothing of any ended run')
  for (const pid of pids) t.notOk(alive(pid), `pid ${pid} gone`)
})

t.test('Ctrl-C of the harness removes the containers and the network', { skip }, async (t) => {
  const holder = spawnTracked(process.execPath, [HOLDER, 'containers'])
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: holder.child.stdout }).once('line', resolve)
    holder.exited.then(() => reject(new Error(`holder exited early:\n${holder.output()}`)))
  })
  const { runId, pids } = JSON.parse(line)
  t.equal((await labelled(runId)).containers.length, 4, 'containers running')
  holder.child.kill('SIGINT')
  const { code } = await holder.exited
  t.equal(code, 130)
  t.same(await labelled(runId), { containers: [], networks: [], volumes: [] }, 'nothing of the run left')
  for (const pid of pids) t.notOk(alive(pid), `pid ${pid} gone`)
})
