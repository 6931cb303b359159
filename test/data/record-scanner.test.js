// The record scanner and both streaming filters on crafted input, without a
// runtime: record boundaries found wherever the chunks split (inside escapes,
// multi-byte characters, nested values), and every kind of bad input (a broken
// record, an unterminated string, data cut mid-record, a source that fails
// mid-stream, a 100 MB single record) ends in a clear error, never a hang,
// and the giant record is refused after reading about the cap, not all of it.
import t from 'tap'
import { Readable } from 'node:stream'
import { text } from 'node:stream/consumers'
import { streamMatches } from '../../bench/data/server/json-filter.js'
import { MalformedDataError, RecordScanner } from '../../bench/data/server/record-scanner.js'
import { scanMatches } from '../../bench/data/server/scan-filter.js'

const VARIANTS = { stream: streamMatches, scan: scanMatches }

const tricky = [
  { id: 1, k: 'x', s: 'quote " backslash \\ brace } bracket ] comma ,' },
  { id: 2, k: 'y', nested: { k: 'x', list: [1, [2, { k: 'x' }], '}]'] } },
  { id: 3, k: 'x', unicode: 'é ü 漢字 😀 \u2028 \u0000', escaped: '\\"\\\\' },
  { id: 4, k: 'x', empty: {}, none: [], n: -12.5e-3, t: true, f: false, z: null },
  { id: 5, k: '\\x' }
]
const expectedFor = (records, k) => JSON.stringify(records.filter((r) => r !== null && typeof r === 'object' && r.k === k))

/** @param {Buffer} bytes @param {number[]} cuts */
function split (bytes, cuts) {
  const chunks = []
  let from = 0
  for (const cut of [...cuts, bytes.length]) {
    chunks.push(bytes.subarray(from, cut))
    from = cut
  }
  return chunks
}

/** One record per line, as the lab's datasets are written: what the scanner's line mode cuts at. */
const perLine = (/** @type {unknown[]} */ records, eol = '\n') => '[' + eol + records.map((r) => JSON.stringify(r)).join(',' + eol) + eol + ']' + eol

t.test('every two-way split of a tricky document gives the same answer, both variants', async (t) => {
  for (const spacing of [0, 2, 'lines', 'crlf']) {
    const bytes = Buffer.from(spacing === 'lines' ? perLine(tricky) : spacing === 'crlf' ? perLine(tricky, '\r\n') : JSON.stringify(tricky, null, spacing))
    for (const [name, matches] of Object.entries(VARIANTS)) {
      let wrong = 0
      for (let cut = 1; cut < bytes.length; cut++) {
        if (await text(matches(Readable.from(split(bytes, [cut])), 'k', 'x')) !== expectedFor(tricky, 'x')) wrong++
      }
      t.equal(wrong, 0, `${name}, indent ${spacing}: all ${bytes.length - 1} split points`)
    }
  }
})

t.test('one-byte chunks, and records that are not objects, in the scan variant', async (t) => {
  const mixed = [...tricky, 'a string with ] and ,', 42, -0.5, true, false, null, [{ k: 'x' }]]
  const bytes = Buffer.from(JSON.stringify(mixed, null, 1))
  const chunks = split(bytes, Array.from({ length: bytes.length - 1 }, (_, i) => i + 1))
  t.equal(await text(scanMatches(Readable.from(chunks), 'k', 'x')), expectedFor(mixed, 'x'))
  t.equal(await text(scanMatches(Readable.from([Buffer.from(' [ ] \n')]), 'k', 'x')), '[]', 'an empty array answers []')
})

t.test('the scanner hands over each record once, whole, however the chunks fall', async (t) => {
  const bytes = Buffer.from(JSON.stringify(tricky))
  for (const size of [1, 3, 16, 64]) {
    const scanner = new RecordScanner()
    const parts = []
    for (let i = 0; i < bytes.length; i += size) {
      const batch = scanner.push(bytes.subarray(i, i + size))
      if (batch) parts.push(batch.toString())
    }
    scanner.end()
    t.same(JSON.parse('[' + parts.join(',') + ']'), tricky, `${size}-byte chunks`)
  }
})

