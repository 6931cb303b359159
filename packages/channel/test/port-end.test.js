// The `port` kind's channel end (port-end.js) on a MessageChannel in this thread: a callback's
// frames in one message, a frame structured clone refuses reported alone, the peer's close and
// an unreadable message reported with their codes, nothing sent once closed.
import t from 'tap'
import { once } from 'node:events'
import { MessageChannel } from 'node:worker_threads'
import { CODES } from '../lib/errors.js'
import { portEnd } from '../lib/port-end.js'

function pair () {
  const { port1, port2 } = new MessageChannel()
  /** @type {unknown[]} */
  const received = []
  port2.on('message', (m) => received.push(m))
  t.teardown(() => { port1.close(); port2.close() })
  return { port: port1, peer: port2, received }
}

const until = async (/** @type {() => boolean} */ check) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5))
}

t.test("a callback's frames leave in one message; the peer's reach onFrames", async (t) => {
  const { port, peer, received } = pair()
  const end = portEnd(port, 'callback')
  /** @type {unknown[]} */
  const frames = []
  /** @type {string[]} */
  const closes = []
  end.start((f) => frames.push(f), (code) => closes.push(code))
  end.push(1, 1, 'echo', 'a')
  end.push(1, 2, 'echo', { b: 2 })
  await until(() => received.length > 0)
  t.same(received, [[1, 1, 'echo', 'a', 1, 2, 'echo', { b: 2 }]])
  peer.postMessage([3, 1, 'a', 0])
  await until(() => frames.length > 0)
  t.same(frames, [[3, 1, 'a', 0]])
  t.same(closes, [], 'open')
  end.close()
  // its own close is reported too, as CLOSED: the owner tells it from a loss by its own state
  await until(() => closes.length > 0)
  t.same(closes, [CODES.CLOSED])
})

t.test('corked, frames wait for uncork', async (t) => {
  const { port, received } = pair()
  const end = portEnd(port, 'callback')
  end.start(() => {}, () => {})
  end.cork()
  end.push(3, 1, 'x', 0)
  await new Promise((resolve) => setTimeout(resolve, 10))
  t.same(received, [])
  end.uncork()
  await until(() => received.length > 0)
  t.same(received, [[3, 1, 'x', 0]])
  end.close()
})

t.test('a value structured clone refuses fails its frame alone; the others still go', async (t) => {
  const { port, received } = pair()
  const end = portEnd(port, 'callback')
  /** @type {[number, number, Error][]} */
  const unsendable = []
  end.start(() => {}, () => {}, (op, id, err) => unsendable.push([op, id, err]))
  end.push(3, 1, 'fine', 0)
  end.push(3, 2, () => {}, 0)
  end.push(3, 3, Symbol('no'), 0)
  end.push(3, 4, 'also fine', 0)
  await until(() => unsendable.length === 2 && received.length === 2)
  t.same(received, [[3, 1, 'fine', 0], [3, 4, 'also fine', 0]], 'frame by frame, the good ones')
  t.same(unsendable.map(([op, id]) => [op, id]), [[3, 2], [3, 3]], 'the culprits, by op and id')
  t.match(unsendable[0][2], { name: 'DataCloneError' })
  end.close()
})

t.test("the peer's close is CLOSED; nothing is sent after it", async (t) => {
  const { port, peer, received } = pair()
  const end = portEnd(port, 'callback')
  /** @type {[string, string][]} */
  const closes = []
  end.start(() => {}, (code, reason) => closes.push([code, reason]))
  peer.close()
  await until(() => closes.length > 0)
  t.same(closes, [[CODES.CLOSED, 'the channel closed (thread stopped, crashed or restarted)']])
  end.push(1, 1, 'late', 0)
  await null
  t.same(received, [], 'no post on a closed port')
})

t.test('close() drops what waits and closes the port', async (t) => {
  const { port, peer, received } = pair()
  const end = portEnd(port, 'callback')
  end.start(() => {}, () => {})
  end.push(1, 1, 'dropped', 0)
  const closed = once(peer, 'close')
  end.close()
  await closed
  t.same(received, [], 'the frame pushed before close() never left')
})

t.test('an unreadable message is PROTOCOL', async (t) => {
  const { port } = pair()
  const end = portEnd(port, 'callback')
  /** @type {[string, string][]} */
  const closes = []
  end.start(() => {}, (code, reason) => closes.push([code, reason]))
  port.emit('messageerror', new Error('could not deserialize'))
  t.same(closes, [[CODES.PROTOCOL, 'a message could not be read: could not deserialize']])
  end.close()
})
