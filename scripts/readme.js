// @ts-check
// npm run readme — rewrites the READMEs' generated blocks from result files:
// the results block of README.md (npm run bench, bench:profile) and the data
// block of bench/data/README.md (bench:data at two sizes, parser-speed).
//   npm run readme                                   from the files each block names (committed under results/published/)
//   npm run readme -- --publish results/transports-….json [--profile …] [--data …] [--data-large …] [--parsers …]
//                                                    copy those into results/published/ first (then commit them)
//   npm run readme -- --check                        exit 1 when a block differs from what would be written
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { parseFlags, runMain, UsageError } from '../bench/lib/cli.js'
import { PROJECT_ROOT } from '../bench/lib/paths.js'
import { BLOCKS, projectRelative, renderBlock, replaceBlock, sourcesOf } from './readme/block.js'

/** flag → [block, role]: the file it names is published as that role's default path */
const PUBLISH_FLAGS = /** @type {const} */ ({
  publish: ['results', 'transports'],
  profile: ['results', 'profile'],
  data: ['data', 'data'],
  'data-large': ['data', 'large'],
  parsers: ['data', 'parsers']
})

runMain(async () => {
  const flags = parseFlags(process.argv.slice(2), {
    publish: { type: 'string', help: 'a transports result (npm run bench) to publish as results/published/transports.json' },
    profile: { type: 'string', help: 'a profile result (npm run bench:profile) to publish as results/published/profile.json' },
    data: { type: 'string', help: 'a data result (npm run bench:data) to publish as results/published/data.json' },
    'data-large': { type: 'string', help: 'a data result at a large size (npm run bench:data -- --large-size 2GB) to publish as results/published/data-2GB.json' },
    parsers: { type: 'string', help: 'a parser-speed result (bench/data/parser-speed.js --out) to publish as results/published/parsers.json' },
    check: { type: 'boolean', default: false, help: 'only compare: exit 1 when a block is not what would be written' }
  }, { command: 'npm run readme --', description: 'Rewrites the READMEs\' generated blocks (between their markers) from result files.' })

  /** @type {Record<string, Record<string, string>>} */
  const sources = {}
  /** @type {Record<string, string>} */
  const texts = {}
  for (const [name, block] of Object.entries(BLOCKS)) {
    texts[name] = readFileSync(block.file, 'utf8')
    sources[name] = sourcesOf(texts[name], name)
  }
  for (const [flag, [name, role]] of Object.entries(PUBLISH_FLAGS)) {
    const camel = flag.replace(/-(\w)/g, (_, c) => c.toUpperCase())
    const given = flags[camel]
    if (!given) continue
    if (flags.check) throw new UsageError('--check compares only; publish without it')
    const from = resolve(given)
    if (!existsSync(from)) throw new UsageError(`--${flag}: no such file ${given}`)
    const published = BLOCKS[name].sources[role].path
    const to = join(PROJECT_ROOT, published)
    mkdirSync(dirname(to), { recursive: true })
    copyFileSync(from, to)
    process.stdout.write(`published ${projectRelative(given)} as ${published}\n`)
    sources[name][role] = published
  }

  let drift = 0
  for (const [name, block] of Object.entries(BLOCKS)) {
    const file = relative(PROJECT_ROOT, block.file)
    const from = Object.values(sources[name]).join(' and ')
    const next = replaceBlock(texts[name], renderBlock(sources[name], name), name)
    if (flags.check) {
      if (next === texts[name]) process.stdout.write(`${file} ${name} block is up to date\n`)
      else {
        process.stderr.write(`${file} ${name} block differs from what ${from} give: run npm run readme\n`)
        drift++
      }
    } else if (next === texts[name]) {
      process.stdout.write(`${file} unchanged (already written from ${from})\n`)
    } else {
      writeFileSync(block.file, next)
      process.stdout.write(`${file} ${name} block rewritten from ${from}\n`)
    }
  }
  return drift ? 1 : 0
})
