// The measured reasons behind tuned constants live in docs/decisions.md, and the
// code's comments cite them by id (issue 45): every id a comment cites has its
// entry, and no comment under the channel library, lib/ or bench/lib keeps
// run-by-run figures of its own.
import t from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'

const root = resolve(import.meta.dirname, '..', '..')
const FOLDERS = ['packages/channel/lib', 'lib', 'bench/lib']
const DECISIONS = join(root, 'docs', 'decisions.md')

/** An id as cited: D-43, D-44-sqlite, D-hold-slack. */
const ID = /\bD-[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*/g
/** An entry's heading: `## D-hold: …`. */
const HEADING = /^#{2,3} (D-[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*):/gm

/** @param {string} dir */
function sources (dir) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(c|m)?(j|t)s$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((file) => !relative(root, file).split('/').includes('node_modules'))
}

/**
 * The comment text of each line of a JS source: `//` comments (whole-line or trailing)
 * and the lines of block comments. Good enough for this code base: a `//` inside a
 * string must not follow whitespace (URLs do not), and block comments open a line.
 * @param {string} text
 * @returns {{ line: number, text: string }[]}
 */
export function commentLines (text) {
  const out = []
  let inBlock = false
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]
    let comment = null
    if (inBlock) {
      comment = line
      if (line.includes('*/')) inBlock = false
    } else if (/^\s*\/\*/.test(line)) {
      comment = line
      inBlock = !line.includes('*/')
    } else {
      const trailing = /(?:^|\s)\/\/(.*)$/.exec(line)
      if (trailing) comment = trailing[1]
    }
    if (comment !== null) out.push({ line: i + 1, text: comment })
  }
  return out
}

// What marks a measurement rather than a setting: a unit a run reports (time per call,
// throughput, a share, memory seen, page faults), a range of such figures, figures with
// decimals side by side, a tally or comparison ("5,132 of 7,120", "327 against 643"), an
// approximate reading ("~0.3 µs", "about 0.4 µs", "~1000") or a time with decimals ("1.2 s"),
// or a figure in a line that says it was measured or profiled.
// A setting's own size or duration (a 64 KiB frame, a default of 2000 ms, 10 s to stop)
// uses none of these, or one alone.
const NUMBER = String.raw`\d[\d,]*(?:\.\d+)?`
const MEASURED_UNIT = String.raw`(?:µs|us|req/s|%|MiB|MB/s|GiB|(?:minor |page )?faults)`
const RULES = [
  { name: 'two figures in measured units', test: (/** @type {string} */ s) => (s.match(new RegExp(`${NUMBER}\\s?${MEASURED_UNIT}(?![\\w/])`, 'g')) ?? []).length >= 2 },
  { name: 'a range of figures', test: (/** @type {string} */ s) => new RegExp(`${NUMBER}\\s?[–-]\\s?${NUMBER}\\s?(?:${MEASURED_UNIT}|ms\\b|s\\b|MB\\b)`).test(s) || /\b\d+\.\d+\s?[–-]\s?\d+\.\d+\b/.test(s) },
  { name: 'decimal figures side by side', test: (/** @type {string} */ s) => (s.replace(/\b\d+(?:\.\d+){2,}\S*/g, '').match(/\b\d+\.\d+\b/g) ?? []).length >= 2 },
  { name: 'a tally or a comparison', test: (/** @type {string} */ s) => /\b\d[\d,.]* (?:of|against|vs\.?) (?:the )?\d[\d,.]*\b/.test(s) },
  { name: 'an approximate reading', test: (/** @type {string} */ s) => /~\s?\d/.test(s) || new RegExp(`(?:\\babout |\\baround )${NUMBER}\\s?(?:${MEASURED_UNIT}|x\\b|ms\\b|s\\b)`).test(s) || /\b\d+\.\d+\s?(?:s|ms|µs)\b/.test(s) },
  { name: 'a figure said to be measured', test: (/** @type {string} */ s) => /\b(?:measured|profiled)\b/.test(s) && new RegExp(`${NUMBER}\\s?(?:${MEASURED_UNIT}|ms\\b|s\\b|KiB|MB\\b|bytes)`).test(s) }
]

/**
 * The rules a comment line breaks (none: it holds no run-by-run figures).
 * @param {string} text
 */
export function runFigures (text) {
  if (/\be\.g\./.test(text)) return [] // an example of a format (wrk's "1.23ms, 870.00us")
  return RULES.filter((rule) => rule.test(text)).map((rule) => rule.name)
}

/**
 * The comment lines of one source that hold run-by-run figures. Each line is read with
 * the comment line after it, so a history cut by a line break ("7 and" / "13% less") is
 * still seen; the first of the two is reported.
 * @param {{ line: number, text: string }[]} lines  one file's comment lines, in order
 */
export function linesWithFigures (lines) {
  return lines.flatMap((comment, i) => {
    const next = lines[i + 1]
    const joined = next?.line === comment.line + 1
    const alone = runFigures(comment.text)
    // the pair counts only where the next line alone does not (it is reported itself)
    const broken = alone.length > 0 || !joined || runFigures(next.text).length > 0 ? alone : runFigures(`${comment.text} ${next.text}`)
    return broken.length > 0 ? [{ ...comment, broken }] : []
  })
}

