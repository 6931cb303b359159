// @ts-check
// `cluster`: a node:cluster primary forking WORKERS workers that share one
// listening socket (default scheduling on Linux: the primary accepts and hands
// connections out round-robin).
import cluster from 'node:cluster'
import { createServer } from 'node:http'
import { handle, HOST, portFromEnv } from '../handler.js'

if (cluster.isPrimary) {
  const count = Number(process.env.WORKERS)
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`WORKERS must be a positive integer, got ${process.env.WORKERS}`)
  let stopping = false
  for (let i = 0; i < count; i++) cluster.fork()
  // A worker that dies mid-run is a failure to see, not one to hide by re-forking.
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return
    process.stderr.write(`cluster worker ${worker.process.pid} exited (${signal ?? code}); stopping\n`)
    stop(1)
  })
  const stop = (/** @type {number} */ code) => {
    if (stopping) return
    stopping = true
    const workers = Object.values(cluster.workers ?? {}).filter((worker) => worker !== undefined)
    let left = workers.length
    if (left === 0) process.exit(code)
    for (const worker of workers) {
      worker.once('exit', () => { if (--left === 0) process.exit(code) })
      worker.process.kill('SIGTERM')
    }
  }
  process.once('SIGINT', () => stop(0))
  process.once('SIGTERM', () => stop(0))
} else {
  createServer(handle).listen({ port: portFromEnv(), host: HOST })
  // Ctrl-C reaches the whole process group: the primary stops the workers in order.
  process.on('SIGINT', () => {})
}
