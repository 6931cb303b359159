// The mux's flush (D-wake): frames leave at once when the peer thread has gone idle, and at the
// turn's end while it is at work. The idle flag goes with a mux's first post; a thread marks
// itself idle at the end of a turn in which a message came in; one post claims the wake-up.
import { once } from 'node:events'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { MessageChannel, Worker } from 'node:worker_threads'
import t from 'tap'
import { PortMux } from '../../lib/wire/port-mux.js'
import { atWork, BUSY_ELU, claimWake, idleFlag, sampleLoad, watchLoad } from '../../lib/wire/wake.js'
import { withoutIdleFlag } from '../helpers/idle-flag.js'

const IDLE = 1
const own = new Int32Array(idleFlag())

/** A stream that records its frames. */
const stream = () => ({ frames: [], referenced: true, windowSize: 1 << 20, onFrame (p) { this.frames.push(p) }, onMuxLost () {} })

/**
 * Two muxes on one channel; every post of `a` is recorded.
 * @param {import('tap').Test} t
 * @param {object} [options]  a's
 */
function pair (t, options = {}) {
  const { port1, port2 } = new MessageChannel()
  const a = new PortMux(port1, { peer: 'b', ...options })
  const b = new PortMux(port2, { peer: 'a' })
  /** @type {unknown[][]} */
  const posts = []
  const post = port1.postMessage.bind(port1)
  port1.postMessage = (message, transfer) => { posts.push(withoutIdleFlag(message)); post(message, transfer) }
  const alive = setInterval(() => {}, 1000)
  t.teardown(() => { clearInterval(alive); a.close(); b.close() })
  return { a, b, posts }
}

/**
 * Lets this thread's loop idle while the 20 ms samples run: not saturated, so claimWake may wake a peer.
 * (Not a sample of its own: one just after the interval's would cover a window of this callback alone.)
 */
const withSlack = () => new Promise((resolve) => setTimeout(resolve, 60))

/** Lets every queued microtask run, and no more. */
const microtasks = () => new Promise((resolve) => queueMicrotask(() => queueMicrotask(resolve)))

t.test('claimWake: one caller claims an idle thread; a thread is idle again at the end of a working turn', async (t) => {
  await withSlack()
  Atomics.store(own, 0, IDLE)
  t.equal(claimWake(own), true, 'the idle thread is claimed')
  t.equal(claimWake(own), false, 'by one post only: the next finds it woken')
  atWork()
  atWork() // twice in a turn: one mark
  t.equal(claimWake(own), false, 'still at work in this turn')
  await nextTurn()
  t.equal(Atomics.load(own, 0), IDLE, 'idle once the turn that did the work ended')
})

t.test('a thread whose own event loop is saturated wakes no one early; once it has slack, it does', async (t) => {
  watchLoad()
  const peer = new Int32Array(new SharedArrayBuffer(4))
  const busyUntil = Date.now() + 60
  while (Date.now() < busyUntil); // the loop busy, with no idle time
  t.equal(sampleLoad(), true, `saturated: utilization above ${BUSY_ELU}`)
  Atomics.store(peer, 0, IDLE)
  t.equal(claimWake(peer), false, 'the idle peer is left for the turn\'s end')
  t.equal(Atomics.load(peer, 0), IDLE, 'and its flag untouched')
  await withSlack()
  t.equal(claimWake(peer), true, 'idle for a while, sampled by the interval: now it wakes the peer')
})

t.test('the first post carries the idle flag; the peer keeps it', async (t) => {
  const { a, b } = pair(t)
  b.add(1, stream())
  t.equal(b.peerIdle, null, 'nothing known before a message')
  a.send(1, 'x')
  await once(b.port, 'message')
  const peer = /** @type {Int32Array} */ (b.peerIdle)
  t.ok(peer instanceof Int32Array, 'the peer holds this thread\'s flag')
  Atomics.store(own, 0, 0)
  t.equal(Atomics.load(peer, 0), 0, 'the very memory this thread marks')
  Atomics.store(own, 0, IDLE)
  t.equal(Atomics.load(peer, 0), IDLE)
})

t.test('at once when the peer is idle, at the turn\'s end while it is at work', async (t) => {
  const { a, b, posts } = pair(t)
  const one = stream()
  b.add(1, one)
  a.peerIdle = new Int32Array(new SharedArrayBuffer(4)) // the peer's flag, as its first post brings it

  await withSlack()
  Atomics.store(a.peerIdle, 0, IDLE)
  a.send(1, 'x')
  a.send(1, 'y')
  await microtasks()
  t.same(posts, [[1, 'x', 1, 'y']], 'the callback\'s frames left before the turn ended, in one post')
  t.equal(Atomics.load(a.peerIdle, 0), 0, 'the post claimed the wake-up')

  a.send(1, 'z')
  await microtasks()
  t.equal(posts.length, 1, 'the peer is woken already: the next frame waits for the turn\'s end')
  await nextTurn()
  t.same(posts, [[1, 'x', 1, 'y'], [1, 'z']], 'and leaves then')
  const deadline = Date.now() + 5_000
  while (one.frames.length < 3 && Date.now() < deadline) await nextTurn()
  t.same(one.frames, ['x', 'y', 'z'], 'in order')
})

t.test('an older peer that sends no idle flag gets one post per turn', async (t) => {
  const { a, posts } = pair(t)
  t.equal(a.peerIdle, null, 'no flag from the peer')
  a.send(0, 'x')
  await microtasks()
  t.equal(posts.length, 0, 'so nothing leaves before the turn ends')
  await nextTurn()
  t.equal(posts.length, 1)
})

t.test('across threads: a worker at rest is woken by the first frame, and answers before the caller\'s turn ends', async (t) => {
  const worker = new Worker(new URL('../helpers/wake-echo-worker.js', import.meta.url))
  t.teardown(() => worker.terminate())
  const { port1, port2 } = new MessageChannel()
  worker.postMessage(port2, [port2])
  const mux = new PortMux(port1, { peer: 'echo' })
  const echoed = stream()
  mux.add(1, echoed)
  mux.send(1, 'hello')
  while (mux.peerIdle === null) await once(port1, 'message')
  t.same(echoed.frames, ['hello'], 'the worker echoed, and its flag came with the answer')
  const peer = mux.peerIdle
  const deadline = Date.now() + 10_000
  while (Atomics.load(peer, 0) !== IDLE && Date.now() < deadline) await nextTurn()
  t.equal(Atomics.load(peer, 0), IDLE, 'the worker marked itself idle after its turn')

  // One turn here: send, then keep this thread busy past the point where the worker could answer.
  await withSlack()
  let answeredWithin = false
  await new Promise((resolve) => setImmediate(() => {
    mux.send(1, 'again')
    queueMicrotask(() => {
      const until = Date.now() + 2_000
      // the eager post has left; wait (busy) for the echo to be posted back to this port
      while (Date.now() < until) if (Atomics.load(peer, 0) === IDLE) { answeredWithin = true; break }
      resolve(undefined)
    })
  }))
  t.ok(answeredWithin, 'the worker handled the frame while this thread was still in the turn that sent it')
  mux.close()
})
