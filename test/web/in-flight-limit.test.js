// The per-service in-flight bound in front of ipc and rpc, with a fake transport
// whose calls finish only when the test says so.
import t from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import { fanOut } from '../../web/tsfastify/lib/fan-out.ts'
import { DownstreamError } from '../../web/tsfastify/lib/transport.ts'
import { limitInFlight } from '../../web/tsfastify/lib/transports/in-flight-limit.ts'

// Every call waits until finish(i) (or fail(i)); it ignores its signal, as rpc does.
function heldTransport () {
  const started = []
  const inFlight = new Map()
  const peak = new Map()
  let closed = false
  return {
    started,
    peakOf: (service) => peak.get(service) ?? 0,
    get closed () { return closed },
    finish: (i) => started[i].resolve({ service: started[i].call.service, status: 200, bytes: 8 }),
    fail: (i, err) => started[i].reject(err),
    transport: {
      name: 'rpc',
      call (call) {
        const n = (inFlight.get(call.service) ?? 0) + 1
        inFlight.set(call.service, n)
        peak.set(call.service, Math.max(peak.get(call.service) ?? 0, n))
        return new Promise((resolve, reject) => {
          const settle = (fn) => (value) => { inFlight.set(call.service, inFlight.get(call.service) - 1); fn(value) }
          started.push({ call, resolve: settle(resolve), reject: settle(reject) })
        })
      },
      async close () { closed = true }
    }
  }
}

const tick = () => sleep(5)
const call = (service, id) => ({ service, size: id })

t.test('at most N calls run per service, the rest start in arrival order', async (t) => {
  const held = heldTransport()
  const limited = limitInFlight(held.transport, 2)
  const signal = new AbortController().signal
  const answers = [1, 2, 3, 4, 5].map((id) => limited.call(call('node3', id), signal))
  await tick()
  t.same(held.started.map((s) => s.call.size), [1, 2], 'two run, three wait')
  held.finish(1)
  await tick()
  t.same(held.started.map((s) => s.call.size), [1, 2, 3], 'a freed slot goes to the oldest waiter')
  held.finish(0); held.finish(2)
  await tick()
  held.finish(3); held.finish(4)
  const results = await Promise.all(answers)
  t.same(results.map((r) => r.service), ['node3', 'node3', 'node3', 'node3', 'node3'], 'every answer comes back to its caller')
  t.equal(held.peakOf('node3'), 2, 'never more than two at once')
})

t.test('services have separate bounds: a saturated one does not hold up another', async (t) => {
  const held = heldTransport()
  const limited = limitInFlight(held.transport, 1)
  const signal = new AbortController().signal
  const slow = limited.call(call('type1', 1), signal)
  const queued = limited.call(call('type1', 2), signal)
  const other = limited.call(call('type4', 3), signal)
  await tick()
  t.same(held.started.map((s) => s.call.service), ['type1', 'type4'])
  held.finish(1)
  t.equal((await other).service, 'type4')
  held.finish(0)
  await slow
  await tick()
  held.finish(2)
  t.equal((await queued).service, 'type1')
})

t.test('a call whose deadline passed while it waited never runs and holds no slot', async (t) => {
  const held = heldTransport()
  const limited = limitInFlight(held.transport, 1)
  const first = limited.call(call('fastify2', 1), new AbortController().signal)
  const deadline = new AbortController()
  const waiting = limited.call(call('fastify2', 2), deadline.signal)
  const next = limited.call(call('fastify2', 3), new AbortController().signal)
  await tick()
  const reason = new Error('deadline')
  deadline.abort(reason)
  held.finish(0)
  await first
  await t.rejects(waiting, reason, 'rejects with the deadline\'s reason')
  await tick()
  t.same(held.started.map((s) => s.call.size), [1, 3], 'the abandoned call was skipped; the next one got the slot')
  held.finish(1)
  await next
})

t.test('a running call that ignores its signal frees its slot when the caller stops waiting', async (t) => {
  const held = heldTransport()
  const limited = limitInFlight(held.transport, 1)
  const deadline = new AbortController()
  const hung = limited.call(call('node3', 1), deadline.signal)
  const next = limited.call(call('node3', 2), new AbortController().signal)
  await tick()
  deadline.abort(new Error('deadline'))
  await t.rejects(hung, /deadline/)
  await tick()
  t.equal(held.started.length, 2, 'the next call starts although the hung one never answered')
  held.finish(1)
  t.equal((await next).service, 'node3')
})

t.test('failures pass through unchanged', async (t) => {
  const held = heldTransport()
  const limited = limitInFlight(held.transport, 4)
  const answer = limited.call(call('type4', 1), new AbortController().signal)
  await tick()
  const err = new DownstreamError('type4', 'answered status 500')
  held.fail(0, err)
  await t.rejects(answer, err)
  t.equal(limited.name, 'rpc', 'keeps the transport name')
})

t.test('with the fan-out: a call stuck in the queue is a 504 naming its service, on time', async (t) => {
  const held = heldTransport()
  const limited = limitInFlight(held.transport, 1)
  // the first call is held until we finish it, with a deadline far away: the
  // second answering at all proves it kept its own deadline, not the running call's
  let firstSettled = false
  const first = fanOut(limited, [call('type1', 1)], 60_000).finally(() => { firstSettled = true })
  const second = await fanOut(limited, [call('type1', 2)], 100)
  t.notOk(firstSettled, 'answered while the running call was still held')
  t.equal(second.statusCode, 504)
  t.equal(second.body.service, 'type1')
  t.equal(held.started.length, 1, 'it waited out its deadline in the queue')
  held.finish(0)
  t.equal((await first).statusCode, 200)
})

t.test('close rejects the waiters and closes the transport', async (t) => {
  const held = heldTransport()
  const limited = limitInFlight(held.transport, 1)
  limited.call(call('node3', 1), new AbortController().signal).catch(() => {})
  const waiter = limited.call(call('node3', 2), new AbortController().signal)
  await tick()
  await limited.close()
  await t.rejects(waiter, 'a waiting caller is told, not left hanging')
  held.finish(0)
  await tick()
  t.equal(held.started.length, 1, 'the waiter never runs')
  t.ok(held.closed)
})
