// The three answers, without a runtime: stream-json, scan and buffered bodies
// are byte for byte the filter computed here, whatever the chunking; both
// streams hold back their source when nobody reads, and tearing them down
// closes the source;
// the buffered variant's memory budget admits, queues, refuses and forgets.
import t from 'tap'
import { constants } from 'node:buffer'
import { once } from 'node:events'
import { createReadStream, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Readable, Writable } from 'node:stream'
import { text } from 'node:stream/consumers'
import { setTimeout as sleep } from 'node:timers/promises'
import { until } from '../helpers/wait.js'
import { generateDataset } from '../../bench/data/dataset/generate.js'
import { bufferedMatches, streamMatches } from '../../bench/data/server/json-filter.js'
import { MemoryBudget } from '../../bench/data/server/memory-budget.js'
import { scanMatches } from '../../bench/data/server/scan-filter.js'

const STREAMS = { stream: streamMatches, scan: scanMatches }

const dir = t.testdir()
const file = join(dir, 'small.json')
await generateDataset({ dataset: 'small', targetBytes: 400_000, seed: 11, file })
const records = JSON.parse(readFileSync(file, 'utf8'))
const closed = (stream) => new Promise((resolve) => stream.once('close', resolve)) // errors (premature close) are expected
const expectedFor = (id) => JSON.stringify(records.filter((record) => record.speakerId === id))
const ids = [...new Set(records.slice(0, 5).map((record) => record.speakerId)), 'spk_1001', 'spk_999999']

t.test('stream, scan and buffered answers equal the filter computed here, for known and unknown ids', async (t) => {
  const whole = readFileSync(file, 'utf8')
  for (const id of ids) {
    const expected = expectedFor(id)
    t.equal(await text(streamMatches(createReadStream(file), 'speakerId', id)), expected, `stream ${id}`)
    t.equal(await text(scanMatches(createReadStream(file), 'speakerId', id)), expected, `scan ${id}`)
    t.equal(bufferedMatches(whole, 'speakerId', id), expected, `buffered ${id}`)
  }
  t.equal(expectedFor('spk_1001'), '[]', 'an unknown id answers an empty array')
})

t.test('chunk boundaries anywhere (7-byte reads) change nothing', async (t) => {
  const id = ids[0]
  // in memory: 7-byte file reads would cost a syscall each and tell nothing more
  const bytes = readFileSync(file)
  const chunks = []
  for (let i = 0; i < bytes.length; i += 7) chunks.push(bytes.subarray(i, i + 7))
  for (const [name, matches] of Object.entries(STREAMS)) {
    t.equal(await text(matches(Readable.from(chunks), 'speakerId', id)), expectedFor(id), name)
  }
})

t.test('a nested field with the key\'s name does not decide a record', async (t) => {
  const tricky = JSON.stringify([
    { id: 1, speakerId: 'spk_1', talk: { speakerId: 'spk_2' } },
    { id: 2, talk: { speakerId: 'spk_1' }, speakerId: 'spk_3' },
    { id: 3, speakerId: 'spk_1' }
  ])
  for (const id of ['spk_1', 'spk_2', 'spk_3']) {
    for (const [name, matches] of Object.entries(STREAMS)) {
      t.equal(await text(matches(Readable.from([tricky]), 'speakerId', id)), bufferedMatches(tricky, 'speakerId', id), `${name} ${id}`)
    }
  }
})

t.test('malformed input fails the stream instead of answering half an array', async (t) => {
  for (const matches of Object.values(STREAMS)) {
    await t.rejects(text(matches(Readable.from(['[{"id":1,"speakerId":"spk_1"},{"id":2,']), 'speakerId', 'spk_1')))
  }
  t.throws(() => bufferedMatches('{"not":"an array"}', 'speakerId', 'spk_1'), TypeError)
})