const BAD = {
  'a broken record': { input: '[{"k":"x","a":1},{"k":"x",,"b":2},{"k":"x"}]', message: /not valid JSON|Unexpected|cannot parse/ },
  'an unterminated string': { input: '[{"k":"x"},{"k":"x","s":"never closed}]', message: /cut short|Unterminated|end of/i },
  'data cut mid-record': { input: '[{"k":"x"},{"k":"x","a":', message: /cut short|end of|Unexpected end/i },
  'a missing comma between records': { input: '[{"k":"x"} {"k":"x"}]', message: /Unexpected|expected , or \]/ },
  'not an array': { input: '{"k":"x"}', message: /array|Top-level object should be an array/i },
  'garbage after the array': { input: '[{"k":"x"}] trailing', message: /nothing after the closing|Unexpected/ }
}

t.test('line mode: one record per line is parsed in cuts, never scanned byte by byte, and gives the same records', async (t) => {
  const records = Array.from({ length: 3000 }, (_, i) => ({ id: i, k: i % 7 ? 'y' : 'x', s: i % 11 ? 'plain' : 'tricky "},\\n{" ] é 漢字 😀' }))
  const bytes = Buffer.from(perLine(records))
  for (const size of [7, 1000, 1 << 16]) {
    const scanner = new RecordScanner()
    let scannedBytes = 0
    const push = scanner.push.bind(scanner)
    scanner.push = (chunk) => { scannedBytes += chunk.length; return push(chunk) }
    const seen = []
    for (let i = 0; i < bytes.length; i += size) seen.push(...scanner.pushRecords(bytes.subarray(i, i + size)))
    seen.push(...scanner.endRecords())
    t.same(seen, records, `${size}-byte chunks: every record, in order`)
    // only the end (the last record's line and the "]" after it) may go to the byte scanner
    t.ok(scannedBytes <= size + 100, `${size}-byte chunks: ${scannedBytes} of ${bytes.length} bytes scanned byte by byte`)
  }
  const pretty = Buffer.from(JSON.stringify(records, null, 2))
  const scanner = new RecordScanner()
  let scannedBytes = 0
  const push = scanner.push.bind(scanner)
  scanner.push = (chunk) => { scannedBytes += chunk.length; return push(chunk) }
  const seen = []
  for (let i = 0; i < pretty.length; i += 1 << 16) seen.push(...scanner.pushRecords(pretty.subarray(i, i + (1 << 16))))
  seen.push(...scanner.endRecords())
  t.same(seen, records, 'pretty-printed (newlines inside records): the same records')
  t.ok(scannedBytes >= pretty.length - (1 << 16), 'pretty-printed: handed to the byte scanner')
})

t.test('line mode: bad lines fail as clearly as in the byte scanner', async (t) => {
  const good = Array.from({ length: 500 }, (_, i) => JSON.stringify({ id: i, k: 'x' }))
  const cases = {
    'a broken record mid-file': { input: '[\n' + [...good.slice(0, 250), '{"id":250,"k":"x",,"b":2}', ...good.slice(250)].join(',\n') + '\n]\n', code: 'ERR_MALFORMED_DATA' },
    'a raw newline inside a string': { input: '[\n' + [...good.slice(0, 250), '{"id":250,"k":"x","s":"two\nlines"}', ...good.slice(250)].join(',\n') + '\n]\n', code: 'ERR_MALFORMED_DATA' },
    'data cut after a line': { input: '[\n' + good.join(',\n') + ',\n', code: 'ERR_TRUNCATED_DATA' },
    'data cut mid-line': { input: '[\n' + good.join(',\n') + ',\n{"id":1,"k', code: 'ERR_TRUNCATED_DATA' },
    'a line over the cap': { input: '[\n' + [...good.slice(0, 250), JSON.stringify({ k: 'x', blob: 'b'.repeat(5000) }), ...good.slice(250)].join(',\n') + '\n]\n', code: 'ERR_RECORD_TOO_LARGE', maxRecordBytes: 4096 }
  }
  for (const [what, { input, code, maxRecordBytes }] of Object.entries(cases)) {
    const bytes = Buffer.from(input)
    for (const size of [100, 1 << 16]) {
      const chunks = split(bytes, Array.from({ length: Math.ceil(bytes.length / size) - 1 }, (_, i) => (i + 1) * size))
      await t.rejects(text(scanMatches(Readable.from(chunks), 'k', 'x', { maxRecordBytes })), { name: 'MalformedDataError', code }, `${what} (${size}-byte chunks)`)
    }
  }
})

