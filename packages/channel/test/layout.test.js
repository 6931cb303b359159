// The package's code stays readable at a glance: no file under lib/ over 300 lines (one job per file: split a
// longer one along a seam), and no line of lib/ or of the entry files over 120 characters (as eslint.config.js).
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
