// The data-source's stall watchdog ends only mesh downloads (an injected request:
// a mesh consumer's abort never reaches the producer). Over TCP the socket says
// when the consumer leaves, so a consumer that only pauses is never cut.
import t from 'tap'
import { get as httpGet, createServer } from 'node:http'
import { once } from 'node:events'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import Fastify from 'fastify'
import { createDataSourceListener } from '../../bench/data/server/data-source.js'
import { until } from '../helpers/wait.js'

const STALL_MS = 200
// more than loopback's socket buffers hold, so a consumer that stops reading stops the reads
const BYTES = 32 * 1024 * 1024
const file = join(t.testdir(), 'dataset.json')
writeFileSync(file, Buffer.alloc(BYTES, 'x'))

// One listener for both ways in, as in the runtime (bench/data/apps/data-source).
const source = createDataSourceListener({ small: file }, { stallMs: STALL_MS })
const server = createServer(source.listener)
server.listen(0, '127.0.0.1')
await once(server, 'listening')
const port = /** @type {import('node:net').AddressInfo} */ (server.address()).port
const mesh = Fastify()
mesh.get('/*', (request, reply) => {
  reply.hijack()
  source.listener(request.raw, reply.raw)
})
t.teardown(async () => {
  source.closeAll()
  server.closeAllConnections()
  server.close()
  await mesh.close()
})

async function stats () {
  const res = await new Promise((resolve, reject) => httpGet({ host: '127.0.0.1', port, path: '/stats', agent: false }, resolve).on('error', reject))
  let text = ''
  for await (const chunk of res) text += chunk
  return JSON.parse(text)
}

const settled = async () => until(async () => { const now = await stats(); return now.openFiles === 0 && now.openResponses === 0 && now }, { what: 'the download to end' })

t.test('over TCP, a consumer paused for many times stallMs still gets every byte', async (t) => {
  const before = await stats()
  const res = await new Promise((resolve, reject) => httpGet({ host: '127.0.0.1', port, path: '/datasets/small', agent: false }, resolve).on('error', reject))
  res.pause()
  await sleep(STALL_MS * 5) // the pause under test: the socket's buffers fill and the reads stop
  let bytes = 0
  for await (const chunk of res) bytes += chunk.length
  t.equal(bytes, BYTES, 'the whole file')
  const after = await settled()
  t.equal(after.served - before.served, 1, 'served')
  t.equal(after.stalled, before.stalled, 'the watchdog never fired')
})

t.test('an injected (mesh) consumer that stops reading is ended after stallMs', async (t) => {
  const before = await stats()
  const res = await mesh.inject({ method: 'GET', url: '/datasets/small', payloadAsStream: true })
  t.equal(res.statusCode, 200)
  const stream = res.stream()
  stream.on('error', () => {}) // the destroyed response errors its stream
  const after = await until(async () => { const now = await stats(); return now.stalled > before.stalled && now.openFiles === 0 && now.openResponses === 0 && now }, { what: 'the watchdog to end the download' })
  t.equal(after.stalled - before.stalled, 1, 'stalled')
  t.equal(after.served, before.served, 'not served')
  t.equal(after.aborted, before.aborted, 'counted as stalled, not aborted')
})
