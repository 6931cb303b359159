// The package's code stays readable at a glance: no file under lib/ over 300 lines (one job per file: split a
// longer one along a seam), and no line of lib/ or of the entry files over 120 characters (as eslint.config.js).
// Its tests mirror lib/ by file: each lib/a/b.js with a function or a class has test/a/b.test.js, on that file's
// own contract. Exempt, as they hold no logic (MIRROR_EXEMPT): lib/http/index.js (re-exports only) and
// lib/wire/signals.js (the wire's constants; each is checked where it is used: wire/, http/). Every other test
// file tests several files together and says so (CROSS_CUTTING): the two kinds end to end over real workers,
// http-port end to end, the drop-in under a fake Watt, and the package's own rules (this file, decisions).
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'

const root = new URL('..', import.meta.url).pathname
const MAX_LINES = 300
const MAX_LENGTH = 120
/** A line holding a URL may run long, as the lint rule lets it (a URL cannot be broken); ESLint's own test. */
const URL_IN_LINE = /[^:/?#]:\/\/[^?#]/

const lib = readdirSync(join(root, 'lib'), { recursive: true }).map(String)
  .filter((file) => file.endsWith('.js')).map((file) => join('lib', file)).sort()
const entries = readdirSync(root).filter((file) => file.endsWith('.js')).sort()
const sources = [...entries, ...lib].map((file) => {
  const lines = readFileSync(join(root, file), 'utf8').split('\n')
  if (lines.at(-1) === '') lines.pop() // the newline that ends the last line
  return { file, lines }
})

/**
 * @param {string} file
 * @param {string} line
 */
function tooLong (file, line) {
  return [...line].length > MAX_LENGTH && !URL_IN_LINE.test(line)
}

t.test(`no file under lib/ is over ${MAX_LINES} lines`, async (t) => {
  t.ok(lib.length > 40, `${lib.length} files under lib/`)
  const long = sources.filter(({ file, lines }) => file.startsWith('lib') && lines.length > MAX_LINES)
    .map(({ file, lines }) => `${file}: ${lines.length} lines`)
  t.same(long, [], `split each along a seam into files of at most ${MAX_LINES} lines`)
})

t.test(`no line of the code is over ${MAX_LENGTH} characters`, async (t) => {
  t.same(entries, ['http.js', 'index.js', 'mesh-port.js'], 'the entry files are read too')
  const long = sources.flatMap(({ file, lines }) => lines.flatMap((line, i) =>
    tooLong(file, line) ? [`${file}:${i + 1}: ${[...line].length} characters`] : []))
  t.same(long, [], `wrap each within ${MAX_LENGTH} characters`)
})

/** lib/ files without a mirrored test, each with why: they hold no function or class. */
const MIRROR_EXEMPT = {
  'lib/http/index.js': 're-exports ./http\'s API from dispatcher.js, serve.js, signals.js and port-mux.js',
  'lib/wire/signals.js': 'constants of the wire (signals, sizes), checked by the tests of the files that use them'
}

/** Tests not named after one lib/ file: what each covers together. */
const CROSS_CUTTING = {
  'test/calls.test.js': 'client.js and server.js over both kinds (port-end.js, shm/), in real worker threads',
  'test/faults.test.js': 'deadlines, cancellation, crashes and malformed frames, client to server, both kinds',
  'test/leaks.test.js': '10,000 calls on both kinds leave no pending call, handle or heap growth',
  'test/decisions.test.js': 'every (D-…) lib/ cites has its entry in DECISIONS.md',
  'test/layout.test.js': 'the size of lib/\'s files and lines, and this mirror',
  'test/http/faults.test.js': 'http-port (dispatcher, serve, both sockets, the mux) when a callee crashes or hangs',
  'test/http/leak.test.js': 'http-port: no leak after 10,000 requests with aborts',
  'test/http/options.test.js': "./http's options as the entry point checks them (dispatcher.js, serve.js)",
  'test/http/retry.test.js': "undici's retry interceptor on the catalog's retryable codes, over http-port",
  'test/http/semantics.test.js': 'http-port against the same http.Server over TCP, byte for byte',
  'test/wire/frame-buffers.test.js': 'data frames above STRING_LIMIT between both sockets: data.js, port-mux.js',
  'test/wire/ping.test.js': "PING and PONG between two muxes (port-mux.js's, route.js's use of it)",
  'test/mesh-port/route-choice.test.js': "route.js's choice of worker with balancer.js, stall.js and links.js",
  'test/mesh-port/drop-in.test.js': 'the drop-in end to end under the fake Watt',
  'test/mesh-port/drop-in-refusals.test.js': 'the drop-in under the fake Watt: targets that refuse',
  'test/mesh-port/drop-in-workers.test.js': 'the drop-in under the fake Watt: workers that stop, crash, restart'
}

/** A file's code without its comments (a URL in a string keeps its //: only line and block comments go). */
const code = (/** @type {string[]} */ lines) => lines.join('\n').replace(/\/\*[\s\S]*?\*\//g, '')
  .split('\n').filter((line) => !/^\s*\/\//.test(line)).join('\n')
/** Whether a file holds logic: a function or a class. */
const hasLogic = (/** @type {string} */ text) => /\bfunction\b|\bclass\s+\w|=>/.test(text)
const tests = readdirSync(join(root, 'test'), { recursive: true }).map(String)
  .filter((file) => file.endsWith('.test.js')).map((file) => join('test', file)).sort()
const mirrorOf = (/** @type {string} */ file) => file.replace(/^lib\//, 'test/').replace(/\.js$/, '.test.js')

t.test('each lib/ file with a function or a class has its test, named after it', async (t) => {
  const missing = sources.filter(({ file }) => file.startsWith('lib/') && !(file in MIRROR_EXEMPT))
    .filter(({ lines }) => hasLogic(code(lines)))
    .map(({ file }) => mirrorOf(file)).filter((test) => !tests.includes(test))
  t.same(missing, [], 'write test/<path>.test.js for each (or, for a file with no logic, exempt it above)')
  t.ok(tests.includes('test/shm/ring.test.js') && tests.includes('test/shm/end.test.js'), 'shm/ has its own')
})

t.test('the exemptions are files with no logic, and every other test says what it covers', async (t) => {
  for (const file of Object.keys(MIRROR_EXEMPT)) {
    const source = sources.find((s) => s.file === file)
    t.ok(source, `${file} exists`)
    t.notOk(source && hasLogic(code(source.lines)), `${file} holds no function or class`)
  }
  const mirrors = new Set(lib.map(mirrorOf))
  const unnamed = tests.filter((test) => !mirrors.has(test) && !(test in CROSS_CUTTING))
  t.same(unnamed, [], 'a test named after no lib/ file is listed in CROSS_CUTTING with what it covers')
  t.same(Object.keys(CROSS_CUTTING).filter((test) => !tests.includes(test)), [], 'and each listed one exists')
})
