// @ts-check
// Starts http-server-worker.js in a real worker thread; resolves once it listens.
import { once } from 'node:events'
import { Worker } from 'node:worker_threads'
import { messagingTo } from './thread-messaging.js'
import { WORKER_EXEC_ARGV } from './worker-options.js'

/** @param {{ survives?: boolean }} [workerData]  survives: GET /crash answers instead of crashing */
export async function startServerWorker (workerData = {}) {
  const worker = new Worker(new URL('./http-server-worker.js', import.meta.url), { workerData, execArgv: WORKER_EXEC_ARGV })
  const messaging = messagingTo(worker)
  const [message] = await once(worker, 'message')
  if (message?.type !== 'listening') throw new Error(`worker said ${JSON.stringify(message)}`)
  return { worker, messaging, tcpOrigin: `http://127.0.0.1:${message.port}` }
}
