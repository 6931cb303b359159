// A handshake with one given worker (worker-handshake.js) through a stand-in ITC: the channel
// to the worker is asked of the runtime, the request posted in messaging's format with the new
// port transferred, and the answer (or its error, codes kept) read by request id. Whatever goes
// wrong is UNREACHABLE naming the application, the channel to the worker closed after.
import t from 'tap'
import { MessageChannel } from 'node:worker_threads'
import { CODES } from '../../lib/errors.js'
import { handshakeWorker } from '../../lib/mesh-port/worker-handshake.js'
import { GET_WORKER_MESSAGING_CHANNEL, ITC_REQUEST, ITC_RESPONSE, ITC_VERSION } from '../../lib/watt/itc.js'

t.afterEach(() => { delete globalThis.platformatic })

/**
 * An ITC whose workers answer each request with `answer(message)` (null: no answer).
 * @param {(message: any) => any} answer
 */
function itcWith (answer) {
  /** @type {any[]} */
  const asked = []
  /** @type {import('node:worker_threads').MessagePort[]} */
  const workerEnds = []
  globalThis.platformatic = /** @type {any} */ ({
    itc: {
      async send (/** @type {string} */ name, /** @type {any} */ data) {
        asked.push({ name, data })
        const { port1, port2 } = new MessageChannel()
        workerEnds.push(port2)
        port2.on('message', (message) => {
          const reply = answer(message)
          if (reply === 'close') return port2.close()
          for (const one of [reply].flat()) {
            port2.postMessage({ type: ITC_RESPONSE, version: ITC_VERSION, reqId: message.reqId, ...one })
          }
        })
        return port1
      }
    }
  })
  return { asked, workerEnds }
}

const target = { caller: 'front', application: 'catalog', worker: 2, kind: 'mesh-http', meta: { window: 4096 } }

t.test('the channel asked of the runtime; the request in messaging\'s format; the answer and the port', async (t) => {
  /** @type {any[]} */
  const requests = []
  const { asked, workerEnds } = itcWith((message) => {
    requests.push(message)
    message.data.port.close()
    return { error: null, data: { accepted: 'mesh-http', thread: 42, worker: 2 } }
  })
  const { port, answer } = await handshakeWorker(target)
  t.teardown(() => port.close())
  t.same(asked, [{ name: GET_WORKER_MESSAGING_CHANNEL, data: { id: 'front', application: 'catalog', worker: 2 } }])
  t.match(requests[0], { type: ITC_REQUEST, version: ITC_VERSION, name: 'watt-lab-channel:mesh-http', data: { meta: { window: 4096 } } })
  t.type(requests[0].reqId, 'string')
  t.ok(typeof requests[0].data.port.postMessage === 'function', 'a MessagePort, transferred')
  t.same(answer, { accepted: 'mesh-http', thread: 42, worker: 2 })
  await new Promise((resolve) => workerEnds[0].once('close', resolve))
  t.pass('the channel to the worker is closed once answered')
})

t.test('answers to other requests, and other messages, are not this one\'s', async (t) => {
  itcWith((message) => [
    { reqId: `${message.reqId}-other`, error: { message: 'not yours' } },
    { type: 'SOMETHING_ELSE', error: { message: 'not an answer' } },
    { error: null, data: { accepted: 'mesh-http', thread: 1, worker: 2 } }
  ])
  const { port, answer } = await handshakeWorker(target)
  port.close()
  t.same(answer, { accepted: 'mesh-http', thread: 1, worker: 2 }, 'the answer to its own request id')
})

t.test('a refusal keeps its codes, under UNREACHABLE', async (t) => {
  itcWith(() => ({
    error: { message: 'Handler failed with error: this worker is stopping', code: 'PLT_ITC_HANDLER_FAILED', handlerErrorCode: CODES.STOPPING }
  }))
  const err = await handshakeWorker(target).catch((e) => e)
  t.match(err, {
    name: 'ChannelError',
    code: CODES.UNREACHABLE,
    application: 'catalog',
    message: 'catalog: could not open a mesh-http channel to worker 2: Handler failed with error: this worker is stopping'
  })
  t.match(err.cause, { code: 'PLT_ITC_HANDLER_FAILED', handlerErrorCode: CODES.STOPPING })
})

t.test('a wrong answer is UNREACHABLE, its cause PROTOCOL', async (t) => {
  itcWith(() => ({ error: null, data: { accepted: 'http' } }))
  const err = await handshakeWorker(target).catch((e) => e)
  t.match(err, { code: CODES.UNREACHABLE, message: /to worker 2: answered the handshake with/ })
  t.equal(err.cause.code, CODES.PROTOCOL)
})

t.test('the worker closing the channel is UNREACHABLE, its cause CLOSED', async (t) => {
  itcWith(() => 'close')
  const err = await handshakeWorker(target).catch((e) => e)
  t.match(err, { code: CODES.UNREACHABLE, message: /to worker 2: worker 2 closed the channel/ })
  t.equal(err.cause.code, CODES.CLOSED)
})

t.test('no channel to the worker: UNREACHABLE with the runtime\'s error as cause', async (t) => {
  const refused = new Error('worker 2 of catalog is gone')
  globalThis.platformatic = /** @type {any} */ ({ itc: { send: () => Promise.reject(refused) } })
  const err = await handshakeWorker(target).catch((e) => e)
  t.match(err, { code: CODES.UNREACHABLE, application: 'catalog', message: 'catalog: no channel to worker 2: worker 2 of catalog is gone' })
  t.equal(err.cause, refused)
})

t.test('no ITC in this thread: NO_WATT', async (t) => {
  await t.rejects(handshakeWorker(target), { code: CODES.NO_WATT, application: 'catalog', message: /no Watt ITC/ })
})