t.test('backpressure: a reader that stops reading stops the source, both streams', async (t) => {
  // every record matches, so the answer is as big as the input
  const big = join(dir, 'all-match.json')
  const record = JSON.stringify({ id: 0, speakerId: 'spk_7', pad: 'x'.repeat(200) })
  writeFileSync(big, '[' + Array(40_000).fill(record).join(',\n') + ']')
  for (const [name, matches] of Object.entries(STREAMS)) {
    const source = createReadStream(big, { highWaterMark: 16 * 1024 })
    const out = matches(source, 'speakerId', 'spk_7')
    const stuck = new Writable({ highWaterMark: 1024, write (_chunk, _encoding, _callback) { /* never done */ } })
    out.pipe(stuck)
    // wait until the reads stop (buffers full), however slow the box; then they must stay stopped
    let last = -1
    let unchanged = 0
    const read = await until(() => {
      const now = source.bytesRead
      unchanged = now > 0 && now === last ? unchanged + 1 : 0
      last = now
      return unchanged >= 3 && now // unchanged for 3 samples 300 ms apart
    }, { intervalMs: 300, what: `${name}: the source to stop reading` })
    await sleep(300)
    t.equal(source.bytesRead, read, `${name}: no more bytes read while nobody reads`)
    t.ok(read < 2e6, `${name}: read ${read} of ${40_000 * record.length} bytes, then held back`)
    out.destroy()
    await closed(source)
    t.ok(source.destroyed, `${name}: tearing down the answer closed the file`)
  }
})

t.test('destroying the answer mid-stream closes the source at once, both streams', async (t) => {
  for (const [name, matches] of Object.entries(STREAMS)) {
    const source = createReadStream(file, { highWaterMark: 1024 })
    const out = matches(source, 'speakerId', ids[0])
    await once(source, 'data')
    out.destroy()
    await closed(source)
    t.ok(source.bytesRead < readFileSync(file).length, `${name}: closed before the end of the file`)
  }
})

t.test('the memory budget admits, queues first come first served, and refuses what never fits', async (t) => {
  const budget = new MemoryBudget(1000) // heap bytes; a dataset byte costs 3
  const signal = new AbortController().signal
  const releaseA = await budget.reserve(200, signal) // 600
  t.same(budget.stats, { limitBytes: 1000, reservedBytes: 600, waiting: 0 })
  const order = []
  const b = budget.reserve(200, signal).then((release) => { order.push('b'); return release })
  const c = budget.reserve(50, signal).then((release) => { order.push('c'); return release }) // would fit, but waits its turn
  await sleep(20)
  t.same(order, [], 'both wait while the budget is taken')
  t.equal(budget.stats.waiting, 2)
  releaseA()
  releaseA() // a second release changes nothing
  const releaseB = await b
  const releaseC = await c
  t.same(order, ['b', 'c'], 'in arrival order')
  t.equal(budget.stats.reservedBytes, 750)
  releaseB()
  releaseC()
  t.equal(budget.stats.reservedBytes, 0)
  await t.rejects(budget.reserve(400, signal), { statusCode: 507, message: /more than this worker's 1000-byte budget/ })
  await t.rejects(new MemoryBudget(1e15).reserve(constants.MAX_STRING_LENGTH + 1, signal), { statusCode: 507, message: /V8 strings stop at/ })
})

t.test('a client that leaves while queued is forgotten and the queue moves on', async (t) => {
  const budget = new MemoryBudget(1000)
  const never = new AbortController().signal
  const release = await budget.reserve(300, never) // 900
  const leaving = new AbortController()
  const gone = budget.reserve(300, leaving.signal)
  const next = budget.reserve(30, never) // 90: waits behind `gone`
  await sleep(10)
  leaving.abort(new Error('client went away'))
  await t.rejects(gone, /client went away/)
  const releaseNext = await next
  t.same(budget.stats, { limitBytes: 1000, reservedBytes: 990, waiting: 0 }, 'the leaver reserved nothing and the next one got in')
  releaseNext()
  release()
  t.equal(budget.stats.reservedBytes, 0)
})
