// The README's apps block follows the data: a row per route measured with
// each path's req/s and the paired ratios, FAILED (never a number) for a path
// that failed, a sentence per shape measured and none for a shape that was
// not, the targets with their verdicts; and a placeholder that says how to
// publish while no result is. npm run readme writes it between its markers in
// README.md once they are placed, and leaves a README without them alone.
import t from 'tap'
import { writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { PROJECT_ROOT } from '../../bench/lib/paths.js'
import { fakeAppsResult } from '../helpers/fake-apps-result.js'
import { appsBlock, appsPlaceholder, appsSummaryBlock } from '../../scripts/readme/apps-block.js'
import { BLOCKS, hasBlock, renderBlock, replaceBlock, sourcesOf } from '../../scripts/readme/block.js'

/** @param {{ routes?: string[], failed?: string[] }} [options] */
const fakeResult = ({ routes = ['catalog/list', 'catalog/join', 'orders/checkout'], failed = [] } = {}) => fakeAppsResult({ routes, failed })

t.test('a row per route, ratios paired per round, sentences from the figures', async (t) => {
  const block = appsBlock({ apps: fakeResult() })
  t.match(block, '| `catalog/list` | 1,050 | 3,150 | 3.00× | 2,100 | 1.50× | 20 / 6 / 6 | 900 / 300 / 300 |')
  t.match(block, /gateway` in front of `@platformatic\/db` and a service\*\* \(catalog\): the drop-in served 3\.00× the mesh's requests on the db's list route/)
  t.match(block, /\*\*Writes\*\* \(orders\): the drop-in served 3\.00× on a checkout/)
  t.match(block, /0 of 3,000 acknowledged orders were lost or written twice/)
  t.notMatch(block, /backend-for-frontend/, 'no sentence for a shape not measured')
  t.match(block, /catalog, gateway → db list route: mesh-port ÷ ipc \(target ≥ 2\.5×\): 3\.00× \(rounds 3\.00–3\.00\): met\./)
  t.match(block, /failed checks \(target 0 in every run\): 0 failed run\(s\) of 18: met\./)
  t.equal(appsBlock({ apps: fakeResult() }), block, 'same input, same bytes')
})

t.test('both loads: the busy routes are named, ranked against TCP apart, and held to issue 51\'s targets', async (t) => {
  const block = appsBlock({ apps: fakeResult({ routes: ['catalog/list', 'orders/insert', 'orders/insert@busy'] }) })
  t.match(block, '10 connections (the routes marked `@busy`: 50), pipelining 1')
  t.match(block, '| `orders/insert@busy` | 1,050 | 3,150 | 3.00× | 2,100 | 1.50× |')
  t.match(block, /TCP's requests across the routes at 10 connections, and 1\.50–1\.50× at 50\./)
  t.match(block, /orders\/insert@busy: mesh-port ÷ tcp \(target ≥ 1\.0×\): 1\.50×/, 'inserts are held to TCP\'s rate, not 1.1×')
  t.match(block, /catalog\/list: mesh-port ÷ tcp \(target ≥ 1\.1×\)/)
  t.match(block, /orders\/insert@busy: p99 mesh-port against tcp \(target ≤ tcp's\): 6 against 6 ms: met\./)
  t.match(appsSummaryBlock({ apps: fakeResult({ routes: ['catalog/list', 'catalog/list@busy'] }) }), /^### Your kind of app \(`npm run bench:apps`, 10 connections \(the routes marked `@busy`: 50\),/)
})

t.test('a failed path is FAILED, and no ratio or sentence is made from it', async (t) => {
  const block = appsBlock({ apps: fakeResult({ failed: ['catalog/list:mesh-port', 'catalog/list:mesh-port'] }) })
  t.match(block, '| `catalog/list` | 1,050 | FAILED | – | 2,100 | – |')
  t.notMatch(block, /on the db's list route/)
  t.match(block, /catalog, gateway → db list route: mesh-port ÷ ipc \(target ≥ 2\.5×\): not measured\./)
  t.match(block, /failed checks \(target 0 in every run\): 2 failed run\(s\) of 18: missed\./)
})

t.test('before a result is published, the block says how to make one', async (t) => {
  t.match(appsPlaceholder('results/published/apps.json'), /npm run bench:apps -- --out results\/apps\.json.*npm run readme -- --apps results\/apps\.json.*results\/published\/apps\.json/)
})

t.test('npm run readme: the apps block between its markers, from the named file or the placeholder', async (t) => {
  t.equal(BLOCKS.apps.optional, true, 'a README without the markers is left alone')
  const readme = '# Lab\n\n<!-- apps:start -->\nold\n<!-- apps:end -->\n\nafter\n'
  t.ok(hasBlock(readme, 'apps'))
  t.notOk(hasBlock('# Lab\n', 'apps'))
  t.same(sourcesOf(readme, 'apps'), { apps: 'results/published/apps.json' }, 'the published file by default')

  const missing = renderBlock({ apps: 'results/published/no-such-apps.json' }, 'apps')
  t.match(missing, /^<!-- apps:start apps=results\/published\/no-such-apps\.json \(written by npm run readme/)
  t.match(missing, /No apps figures are published yet/)

  const file = join(t.testdir(), 'apps.json')
  writeFileSync(file, JSON.stringify(fakeResult()))
  const block = renderBlock({ apps: relative(PROJECT_ROOT, file) }, 'apps')
  t.match(block, /\| `catalog\/list` \| 1,050 \| 3,150 \| 3\.00× \|/)
  const written = replaceBlock(readme, block, 'apps')
  t.match(written, /^# Lab\n\n<!-- apps:start apps=/)
  t.match(written, /<!-- apps:end -->\n\nafter\n$/)
  t.equal(replaceBlock(written, block, 'apps'), written, 'writing it again changes nothing')
})

t.test('the README\'s short form: the same sentences, no table, FAILED said, and beside the apps block', async (t) => {
  const summary = appsSummaryBlock({ apps: fakeResult() })
  t.match(summary, /^### Your kind of app \(`npm run bench:apps`, 10 connections, started 2026-01-02T03:04:05\.000Z, `results\/fake-apps\.json`\)/)
  t.match(summary, /the drop-in served 3\.00× the mesh's requests on the db's list route/)
  t.notMatch(summary, /\| route \|/, 'the tables stay in docs/suites.md')
  t.notMatch(summary, /FAILED/)
  t.match(summary, /\(docs\/suites\.md#apps-npm-run-benchapps\)/)
  const failed = appsSummaryBlock({ apps: fakeResult({ failed: ['catalog/list:mesh-port'] }) })
  t.match(failed, /\*\*2 run\(s\) of this result FAILED\*\*/)
  t.notMatch(failed, /on the db's list route/, 'no sentence from a failed path')
  t.equal(BLOCKS['apps-summary'].file, BLOCKS.results.file, 'on the README, the front door')
  t.same(BLOCKS['apps-summary'].sources, BLOCKS.apps.sources, 'from the same published file as the apps block')
})
