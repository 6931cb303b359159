// Streaming keeps memory bounded: the data-api worker gets a heap smaller than
// the dataset it filters (Watt's per-application resourceLimits), and both
// network streams still answer exactly, concurrently, while the process grows
// by less than the dataset. The buffered variant refuses (507) instead of
// crashing the worker, and the worker keeps serving.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { request } from 'undici'
import { ensureDataset } from '../../bench/data/dataset/cache.js'
import { rssOf, trackPeakRss } from '../../bench/data/peak-rss.js'
import { startDataRuntime } from '../../bench/data/runtime.js'

const cacheDir = t.testdir()
const small = await ensureDataset({ dataset: 'small', targetBytes: 1e6, seed: 4, cacheDir })
const large = await ensureDataset({ dataset: 'large', targetBytes: 60e6, seed: 4, cacheDir })
// 48 MB in all, 8 MB of it young generation: about the least a Fastify worker starts with.
const runtime = await startDataRuntime({ files: { small: small.file, large: large.file }, env: { DATA_API_MAX_HEAP: '48MB', DATA_API_MAX_YOUNG: '8MB' } })
t.teardown(() => runtime.stop())

async function get (path) {
  const { statusCode, body } = await request(runtime.apiUrl + path)
  return { statusCode, text: await body.text() }
}

const records = JSON.parse(readFileSync(large.file, 'utf8'))
const expected = (zipcode) => JSON.stringify(records.filter((record) => record.zipcode === zipcode))

let firstThreadId
t.test('the data-api heap really is smaller than the dataset', async (t) => {
  const { heapSizeLimitBytes, threadId } = JSON.parse((await get('/stats')).text)
  firstThreadId = threadId
  t.ok(heapSizeLimitBytes < large.manifest.bytes, `heap limit ${(heapSizeLimitBytes / 1e6).toFixed(1)} MB < dataset ${(large.manifest.bytes / 1e6).toFixed(1)} MB`)
})

t.test('two concurrent streams over ipc and tcp answer exactly, in that heap', async (t) => {
  const idle = await rssOf(runtime.pid)
  const peak = trackPeakRss(runtime.pid)
  const [ipc, tcp] = await Promise.all([get('/data/large/stream/10000?via=ipc'), get('/data/large/stream/10007?via=tcp')])
  const { peakRssBytes } = await peak.stop()
  t.equal(ipc.statusCode, 200)
  t.equal(ipc.text, expected('10000'), 'ipc answer is the filter computed here')
  t.equal(tcp.statusCode, 200)
  t.equal(tcp.text, expected('10007'), 'tcp answer is the filter computed here')
  // Not an assertion: RSS counts every thread's young generation and the mesh's buffers too.
  t.comment(`the whole process grew by ${((peakRssBytes - idle) / 1e6).toFixed(1)} MB while streaming ${(2 * large.manifest.bytes / 1e6).toFixed(0)} MB`)
})

t.test('buffering a dataset that cannot fit answers 507 at once, and the worker lives on', async (t) => {
  for (const via of ['ipc', 'tcp']) {
    const started = Date.now()
    const { statusCode, text } = await get(`/data/large/promise/10000?via=${via}`)
    t.equal(statusCode, 507, via)
    t.match(JSON.parse(text).message, /use the stream variant/, `${via}: says what to do`)
    t.ok(Date.now() - started < 5000, `${via}: refused before reading the dataset`)
  }
  const smallPromise = await get('/data/small/disk/promise/spk_1')
  t.equal(smallPromise.statusCode, 200, 'a dataset that fits is still buffered')
  t.equal(smallPromise.text.length, small.manifest.ids.spk_1.bytes)
  const after = await get('/data/large/stream/10014?via=tcp')
  t.equal(after.text, expected('10014'), 'the same worker still streams')
})

t.test('the data-api worker never crashed: the same thread answered throughout', async (t) => {
  const { threadId } = JSON.parse((await get('/stats')).text)
  t.equal(threadId, firstThreadId, 'Watt did not have to replace the worker')
})
