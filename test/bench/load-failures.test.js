import { createServer } from 'node:http'
import t from 'tap'
import { failuresOf, runLoad } from '../../bench/lib/load.js'

const clean = () => ({
  totalRequests: 1000,
  status: { '2xx': 1000, non2xx: 0, byCode: { 200: 1000 } },
  errors: 0,
  timeouts: 0,
  mismatches: 0
})

t.test('a clean run has no failures', async (t) => {
  t.same(failuresOf(clean()), [])
})

t.test('every kind of problem fails the run, with the reason', async (t) => {
  const non2xx = { ...clean(), status: { '2xx': 990, non2xx: 10, byCode: { 200: 990, 502: 7, 504: 3 } } }
  t.same(failuresOf(non2xx), ['10 non-2xx (7×502, 3×504)'])
  t.same(failuresOf({ ...clean(), errors: 5, timeouts: 2 }), ['3 errors', '2 timeouts'])
  t.same(failuresOf({ ...clean(), mismatches: 1 }), ['1 body mismatches'])
  t.same(failuresOf({ ...clean(), totalRequests: 0, status: { '2xx': 0, non2xx: 0, byCode: {} } }), ['no successful response'])
})

t.test('a failed load says why: one answer taken afterwards, status and the start of its body', async (t) => {
  const server = createServer((req, res) => {
    if (req.url === '/big') return res.writeHead(500).end('x'.repeat(1e6))
    if (req.url === '/fine') return res.end('fine')
    res.writeHead(404).end('no route here: another server answered')
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => server.close())
  const url = (path) => `http://127.0.0.1:${server.address().port}${path}`
  const load = (path, extra = {}) => runLoad({ url: url(path), connections: 2, pipelining: 1, duration: 1, ...extra })

  const wrong = await load('/nowhere')
  t.match(failuresOf(wrong).at(-1), /^one answer after the run: 404 no route here: another server answered$/)
  const big = await load('/big')
  t.equal(big.answerAfterFailure.length, '500 '.length + 300, 'the start of a large body, not all of it')
  const rotated = await load('/fine', { rotate: { paths: ['/nowhere?id=1'], check: () => null } })
  t.match(rotated.answerAfterFailure, /^404 /, 'a rotating load asks its first path')
  const fine = await load('/fine', { expectBody: 'fine' })
  t.same(failuresOf(fine), [])
  t.equal(fine.answerAfterFailure, undefined, 'no extra request after a clean run')
})
