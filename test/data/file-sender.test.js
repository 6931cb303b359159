// The data-source's file sender reuses a few read buffers: a buffer reused
// before its bytes left would corrupt the body, so every case reads slowly
// (writes queue up behind back-pressure) and compares the bytes received.
import t from 'tap'
import { createHash, randomBytes } from 'node:crypto'
import { readdirSync, readlinkSync, writeFileSync } from 'node:fs'
import { once } from 'node:events'
import { createServer, get as httpGet } from 'node:http'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import Fastify from 'fastify'
import { SPARE_BUFFERS, sendFile, spareBuffers } from '../../bench/data/server/file-sender.js'
import { until } from '../helpers/wait.js'

const dir = t.testdir()
const file = join(dir, 'data.bin')
const bytes = randomBytes(3 * 1024 * 1024 + 123) // not a multiple of the chunk size
writeFileSync(file, bytes)
const sha256 = (/** @type {Buffer} */ data) => createHash('sha256').update(data).digest('hex')
const options = { chunkBytes: 16 * 1024, poolSize: 2 }

/** How many descriptors this process holds open on `path`. */
function openDescriptors (path) {
  let count = 0
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === path) count++
    } catch {}
  }
  return count
}

/**
 * A server answering every request with the file (or `announced` bytes of it);
 * `outcomes` collects how each sendFile ended.
 * @param {number} [announced]
 */
async function fileServer (announced = bytes.length) {
  const outcomes = []
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-length': announced })
    sendFile(file, announced, res, options).then(() => outcomes.push('sent'), (err) => { outcomes.push(err.message); res.destroy() })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => { server.closeAllConnections(); server.close() })
  return { port: /** @type {import('node:net').AddressInfo} */ (server.address()).port, outcomes }
}

/** GETs the body, pausing now and then so the server's writes queue up. */
async function slowGet (port) {
  const res = await new Promise((resolve, reject) => httpGet({ host: '127.0.0.1', port, path: '/', agent: false }, resolve).on('error', reject))
  const chunks = []
  let seen = 0
  for await (const chunk of res) {
    chunks.push(chunk)
    seen += chunk.length
    if (seen > 256 * 1024) {
      seen = 0
      await sleep(5)
    }
  }
  return Buffer.concat(chunks)
}

t.test('over TCP, a slow reader gets every byte in order, and the file is closed after', async (t) => {
  const { port, outcomes } = await fileServer()
  const body = await slowGet(port)
  t.equal(body.length, bytes.length)
  t.equal(sha256(body), sha256(bytes), 'same bytes as the file')
  await until(() => outcomes.length === 1, { what: 'sendFile to settle' })
  t.same(outcomes, ['sent'])
  t.equal(openDescriptors(file), 0, 'the file is closed')
})

t.test('over in-process injection (how Watt\'s mesh calls the data-source), the body is whole too', async (t) => {
  const app = Fastify()
  app.get('/', (_req, reply) => {
    reply.hijack()
    reply.raw.writeHead(200, { 'content-length': bytes.length })
    sendFile(file, bytes.length, reply.raw, options).catch((err) => reply.raw.destroy(err))
  })
  t.teardown(() => app.close())
  const res = await app.inject({ method: 'GET', url: '/', payloadAsStream: true })
  const chunks = []
  for await (const chunk of res.stream()) {
    chunks.push(chunk)
    await sleep(0)
  }
  t.equal(sha256(Buffer.concat(chunks)), sha256(bytes), 'same bytes as the file')
  await until(() => openDescriptors(file) === 0, { what: 'the file to be closed' })
})

t.test('a reader that leaves mid-way ends the send with an error and closes the file', async (t) => {
  const { port, outcomes } = await fileServer()
  const res = await new Promise((resolve, reject) => httpGet({ host: '127.0.0.1', port, path: '/', agent: false }, resolve).on('error', reject))
  await once(res, 'data')
  res.destroy()
  await until(() => outcomes.length === 1, { what: 'sendFile to settle' })
  t.match(outcomes[0], /closed before the file was sent/)
  t.equal(openDescriptors(file), 0, 'the file is closed')
})

t.test('a file shorter than announced fails instead of hanging', async (t) => {
  const { port, outcomes } = await fileServer(bytes.length + 1000)
  await slowGet(port).catch(() => {}) // the server cuts the response
  await until(() => outcomes.length === 1, { what: 'sendFile to settle' })
  t.match(outcomes[0], new RegExp(`ended at byte ${bytes.length}, before the ${bytes.length + 1000} bytes announced`))
  t.equal(openDescriptors(file), 0, 'the file is closed')
})

t.test('answers reuse the read buffers of answers before them, and never keep more than SPARE_BUFFERS', async (t) => {
  const { port } = await fileServer()
  const original = Buffer.allocUnsafeSlow
  let allocated = 0
  Buffer.allocUnsafeSlow = (size) => { if (size === options.chunkBytes) allocated++; return original(size) }
  t.teardown(() => { Buffer.allocUnsafeSlow = original })
  const before = spareBuffers(options.chunkBytes)
  t.equal(sha256(await slowGet(port)), sha256(bytes), 'first answer whole')
  t.equal(allocated, Math.max(0, options.poolSize - before), 'the first answer allocates what no earlier one left')
  t.equal(spareBuffers(options.chunkBytes), Math.max(before, options.poolSize), 'and leaves its buffers for the next')
  allocated = 0
  const kept = spareBuffers(options.chunkBytes)
  const bodies = await Promise.all([slowGet(port), slowGet(port)])
  t.ok(bodies.every((body) => sha256(body) === sha256(bytes)), 'two answers at once, both whole')
  t.equal(allocated, Math.max(0, 2 * options.poolSize - kept), 'only the second answer\'s buffers are new')
  allocated = 0
  t.equal(sha256(await slowGet(port)), sha256(bytes))
  t.equal(allocated, 0, 'a later answer allocates none')

  const many = Array.from({ length: SPARE_BUFFERS / options.poolSize + 4 }, () => slowGet(port))
  t.ok((await Promise.all(many)).every((body) => body.length === bytes.length), 'more answers at once than the spare buffers serve')
  t.equal(spareBuffers(options.chunkBytes), SPARE_BUFFERS, 'the rest were left to the GC')
})
