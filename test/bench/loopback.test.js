// One loopback rule for the whole harness: the load generators and the service
// address check accept and refuse the same hosts.
import t from 'tap'
import { runLoad } from '../../bench/lib/load.js'
import { isLoopbackHost } from '../../bench/lib/loopback.js'
import { runWrk } from '../../bench/lib/wrk.js'

t.test('IPv4 loopback and localhost are loopback; ::1 and everything else are not', async (t) => {
  for (const host of ['127.0.0.1', '127.1.2.3', 'localhost']) t.ok(isLoopbackHost(host), host)
  for (const host of ['::1', '[::1]', '10.1.2.3', '127.0.0.1.example.com', '0.0.0.0', '']) t.notOk(isLoopbackHost(host), host)
})

t.test('autocannon and wrk refuse the same hosts before any request', async (t) => {
  for (const url of ['http://[::1]:3043/', 'http://10.1.2.3:80/']) {
    await t.rejects(runLoad({ url, connections: 1, pipelining: 1, duration: 1 }), /loopback \(127\.0\.0\.1\) only/, `autocannon: ${url}`)
    await t.rejects(runWrk({ url, threads: 1, connections: 1, duration: 1 }), /loopback \(127\.0\.0\.1\) only/, `wrk: ${url}`)
  }
})
