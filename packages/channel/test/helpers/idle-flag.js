// A message's frames without the idle flag an 'auto' mux adds to its first post (lib/wire/wake.js),
// for tests that compare what went over a port.

/**
 * @param {unknown[]} message  (stream id, payload) pairs
 * @returns {unknown[]}
 */
export function withoutIdleFlag (message) {
  const frames = []
  for (let i = 0; i < message.length; i += 2) {
    if (message[i] === 0 && message[i + 1] instanceof SharedArrayBuffer) continue
    frames.push(message[i], message[i + 1])
  }
  return frames
}
