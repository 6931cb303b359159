import t from 'tap'
import { parsePrometheus, requestDelta, resourceDelta } from '../../bench/lib/metrics.js'

const scrape = (cpuA, cpuB, rss) => `# HELP thread_cpu_seconds_total x
# TYPE thread_cpu_seconds_total counter
thread_cpu_seconds_total{applicationId="tsfastify",workerId="0"} ${cpuA}
thread_cpu_seconds_total{applicationId="node3",workerId="0"} ${cpuB}
thread_cpu_seconds_total{applicationId="node3",workerId="1"} ${cpuB}
thread_cpu_user_system_seconds_total{applicationId="node3",workerId="0"} 999
nodejs_eventloop_utilization{applicationId="node3",workerId="0"} 0.2
nodejs_eventloop_utilization{applicationId="node3",workerId="1"} 0.4
nodejs_heap_size_used_bytes{applicationId="node3",workerId="0"} 100
nodejs_heap_size_used_bytes{applicationId="node3",workerId="1"} 50
process_resident_memory_bytes ${rss}
`

t.test('parsePrometheus sums CPU and heap across workers, averages ELU', async (t) => {
  const snapshot = parsePrometheus(scrape(1.5, 2, 700e6))
  t.equal(snapshot.rssBytes, 700e6)
  t.equal(snapshot.apps.tsfastify.cpuSeconds, 1.5)
  t.equal(snapshot.apps.node3.cpuSeconds, 4, 'thread_cpu_user_system_seconds_total is not counted twice')
  t.equal(snapshot.apps.node3.heapUsedBytes, 150)
  t.equal(Math.round(snapshot.apps.node3.elu * 100) / 100, 0.3)
})

t.test('resourceDelta is the CPU spent during the run and RSS on both sides', async (t) => {
  const delta = resourceDelta(parsePrometheus(scrape(1, 1, 700e6)), parsePrometheus(scrape(3.5, 2, 800e6)))
  t.equal(delta.apps.tsfastify.cpuSeconds, 2.5)
  t.equal(delta.apps.node3.cpuSeconds, 2)
  t.equal(delta.totalCpuSeconds, 4.5)
  t.equal(delta.rssBeforeBytes, 700e6)
  t.equal(delta.rssAfterBytes, 800e6)
})

t.test('the drop-in\'s counters: requests by target, path and worker, and those sent again by reason', async (t) => {
  const text = (n) => `watt_lab_mesh_port_requests_total{target="node3",path="http-port",targetWorker="0",applicationId="tsfastify",workerId="0"} ${n}
watt_lab_mesh_port_requests_total{target="node3",path="mesh",targetWorker="",applicationId="tsfastify",workerId="0"} 2
watt_lab_mesh_port_retries_total{target="node3",reason="crashed",applicationId="tsfastify",workerId="0"} ${n / 10}
watt_lab_mesh_port_retries_total{target="node3",reason="crashed",applicationId="tsfastify",workerId="1"} 1
watt_lab_mesh_port_retries_total{target="node3",reason="refused",applicationId="tsfastify",workerId="0"} 3
`
  const before = parsePrometheus(text(10))
  t.same(before.meshPort.node3, { mesh: 2, httpPort: { 0: 10 }, retried: { crashed: 2, refused: 3 } }, 'summed over calling workers')
  const delta = requestDelta(before, parsePrometheus(text(50)))
  t.same(delta.meshPort.node3, { mesh: 0, httpPort: { 0: 40 }, retried: { crashed: 4, refused: 0 } }, 'what happened between the two readings')
})
