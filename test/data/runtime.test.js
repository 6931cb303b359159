// The data runtime for real: every variant answers exactly the records a filter
// computed here finds (same bytes for stream, scan and promise, disk, ipc and tcp),
// bad parameters answer 400, a client that leaves mid-stream releases
// everything on both services, and stopping leaves no process or port behind.
import t from 'tap'
import { get as httpGet } from 'node:http'
import { readFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { request } from 'undici'
import { ensureDataset } from '../../bench/data/dataset/cache.js'
import { isListening } from '../../bench/lib/ports.js'
import { startDataRuntime } from '../../bench/data/runtime.js'

// Only a mesh download that lost its consumer may stall this long: a live one, CPU-starved on a
// loaded box, paused over 1 s here (14 busy loops), and a 1 s watchdog cut it mid-answer.
const STALL_MS = 5000
const cacheDir = t.testdir()
const small = await ensureDataset({ dataset: 'small', targetBytes: 6e6, seed: 3, cacheDir })
// 12 MB, not 24: its twelve answers were two thirds of the first case's time, and a request
// to it stays in flight longer than small/disk/scan's, the shortest the abort case must catch
const large = await ensureDataset({ dataset: 'large', targetBytes: 12e6, seed: 3, cacheDir })
const runtime = await startDataRuntime({ files: { small: small.file, large: large.file }, env: { DATA_SOURCE_STALL_MS: String(STALL_MS) } })
t.teardown(() => runtime.stop())

// The filter, computed here from the files, independent of the server's code.
const parsed = { small: JSON.parse(readFileSync(small.file, 'utf8')), large: JSON.parse(readFileSync(large.file, 'utf8')) }
const keyOf = { small: 'speakerId', large: 'zipcode' }
const expected = (dataset, id) => JSON.stringify(parsed[dataset].filter((record) => record[keyOf[dataset]] === id))

const VARIANTS = [
  ['small', 'disk', (mode, id) => `/data/small/disk/${mode}/${id}`],
  ['small', 'ipc', (mode, id) => `/data/small/net/${mode}/${id}?via=ipc`],
  ['small', 'tcp', (mode, id) => `/data/small/net/${mode}/${id}?via=tcp`],
  ['small', 'ipc (default)', (mode, id) => `/data/small/net/${mode}/${id}`],
  ['large', 'ipc', (mode, id) => `/data/large/${mode}/${id}?via=ipc`],
  ['large', 'tcp', (mode, id) => `/data/large/${mode}/${id}?via=tcp`]
]

async function get (path) {
  const { statusCode, headers, body } = await request(runtime.apiUrl + path)
  return { statusCode, headers, text: await body.text() }
}

async function stats () {
  const api = await get('/stats')
  const { body } = await request(`http://127.0.0.1:${runtime.sourcePort}/stats`)
  return { api: JSON.parse(api.text), source: await body.json() }
}

t.test('stream, scan and promise answer exactly the records filtered here, from every source', async (t) => {
  const ids = {
    small: [parsed.small[0].speakerId, parsed.small[parsed.small.length - 1].speakerId, 'spk_999999'],
    large: [parsed.large[0].zipcode, '10001']
  }
  t.equal(expected('large', '10001'), '[]', '10001 is a valid but unknown zipcode')
  for (const [dataset, source, pathOf] of VARIANTS) {
    for (const id of ids[dataset]) {
      const answers = {}
      for (const mode of ['stream', 'scan', 'promise']) {
        const label = `${dataset} ${source} ${mode} ${id}`
        const { statusCode, headers, text } = await get(pathOf(mode, id))
        t.equal(statusCode, 200, label)
        t.match(headers['content-type'], /^application\/json/, label)
        if (mode === 'promise') t.equal(headers['content-length'], String(text.length), `${label}: buffered answers carry their length`)
        else t.equal(headers['transfer-encoding'], 'chunked', `${label}: streamed answers are chunked`)
        t.equal(text, expected(dataset, id), label)
        answers[mode] = text
      }
      t.equal(answers.stream, answers.promise, `${dataset} ${source} ${id}: same bytes, stream and promise`)
      t.equal(answers.scan, answers.promise, `${dataset} ${source} ${id}: same bytes, scan and promise`)
    }
  }
})

t.test('bad parameters answer 400 with a message, never 500', async (t) => {
  const bad = [
    '/data/small/disk/stream/spk_x', '/data/small/disk/stream/spk_0', '/data/small/disk/stream/SPK_1', '/data/small/disk/promise/1',
    '/data/small/disk/sideways/spk_1', '/data/small/net/stream/spk_1?via=udp', '/data/large/stream/1234', '/data/large/promise/123456',
    '/data/large/stream/abcde?via=tcp', '/data/large/stream/10000?via=disk'
  ]
  for (const path of bad) {
    const { statusCode, text } = await get(path)
    t.equal(statusCode, 400, path)
    t.ok(JSON.parse(text).message.length > 0, `${path} says what is wrong`)
  }
})

/**
 * Starts a request, waits until the API is in the middle of it (reading its
 * source), then drops the connection the way a leaving client does. On a loaded
 * machine a request can end between two looks at the counters: then it starts
 * another, and returns how many ended whole, so the source's counts can allow for them.
 * @returns {Promise<number>} requests that were answered whole before one was caught
 */
async function abortMidway (path, mode) {
  const deadline = Date.now() + 30_000
  let whole = 0
  for (;;) {
    let ended = false
    const req = httpGet({ host: '127.0.0.1', port: runtime.port, path: '/data-api' + path, agent: false }, (res) => {
      res.resume()
      res.on('end', () => { ended = true })
    })
    req.on('error', () => {})
    for (;;) {
      const { inFlight } = (await stats()).api
      if (inFlight[mode] === 1 && inFlight.upstreamReads === 1 && !ended) {
        req.destroy()
        return whole
      }
      if (Date.now() > deadline) throw new Error(`${path} was never seen in flight`)
      if (ended) break
      await sleep(5)
    }
    whole++
    await settled()
  }
}

/** Waits for every counter to come back to rest; past a generous deadline, returns them as they are. */
async function settled () {
  const deadline = Date.now() + STALL_MS + 30_000
  for (;;) {
    const now = await stats()
    const { inFlight, budget } = now.api
    if (inFlight.stream + inFlight.scan + inFlight.promise + inFlight.upstreamReads === 0 && budget.reservedBytes === 0 && budget.waiting === 0 &&
      now.source.openFiles === 0 && now.source.openResponses === 0) return now
    if (Date.now() > deadline) return now
    await sleep(50)
  }
}

t.test('a client leaving mid-stream releases everything, on both services', async (t) => {
  const cases = [
    ['small/disk/stream', '/data/small/disk/stream/spk_1', 'stream', null],
    ['large/net-tcp/stream', '/data/large/stream/10000?via=tcp', 'stream', 'tcp'],
    ['large/net-ipc/stream', '/data/large/stream/10000?via=ipc', 'stream', 'ipc'],
    ['small/disk/scan', '/data/small/disk/scan/spk_1', 'scan', null],
    ['large/net-tcp/scan', '/data/large/scan/10000?via=tcp', 'scan', 'tcp'],
    ['large/net-ipc/scan', '/data/large/scan/10000?via=ipc', 'scan', 'ipc'],
    ['large/net-tcp/promise', '/data/large/promise/10000?via=tcp', 'promise', 'tcp'],
    ['large/net-ipc/promise', '/data/large/promise/10000?via=ipc', 'promise', 'ipc']
  ]
  for (const [name, path, mode, via] of cases) {
    const before = (await stats()).source
    const whole = await abortMidway(path, mode)
    const after = await settled()
    t.same(after.api.inFlight, { stream: 0, scan: 0, promise: 0, upstreamReads: 0 }, `${name}: nothing in flight in the API`)
    t.equal(after.api.budget.reservedBytes, 0, `${name}: no memory left reserved`)
    t.equal(after.source.openFiles, 0, `${name}: the data-source closed its file`)
    t.equal(after.source.openResponses, 0, `${name}: the data-source closed its response`)
    if (via === 'tcp') {
      t.equal(after.source.aborted + after.source.served - before.aborted - before.served, 1 + whole, `${name}: over TCP the abort reaches the data-source`)
      t.equal(after.source.stalled, before.stalled, `${name}: without the stall watchdog`)
    }
    if (via === 'ipc') {
      // Known Watt mesh defect (undici-thread-interceptor 1.5.0): an aborted mesh body is never
      // closed, so only the data-source's stall watchdog can end it. When that is fixed upstream
      // this turns into `aborted`, and the assertion below says so.
      t.equal(after.source.stalled + after.source.aborted + after.source.served - before.stalled - before.aborted - before.served, 1 + whole,
        `${name}: the mesh download ended (stalled ${after.source.stalled - before.stalled}, aborted ${after.source.aborted - before.aborted})`)
    }
  }
  const { statusCode, text } = await get('/data/large/stream/10000?via=ipc')
  t.equal(statusCode, 200, 'the API still answers afterwards')
  t.equal(text, expected('large', '10000'))
})

t.test('stopping the runtime leaves no process and no listening port', async (t) => {
  await runtime.stop()
  t.throws(() => process.kill(runtime.pid, 0), { code: 'ESRCH' }, 'runtime process has exited')
  t.notOk(await isListening(runtime.port), 'entry port closed')
  t.notOk(await isListening(runtime.sourcePort), 'data-source port closed')
})
