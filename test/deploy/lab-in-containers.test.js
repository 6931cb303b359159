// The deploy guide's container steps, run as written (deploy/README.md, between
// the container-steps markers): build the images, bring the whole lab up with
// compose on one user-defined network, run the verified load job as a container
// with its result written out, take it all down. Only the output file is moved
// to a temporary folder, and the run is labelled and named apart so it cannot
// touch a user's own. Proves every run verified and nothing left behind.
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { parseAllDocuments } from 'yaml'
import { labelled, newRunId, orphanRuns, removeLabelled } from '../../bench/outside/containers.js'
import { onPath } from '../../bench/outside/docker.js'
import { engineSkip } from '../helpers/engine.js'
import { freePorts } from '../../bench/lib/ports.js'

const run = promisify(execFile)
// The first run builds the images (about a minute); Watt starts in its container after.
t.setTimeout(600_000)

const root = new URL('../../', import.meta.url).pathname
const guide = readFileSync(join(root, 'deploy/README.md'), 'utf8')

/** The shell block between the markers. */
function containerSteps () {
  const block = /<!-- container-steps:start -->\s*```sh\n([\s\S]*?)```\s*<!-- container-steps:end -->/.exec(guide)
  if (!block) throw new Error('deploy/README.md has no container-steps block')
  return block[1]
}

t.test('the guide has the steps, and compose publishes only on 127.0.0.1', async (t) => {
  const steps = containerSteps()
  t.match(steps, /^npm run images$/m, 'the one build command')
  t.match(steps, /docker-compose -f deploy\/compose\.yaml up -d/)
  t.match(steps, /run --rm -T load > results\/lab-in-containers\.json/, 'the load job\'s result written out')
  t.match(steps, /down --volumes$/m, 'and everything taken down')
  const [compose] = parseAllDocuments(readFileSync(join(root, 'deploy/compose.yaml'), 'utf8'), { merge: true }).map((d) => d.toJS())
  const published = Object.entries(compose.services).flatMap(([name, s]) => (s.ports ?? []).map((p) => [name, p]))
  t.ok(published.length > 0, 'the entry is published')
  for (const [name, port] of published) t.match(port, /^127\.0\.0\.1:/, `${name} publishes on 127.0.0.1 only`)
  for (const [name, s] of Object.entries(compose.services)) {
    t.same(s.networks, ['lab'], `${name} on the one user-defined network`)
    t.equal(s.labels['watt-lab'], '${WATT_LAB_RUN:-compose}', `${name} carries the lab's label`) // eslint-disable-line no-template-curly-in-string
  }
  t.equal(compose.networks.lab.labels['watt-lab'], '${WATT_LAB_RUN:-compose}', 'so does the network') // eslint-disable-line no-template-curly-in-string
})

// An engine for the whole test run: the first file that needs one starts it (test/helpers/engine.js).
const skip = onPath('docker-compose') ? await engineSkip() : "'docker-compose' is missing (apt-get install docker-compose)"

t.test('the guide\'s container steps run: every transport verified from the load container, nothing left', { skip }, async (t) => {
  const dir = t.testdir()
  const out = join(dir, 'lab-in-containers.json')
  const runId = newRunId()
  const [entryPort] = await freePorts(1)
  const env = {
    ...process.env,
    COMPOSE_PROJECT_NAME: `wattlabtest${runId.replace(/\W/g, '')}`,
    WATT_LAB_RUN: runId,
    WATT_LAB_ENTRY_PORT: String(entryPort),
    WATT_LAB_LOAD_SECONDS: '1',
    WATT_LAB_LOAD_WARMUP: '0'
  }
  t.teardown(async () => {
    // On failure the steps stop before `down`: take it down here, then anything labelled.
    await run('docker-compose', ['-f', 'deploy/compose.yaml', 'down', '--volumes'], { cwd: root, env }).catch(() => {})
    await removeLabelled(runId)
  })
  const script = containerSteps().replaceAll('results/lab-in-containers.json', out)
  try {
    await run('bash', ['-euo', 'pipefail', '-c', script], { cwd: root, env, timeout: 540_000, maxBuffer: 64 << 20 })
  } catch (err) {
    t.fail(`the steps failed (exit ${err.code}):\n${err.stdout}\n${err.stderr}`)
    return
  }
  const summary = JSON.parse(readFileSync(out, 'utf8'))
  t.equal(summary.entry, 'http://runtime:3043', 'the load job reached the runtime by its name on the network')
  t.ok(summary.runs.length >= 5, `${summary.runs.length} transports run`)
  t.ok(summary.runs.some((r) => r.transport === 'tcp-remote'), 'tcp-remote: the runtime calls the service containers across the network')
  for (const r of summary.runs) t.match(r, { ok: true, failures: [] }, `${r.transport} verified (${r.requestsPerSec} req/s)`)
  t.same(await labelled(runId), { containers: [], networks: [], volumes: [] }, 'the steps left no container, network or volume')
  t.same(await orphanRuns(), [], 'docker ps -a / network ls by the lab\'s label: nothing of any ended run')
})
