// @ts-check
// `npm run start:data`: the data runtime in the foreground on 127.0.0.1:3044
// (data-source on :3045), datasets generated first when missing. Ctrl-C stops it.
import { parseFlags, runMain, UsageError } from '../lib/cli.js'
import { isListening } from '../lib/ports.js'
import { spawnTracked } from '../lib/processes.js'
import { PROJECT_NODE, PROJECT_ROOT, wattpmCli } from '../lib/paths.js'
import { waitForReady } from '../lib/runtime.js'
import { DEFAULT_CACHE_DIR, ensureDataset } from './dataset/cache.js'
import { FLAGS as BENCH_FLAGS, sizesFrom } from './plan.js'
import { API_PREFIX, CONFIG_FILE, dataRuntimeEnv, DEFAULT_PORT, DEFAULT_SOURCE_PORT, READY_PATHS } from './runtime.js'

/** @type {Record<string, import('../lib/cli.js').FlagSpec>} */
const FLAGS = {
  port: { type: 'integer', default: DEFAULT_PORT, min: 1, max: 65535, help: 'the data API\'s port on 127.0.0.1' },
  'source-port': { type: 'integer', default: DEFAULT_SOURCE_PORT, min: 1, max: 65535, help: 'the data-source\'s own TCP port (the tcp source)' },
  'small-size': BENCH_FLAGS['small-size'],
  'large-size': BENCH_FLAGS['large-size'],
  seed: BENCH_FLAGS.seed,
  'cache-dir': BENCH_FLAGS['cache-dir']
}

async function main () {
  const flags = parseFlags(process.argv.slice(2), FLAGS, {
    command: 'node bench/data/start.js',
    description: 'Runs the data runtime (bench/data/watt.json) in the foreground for curl and friends.'
  })
  const sizes = sizesFrom(flags)
  for (const port of [flags.port, flags.sourcePort]) {
    if (await isListening(port)) throw new UsageError(`port ${port} is already in use on 127.0.0.1; pick others with --port and --source-port`)
  }
  const log = (/** @type {string} */ line) => process.stderr.write(line + '\n')
  const cacheDir = flags.cacheDir ?? DEFAULT_CACHE_DIR
  const small = await ensureDataset({ dataset: 'small', targetBytes: sizes.small, seed: flags.seed, cacheDir, log })
  const large = await ensureDataset({ dataset: 'large', targetBytes: sizes.large, seed: flags.seed, cacheDir, log })

  const { exited } = spawnTracked(PROJECT_NODE, [wattpmCli(), 'start', '--config', CONFIG_FILE], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...dataRuntimeEnv({ small: small.file, large: large.file }, flags.port, flags.sourcePort) },
    stdio: ['ignore', 'inherit', 'inherit']
  })
  let dead = false
  exited.then(() => { dead = true })
  const base = `127.0.0.1:${flags.port}${API_PREFIX}/data`
  await waitForReady(`http://127.0.0.1:${flags.port}`, { paths: READY_PATHS, isDead: () => dead })
  log([
    `data runtime ready on 127.0.0.1:${flags.port} (data-source on :${flags.sourcePort}); Ctrl-C stops it. Try:`,
    `  curl ${base}/small/disk/stream/spk_1`,
    `  curl '${base}/small/net/promise/spk_1?via=tcp'`,
    `  curl '${base}/large/stream/10000?via=ipc'`
  ].join('\n'))
  const { code, signal } = await exited
  return signal ? 1 : (code ?? 1)
}

runMain(main)
