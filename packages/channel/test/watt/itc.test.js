// Watt's wire between a worker and the runtime, as itc.js speaks it: the two ITC calls
// and what is kept of their answers, the request/response format on a worker's channel,
// and the workers broadcast. The last tests hold it against the Watt installed here.
import t from 'tap'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { BroadcastChannel, MessageChannel } from 'node:worker_threads'
import { ChannelError, CODES } from '../../lib/errors.js'
import {
  GET_WORKER_MESSAGING_CHANNEL, GET_WORKERS, ITC_REQUEST, ITC_RESPONSE, ITC_VERSION, itcRequest, itcResponse,
  startedWorkers, watchWorkers, workerChannel, WORKERS_BROADCAST
} from '../../lib/watt/itc.js'
import { HANDLER_FAILED, HANDLER_NOT_FOUND, handlerMessage, noHandler } from '../../lib/watt/call-errors.js'

/** An ITC stand-in that records its calls and answers with `answer`. */
function fakeItc (answer) {
  return { calls: [], async send (name, data) { this.calls.push([name, data]); return answer } }
}

t.test('workerChannel asks the runtime for one worker\'s channel, naming the caller', async (t) => {
  const itc = fakeItc('port')
  t.equal(await workerChannel(itc, { caller: 'front', application: 'catalog', worker: 1 }), 'port')
  t.same(itc.calls, [[GET_WORKER_MESSAGING_CHANNEL, { id: 'front', application: 'catalog', worker: 1 }]])
})

t.test('startedWorkers keeps the started workers of one application, as numbers', async (t) => {
  const itc = fakeItc({
    'catalog:0': { application: 'catalog', worker: 0, status: 'started', thread: 3 },
    'catalog:1': { application: 'catalog', worker: '1', status: 'starting', thread: 4 },
    'catalog:2': { application: 'catalog', worker: '2', status: 'started', thread: '5' },
    'front:0': { application: 'front', worker: 0, status: 'started', thread: 2 },
    broken: null
  })
  t.same(await startedWorkers(itc, 'catalog'), [{ thread: 3, worker: 0 }, { thread: 5, worker: 2 }])
  t.same(itc.calls, [[GET_WORKERS, undefined]])
  t.same(await startedWorkers(fakeItc(null), 'catalog'), [], 'no answer: no worker')
})

t.test('a request in messaging\'s format, and only its own answer read back', async (t) => {
  const request = { type: ITC_REQUEST, version: ITC_VERSION, reqId: 'r1', name: 'handshake', data: { x: 1 } }
  t.same(itcRequest('r1', 'handshake', { x: 1 }), request)
  t.equal(itcResponse({ type: ITC_RESPONSE, reqId: 'r2', data: 1 }, 'r1'), null, 'another request\'s answer')
  t.equal(itcResponse({ type: ITC_REQUEST, reqId: 'r1' }, 'r1'), null, 'not an answer')
  t.equal(itcResponse(null, 'r1'), null, 'no message')
  t.same(itcResponse({ type: ITC_RESPONSE, reqId: 'r1', data: { ok: true } }, 'r1'), { data: { ok: true } })
  const error = { message: 'Handler failed with error: no', code: HANDLER_FAILED, handlerErrorCode: CODES.NO_SERVER }
  const failed = /** @type {any} */ (itcResponse({ type: ITC_RESPONSE, reqId: 'r1', error }, 'r1'))
  t.ok(failed.error instanceof Error)
  t.match(failed.error, error, 'Watt\'s codes kept')
  const plain = /** @type {any} */ (itcResponse({ type: ITC_RESPONSE, reqId: 'r1', error: 'plain' }, 'r1'))
  t.equal(plain.error.message, 'plain', 'an error that is a string')
})

t.test('watchWorkers hands on each broadcast Map, and nothing else', async (t) => {
  const seen = []
  const channel = watchWorkers((workers) => seen.push(workers))
  t.teardown(() => channel.close())
  const runtime = new BroadcastChannel(WORKERS_BROADCAST)
  t.teardown(() => runtime.close())
  runtime.postMessage('not a map')
  runtime.postMessage(new Map([['catalog', [{ thread: 3 }]]]))
  for (let i = 0; i < 2; i++) await once(channel, 'message')
  t.same(seen, [new Map([['catalog', [{ thread: 3 }]]])])
})

const runtimeRoot = dirname(createRequire(import.meta.url).resolve('@platformatic/runtime/package.json'))
const runtimeVersion = JSON.parse(readFileSync(join(runtimeRoot, 'package.json'), 'utf8')).version
const watt = `Watt ${runtimeVersion} (node_modules/@platformatic/runtime)`

t.test(`the runtime's own ITC answers our request (${watt})`, async (t) => {
  const itcPath = createRequire(join(runtimeRoot, 'package.json')).resolve('@platformatic/itc')
  const { ITC } = await import(pathToFileURL(itcPath).href)
  const { port1, port2 } = new MessageChannel()
  const handlers = {
    ok: (data) => ({ got: data }),
    no: () => { throw new ChannelError('', CODES.NO_SERVER, 'no server') }
  }
  const callee = new ITC({ name: 'callee', port: port2, handlers })
  callee.listen()
  t.teardown(() => { callee.close(); port1.close() })
  const ask = async (name) => {
    const reqId = `${name}-1`
    port1.postMessage(itcRequest(reqId, name, 7))
    for (;;) {
      const [message] = await once(port1, 'message')
      const response = itcResponse(message, reqId)
      if (response !== null) return /** @type {any} */ (response)
    }
  }
  t.same(await ask('ok'), { data: { got: 7 } }, `${ITC_REQUEST} ${ITC_VERSION} answered with ${ITC_RESPONSE}`)
  const failed = (await ask('no')).error
  t.match(failed, { code: HANDLER_FAILED, handlerErrorCode: CODES.NO_SERVER }, 'a handler that threw: its code kept')
  t.equal(handlerMessage(failed.message), 'no server', 'its message read back without Watt\'s prefix')
  const missing = (await ask('absent')).error
  t.equal(missing.code, HANDLER_NOT_FOUND, 'no handler of that name')
  t.ok(noHandler(missing.code, missing.message))
})

t.test(`the call and broadcast names are the runtime's (${watt})`, async (t) => {
  const source = (file) => readFileSync(join(runtimeRoot, 'lib', file), 'utf8')
  const { kWorkersBroadcast } = await import(pathToFileURL(join(runtimeRoot, 'lib', 'worker', 'symbols.js')).href)
  t.equal(WORKERS_BROADCAST, kWorkersBroadcast, 'the workers broadcast')
  for (const name of [GET_WORKERS, GET_WORKER_MESSAGING_CHANNEL]) {
    t.match(source('runtime.js'), new RegExp(`\\b${name}: this\\.`), `ITC call ${name} handled by the runtime`)
  }
  for (const event of ['start', 'stop', 'exit']) {
    t.match(source('worker/itc.js'), `events.emit('${event}')`, `worker event '${event}'`)
  }
})
