// The links to one target's workers (links.js): a link leaves once, whichever way (its
// port closed, its worker stopping, a fallback), and the route hears of it; requests
// moved off a worker go to the least loaded other live one.
import { once } from 'node:events'
import { MessageChannel } from 'node:worker_threads'
import t from 'tap'
import { ChannelError, CODES } from '../../lib/errors.js'
import { WorkerLinks } from '../../lib/mesh-port/links.js'

/** Links to 'svc', with what they logged and told the route. */
function linksToSvc () {
  /** @type {string[]} */
  const logged = []
  /** @type {any[]} */
  const told = []
  const log = { debug () {}, info: (/** @type {string} */ msg) => logged.push(msg), warn () {} }
  const links = new WorkerLinks('svc', { connections: 1, pool: {}, log }, {
    left: (link) => told.push(['left', link.worker]),
    retired: (link) => told.push(['retired', link.worker]),
    relocate: async () => null
  })
  return { links, logged, told }
}

/**
 * A link with a fake pool and mux that record how they ended.
 * @param {number} worker
 * @param {number} [inFlight]
 */
function fakeLink (worker, inFlight = 0) {
  /** @type {any[]} */
  const ends = []
  return /** @type {any} */ ({
    worker,
    thread: 100 + worker,
    inFlight,
    stalled: false,
    ends,
    mux: { closed: false, close () { ends.push('mux closed') }, closeWhenIdle () { ends.push('mux closes when idle') } },
    pool: {
      destroy: async (/** @type {Error} */ err) => { ends.push(err) },
      close: async () => { await null; ends.push('pool closed') }
    }
  })
}

t.test('drop: out of the rotation, its queued requests failed with WATT_CHANNEL_CLOSED, once', async (t) => {
  const { links, logged, told } = linksToSvc()
  const [a, b] = [fakeLink(0), fakeLink(1)]
  links.all = [a, b]
  const before = links.all
  links.drop(a, 'its port closed')
  t.same(links.all, [b])
  t.same(before, [a, b], 'the list read before is not changed in place')
  t.same(told, [['left', 0]])
  const [err, closed] = a.ends
  t.ok(err instanceof ChannelError)
  t.equal(err.code, CODES.CLOSED)
  t.equal(err.message, 'svc: worker 0 is gone (its port closed)')
  t.equal(closed, 'mux closed')
  t.same(logged, ['mesh-port: svc worker 0 dropped: its port closed'])
  links.drop(a, 'again')
  t.equal(told.length, 1, 'a second drop does nothing')
  t.equal(logged.length, 1)
})

t.test('release: those in flight finish, then the pool closes and the mux after it', async (t) => {
  const { links, logged, told } = linksToSvc()
  const a = fakeLink(0)
  links.all = [a]
  t.equal(links.release(a), true)
  t.same(links.all, [])
  t.same(told, [['left', 0]])
  t.same(a.ends, [], 'nothing ended at once')
  await new Promise((resolve) => setImmediate(resolve))
  t.same(a.ends, ['pool closed', 'mux closes when idle'], 'nothing destroyed; the mux after the pool, once no WebSocket is open on it')
  t.equal(links.release(a), false, 'no longer in the rotation')
  t.same(logged, [], 'the caller logs why')
})

t.test('retire: released, logged, and the route told to look for the replacement, once', async (t) => {
  const { links, logged, told } = linksToSvc()
  const a = fakeLink(3)
  links.all = [a]
  links.retire(a)
  links.retire(a)
  t.same(told, [['left', 3], ['retired', 3]])
  t.same(logged, ['mesh-port: svc worker 3 is stopping: no new requests to it'])
})

t.test('other(): the least loaded live link but the one named, none stalled or closed', async (t) => {
  const { links } = linksToSvc()
  const [a, b, c, d] = [fakeLink(0, 0), fakeLink(1, 5), fakeLink(2, 2), fakeLink(3, 1)]
  links.all = [a, b, c, d]
  t.equal(links.other(a), d)
  d.stalled = true
  t.equal(links.other(a), c, 'a stalled one is skipped')
  c.mux.closed = true
  t.equal(links.other(a), b, 'a closed one is skipped')
  t.equal(links.other(b), a)
  links.all = [a]
  t.equal(links.other(a), null, 'none but itself')
  t.ok(links.has(100) && !links.has(101), 'has() by thread')
})

t.test('add(): a link over a real port, unwatched, dropped when its port closes', async (t) => {
  const { links, logged, told } = linksToSvc()
  const { port1, port2 } = new MessageChannel()
  const link = links.add(101, 1, port1)
  t.same(links.all, [link])
  t.match(link, { thread: 101, worker: 1, calls: 0, inFlight: 0, heard: 0, silentSince: 0, stalled: false, stalls: 0 })
  t.equal(link.mux.closed, false)
  port1.ref() // the mux unrefs its port while no connection wants the thread kept alive
  port2.close()
  await once(port1, 'close')
  await new Promise((resolve) => setImmediate(resolve))
  t.same(links.all, [], 'dropped')
  t.same(told, [['left', 1]])
  t.same(logged, ['mesh-port: svc worker 1 dropped: its port closed'])
})
