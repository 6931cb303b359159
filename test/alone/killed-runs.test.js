// What a run killed with SIGKILL leaves (containers, a network namespace) is found
// and removed by the next run. Alone: every container or namespace run of the other
// files removes such leftovers as it starts (and asserts none is left as it ends), so
// beside them the leftover this file makes on purpose can be taken, or counted, by
// another file (CI saw containers-bench count it).
import { createInterface } from 'node:readline'
import t from 'tap'
import { labelled, removeOrphans as removeOrphanRuns } from '../../bench/outside/containers.js'
import { labInterfaces, labNamespaces, namespaceSupport, removeOrphans as removeOrphanNamespaces } from '../../bench/outside/netns.js'
import { spawnTracked } from '../../bench/lib/processes.js'
import { engineSkip } from '../helpers/engine.js'

// The first container run of a test run may build the images (about a minute).
t.setTimeout(480_000)

const HOLDER = new URL('../helpers/outside-holder.js', import.meta.url).pathname

/**
 * Starts the holder of `kind`, reads what it made, and kills it with SIGKILL.
 * @param {'containers' | 'remote'} kind
 */
async function killedHolder (kind) {
  const holder = spawnTracked(process.execPath, [HOLDER, kind])
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: /** @type {import('node:stream').Readable} */ (holder.child.stdout) }).once('line', resolve)
    holder.exited.then(() => reject(new Error(`holder exited early:\n${holder.output()}`)))
  })
  holder.child.kill('SIGKILL')
  await holder.exited
  return JSON.parse(line)
}

t.test('containers and a network left by a killed run are removed by the next run', { skip: await engineSkip() }, async (t) => {
  const { runId } = await killedHolder('containers')
  t.equal((await labelled(runId)).containers.length, 4, 'SIGKILL leaves the containers behind')
  t.ok((await removeOrphanRuns()).includes(runId), 'the next run removes them')
  t.same(await labelled(runId), { containers: [], networks: [], volumes: [] }, 'containers and network gone')
})

const support = namespaceSupport()
t.test('a namespace left by a killed run is removed by the next run', { skip: support.ok ? false : `network namespaces unavailable here: ${support.reason}` }, async (t) => {
  const { namespace } = await killedHolder('remote')
  t.ok((await labNamespaces()).includes(namespace), 'SIGKILL leaves it behind')
  t.ok((await removeOrphanNamespaces()).includes(namespace), 'the next run removes it')
  t.notOk((await labNamespaces()).includes(namespace), `namespace ${namespace} removed`)
  const index = namespace.split('-')[1]
  t.notOk((await labInterfaces()).some((name) => name.startsWith(`wlab${index}`)), 'its veth pair removed')
})
