// measureServer turns every way a server can go wrong into a failure with its
// reason (never a number), and measures a good server with every body checked.
import t from 'tap'
import { join } from 'node:path'
import { failuresOf } from '../../bench/lib/load.js'
import { serverFile } from '../../bench/frameworks/frameworks.js'
import { measureServer } from '../../bench/frameworks/measure.js'

const SHORT = { connections: 4, pipelining: 1, duration: 1, warmup: 0, readyTimeoutMs: 10_000 }

// Fixture servers: plain node:http, the port in argv[2] like the real ones.
const serve = (handler, extra = '') => `
import { createServer } from 'node:http'
let count = 0
const server = createServer((req, res) => { count++; ${handler} })
server.listen(Number(process.argv[2]), '127.0.0.1')
process.once('SIGINT', () => server.close(() => process.exit(0)))
${extra}
`
const HELLO = "res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': '11' }); res.end('Hello world')"
const dir = t.testdir({
  'wrong-body.js': serve("res.end('Hello World')"),
  'status-500.js': serve("res.statusCode = 500; res.end('Hello world')"),
  'crash-at-start.js': "throw new Error('boom at start')",
  'never-listens.js': "setInterval(() => {}, 1000); process.once('SIGINT', () => process.exit(0))",
  // a few requests in (the first answer is checked alone): a loaded box may serve only dozens in the 1 s load
  'mismatch-under-load.js': serve(`if (count > 5) res.end('Hello worle'); else { ${HELLO} }`),
  'crash-under-load.js': serve(`if (count > 5) process.exit(7); ${HELLO}`),
  'unclean-stop.js': serve(HELLO).replace('process.exit(0)', 'process.exit(3)'),
  'extra-header.js': serve(`res.setHeader('x-powered-by', 'me'); ${HELLO}`)
})
const fixture = (name) => join(dir, name)

function onlyFailure (t, failures, pattern) {
  t.equal(failures.length, 1, `exactly one failure: ${failures.join(' / ')}`)
  t.match(failures[0], pattern)
}

t.test('a good server is measured with every body checked', async (t) => {
  const { load, failures, headerDifferences } = await measureServer(serverFile('node-http'), SHORT)
  t.same(failures, [])
  t.same(headerDifferences, [])
  t.ok(load.totalRequests > 0, 'requests were made')
  t.equal(load.mismatches, 0)
  t.same(failuresOf(load), [], 'no error, timeout, mismatch or non-2xx')
})

t.test('a wrong first answer fails before any load', async (t) => {
  const body = await measureServer(fixture('wrong-body.js'), SHORT)
  t.equal(body.load, undefined)
  onlyFailure(t, body.failures, /^first answer: body "Hello World", expected "Hello world"/)
  const status = await measureServer(fixture('status-500.js'), SHORT)
  onlyFailure(t, status.failures, /^first answer: status 500, expected 200/)
})

t.test('a server that crashes at start fails with its exit code and output', async (t) => {
  const { failures } = await measureServer(fixture('crash-at-start.js'), SHORT)
  onlyFailure(t, failures, /exited before answering \(exit code 1\).*boom at start/)
})

t.test('a server that never answers fails after the ready timeout', async (t) => {
  // long enough for Node to start the fixture and install its SIGINT handler on a loaded box
  const { failures } = await measureServer(fixture('never-listens.js'), { ...SHORT, readyTimeoutMs: 5000 })
  onlyFailure(t, failures, /did not answer within 5000 ms \(ECONNREFUSED\)/)
})

t.test('a wrong body under load counts as mismatches', async (t) => {
  const { load, failures } = await measureServer(fixture('mismatch-under-load.js'), SHORT)
  t.same(failures, [], 'first answer and stop were fine')
  t.ok(load.mismatches > 0)
  t.ok(failuresOf(load).some((failure) => /body mismatches/.test(failure)), 'failuresOf names the mismatches')
})

t.test('a server that dies under load is reported as such', async (t) => {
  const { load, failures } = await measureServer(fixture('crash-under-load.js'), SHORT)
  onlyFailure(t, failures, /server exited after answering \(exit code 7\)/)
  t.ok(failuresOf(load).length > 0, 'the load saw errors too')
})

t.test('a server that does not exit 0 on SIGINT fails the run', async (t) => {
  const { failures } = await measureServer(fixture('unclean-stop.js'), SHORT)
  onlyFailure(t, failures, /did not stop cleanly on SIGINT \(exit code 3\)/)
})

t.test('header differences are recorded, not hidden', async (t) => {
  const { failures, headerDifferences } = await measureServer(fixture('extra-header.js'), { ...SHORT, duration: 1 })
  t.same(failures, [])
  t.same(headerDifferences, ['extra x-powered-by: me'])
})
