// The registry end to end, on one private runtime started the way a user starts
// it (`npm start` = scripts/start.js):
// - a throwaway transport added through the registry alone (LAB_EXTRA_TRANSPORTS:
//   one extra record plus one file, lib/topology.js untouched) is routed by the entry,
//   benchable with `bench/transports/run.js --transports …` and present in its report;
// - the first minute explains itself: the ready block lists every route with a curl,
//   and GET / answers a JSON index of routes and parameters from the registry;
// - Ctrl-C stops it all; without the extra file the transport is gone again.
import t from 'tap'
import { execFile } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { request } from 'undici'
import { isListening } from '../../bench/lib/ports.js'
import { privatePorts, runtimeEnv } from '../../bench/lib/private-ports.js'
import { spawnTracked, stopChild } from '../../bench/lib/processes.js'
import { managementSocketPath } from '../../bench/lib/management-dir.js'
import { PROJECT_NODE } from '../../bench/lib/paths.js'
import { SERVICES, TRANSPORTS } from '../../lib/topology.js'

// One runtime start, one short bench: on a loaded 2-core box both can take minutes
// (deadlines below are waits for conditions, not expectations of speed).
t.setTimeout(360_000)

const root = join(import.meta.dirname, '..', '..')
const run = promisify(execFile)
const NAME = 'throwaway'
// This process loaded the registry without the hook; the runtime and the bench get it.
const EXPECTED = [...TRANSPORTS.map((x) => x.name), NAME]

const dir = t.testdir()
const file = join(dir, `${NAME}.ts`)
const url = (path) => pathToFileURL(join(root, path)).href
// A real transport: Watt messaging to each service, verified against the contract.
writeFileSync(file, `
import { checkHelloObject, helloBody } from '${url('lib/contract.js')}'
import { type CreateTransport, DownstreamError } from '${url('web/tsfastify/lib/transport.ts')}'

export const create: CreateTransport = ({ name }) => ({
  name,
  async call (call) {
    const messaging = (globalThis as any).platformatic.messaging
    const answer = await messaging.send(call.service, 'hello', { size: call.size, delay: call.fault?.delay, corrupt: call.fault?.corrupt })
    const problem = checkHelloObject(call.service, call.size, answer)
    if (problem) throw new DownstreamError(call.service, problem)
    return { service: call.service, status: 200, bytes: helloBody(call.service, call.size).length }
  }
})
`)
const registryFile = join(dir, 'extra-transports.json')
writeFileSync(registryFile, JSON.stringify([{ name: NAME, description: 'a test transport: messaging, added through the registry alone', crossesThreads: true, http: false, module: file }]))

const ports = await privatePorts()
const env = { ...process.env, ...runtimeEnv(ports), LAB_EXTRA_TRANSPORTS: registryFile }
const entry = `http://127.0.0.1:${ports.PORT}`
const { child, exited, output } = spawnTracked(PROJECT_NODE, [join(root, 'scripts', 'start.js')], { cwd: root, env })
t.teardown(() => stopChild(child))

let stdout = ''
child.stdout.on('data', (chunk) => { stdout += chunk })
const deadline = Date.now() + 240_000
while (!stdout.includes('Stop:') && child.exitCode === null && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200))

t.test('npm start prints one ready block: the URL, a curl per route, how to stop', async (t) => {
  t.match(stdout, `ready at ${entry}`, output())
  for (const name of EXPECTED) t.match(stdout, `curl ${entry}/tsfastify/${name} `, `a curl for ${name}`)
  t.match(stdout, /Stop: Ctrl-C/)
  t.equal(stdout.split('\n').filter((line) => line.includes('ready at')).length, 1, 'printed once')
})

t.test('GET / answers a JSON index of routes and parameters derived from the registry', async (t) => {
  const { statusCode, headers, body } = await request(`${entry}/`)
  t.equal(statusCode, 200)
  t.match(headers['content-type'], /^application\/json/)
  const index = await body.json()
  t.same(index.routes.map((r) => r.path), EXPECTED.map((name) => `/tsfastify/${name}`))
  const mine = index.routes.find((r) => r.transport === NAME)
  t.match(mine, { method: 'GET', crossesThreads: true, http: false, available: true, description: /added through the registry alone/ })
  t.same(Object.keys(index.parameters), ['size', 'fanout', 'fault'])
  t.equal(index.parameters.fanout.maximum, SERVICES.length)
  t.same(index.services.map((s) => s.name), SERVICES.map((s) => s.name))
})

t.test('the throwaway transport is routed: verified fan-out, 502 naming a corrupt service', async (t) => {
  const ok = await request(`${entry}/tsfastify/${NAME}?size=100&fanout=3`)
  const json = await ok.body.json()
  t.equal(ok.statusCode, 200)
  t.equal(json.transport, NAME)
  t.same(json.results.map((r) => r.service), SERVICES.slice(0, 3).map((s) => s.name))
  const bad = await request(`${entry}/tsfastify/${NAME}?fault=type1:corrupt`)
  const failure = await bad.body.json()
  t.equal(bad.statusCode, 502)
  t.match(failure, { service: 'type1', transport: NAME })
})

t.test('benchable: a short verified load through the bench, and in its report', async (t) => {
  const out = join(dir, 'bench.json')
  const report = join(dir, 'report')
  const { stdout: benchOut } = await run(process.execPath, ['bench/transports/run.js', '--transports', NAME, '--duration', '1', '--warmup', '0', '--profiles', 'latency', '--wrk', 'off', '--out', out, '--report', report],
    { cwd: root, env, timeout: 240_000 })
  const result = JSON.parse(readFileSync(out, 'utf8'))
  t.equal(result.failed, false, benchOut)
  const mine = result.runs.find((r) => r.transport === NAME)
  t.equal(mine.ok, true)
  t.ok(mine.status['2xx'] > 0, `${mine.status['2xx']} verified answers`)
  t.equal(mine.mismatches + mine.errors + mine.timeouts + mine.status.non2xx, 0)
  t.ok(result.summary.latency[NAME].requestsPerSec.median > 0)
  const md = readFileSync(`${report}.md`, 'utf8')
  t.match(md, new RegExp(`^Transports: .*${NAME}`, 'm'), 'named in the report\'s list of transports')
  t.match(md, new RegExp(`^\\| ${NAME} \\|`, 'm'), 'a row of its own')
})

t.test('Ctrl-C stops everything; without the extra file the transport is gone', async (t) => {
  child.kill('SIGINT')
  const { code } = await exited
  t.equal(code, 0, 'npm start exits cleanly')
  for (const [name, port] of Object.entries(ports)) t.notOk(await isListening(port), `${name} ${port} closed`)
  const { stdout: names } = await run(PROJECT_NODE, ['--input-type=module', '-e', "import('./lib/topology.js').then((m) => console.log(m.TRANSPORT_NAMES.join(',')))"],
    { cwd: root, env: { ...process.env, LAB_EXTRA_TRANSPORTS: '' } })
  t.notOk(names.trim().split(',').includes(NAME), `registry without the hook: ${names.trim()}`)
  t.ok(names.trim().length > 0)
  t.notOk(existsSync(join(managementSocketPath(child.pid), '..')), 'no Watt management dir left behind')
})
