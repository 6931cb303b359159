// Readiness and verification catch what they must: a wrong body, status or
// header set, too few or too many workers, a target that died while starting.
import { once } from 'node:events'
import { createServer } from 'node:http'
import t from 'tap'
import { BODY, handle, WORKER_PATH } from '../../bench/scale/handler.js'
import { EXPECTED_HEADER_NAMES, getOnce, verifyResponse, waitForWorkers } from '../../bench/scale/ready.js'

/** A server on a free loopback port, closed when the test ends. */
async function serve (t, listener) {
  const server = createServer(listener)
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve) }))
  return `http://127.0.0.1:${server.address().port}`
}

t.test('the handler answers the exact bytes and headers, and nothing else', async (t) => {
  const url = await serve(t, handle)
  const { status, headers, body } = await getOnce(url + '/', { keepAlive: true })
  t.equal(status, 200)
  t.equal(body, '{"hello":"world"}')
  t.equal(headers['content-type'], 'application/json; charset=utf-8')
  t.equal(headers['content-length'], '17')
  t.same(Object.keys(headers).sort(), EXPECTED_HEADER_NAMES)
  t.same(await verifyResponse(url), [])
  t.match((await getOnce(url + WORKER_PATH)).body, new RegExp(`^${process.pid}:0$`))
  t.equal((await getOnce(url + '/other')).status, 404)
})

t.test('verification names every difference', async (t) => {
  const json = (body, extra = {}) => (req, res) => res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), ...extra }).end(body)
  t.same(await verifyResponse(await serve(t, json(BODY))), [], 'a faithful copy passes')
  const wrongBody = await verifyResponse(await serve(t, json('{"hello":"World"}')))
  t.equal(wrongBody.length, 1)
  t.match(wrongBody[0], /^body "\{\\"hello\\":\\"World\\"\}"/)
  const extraHeader = await verifyResponse(await serve(t, json(BODY, { 'x-powered-by': 'x' })))
  t.equal(extraHeader.length, 1)
  t.match(extraHeader[0], /^headers .*x-powered-by/)
  const failing = await verifyResponse(await serve(t, (req, res) => res.writeHead(503).end()))
  t.match(failing, [/^status 503/, /^body /, /^content-type /, /^content-length /, /^headers /])
})

t.test('readiness waits for all workers and rejects the wrong count', async (t) => {
  const one = await serve(t, handle)
  t.same(await waitForWorkers(one, 1, { timeoutMs: 2000 }), [`${process.pid}:0`])
  await t.rejects(waitForWorkers(one, 2, { timeoutMs: 500 }), /1 of 2 worker\(s\) answered within 500 ms/)

  let n = 0
  const three = await serve(t, (req, res) => res.end(`${1000 + (n++ % 3)}:0`))
  await t.rejects(waitForWorkers(three, 2, { timeoutMs: 2000 }), /3 workers answered, 2 expected/)

  await t.rejects(waitForWorkers('http://127.0.0.1:1', 1, { timeoutMs: 5000, isDead: () => true }), /exited before it was ready/)
})
