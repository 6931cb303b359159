// @ts-check
// Micro-harness: the same http.Server in a worker thread, called from the main
// thread over loopback TCP and over http-port, sequentially (c1) and with
// `--concurrency` calls in flight. Prints µs per call. Run with --cpu-prof to
// profile both threads (each thread writes its own .cpuprofile).
//   node packages/channel/bench/http-port-micro.js [--calls 5000] [--size 64] [--concurrency 10] [--only http-port]
import { parseArgs } from 'node:util'
import { Pool } from 'undici'
import { createHttpPortDispatcher } from '../lib/http/index.js'
import { startServerWorker } from '../test/helpers/start-server-worker.js'

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '5000' },
    size: { type: 'string', default: '64' },
    concurrency: { type: 'string', default: '1,10' },
    connections: { type: 'string', default: '16' },
    only: { type: 'string', default: 'tcp,http-port' }
  }
})
const calls = Number(values.calls)
const path = `/bytes?size=${Number(values.size)}`
const connections = Number(values.connections)

const { worker, messaging, tcpOrigin } = await startServerWorker()
/** @type {Record<string, import('undici').Dispatcher>} */
const dispatchers = {
  tcp: new Pool(tcpOrigin, { connections, pipelining: 1 }),
  'http-port': createHttpPortDispatcher('server', { messaging, connections })
}

/** @param {import('undici').Dispatcher} dispatcher */
async function one (dispatcher) {
  const answer = await dispatcher.request({ method: 'GET', path })
  await answer.body.arrayBuffer()
  if (answer.statusCode !== 200) throw new Error(`status ${answer.statusCode}`)
}

/** @param {import('undici').Dispatcher} dispatcher @param {number} concurrency @param {number} n */
async function run (dispatcher, concurrency, n) {
  let left = n
  const lane = async () => { while (left-- > 0) await one(dispatcher) }
  const started = process.hrtime.bigint()
  await Promise.all(Array.from({ length: concurrency }, lane))
  return Number(process.hrtime.bigint() - started) / 1000 / n
}

for (const concurrency of values.concurrency.split(',').map(Number)) {
  for (const name of values.only.split(',')) {
    const dispatcher = dispatchers[name]
    await run(dispatcher, concurrency, Math.min(1000, calls)) // warm-up
    const fromUs = Number(process.hrtime.bigint() / 1000n)
    const micros = await run(dispatcher, concurrency, calls)
    const toUs = Number(process.hrtime.bigint() / 1000n)
    // the window is on CLOCK_MONOTONIC, the clock of .cpuprofile timestamps
    console.log(`${name.padEnd(10)} c${concurrency}: ${micros.toFixed(1)} µs per call (${Math.round(1e6 / micros)} calls/s), ${calls} calls of ${values.size} B, window ${fromUs}-${toUs}`)
  }
}
await Promise.all(Object.values(dispatchers).map((d) => d.close()))
await worker.terminate()
