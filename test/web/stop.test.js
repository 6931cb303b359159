// A stopped runtime frees its ports at once: `npm start` on SIGTERM and a
// bench-started runtime, after every transport was used the way that used to hold
// the entry's thread alive (parallel first calls over messaging; keep-alive
// clients that stay connected; a request in flight at the signal) and under a
// c 50 load. Watt gives a worker 10 s to stop and 10 s to exit before it kills
// it, and says so in its log: neither may happen.
import t from 'tap'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { Agent, request } from 'undici'
import { MESH_PORT_RUNTIME, readyPaths, routeOf } from '../../lib/topology.js'
import { PROJECT_NODE, PROJECT_ROOT } from '../../bench/lib/paths.js'
import { privatePorts, runtimeEnv } from '../../bench/lib/private-ports.js'
import { isListening } from '../../bench/lib/ports.js'
import { spawnTracked, stopChild } from '../../bench/lib/processes.js'
import { startRuntime } from '../../bench/lib/runtime.js'
import { until } from '../helpers/wait.js'

const STOP_BUDGET_MS = 2000
const KILLED = /Timeout while (waiting|stopping)|Killing a worker/

/**
 * Every transport route twice at once (two first contacts racing per service),
 * and one call that is still in flight when the stop begins, on connections
 * that stay open (keep-alive) until the runtime has gone.
 * @param {string} url
 */
async function useEveryTransport (url) {
  const agent = new Agent({ connections: 32, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 60_000 })
  const paths = readyPaths()
  const statuses = await Promise.all([...paths, ...paths].map(async (path) => {
    const { statusCode, body } = await request(url + path, { dispatcher: agent })
    await body.dump()
    return `${path} ${statusCode}`
  }))
  const slow = request(`${url}/tsfastify/ipc?fault=node3:delay:600`, { dispatcher: agent }).then(
    async ({ statusCode, headers, body }) => { await body.dump(); return { statusCode, connection: headers.connection } },
    (err) => ({ error: err.code ?? err.message })
  )
  return { agent, statuses, slow, paths }
}

/**
 * How long after `since` every port stopped listening, and which ones still
 * listened when the budget ran out (the clue when a stop is slow).
 * @param {Record<string, number>} ports
 * @param {number} since
 */
async function millisUntilClosed (ports, since) {
  const stillOpen = async () => (await Promise.all(Object.entries(ports).map(async ([name, port]) => await isListening(port) ? name : null))).filter(Boolean)
  /** @type {Promise<(string | null)[]> | null} */
  let atBudget = null
  const budget = setTimeout(() => { atBudget = stillOpen() }, STOP_BUDGET_MS)
  // Past the 30 s grace below: a stuck stop ends in the budget assert, with its clues.
  await until(async () => (await stillOpen()).length === 0, { intervalMs: 20, timeoutMs: 60_000, what: 'every port to close' })
  const took = Date.now() - since
  clearTimeout(budget)
  return { took, openAtBudget: (await atBudget) ?? [] }
}

t.test('npm start: SIGTERM after every transport, keep-alive clients and a call in flight', async (t) => {
  const ports = await privatePorts()
  const { child, exited, output } = spawnTracked(PROJECT_NODE, [join(PROJECT_ROOT, 'scripts', 'start.js')], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...runtimeEnv(ports) }
  })
  t.teardown(() => stopChild(child))
  await until(() => output().includes('Stop: Ctrl-C') || child.exitCode !== null, { timeoutMs: 180_000, what: 'npm start to print its ready block' })
  t.ok(output().includes('Stop: Ctrl-C'), 'npm start printed its ready block', { output: output() })

  const url = `http://127.0.0.1:${ports.PORT}`
  const { agent, statuses, slow, paths } = await useEveryTransport(url)
  t.same(statuses, [...paths, ...paths].map((path) => `${path} 200`), 'every transport answered')
  await new Promise((resolve) => setTimeout(resolve, 200)) // the slow call is inside the entry now

  const signalled = Date.now()
  child.kill('SIGTERM')
  const { took, openAtBudget } = await millisUntilClosed(ports, signalled)
  t.ok(took <= STOP_BUDGET_MS, `every port free ${took} ms after SIGTERM (budget ${STOP_BUDGET_MS} ms)`, { openAtBudget })
  const { code } = await exited
  t.equal(code, 0, 'npm start exits 0 after a clean stop')
  t.notMatch(output(), KILLED, 'Watt neither timed out nor killed a worker')
  t.match(await slow, { statusCode: 200, connection: 'close' }, 'the call in flight was answered, and its connection closed')
  await agent.close()
})

t.test('a bench-started runtime under a c 50 load over every transport', async (t) => {
  const ports = await privatePorts()
  const runtime = await startRuntime({ env: runtimeEnv(ports), reuse: false })
  t.teardown(() => runtime.stop())
  const { agent, statuses, paths } = await useEveryTransport(runtime.url)
  t.same(statuses, [...paths, ...paths].map((path) => `${path} 200`), 'every transport answered')

  await stopUnderLoad(t, runtime, ports, { url: runtime.url, connections: 50, duration: 30, requests: paths.map((path) => ({ method: 'GET', path })) })
  await agent.destroy()
})

t.test('the mesh-port runtime (watt.mesh-port.json) under a c 50 load over the drop-in', async (t) => {
  const ports = await privatePorts()
  const route = routeOf('mesh-port')
  const runtime = await startRuntime({ env: runtimeEnv(ports, { [MESH_PORT_RUNTIME.env]: '1' }), reuse: false, configFile: MESH_PORT_RUNTIME.configFile, readyPaths: [route] })
  t.teardown(() => runtime.stop())
  await stopUnderLoad(t, runtime, ports, { url: runtime.url + route, connections: 50, duration: 30 })
})

/**
 * Stops `runtime` once a c 50 load has had 500 answers: every port must be free
 * within the budget, and Watt must neither time out nor kill a worker.
 * @param {any} t
 * @param {import('../../bench/lib/runtime.js').Runtime} runtime
 * @param {Record<string, number>} ports
 * @param {import('autocannon').Options} options
 */
async function stopUnderLoad (t, runtime, ports, options) {
  const load = autocannon(options)
  t.teardown(() => load.stop())
  let answered = 0
  load.on('response', () => { answered++ })
  await until(() => answered >= 500, { what: '500 answers under load' })
  const signalled = Date.now()
  // A grace past Watt's own 10 s limits: a stuck worker is then named in its log
  // (and fails the KILLED check) before anything is killed from here.
  const stopped = runtime.stop({ graceMs: 30_000 })
  const { took, openAtBudget } = await millisUntilClosed(ports, signalled)
  await stopped
  load.stop()
  t.ok(took <= STOP_BUDGET_MS, `every port free ${took} ms after the stop signal (budget ${STOP_BUDGET_MS} ms)`, { openAtBudget, output: took > STOP_BUDGET_MS ? runtime.output() : undefined })
  t.notMatch(runtime.output(), KILLED, 'Watt neither timed out nor killed a worker')
}
