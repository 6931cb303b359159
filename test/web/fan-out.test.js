// The fan-out's decisions, with fake transports: order, 502 and 504 naming the
// service, cancellation of calls still in flight.
import t from 'tap'
import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import { fanOut } from '../../web/tsfastify/lib/fan-out.ts'
import { DownstreamError } from '../../web/tsfastify/lib/transport.ts'
import { DOWNSTREAM_SERVICES } from '../../lib/contract.js'

function fakeTransport (behaviour) {
  const seen = []
  return {
    seen,
    name: 'fake',
    async call (call, signal) {
      seen.push({ call, signal })
      return behaviour(call, signal)
    }
  }
}

const calls = DOWNSTREAM_SERVICES.map((service) => ({ service, size: 8 }))

t.test('answers 200 with one result per call, in call order', async (t) => {
  const transport = fakeTransport(async ({ service }) => {
    await sleep(service === 'fastify2' ? 20 : 1) // the first call finishes last
    return { service, status: 200, bytes: 8 }
  })
  const outcome = await fanOut(transport, calls, 1000)
  t.equal(outcome.statusCode, 200)
  t.same(outcome.body.results.map((r) => r.service), DOWNSTREAM_SERVICES)
  t.equal(outcome.body.fanout, 4)
  t.notOk(transport.seen[0].signal.aborted, 'nothing is cancelled when all calls succeed')
})

t.test('a DownstreamError becomes a 502 naming the service and cancels the rest', async (t) => {
  const transport = fakeTransport(async ({ service }, signal) => {
    if (service === 'type1') throw new DownstreamError('type1', 'answered status 500')
    // the others answer only when cancelled: an answer at all proves the fan-out did not wait
    await once(signal, 'abort')
    throw signal.reason
  })
  const outcome = await fanOut(transport, calls, 60_000)
  t.equal(outcome.statusCode, 502)
  t.equal(outcome.body.service, 'type1')
  t.match(outcome.body.message, /type1 answered status 500 over fake/)
  t.ok(transport.seen.every(({ signal }) => signal.aborted), 'calls still in flight are cancelled')
})

t.test('any other failure is a 502 for the service whose call failed', async (t) => {
  const transport = fakeTransport(async ({ service }) => {
    if (service === 'node3') throw new Error('connect ECONNREFUSED')
    return { service, status: 200, bytes: 8 }
  })
  const outcome = await fanOut(transport, calls, 1000)
  t.equal(outcome.statusCode, 502)
  t.equal(outcome.body.service, 'node3')
  t.match(outcome.body.message, /node3 could not be reached: connect ECONNREFUSED/)
})

t.test('the deadline answers 504 naming every service still out, on time', async (t) => {
  // type1 and type4 answer only after the test has its outcome, and ignore their
  // signal on purpose: the fan-out must not depend on it
  let release
  const late = new Promise((resolve) => { release = resolve })
  const transport = fakeTransport(async ({ service }) => {
    if (service === 'type1' || service === 'type4') await late
    return { service, status: 200, bytes: 8 }
  })
  const outcome = await fanOut(transport, calls, 100)
  release()
  t.equal(outcome.statusCode, 504)
  t.equal(outcome.body.service, 'type1, type4')
  t.match(outcome.body.message, /did not answer within 100 ms/)
})
