// @ts-check
// npm run readme — rewrites the generated blocks of the Markdown files from result
// files (scripts/readme/block.js lists them: README.md's results, bench/data's data,
// the channel README's compat table, docs/suites.md's apps, bench/realtime's realtime).
//   npm run readme                                   from the files each block names (committed under results/published/)
//   npm run readme -- --publish results/transports-….json [--profile …] [--data …] [--data-large …] [--parsers …] [--apps …] [--realtime …] [--compat …]
//                                                    copy those into results/published/ first (then commit them)
//   npm run readme -- --check                        exit 1 when a block differs from what would be written
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { parseFlags, runMain, UsageError } from '../bench/lib/cli.js'
import { PROJECT_ROOT } from '../bench/lib/paths.js'
import { BLOCKS, hasBlock, projectRelative, renderBlock, replaceBlock, sourcesOf } from './readme/block.js'

/** flag → the block and role whose published path the named file is copied to, and its help */
const PUBLISH_FLAGS = /** @type {const} */ ({
  publish: { block: 'results', role: 'transports', what: 'a transports result (npm run bench)' },
  profile: { block: 'results', role: 'profile', what: 'a profile result (npm run bench:profile)' },
  data: { block: 'data', role: 'data', what: 'a data result (npm run bench:data)' },
  'data-large': { block: 'data', role: 'large', what: 'a data result at a large size (npm run bench:data -- --large-size 2GB)' },
  parsers: { block: 'data', role: 'parsers', what: 'a parser-speed result (bench/data/parser-speed.js --out)' },
  apps: { block: 'apps', role: 'apps', what: 'an apps result (npm run bench:apps)' },
  realtime: { block: 'realtime', role: 'realtime', what: 'a realtime result (npm run bench:realtime)' },
  compat: { block: 'compat', role: 'compat', what: 'a compat result (npm run compat)' }
})

runMain(async () => {
  const flags = parseFlags(process.argv.slice(2), {
    ...Object.fromEntries(Object.entries(PUBLISH_FLAGS).map(([flag, { block, role, what }]) =>
      [flag, { type: 'string', help: `${what} to publish as ${BLOCKS[block].sources[role].path}` }])),
    check: { type: 'boolean', default: false, help: 'only compare: exit 1 when a block is not what would be written' }
  }, { command: 'npm run readme --', description: 'Rewrites the READMEs\' generated blocks (between their markers) from result files.' })

  /** @type {Record<string, Record<string, string>>} */
  const sources = {}
  /** @type {Record<string, string>} */
  const texts = {}
  for (const [name, block] of Object.entries(BLOCKS)) {
    const text = readFileSync(block.file, 'utf8')
    // a block not placed yet (no markers in its file) is skipped, and said so
    if (block.optional && !hasBlock(text, name)) {
      process.stdout.write(`${relative(PROJECT_ROOT, block.file)} has no ${name} block yet (<!-- ${name}:start --> … <!-- ${name}:end -->): skipped\n`)
      continue
    }
    texts[name] = text
    sources[name] = sourcesOf(text, name)
  }
  for (const [flag, { block: name, role }] of Object.entries(PUBLISH_FLAGS)) {
    const camel = flag.replace(/-(\w)/g, (_, c) => c.toUpperCase())
    const given = flags[camel]
    if (!given) continue
    if (!sources[name]) throw new UsageError(`--${flag}: ${relative(PROJECT_ROOT, BLOCKS[name].file)} has no ${name} block to write it into yet`)
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
    if (!sources[name]) continue
    const file = relative(PROJECT_ROOT, block.file)
    const from = Object.values(sources[name]).join(' and ')
    // A file may hold several blocks: each is written into the file as the one before left it
    if (!flags.check) texts[name] = readFileSync(block.file, 'utf8')
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
