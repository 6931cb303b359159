// @ts-check
// npm run readme — rewrites the README's results block from result files.
//   npm run readme                                   from the files the block names (committed under results/published/)
//   npm run readme -- --publish results/transports-….json [--profile results/profile-….json]
//                                                    copy those into results/published/ first (then commit them)
//   npm run readme -- --check                        exit 1 when README.md differs from what would be written
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { parseFlags, runMain, UsageError } from '../bench/lib/cli.js'
import { PROJECT_ROOT } from '../bench/lib/paths.js'
import { projectRelative, PUBLISHED, README, renderBlock, replaceBlock, sourcesOf } from './readme/block.js'

runMain(async () => {
  const flags = parseFlags(process.argv.slice(2), {
    publish: { type: 'string', help: 'a transports result (npm run bench) to publish as results/published/transports.json' },
    profile: { type: 'string', help: 'a profile result (npm run bench:profile) to publish as results/published/profile.json' },
    check: { type: 'boolean', default: false, help: 'only compare: exit 1 when README.md is not what would be written' }
  }, { command: 'npm run readme --', description: 'Rewrites the README\'s results block (between its markers) from result files.' })
  const readme = readFileSync(README, 'utf8')
  const sources = sourcesOf(readme)
  for (const [flag, target] of /** @type {const} */ ([['publish', 'transports'], ['profile', 'profile']])) {
    if (!flags[flag]) continue
    if (flags.check) throw new UsageError('--check compares only; publish without it')
    const from = resolve(flags[flag])
    if (!existsSync(from)) throw new UsageError(`--${flag}: no such file ${flags[flag]}`)
    const to = join(PROJECT_ROOT, PUBLISHED[target])
    mkdirSync(dirname(to), { recursive: true })
    copyFileSync(from, to)
    process.stdout.write(`published ${projectRelative(flags[flag])} as ${PUBLISHED[target]}\n`)
    sources[target] = PUBLISHED[target]
  }
  const next = replaceBlock(readme, renderBlock(sources))
  if (flags.check) {
    if (next === readme) { process.stdout.write('README.md results block is up to date\n'); return 0 }
    process.stderr.write(`README.md results block differs from what ${sources.transports}${sources.profile ? ` and ${sources.profile}` : ''} give: run npm run readme\n`)
    return 1
  }
  if (next === readme) process.stdout.write(`README.md unchanged (already written from ${sources.transports}${sources.profile ? ` and ${sources.profile}` : ''})\n`)
  else {
    writeFileSync(README, next)
    process.stdout.write(`README.md results block rewritten from ${sources.transports}${sources.profile ? ` and ${sources.profile}` : ''}\n`)
  }
  return 0
})
