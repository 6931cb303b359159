// @ts-check
// A stand-in for Watt messaging between real worker threads: send() posts the
// data (and its transferList) to the worker's handler and resolves with its
// answer, like globalThis.platformatic.messaging does across a runtime.
import { parentPort } from 'node:worker_threads'

/**
 * Caller side, in the thread that started `worker`.
 * @param {import('node:worker_threads').Worker} worker
 * @returns {import('../../lib/handshake.js').Messaging}
 */
export function messagingTo (worker) {
  let nextId = 0
  /** @type {Map<number, { resolve: (v: unknown) => void, reject: (e: Error) => void }>} */
  const pending = new Map()
  worker.on('message', (message) => {
    if (message?.type !== 'messaging-answer') return
    const waiter = pending.get(message.id)
    if (!waiter) return
    pending.delete(message.id)
    if (message.error) waiter.reject(new Error(message.error))
    else waiter.resolve(message.result)
  })
  worker.on('exit', () => {
    for (const waiter of pending.values()) waiter.reject(new Error('worker exited'))
    pending.clear()
  })
  return {
    send (_application, name, data, options) {
      const id = nextId++
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject })
        worker.postMessage({ type: 'messaging-send', id, name, data }, options?.transferList ?? [])
      })
    },
    handle () { throw new Error('the test caller handles nothing') }
  }
}

/**
 * Callee side, inside the worker.
 * @returns {import('../../lib/handshake.js').Messaging}
 */
export function messagingFromParent () {
  const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort)
  /** @type {Map<string, (data: any) => unknown>} */
  const handlers = new Map()
  port.on('message', async (message) => {
    if (message?.type !== 'messaging-send') return
    try {
      const handler = handlers.get(message.name)
      if (!handler) throw new Error(`Handler not found for request ${message.name}`)
      const result = await handler(message.data)
      port.postMessage({ type: 'messaging-answer', id: message.id, result })
    } catch (err) {
      port.postMessage({ type: 'messaging-answer', id: message.id, error: /** @type {Error} */ (err).message })
    }
  })
  return {
    handle (name, handler) { handlers.set(name, handler) },
    send () { return Promise.reject(new Error('the test callee sends nothing')) }
  }
}
