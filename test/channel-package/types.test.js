// A TypeScript consumer type-checks against the packed tarball: the package is
// unpacked into a temp dir outside the repository as node_modules/@watt-lab/channel,
// next to the consumer's own dependencies (undici, @types/node, linked from the
// repository's node_modules), and the repository's tsc checks
// fixture/consumer/consumer.ts there (strict, nodenext, declarations included).
// Then, to prove the check bites: a consumer with a type error fails it, and so
// does the good consumer once the declarations say `any` where it expects an error.
import { execFile } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { test } from 'tap'
import { extractChannel, packChannel } from '../helpers/pack-channel.js'

const ROOT = join(import.meta.dirname, '..', '..')
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
const CONSUMER = join(import.meta.dirname, 'fixture', 'consumer', 'consumer.ts')

const TSCONFIG = {
  compilerOptions: {
    target: 'es2022',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    lib: ['es2023'],
    types: ['node'],
    strict: true,
    noEmit: true,
    // the package's declarations are checked too, not only their use
    skipLibCheck: false,
    verbatimModuleSyntax: true,
    noUnusedLocals: false
  },
  files: ['consumer.ts']
}

/**
 * Runs tsc in `dir`: its exit code and what it printed.
 * @param {string} dir
 */
async function typecheck (dir) {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [TSC, '-p', join(dir, 'tsconfig.json'), '--pretty', 'false'], { cwd: dir, maxBuffer: 16 * 1024 * 1024 })
    return { code: 0, output: stdout }
  } catch (err) {
    const failed = /** @type {{ code?: number, stdout?: string, stderr?: string }} */ (err)
    return { code: failed.code ?? 1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` }
  }
}

/**
 * A consumer project: its package.json, tsconfig, the unpacked tarball and its own
 * dependencies (links to the repository's copies).
 * @param {string} tarball
 */
async function consumerProject (tarball) {
  const dir = mkdtempSync(join(tmpdir(), 'channel-consumer-'))
  const nodeModules = join(dir, 'node_modules')
  const packageDir = await extractChannel(tarball, nodeModules)
  for (const name of ['undici', '@types/node']) {
    const link = join(nodeModules, name)
    mkdirSync(dirname(link), { recursive: true })
    symlinkSync(join(ROOT, 'node_modules', name), link, 'dir')
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'channel-consumer', private: true, type: 'module' }, null, 2))
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2))
  copyFileSync(CONSUMER, join(dir, 'consumer.ts'))
  return { dir, packageDir }
}

test('a TypeScript consumer type-checks against the packed tarball, and the check bites', async (t) => {
  const { tarball } = await packChannel()
  t.teardown(() => rmSync(dirname(tarball), { recursive: true, force: true }))
  const { dir, packageDir } = await consumerProject(tarball)
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))

  const good = await typecheck(dir)
  t.equal(good.code, 0, 'consumer.ts type-checks')
  if (good.code !== 0) t.comment(good.output)

  t.test('a consumer that misuses the API fails', async (t) => {
    writeFileSync(join(dir, 'consumer.ts'), [
      "import { connect } from '@watt-lab/channel'",
      "import createMeshPortInterceptor from '@watt-lab/channel/mesh-port'",
      "connect('orders', { kind: 'tcp' })",
      "createMeshPortInterceptor({ exclude: 'db' })",
      ''
    ].join('\n'))
    const bad = await typecheck(dir)
    t.not(bad.code, 0, 'tsc fails')
    t.match(bad.output, /consumer\.ts\(3,\d+\): error TS2322: Type '"tcp"' is not assignable/, 'on the kind')
    t.match(bad.output, /consumer\.ts\(4,\d+\): error TS2322: Type 'string' is not assignable to type 'string\[\]/, 'on exclude')
    copyFileSync(CONSUMER, join(dir, 'consumer.ts'))
  })

  t.test('declarations that said `any` would fail consumer.ts (its @ts-expect-error lines)', async (t) => {
    const client = join(packageDir, 'types', 'lib', 'client.d.ts')
    const declarations = readFileSync(client, 'utf8')
    const loose = declarations.replace(/(\n\s+kind\?: )[^;\n]+;/, '$1any;')
    t.not(loose, declarations, "ConnectOptions' kind found in the declarations")
    writeFileSync(client, loose)
    const bad = await typecheck(dir)
    writeFileSync(client, declarations)
    t.not(bad.code, 0, 'tsc fails')
    t.match(bad.output, /error TS2578: Unused '@ts-expect-error' directive/, "on the expected error that did not happen ('tcp' as a kind)")
  })
})