const files = FOLDERS.flatMap((folder) => sources(join(root, folder)))
  .map((file) => ({ file: relative(root, file), lines: commentLines(readFileSync(file, 'utf8')) }))
const comments = files.flatMap(({ file, lines }) => lines.map((comment) => ({ ...comment, file })))
const decisions = readFileSync(DECISIONS, 'utf8')
const headings = [...decisions.matchAll(HEADING)].map((match) => match[1])

t.test('the comments were read', async (t) => {
  t.ok(comments.length > 1000, `${comments.length} comment lines`)
})

t.test('every decision id a comment cites has its entry in docs/decisions.md', async (t) => {
  const cited = comments.flatMap((comment) => [...comment.text.matchAll(ID)].map(([id]) => ({ id, at: `${comment.file}:${comment.line}` })))
  t.ok(cited.length >= 10, `${cited.length} citations`)
  const missing = cited.filter(({ id }) => !headings.includes(id)).map(({ id, at }) => `${id} at ${at}`)
  t.same(missing, [], 'each cited id is a heading')
})

t.test('each entry has one heading and names the commit that measured it', async (t) => {
  t.ok(headings.length >= 20, `${headings.length} entries`)
  t.same(headings.filter((id, i) => headings.indexOf(id) !== i), [], 'no id twice')
  const sections = decisions.split(/^(?=#{2,3} D-)/m).slice(1)
  const withoutCommit = sections.filter((section) => !/\b[0-9a-f]{7,40}\b/.test(section)).map((section) => section.split('\n')[0])
  t.same(withoutCommit, [], 'a commit in every entry')
})

t.test('no comment keeps run-by-run figures', async (t) => {
  const offenders = files.flatMap(({ file, lines }) => linesWithFigures(lines)
    .map((comment) => `${file}:${comment.line}: ${comment.text.trim()} (${comment.broken.join(', ')})`))
  t.same(offenders, [], 'move the figures to docs/decisions.md and cite the entry')
})

t.test('the heuristic flags measurement histories and passes ordinary comments', async (t) => {
  const histories = [
    '// two workers served, of one worker\'s req/s: at 5 ms 0.81 and 0.83,',
    ' * 0.98, the services spending 17.5 and 16.0 µs per call (one worker: 14.6). In a third,',
    ' * rounds (48-53% at 250 ms, a slice being 2.5% of a round).',
    ' * at 16 KiB, 3 MiB higher (stream: +7 → -3 MiB), at the same throughput.',
    ' * writer took 120-157 page faults per answer (1-5 over TCP)',
    ' * allocated 5,132 of 7,120 frames afresh',
    '// connection of the pool five times (~0.3 µs per call in the entry at two workers).',
    '// measured ipc at half its later rate (327 against 643 and 686 req/s, so it failed with',
    '// ratios 0.81–0.83 against one worker',
    '// on ~1000 abandoned fan-outs',
    '// while rpc was back within 1.2 s.',
    ' * made reads of up to 128 KiB, 130,886 bytes measured, each joined by a copy),'
  ]
  for (const line of histories) t.not(runFigures(line).length, 0, `flagged: ${line}`)
  const ordinary = [
    '/** How long a first contact waits for the one before it (a default of 2000 ms). */',
    ' * Data above STRING_LIMIT travels in frames of 64 KiB, each in a buffer of 64 KiB',
    "// the keep-alive timeout (Fastify's 72 s) ends it. Watt gives a worker 10 s to",
    '/** @param {string} version  e.g. 3.67.0 or 3.68.0-alpha.1 */',
    '// One worker keeps a target\'s requests for this long (D-hold).',
    ' * Ids are positive integers below 2^31 (they wrap).',
    '/** @param {string} value e.g. 1.23ms, 870.00us, 2.01s */',
    '// five apps start within 120 s; a worker gets 10 s to stop and 10 s to exit'
  ]
  for (const line of ordinary) t.same(runFigures(line), [], `passed: ${line}`)
  const fixture = [
    '// @ts-check',
    "const url = 'http://127.0.0.1:3042/?at=0.81-0.83' // a URL is not a comment",
    '/**',
    ' * Spread per request, two workers served 19% and 21% fewer calls.',
    ' */',
    'export const X = 1 // at 8, 3% less; at 4, 7% less',
    '// at 8, 3% less than at 16; at 4 and 2, 7 and',
    '// 13% less than bounded by the pool alone',
    '// a default of 2000 ms,',
    '// frames of 64 KiB'
  ].join('\n')
  t.same(linesWithFigures(commentLines(fixture)).map((comment) => comment.line), [4, 6, 7], 'the fixture\'s histories, by line')
})

t.test('the package ships the entries its code cites, as docs/decisions.md has them now', async (t) => {
  const { execFileSync } = await import('node:child_process')
  const out = execFileSync(process.execPath, [join(root, 'scripts', 'channel-decisions.js'), '--check'], { encoding: 'utf8' })
  t.match(out, /up to date/, 'npm run channel-decisions writes nothing new')
})
