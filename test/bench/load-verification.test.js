// The load generator really checks every response: a wrong body or status
// fails the run, and nothing but loopback is ever targeted.
import t from 'tap'
import { createServer } from 'node:http'
import { once } from 'node:events'
import { failuresOf, runLoad } from '../../bench/lib/load.js'

const server = createServer((req, res) => {
  if (req.url === '/ok') return res.end('{"a":1}')
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
