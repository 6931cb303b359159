// Bad data through the real HTTP handlers (the data API and the data-source
// listener in this process, no Watt runtime: ipc is covered by runtime.test.js):
// every variant answers a clear 502 when the data is broken before anything was
// sent, aborts the response when it breaks later, refuses a record over the cap,
// survives an upstream cut mid-record, and keeps serving afterwards.
import t from 'tap'
import { once } from 'node:events'
import { writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { join } from 'node:path'
import { request } from 'undici'
import { freePorts } from '../../bench/lib/ports.js'
import { buildDataApi } from '../../bench/data/server/data-api.js'
import { createDataSourceListener } from '../../bench/data/server/data-source.js'

const MODES = ['stream', 'scan', 'promise']
const CAP = 4096
const dir = t.testdir()
const record = (i, speakerId = 'spk_1') => JSON.stringify({ id: i, speakerId, pad: 'x'.repeat(100) })
const good = '[' + Array.from({ length: 50 }, (_, i) => record(i, i % 2 ? 'spk_1' : 'spk_2')).join(',\n') + ']'
// broken after ~1.3 MB of records that all match: the streamed answer has long started by then
const lateRecords = Array.from({ length: 10_000 }, (_, i) => record(i)).join(',\n')

const FILES = {
  good,
  // the first record does not match spk_1: nothing is sent before the data breaks
  'broken early': '[' + record(1, 'spk_2') + ',{"id":2,"speakerId":"spk_1",,}]',
  'unterminated string': '[' + record(1, 'spk_2') + ',{"id":2,"speakerId":"spk_1","pad":"never closed}]\n',
  'cut mid-record': '[' + record(1, 'spk_2') + ',{"id":2,"speakerId":"spk',
  'a record over the cap': '[' + record(1, 'spk_2') + ',{"id":2,"speakerId":"spk_1","pad":"' + 'x'.repeat(50_000) + '"}]',
  'broken late': '[' + lateRecords + ',{"id":"broken" "speakerId":"spk_1"}]'
}

/**
 * An API whose small dataset is `name` on disk and whose data-source serves it
 * over TCP as the large one (ids are then zipcodes, so tcp is asked for 10000,
 * which nothing matches: the whole input is still read and checked).
 * @param {string} name
 */
async function serve (name) {
  const file = join(dir, `${name.replaceAll(' ', '-')}.json`)
  writeFileSync(file, FILES[name])
  const [sourcePort] = await freePorts(1)
  const dataSource = createDataSourceListener({ small: file, large: file }, { stallMs: 5000 })
  const source = createServer(dataSource.listener)
  source.listen(sourcePort, '127.0.0.1')
  await once(source, 'listening')
  const app = buildDataApi({ files: { small: file, large: file }, sourcePort, tcpConnections: 4, upstreamTimeoutMs: 10_000, stallMs: 5000, maxRecordBytes: CAP })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${app.server.address().port}/data-api`
  return {
    base,
    async close () {
      await app.close()
      dataSource.closeAll()
      source.close()
      await once(source, 'close')
    }
  }
}

async function get (url) {
  const { statusCode, body } = await request(url, { headersTimeout: 20_000, bodyTimeout: 20_000 })
  return { statusCode, text: await body.text() }
}

const PATHS = {
  disk: (mode) => `/data/small/disk/${mode}/spk_1`,
  tcp: (mode) => `/data/large/${mode}/10000?via=tcp`
}

t.test('good data answers 200 with the same bytes in every mode (the control)', async (t) => {
  const api = await serve('good')
  t.teardown(() => api.close())
  const expected = JSON.stringify(JSON.parse(good).filter((r) => r.speakerId === 'spk_1'))
  for (const mode of MODES) {
    const { statusCode, text } = await get(api.base + PATHS.disk(mode))
    t.equal(statusCode, 200, mode)
    t.equal(text, expected, mode)
  }
})

const EARLY = {
  'broken early': /not valid JSON|cannot parse|not a JSON array|Unexpected/,
  'unterminated string': /cut short|Unterminated|not a JSON array|end of/i,
  'cut mid-record': /cut short|not a JSON array|end of/i,
  'a record over the cap': /larger than the 4096-byte limit|not a JSON array/
}

t.test('data broken before anything was sent answers 502 with the reason, in every mode and source', async (t) => {
  for (const [name, reason] of Object.entries(EARLY)) {
    const api = await serve(name)
    for (const [via, pathOf] of Object.entries(PATHS)) {
      for (const mode of MODES) {
        const { statusCode, text } = await get(api.base + pathOf(mode))
        if (name === 'a record over the cap' && mode === 'promise') {
          // the cap is for streaming: buffering holds the whole dataset anyway, and the memory budget bounds that
          t.equal(statusCode, 200, `${name}, ${via}, promise: buffered, no cap`)
          continue
        }
        t.equal(statusCode, 502, `${name}, ${via}, ${mode}: 502`)
        t.match(JSON.parse(text).message, reason, `${name}, ${via}, ${mode}: says why`)
      }
    }
    t.equal((await get(api.base + '/stats')).statusCode, 200, `${name}: the API still answers`)
    await api.close()
  }
})

t.test('data broken after the answer started aborts it (no truncated 200 that looks whole)', async (t) => {
  const api = await serve('broken late')
  t.teardown(() => api.close())
  for (const mode of ['stream', 'scan']) {
    for (const [via, pathOf] of Object.entries({ disk: PATHS.disk })) {
      const { statusCode, body } = await request(api.base + pathOf(mode))
      t.equal(statusCode, 200, `${via} ${mode}: the answer had started`)
      await t.rejects(body.text(), `${via} ${mode}: the body ends in an error, not in a clean end`)
    }
  }
  const promise = await get(api.base + PATHS.disk('promise'))
  t.equal(promise.statusCode, 502, 'promise: refuses before sending anything')
  t.equal((await get(api.base + '/stats')).statusCode, 200, 'the API still answers')
})

t.test('an upstream cut mid-record answers 502 (nothing sent) in every mode', async (t) => {
  // a data-source that promises 1 MB, sends half a record and hangs up
  const [sourcePort] = await freePorts(1)
  const liar = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': 1_000_000 })
    res.write('[' + record(1) + ',{"id":2,"speakerId":"spk')
    setTimeout(() => res.destroy(), 50)
  })
  liar.listen(sourcePort, '127.0.0.1')
  await once(liar, 'listening')
  const file = join(dir, 'unused.json')
  writeFileSync(file, good)
  const app = buildDataApi({ files: { small: file, large: file }, sourcePort, tcpConnections: 4, upstreamTimeoutMs: 10_000, stallMs: 5000, maxRecordBytes: CAP })
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(async () => {
    liar.closeAllConnections()
    liar.close()
    await app.close()
  })
  const base = `http://127.0.0.1:${app.server.address().port}/data-api`
  for (const mode of MODES) {
    const { statusCode, text } = await get(base + PATHS.tcp(mode))
    t.equal(statusCode, 502, mode)
    t.match(JSON.parse(text).message, /reading the dataset failed|could not be streamed/, `${mode}: says why (${JSON.parse(text).message})`)
  }
})
