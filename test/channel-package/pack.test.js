// What `npm pack` puts in @watt-lab/channel's tarball, as a publish would (its
// prepack generates the type declarations): the runtime code, the declarations
// of every export, README, LICENSE and CHANGELOG; no test, bench or fixture.
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { test } from 'tap'
import { CHANNEL_DIR, extractChannel, lockPacking, npmCommand, packChannel } from '../helpers/pack-channel.js'

const ENTRY_POINTS = ['.', './http', './mesh-port']

test('the packed tarball holds the runtime code and its types, and nothing of the tests', async (t) => {
  const destination = mkdtempSync(join(tmpdir(), 'channel-pack-test-'))
  t.teardown(() => rmSync(destination, { recursive: true, force: true }))
  // npm pack itself, not a cached copy: what it leaves in the source folder is checked below
  const { tarball, files, version } = await packChannel(destination, { fresh: true })
  t.comment(`${files.length} files in ${tarball}`)

  const offending = files.filter((file) => /^(test|bench)\//.test(file) || /(^|\/)(fixtures?|__tests__)(\/|$)/.test(file) || /\.(test|spec|bench)\.[cm]?[jt]s$/.test(file))
  t.same(offending, [], 'no test, bench or fixture file')
  t.same(files.filter((file) => /(^|\/)tsconfig[^/]*\.json$|\.tgz$/.test(file)), [], 'no build config or tarball')
  for (const file of ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'index.js', 'http.js', 'mesh-port.js', 'lib/mesh-port/index.js']) {
    t.ok(files.includes(file), `${file} is in`)
  }
  for (const file of ['types/index.d.ts', 'types/http.d.ts', 'types/mesh-port.d.ts']) {
    t.ok(files.includes(file), `${file} is in`)
  }
  // Every module the entry points load is in (the declarations of each as well).
  for (const file of files.filter((f) => f.endsWith('.js'))) {
    t.ok(files.includes(`types/${file.replace(/\.js$/, '.d.ts')}`), `declarations of ${file}`)
  }
  t.notOk(existsSync(join(CHANNEL_DIR, 'types')), 'postpack removed the generated declarations from the source folder')

  const root = mkdtempSync(join(tmpdir(), 'channel-pack-unpacked-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  const dir = await extractChannel(tarball, join(root, 'node_modules'))
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
  t.equal(manifest.name, '@watt-lab/channel')
  t.notOk(manifest.private, 'not private')
  t.match(manifest.version, /^\d+\.\d+\.\d+$/, 'a version')
  t.equal(manifest.version, version, 'the version npm reported')
  t.ok(readFileSync(join(dir, 'CHANGELOG.md'), 'utf8').includes(`## ${manifest.version}`), 'the CHANGELOG has an entry for this version')
  t.match(readFileSync(join(dir, 'LICENSE'), 'utf8'), /^MIT License/, 'MIT, as package.json says')
  t.equal(manifest.license, 'MIT')
  t.match(manifest.dependencies?.undici, /^\^7\.\d+\.\d+$/, 'undici: a caret range within 7 (README, "Dependencies")')
  t.equal(manifest.engines?.node, '>=22.19.0')
  t.ok(existsSync(join(dir, manifest.types)), `top-level types (${manifest.types}) is in the tarball`)
  t.equal(manifest.types, manifest.exports['.'].types, 'and is the one of "."')

  t.same(Object.keys(manifest.exports).filter((key) => key !== './package.json'), ENTRY_POINTS, 'the three entry points')
  for (const entry of ENTRY_POINTS) {
    const conditions = manifest.exports[entry]
    t.equal(Object.keys(conditions)[0], 'types', `${entry}: "types" comes first (TypeScript takes the first condition that matches)`)
    t.ok(existsSync(join(dir, conditions.types)), `${entry}: ${conditions.types} is in the tarball`)
    t.ok(existsSync(join(dir, conditions.default)), `${entry}: ${conditions.default} is in the tarball`)
  }
})

test('npm pack --dry-run, as a user runs it, lists no test, bench or fixture file', async (t) => {
  const [cmd, args] = npmCommand()
  const { stdout } = await packChannelDryRun(cmd, args)
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf('[')))
  const files = packed.files.map((/** @type {{ path: string }} */ f) => f.path)
  t.same(files.filter((file) => /^(test|bench)\/|fixture/.test(file)), [])
  t.ok(files.includes('types/index.d.ts'), 'the declarations are generated for a dry run too')
})

/**
 * @param {string} cmd
 * @param {string[]} args
 */
async function packChannelDryRun (cmd, args) {
  // packChannel's lock: the dry run too runs prepack and postpack.
  const destination = mkdtempSync(join(tmpdir(), 'channel-pack-dry-'))
  const release = await lockPacking()
  try {
    return await promisify(execFile)(cmd, [...args, 'pack', '--dry-run', '--json', '--pack-destination', destination], { cwd: CHANNEL_DIR, maxBuffer: 16 * 1024 * 1024 })
  } finally {
    release()
    rmSync(destination, { recursive: true, force: true })
  }
}
