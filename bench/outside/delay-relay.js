// @ts-check
// A TCP relay that emulates a network round trip where the kernel has no netem:
// it runs inside the remote namespace, listens on the namespace's own address
// and forwards each connection to the service on the namespace's loopback,
// holding every chunk half the RTT in each direction.
//
//   node bench/outside/delay-relay.js --listen 10.213.0.2 --ports 3101,3102 --rtt-ms 0.25
//
// Control on stdin, one line each: `rtt <ms>` changes the delay (answers
// `rtt <ms> ok`); end of stdin (the harness gone) stops the relay. Prints
// `ready` once every port listens. libuv timers have whole milliseconds, so
// delays under 2 ms are finished by polling with setImmediate: the relay then
// burns CPU while chunks are held, which is why the harness measures it apart.
import { createServer, connect } from 'node:net'
import { createInterface } from 'node:readline'
import { parseArgs } from 'node:util'
import { performance } from 'node:perf_hooks'

const { values } = parseArgs({
  options: {
    listen: { type: 'string' },
    'forward-host': { type: 'string', default: '127.0.0.1' },
    ports: { type: 'string' },
    'rtt-ms': { type: 'string', default: '0' }
  }
})
if (!values.listen || !values.ports) {
  process.stderr.write('usage: delay-relay.js --listen <address> --ports p1,p2 [--forward-host 127.0.0.1] [--rtt-ms 0.25]\n')
  process.exit(2)
}
const ports = values.ports.split(',').map(Number)
let halfMs = rttOf(values['rtt-ms']) / 2

/** @param {string} text */
function rttOf (text) {
  const rtt = Number(text)
  if (!Number.isFinite(rtt) || rtt < 0) throw new RangeError(`rtt must be a number >= 0, got ${text}`)
  return rtt
}

// One delay line for every chunk in both directions: all hold the same time, so
// the queue stays in due order and order per socket is kept.
/** @type {Array<{ due: number, run: () => void }>} */
let queue = []
let head = 0
let scheduled = false

/** @param {() => void} fn */
function later (fn) {
  if (halfMs === 0 && head === queue.length) return fn()
  queue.push({ due: performance.now() + halfMs, run: fn })
  if (!scheduled) schedule()
}

function pump () {
  scheduled = false
  const now = performance.now()
  while (head < queue.length && queue[head].due <= now) queue[head++].run()
  if (head === queue.length) {
    queue = []
    head = 0
    return
  }
  schedule()
}

function schedule () {
  scheduled = true
  const wait = queue[head].due - performance.now()
  if (wait >= 2) setTimeout(pump, Math.floor(wait) - 1)
  else setImmediate(pump)
}

/**
 * Copies `from` to `to` through the delay line, with backpressure.
 * @param {import('node:net').Socket} from
 * @param {import('node:net').Socket} to
 */
function pipeDelayed (from, to) {
  from.on('data', (chunk) => later(() => {
    if (to.destroyed) return
    if (!to.write(chunk)) {
      from.pause()
      to.once('drain', () => from.resume())
    }
  }))
  from.on('end', () => later(() => to.end()))
}

const servers = ports.map((port) => createServer({ noDelay: true }, (client) => {
  const upstream = connect({ host: values['forward-host'], port, noDelay: true })
  const close = () => { client.destroy(); upstream.destroy() }
  client.on('error', close)
  upstream.on('error', close)
  client.on('close', () => upstream.destroy())
  upstream.on('close', () => later(() => client.destroy()))
  pipeDelayed(client, upstream)
  pipeDelayed(upstream, client)
}))

await Promise.all(servers.map((server, i) => new Promise((resolve, reject) => {
  server.once('error', reject)
  server.listen({ port: ports[i], host: values.listen }, () => resolve(undefined))
})))
process.stdout.write('ready\n')

const control = createInterface({ input: process.stdin })
control.on('line', (line) => {
  const [command, value] = line.trim().split(/\s+/)
  if (command !== 'rtt') return process.stdout.write(`unknown command ${command}\n`)
  try {
    halfMs = rttOf(value) / 2
    process.stdout.write(`rtt ${value} ok\n`)
  } catch (err) {
    process.stdout.write(`rtt ${value} error ${/** @type {Error} */ (err).message}\n`)
  }
})
// The harness holds our stdin: when it goes, so do we (no orphan relay).
control.on('close', () => process.exit(0))
for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM'])) process.on(signal, () => process.exit(0))
