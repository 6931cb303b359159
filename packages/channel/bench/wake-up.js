// Measures the channel kinds and flushes between two real threads, outside
// Watt: µs per call for one call at a time, and calls per second for 10 loops of
// 4 concurrent calls (the lab's fan-out at c10). Run under the measurement lock:
//   flock /tmp/watt-measure.lock npx node packages/channel/bench/wake-up.js [seconds]
import { connect } from '../index.js'
import { startCallee } from '../test/helpers/worker-messaging.js'

const seconds = Number(process.argv[2] ?? 2)
const variants = [
  { label: 'port', options: { kind: 'port' } },
  { label: 'port, flush per turn', options: { kind: 'port', flush: 'turn' }, serveOptions: { flush: 'turn' } },
  { label: 'shm', options: { kind: 'shm' } },
  { label: 'shm, flush per turn', options: { kind: 'shm', flush: 'turn' }, serveOptions: { flush: 'turn' } }
]
const answer = { service: 'node3', size: 64, pad: 'x'.repeat(64) }

for (const round of [1, 2]) {
  for (const { label, options, serveOptions } of variants) {
    const callee = await startCallee({ serveOptions })
    const client = connect('callee', { ...options, messaging: callee.messaging })
    await client.call('echo', answer)
    const sequential = await timed(seconds / 2, async () => { await client.call('echo', answer) })
    const fanout = await concurrent(seconds / 2, 10, () => Promise.all([0, 1, 2, 3].map(() => client.call('echo', answer))))
    console.log(`round ${round}  ${label.padEnd(46)} one at a time ${(1e6 / sequential).toFixed(1).padStart(6)} µs/call   c10 x 4: ${Math.round(fanout * 4).toLocaleString('en').padStart(7)} calls/s`)
    client.close()
    await callee.stop()
  }
}

async function timed (s, fn) {
  let n = 0
  const until = performance.now() + s * 1000
  while (performance.now() < until) { await fn(); n++ }
  return n / s
}

async function concurrent (s, loops, fn) {
  let n = 0
  const until = performance.now() + s * 1000
  await Promise.all(Array.from({ length: loops }, async () => {
    while (performance.now() < until) { await fn(); n++ }
  }))
  return n / s
}
