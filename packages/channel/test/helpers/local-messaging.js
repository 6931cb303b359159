// @ts-check
// Watt messaging's shape within one thread: `handle` registers, `send` calls the handler named
// (as a worker's messaging would, the transferList aside: a MessagePort works in its own thread
// too). A handler that throws rejects the send with its error, code kept, as Watt's ITC answers.

/** @returns {import('../../lib/handshake.js').Messaging & { handlers: Map<string, (data: any) => unknown> }} */
export function localMessaging () {
  /** @type {Map<string, (data: any) => unknown>} */
  const handlers = new Map()
  return {
    handlers,
    handle: (name, fn) => { handlers.set(name, fn) },
    async send (_application, name, data) {
      const handler = handlers.get(name)
      if (!handler) throw new Error(`Handler not found for request: "${name}"`)
      return handler(data)
    }
  }
}
