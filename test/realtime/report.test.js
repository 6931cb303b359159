// What is rendered from a realtime result follows the data: the report's
// tables (a FAILED cell carries its reason and no figure; the mesh's WebSocket
// rows say it cannot, with the error a client gets), the client-leaves rows,
// the targets with their verdicts, one chart per measured kind; and the README
// block: a row per profile with each path's rate and the paired ratio, the
// FAILED rows listed with why, and a placeholder saying how to publish while no
// result is.
import t from 'tap'
import { writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { PROJECT_ROOT } from '../../bench/lib/paths.js'
import { renderHtml, renderMarkdown } from '../../bench/lib/report.js'
import { realtimeReport } from '../../bench/realtime/report.js'
import { realtimeTable } from '../../bench/realtime/console.js'
import { targetVerdicts } from '../../bench/realtime/figures.js'
import { realtimeBlock, realtimePlaceholder } from '../../scripts/readme/realtime-block.js'
import { BLOCKS, renderBlock, replaceBlock } from '../../scripts/readme/block.js'
import { fakeRealtimeResult } from '../helpers/fake-realtime-result.js'

t.test('the report: figures where runs passed, FAILED with the reason where they did not', async (t) => {
  const md = renderMarkdown(realtimeReport(fakeRealtimeResult()))
  t.match(md, '| ws 10×64 B | tcp | 10,500 | 10,000 – 11,000 | 1.00× | 0.50 | 3.00 | 90.0 | 30.0 |')
  t.match(md, '| ws 10×64 B | mesh-port | 15,750 | 15,000 – 16,500 | 1.50× (1.50–1.50) | 0.50 | 2.00 | 60.0 | 30.0 |')
  t.match(md, /\| ws 10×64 B \| ipc \| FAILED \| 10 of 10 WebSocket\(s\) to ws:\/\/chat\.plt\.local\/echo did not open: error event, message "", then close 1006 before open \(×10\) \|/)
  t.match(md, '| sse 10 | mesh-port | 2,100 | 2,000 – 2,200 | 1.11× (1.11–1.11) | 1.00 | 8.00 | 100.0 | 10 |')
  t.match(md, '| ipc | 0 of 2 round(s) | not within 2000 ms | 99 |')
  t.match(md, '| tcp | 2 of 2 round(s) | 8.0 ms (8.0 – 8.0) | 0 |')
  t.match(md, /ws 10×64 B: WebSocket echo, mesh-port ÷ tcp \| ≥ 1\.2× \(moonshot 2×\) \| 1\.50× \(rounds 1\.50–1\.50\) \| met/)
  t.match(md, /sse 10: SSE lag p99, mesh-port against ipc \| no higher \| 8\.0 against 40\.0 ms \| met/)
  t.match(md, /failed checks \| 0 in every run \| 2 failed run\(s\) of 18 \(2 of them the mesh's WebSocket rows, which it cannot carry\) \| met/)
  t.equal((renderHtml(realtimeReport(fakeRealtimeResult())).match(/<svg/g) ?? []).length, 2, 'a chart for the echo and one for the fan-out')

  const failed = renderMarkdown(realtimeReport(fakeRealtimeResult({ failed: ['ws 10×64 B:mesh-port', 'sse 10:mesh-port'] })))
  t.match(failed, /\| ws 10×64 B \| mesh-port \| FAILED \| 10 of 10 WebSocket/)
  t.notMatch(failed, /\| ws 10×64 B \| mesh-port \| \d/, 'no number for a failed row')
  t.match(failed, /\| sse 10 \| mesh-port \| FAILED \| 3 of 10 stream\(s\) failed the event check: 2 lost \|/)
  t.match(failed, /ws 10×64 B: WebSocket echo, mesh-port ÷ tcp \| ≥ 1\.2× \(moonshot 2×\) \| FAILED \| missed/)
  const verdicts = targetVerdicts(fakeRealtimeResult({ failed: ['sse 10:mesh-port'] }))
  t.match(verdicts.find((v) => v.label === 'failed checks'), { met: false, measured: '4 failed run(s) of 18 (2 of them the mesh\'s WebSocket rows, which it cannot carry)' })
})

t.test('the closing console table says FAILED and why, and the leave outcome', async (t) => {
  const table = realtimeTable(/** @type {any} */ (fakeRealtimeResult()))
  t.match(table, /ws 10×64 B\s+│ ipc\s+│ FAILED\s+│ 10 of 10 WebSocket/)
  t.match(table, /client leaves\s+│ ipc\s+│ told 0 of 2\s+│ not within 2000 ms/)
})

t.test('the README block: rates per path, the paired ratio, the FAILED rows and why, the targets', async (t) => {
  const block = realtimeBlock({ realtime: fakeRealtimeResult({ failed: ['sse 10:mesh-port'] }) })
  t.match(block, '| sockets × message | ipc round trips/s | tcp round trips/s | mesh-port round trips/s | mesh-port ÷ tcp |')
  t.match(block, '| 10×64 B | FAILED | 10,500 | 15,750 | 1.50× | – / 3.0 / 2.0 | – / 90 / 60 |')
  t.match(block, '| 10 | 1,890 | 2,100 | FAILED | – | 40.0 / 8.0 / – | 200 / 100 / – |')
  t.match(block, /- `ws 10×64 B` over `ipc`: 10 of 10 WebSocket\(s\) to ws:\/\/chat\.plt\.local\/echo did not open/)
  t.match(block, /- `sse 10` over `mesh-port`: 3 of 10 stream\(s\) failed the event check: 2 lost/)
  t.match(block, /`ipc`: feed was not told within 2,000 ms in any of 2 round\(s\), and wrote 99 more events into the stream/)
  t.match(block, /`tcp`: feed's response closed 8\.0 ms after the client left/)
  t.match(block, /sse 10: SSE events\/s, mesh-port ÷ ipc \(target ≥ 1\.0×\): FAILED: missed\./)
  t.equal(realtimeBlock({ realtime: fakeRealtimeResult({ failed: ['sse 10:mesh-port'] }) }), block, 'same input, same bytes')
})

t.test('npm run readme: the realtime block in the suite\'s README, from the named file or the placeholder', async (t) => {
  t.equal(relative(PROJECT_ROOT, BLOCKS.realtime.file), 'bench/realtime/README.md')
  t.equal(BLOCKS.realtime.sources.realtime.path, 'results/published/realtime.json')
  t.match(realtimePlaceholder('results/published/realtime.json'), /npm run bench:realtime -- --out results\/realtime\.json.*npm run readme -- --realtime results\/realtime\.json/)
  const missing = renderBlock({ realtime: 'results/published/no-such-realtime.json' }, 'realtime')
  t.match(missing, /^<!-- realtime:start realtime=results\/published\/no-such-realtime\.json \(written by npm run readme/)
  t.match(missing, /No realtime figures are published yet/)
  const file = join(t.testdir(), 'realtime.json')
  writeFileSync(file, JSON.stringify(fakeRealtimeResult()))
  const block = renderBlock({ realtime: relative(PROJECT_ROOT, file) }, 'realtime')
  t.match(block, /\| 10×64 B \| FAILED \| 10,500 \| 15,750 \| 1\.50× \|/)
  const readme = '# Realtime\n\n<!-- realtime:start -->\nold\n<!-- realtime:end -->\n'
  const written = replaceBlock(readme, block, 'realtime')
  t.equal(replaceBlock(written, block, 'realtime'), written, 'writing it again changes nothing')
})
