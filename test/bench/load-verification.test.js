// The load generator really checks every response: a wrong body or status
// fails the run, and nothing but loopback is ever targeted.
import t from 'tap'
import { createServer } from 'node:http'
import { once } from 'node:events'
import { failuresOf, runLoad } from '../../bench/lib/load.js'
import { until } from '../helpers/wait.js'

let okRequests = 0
const server = createServer((req, res) => {
  if (req.url === '/ok') {
    okRequests++
    return res.end('{"a":1}')
  }
  if (req.url === '/wrong') return res.end('{"a":2}')
  res.statusCode = 500
  res.end('{"a":1}')
})
server.listen(0, '127.0.0.1')
await once(server, 'listening')
t.teardown(() => server.close())
const base = `http://127.0.0.1:${server.address().port}`
const load = (path) => runLoad({ url: base + path, connections: 2, pipelining: 1, duration: 1, expectBody: '{"a":1}' })

t.test('the expected body passes', async (t) => {
  const result = await load('/ok')
  t.ok(result.status['2xx'] > 0)
  t.equal(result.mismatches, 0)
  t.same(failuresOf(result), [])
  t.ok(result.loadgen.cpuSeconds > 0, 'the load generator\'s own CPU is recorded')
})

t.test('a wrong body is a mismatch and fails the run', async (t) => {
  const result = await load('/wrong')
  t.ok(result.mismatches > 0)
  t.match(failuresOf(result).join(), /body mismatches/)
})

t.test('a non-2xx fails the run even with the right body', async (t) => {
  const result = await load('/500')
  t.ok(result.status.non2xx > 0)
  t.match(failuresOf(result).join(), /non-2xx \(\d+×500\)/)
})

t.test('a signal ends a run early, with what it measured so far', async (t) => {
  const ends = new AbortController()
  const started = Date.now()
  const before = okRequests
  const run = runLoad({ url: `${base}/ok`, connections: 2, pipelining: 1, duration: 60, expectBody: '{"a":1}', signal: ends.signal })
  // 2 connections, one request each at a time: a third request means an answer came back
  await until(() => okRequests - before >= 3, { what: 'the load to get answers' })
  ends.abort()
  const result = await run
  t.ok(Date.now() - started < 10_000, `ended after ${Date.now() - started} ms, not the 60 s asked`)
  t.ok(result.status['2xx'] > 0, `${result.status['2xx']} answers measured`)
  t.same(failuresOf(result), [])
  const already = await runLoad({ url: `${base}/ok`, connections: 1, pipelining: 1, duration: 60, signal: AbortSignal.abort() })
  t.ok(already.durationS < 10, `an aborted signal ends the run at its first tick (${already.durationS} s)`)
})
