// @ts-check
// Watt 3.67's messaging can lose track of a channel it asked the runtime for (a workers broadcast arriving
// while `send` awaits one rebuilds its table from copies): its close() at stop misses it, and the thread does
// not exit (D-lost-channels). So every such channel is remembered, and closed on Watt's 'exit'.
import { events as wattEvents, EXIT_EVENT, itc as wattItc, platformatic as wattGlobal } from './watt/globals.js'
import { GET_WORKER_MESSAGING_CHANNEL } from './watt/itc.js'

/** @type {WeakSet<object>} */
const watchedItc = new WeakSet()

/**
 * Installs the watch once per ITC (one per worker thread). A no-op outside Watt.
 * @param {{ itc?: any, events?: import('node:events').EventEmitter }} [platformatic]
 * @returns {Set<import('node:worker_threads').MessagePort> | null} the channels open now (for tests)
 */
export function closeLostChannelsAtExit (platformatic = wattGlobal()) {
  const itc = wattItc(platformatic)
  const events = wattEvents(platformatic)
  if (!itc || typeof itc.send !== 'function' || !events || watchedItc.has(itc)) return null
  watchedItc.add(itc)
  /** @type {Set<import('node:worker_threads').MessagePort>} */
  const open = new Set()
  const send = itc.send
  itc.send = function (/** @type {string} */ name, /** @type {unknown[]} */ ...rest) {
    const answer = send.call(this, name, ...rest)
    if (name !== GET_WORKER_MESSAGING_CHANNEL) return answer
    return Promise.resolve(answer).then((channel) => {
      if (channel && typeof channel.close === 'function' && typeof channel.once === 'function') {
        open.add(channel)
        channel.once('close', () => open.delete(channel))
      }
      return channel
    })
  }
  // Watt has just closed the channels it knows (closing one twice does nothing).
  events.once(EXIT_EVENT, () => {
    for (const channel of open) channel.close()
    open.clear()
  })
  return open
}
