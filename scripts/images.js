// @ts-check
// npm run images: builds the lab's container images (deploy/images.js), starting
// dockerd first when none runs (and stopping it again afterwards).
import { parseFlags, runMain } from '../bench/lib/cli.js'
import { ensureEngine } from '../bench/outside/docker.js'
import { buildImages, removeImages } from '../deploy/images.js'

const FLAGS = /** @type {Record<string, import('../bench/lib/cli.js').FlagSpec>} */ ({
  base: { type: 'string', help: 'build on this image instead of the local one made from the project\'s Node (e.g. node:24-slim, where a registry is reachable)' },
  force: { type: 'boolean', default: false, help: 'rebuild even when the images are up to date' },
  remove: { type: 'boolean', default: false, help: 'remove the lab\'s images instead of building them' }
})

runMain(async () => {
  const flags = parseFlags(process.argv.slice(2), FLAGS, { command: 'npm run images --', description: 'Build the lab\'s images: watt-lab-runtime and watt-lab-service (deploy/Dockerfile), on a local base made from the project\'s own Node unless --base says otherwise.' })
  const engine = await ensureEngine()
  try {
    if (flags.remove) {
      process.stdout.write(`removed: ${(await removeImages()).join(', ') || 'nothing'}\n`)
      return 0
    }
    const log = (/** @type {string} */ line) => process.stderr.write(`${line}\n`)
    const done = await buildImages({ base: flags.base, force: flags.force, log })
    process.stdout.write(`images ${Object.values(done.images).join(', ')} on ${done.base} (engine ${engine.version}); built ${done.built.join(', ') || 'nothing'} in ${done.seconds.toFixed(1)} s\n`)
    return 0
  } finally {
    await engine.stop()
  }
})