t.test('bad input fails the answer with a clear error, both variants', async (t) => {
  for (const [what, { input, message }] of Object.entries(BAD)) {
    for (const [name, matches] of Object.entries(VARIANTS)) {
      for (const size of [4, 1 << 16]) {
        const bytes = Buffer.from(input)
        const chunks = split(bytes, Array.from({ length: Math.ceil(bytes.length / size) - 1 }, (_, i) => (i + 1) * size))
        await t.rejects(text(matches(Readable.from(chunks), 'k', 'x')), { message }, `${name}: ${what} (${size}-byte chunks)`)
      }
    }
  }
})

t.test('the scanner names the kind of failure', async (t) => {
  const cut = new RecordScanner()
  cut.push(Buffer.from('[{"k":"x","s":"half'))
  t.throws(() => cut.end(), { name: 'MalformedDataError', code: 'ERR_TRUNCATED_DATA', message: /ended inside a string, at byte 19/ })
  t.throws(() => new RecordScanner().push(Buffer.from('[1,,2]')), { code: 'ERR_MALFORMED_DATA', message: /expected a record, found "," at byte 3/ })
  t.throws(() => new RecordScanner().push(Buffer.from('x')), MalformedDataError)
})

t.test('a source that fails mid-stream fails the answer, both variants', async (t) => {
  for (const [name, matches] of Object.entries(VARIANTS)) {
    const source = new Readable({ read () {} })
    const answer = text(matches(source, 'k', 'x'))
    source.push(Buffer.from('[{"k":"x","a":1},{"k":"x","b":'))
    setImmediate(() => source.destroy(new Error('upstream connection reset')))
    await t.rejects(answer, /upstream connection reset|Premature close/, name)
  }
})

t.test('a 100 MB single record is refused after about the cap, not read whole, both variants', async (t) => {
  const CAP = 256 * 1024
  const CHUNK = 64 * 1024
  const TOTAL = 100 * 1024 * 1024
  for (const [name, matches] of Object.entries(VARIANTS)) {
    let pulled = 0
    // produced lazily: nothing near 100 MB is ever allocated
    const giant = Readable.from((function * () {
      yield Buffer.from('[{"k":"x","blob":"')
      const filler = Buffer.alloc(CHUNK, 'a')
      for (let sent = 0; sent < TOTAL; sent += CHUNK) {
        pulled += CHUNK
        yield filler
      }
      yield Buffer.from('"}]')
    })())
    await t.rejects(text(matches(giant, 'k', 'x', { maxRecordBytes: CAP })), { code: 'ERR_RECORD_TOO_LARGE', message: /larger than the 262144-byte limit/ }, name)
    t.ok(pulled <= CAP + 4 * CHUNK + 1024 * 1024, `${name}: read ${pulled} bytes of ${TOTAL} before refusing (stream buffers included)`)
  }
})

t.test('many records in a chunk, and records larger than a chunk, within the cap', async (t) => {
  const records = Array.from({ length: 2000 }, (_, i) => ({ id: i, k: i % 3 ? 'y' : 'x', pad: 'p'.repeat(i % 100 === 0 ? 100_000 : 10) }))
  const bytes = Buffer.from(JSON.stringify(records))
  const chunks = split(bytes, Array.from({ length: Math.ceil(bytes.length / 65536) - 1 }, (_, i) => (i + 1) * 65536))
  for (const [name, matches] of Object.entries(VARIANTS)) {
    t.equal(await text(matches(Readable.from(chunks), 'k', 'x', { maxRecordBytes: 200_000 })), expectedFor(records, 'x'), name)
  }
})
