// Watt's messaging leaks a channel when two first sends to a worker race (the
// leaked one keeps the caller's thread alive at stop): serializeFirstContact lets
// one send at a time through until every worker has answered once.
import t from 'tap'
import { BroadcastChannel } from 'node:worker_threads'
import { setTimeout as sleep } from 'node:timers/promises'
import { FIRST_CONTACT_WAIT_MS, gateFirstContacts, serializeFirstContact } from '../lib/first-contact.js'

/** A messaging stand-in that records how many sends per application overlap. */
function recordingMessaging ({ fail = () => false } = {}) {
  const inFlight = new Map()
  const peak = new Map()
  return {
    peak,
    async send (application, name, data) {
      const now = (inFlight.get(application) ?? 0) + 1
      inFlight.set(application, now)
      peak.set(application, Math.max(peak.get(application) ?? 0, now))
      await sleep(5)
      inFlight.set(application, inFlight.get(application) - 1)
      if (fail(application, data)) throw new Error(`no worker for ${application}`)
      return { application, name, data }
    },
    handle () {}
  }
}

t.test('one send at a time until the only worker answered, then all at once', async (t) => {
  const raw = recordingMessaging()
  const messaging = gateFirstContacts(raw, { workersOf: () => 1, watchWorkers: false, maxWaitMs: FIRST_CONTACT_WAIT_MS })
  const first = await Promise.all([1, 2, 3].map((n) => messaging.send('node3', 'hello', n)))
  t.same(first.map((a) => a.data), [1, 2, 3], 'every send answered, in order')
  t.equal(raw.peak.get('node3'), 1, 'the first sends did not overlap')
  await Promise.all([4, 5, 6, 7].map((n) => messaging.send('node3', 'hello', n)))
  t.equal(raw.peak.get('node3'), 4, 'once contacted, sends overlap as before')
})

t.test('with N workers, N sends in a row before sends overlap', async (t) => {
  const raw = recordingMessaging()
  const messaging = gateFirstContacts(raw, { workersOf: (app) => app === 'type1' ? 3 : 1, watchWorkers: false, maxWaitMs: FIRST_CONTACT_WAIT_MS })
  await Promise.all([1, 2, 3].map((n) => messaging.send('type1', 'hello', n)))
  t.equal(raw.peak.get('type1'), 1, 'three workers: three sends one at a time')
  await Promise.all([4, 5].map((n) => messaging.send('type1', 'hello', n)))
  t.equal(raw.peak.get('type1'), 2)
})

t.test('a failed send is no contact, and does not block the next one', async (t) => {
  const raw = recordingMessaging({ fail: (_app, data) => data === 'boom' })
  const messaging = gateFirstContacts(raw, { workersOf: () => 1, watchWorkers: false, maxWaitMs: FIRST_CONTACT_WAIT_MS })
  const [failed, ok, also] = await Promise.allSettled(['boom', 'a', 'b'].map((d) => messaging.send('fastify2', 'hello', d)))
  t.match(failed, { status: 'rejected', reason: { message: 'no worker for fastify2' } })
  t.match(ok, { status: 'fulfilled' })
  t.match(also, { status: 'fulfilled' })
  t.equal(raw.peak.get('fastify2'), 1, "'a' waited for 'boom', 'b' for 'a'")
})

t.test('a send that hangs holds the next one back for maxWaitMs, not for as long as it hangs', async (t) => {
  const raw = recordingMessaging()
  const hanging = { ...raw, send: (application, name, data) => data === 'hang' ? new Promise(() => {}) : raw.send(application, name, data) }
  const messaging = gateFirstContacts(hanging, { workersOf: () => 1, watchWorkers: false, maxWaitMs: 100 })
  messaging.send('node3', 'hello', 'hang')
  const started = performance.now()
  const answer = await messaging.send('node3', 'hello', 'a')
  const waited = performance.now() - started
  t.equal(answer.data, 'a')
  t.ok(waited >= 90 && waited < 2000, `answered after ${Math.round(waited)} ms: it waited for the hung send, then went`)
  const [b, c] = await Promise.all(['b', 'c'].map((d) => messaging.send('node3', 'hello', d)))
  t.same([b.data, c.data], ['b', 'c'], "'a' answered: the only worker is contacted, and sends overlap again")
  t.equal(raw.peak.get('node3'), 2)
})

t.test('a change in the workers re-arms it', async (t) => {
  const raw = recordingMessaging()
  const messaging = gateFirstContacts(raw, { workersOf: () => 1, watchWorkers: true, maxWaitMs: FIRST_CONTACT_WAIT_MS })
  await messaging.send('type4', 'hello', 0)
  const runtime = new BroadcastChannel('plt.runtime.workers')
  t.teardown(() => runtime.close())
  runtime.postMessage(new Map([['type4', [{ thread: 7 }, { thread: 8 }]]]))
  await sleep(50) // delivered to the other BroadcastChannel of this thread
  await Promise.all([1, 2].map((n) => messaging.send('type4', 'hello', n)))
  t.equal(raw.peak.get('type4'), 1, 'two new workers: contacted one at a time')
  await Promise.all([3, 4].map((n) => messaging.send('type4', 'hello', n)))
  t.equal(raw.peak.get('type4'), 2)
})

t.test('wrapping twice gives the same guard', async (t) => {
  const raw = recordingMessaging()
  t.equal(serializeFirstContact(raw), serializeFirstContact(raw))
})
