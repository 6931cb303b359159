import t from 'tap'
import { parseWrk } from '../../bench/lib/wrk.js'

const clean = `Running 10s test @ http://127.0.0.1:3043/tsfastify/tcp
  2 threads and 10 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     2.51ms  810.00us  20.01ms   90.00%
    Req/Sec     2.01k   100.00     2.20k    70.00%
  Latency Distribution
     50%    2.40ms
     75%    2.80ms
     90%    3.20ms
     99%    5.10ms
  40123 requests in 10.01s, 9.80MB read
Requests/sec:   4008.29
Transfer/sec:      0.98MB
`

t.test('parses throughput and latency, in ms', async (t) => {
  const r = parseWrk(clean)
  t.equal(r.ok, true)
  t.equal(r.requestsPerSec, 4008.29)
  t.equal(r.totalRequests, 40123)
  t.equal(r.latencyMs.avg, 2.51)
  t.equal(r.latencyMs.stdev, 0.81)
  t.equal(r.latencyMs.p50, 2.4)
  t.equal(r.latencyMs.p99, 5.1)
})

t.test('non-2xx and socket errors fail the cross-check', async (t) => {
  const r = parseWrk(clean + '  Socket errors: connect 0, read 2, write 0, timeout 3\n  Non-2xx or 3xx responses: 7\n')
  t.equal(r.ok, false)
  t.same(r.failures, ['7 non-2xx', '2 socket errors', '3 timeouts'])
})

t.test('a run that completed nothing is not a result', async (t) => {
  const r = parseWrk(clean.replace('40123 requests in', '0 requests in'))
  t.equal(r.ok, false)
  t.same(r.failures, ['no completed request'])
})
