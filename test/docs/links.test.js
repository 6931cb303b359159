// Every relative link and anchor in every tracked Markdown file resolves: the
// file exists, and an anchor is a heading's GitHub slug in its target. A moved
// section or a renamed heading fails here, naming the file, line and link.
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { PROJECT_ROOT } from '../../bench/lib/paths.js'
import { anchorsOf, brokenLinks, linksOf } from '../helpers/markdown-links.js'

/** The repository's tracked Markdown files, or null where git cannot list them. */
function trackedMarkdown () {
  try {
    return execFileSync('git', ['ls-files', '-z', '--', '*.md'], { cwd: PROJECT_ROOT, encoding: 'utf8' })
      .split('\0').filter((file) => file && !file.split('/').includes('node_modules'))
  } catch {
    return null
  }
}

t.test('every relative link and anchor of the repository\'s Markdown resolves', async (t) => {
  const files = trackedMarkdown()
  if (!files) return t.skip('git ls-files failed: not a git checkout, or git is missing')
  t.ok(files.includes('README.md') && files.some((file) => file.startsWith('docs/')), `${files.length} tracked Markdown files, README.md and docs/ among them`)
  const links = files.length
  t.ok(links > 5, 'more than a handful of files checked')
  const broken = brokenLinks(PROJECT_ROOT, files)
  t.same(broken.map(({ file, line, href, reason }) => `${file}:${line} ${href}: ${reason}`), [], 'no broken link')
})

t.test('the checker finds a missing file, a wrong anchor and a wrong line anchor, and nothing else', async (t) => {
  const root = t.testdir()
  mkdirSync(join(root, 'docs'))
  mkdirSync(join(root, 'pkg'))
  writeFileSync(join(root, 'pkg', 'README.md'), '# Pkg\n\n## Use it\n')
  writeFileSync(join(root, 'code.js'), 'export {}\n')
  writeFileSync(join(root, 'docs', 'topic.md'), [
    '# Topic',
    '',
    '## Results (2 cores, measured with `npm run bench`)',
    '',
    '## Results (2 cores, measured with `npm run bench`)',
    '',
    '<a id="custom"></a>',
    ''
  ].join('\n'))
  writeFileSync(join(root, 'README.md'), [
    '# Lab',
    '',
    '## What the numbers say',
    '',
    '[ok](docs/topic.md) [ok](docs/topic.md#results-2-cores-measured-with-npm-run-bench) [ok, the duplicate](docs/topic.md#results-2-cores-measured-with-npm-run-bench-1)',
    '[ok](#what-the-numbers-say) [ok](docs/topic.md#custom) [ok](pkg/) [ok](pkg#use-it) [ok](/code.js#L1-L2) [ok](https://example.com/x.md#nope)',
    '',
    '[missing](docs/gone.md)',
    '[bad anchor](docs/topic.md#results)',
    '[bad self anchor](#what-the-numbers-mean)',
    '![missing image](img/chart.svg)',
    '[not markdown](code.js#top)',
    '',
    '```md',
    '[in a code block](nowhere.md)',
    '```',
    '',
    'and `[in a code span](nowhere.md)`',
    ''
  ].join('\n'))
  const broken = brokenLinks(root, ['README.md', 'docs/topic.md'])
  t.same(broken.map(({ line, href }) => `${line} ${href}`), [
    '8 docs/gone.md',
    '9 docs/topic.md#results',
    '10 #what-the-numbers-mean',
    '11 img/chart.svg',
    '12 code.js#top'
  ], 'exactly the broken ones, on their lines; code blocks and spans are not links')
  t.match(broken[0].reason, /no such file: docs\/gone\.md/)
  t.match(broken[1].reason, /no heading in docs\/topic\.md has that slug/)
})

t.test('slugs are GitHub\'s: punctuation dropped, code kept, duplicates numbered', async (t) => {
  const anchors = anchorsOf('# A\n\n## Outside the runtime: `tcp-process` and `tcp-remote`\n\n## Apps (`npm run bench:apps`)\n\n## A\n')
  t.same([...anchors], ['a', 'outside-the-runtime-tcp-process-and-tcp-remote', 'apps-npm-run-benchapps', 'a-1'])
  t.same(linksOf('see [x](y.md#z)\n').map((l) => l.href), ['y.md#z'])
})
