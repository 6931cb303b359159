// A request sent over one link (send.js), on a stand-in link whose Pool records each dispatch:
// counted where it goes (the link's calls, its counter, its load in flight) and handed to the
// Pool as the view of the caller's handler; a GET, HEAD or OPTIONS without a body may be sent
// again through the route given, nothing else (and not with `retry: false`), and is, by
// resendElsewhere, only when its worker died (CLOSED) and another live one can take it, or
// when its stopping worker refused it (REFUSED) and none was linked: then to the mesh.
import t from 'tap'
import { ChannelError, CODES } from '../../lib/errors.js'
import { dispatchOn, resendElsewhere, sendOver } from '../../lib/mesh-port/send.js'
import { NewApiView, OldApiView } from '../../lib/mesh-port/pool-handler.js'

function fakeLink () {
  /** @type {{ opts: any, view: any }[]} */
  const dispatched = []
  const link = {
    calls: 0,
    inFlight: 0,
    sockets: 0,
    tally: { count: 0 },
    pool: { dispatch: (/** @type {any} */ opts, /** @type {any} */ view) => { dispatched.push({ opts, view }); return true } }
  }
  return { link: /** @type {any} */ (link), dispatched }
}

/** A handler of undici's old API (what compose() hands an interceptor: its WrapHandler answers both). */
const oldApi = () => ({ onConnect () {}, onHeaders () { return true }, onData () { return true }, onComplete () {}, onError () {} })
/** A handler of the new API only. */
const newApi = () => ({ onRequestStart () {}, onResponseStart () {}, onResponseData () {}, onResponseEnd () {}, onResponseError () {} })
const route = /** @type {any} */ ({ resend: () => false })

t.test('counted on its link and handed to its Pool; the Pool\'s answer is returned', async (t) => {
  const { link, dispatched } = fakeLink()
  const opts = { origin: 'http://target.plt.local', path: '/', method: 'GET' }
  const handler = oldApi()
  t.equal(sendOver(link, opts, handler, route), true)
  t.same([link.calls, link.tally.count, link.inFlight], [1, 1, 1], 'a call, counted once each way, in flight')
  t.equal(dispatched.length, 1)
  t.equal(dispatched[0].opts, opts, 'the options as they came')
  t.ok(dispatched[0].view instanceof OldApiView, 'an old-API handler goes as its old-API view')
  t.equal(dispatched[0].view.handler, handler)
  link.pool.dispatch = () => false
  t.equal(sendOver(link, opts, oldApi(), route), false, 'a Pool that is busy says so, and so does the drop-in')
  t.equal(link.calls, 2)
})

t.test('a new-API handler goes as a new-API view, never resent', async (t) => {
  const { link, dispatched } = fakeLink()
  sendOver(link, { origin: 'http://target.plt.local', path: '/', method: 'GET' }, newApi(), route)
  t.ok(dispatched[0].view instanceof NewApiView)
  t.equal(dispatched[0].view.resender, undefined)
})

t.test('only a GET, HEAD or OPTIONS without a body may be sent again, and only given a route', async (t) => {
  const cases = /** @type {[string, any, any, boolean][]} */ ([
    ['GET', { method: 'GET' }, route, true],
    ['HEAD', { method: 'HEAD' }, route, true],
    ['OPTIONS', { method: 'OPTIONS', body: null }, route, true],
    ['POST', { method: 'POST' }, route, false],
    ['PUT', { method: 'PUT', body: 'x' }, route, false],
    ['DELETE', { method: 'DELETE' }, route, false],
    ['a GET with a body', { method: 'GET', body: 'x' }, route, false],
    ['an upgrade (its handshake may have been taken)', { method: 'GET', upgrade: 'websocket' }, route, false],
    ['a GET with retry: false', { method: 'GET' }, null, false]
  ])
  for (const [what, opts, resend, resent] of cases) {
    const { link, dispatched } = fakeLink()
    const full = { origin: 'http://target.plt.local', path: '/', ...opts }
    const mesh = () => true
    sendOver(link, full, oldApi(), resend, mesh)
    const { view } = dispatched[0]
    t.equal(view.resender, resent ? route : null, `${what}: ${resent ? 'may be resent' : 'never resent'}`)
    t.equal(view.opts, resent ? full : null)
    t.equal(view.mesh, resent ? mesh : null, `${what}: ${resent ? 'may go to the mesh' : 'never to the mesh'}`)
  }
})

t.test('dispatchOn: a view sent again is counted on the link it goes to', async (t) => {
  const { link, dispatched } = fakeLink()
  const view = new OldApiView(oldApi(), link)
  const opts = { origin: 'http://target.plt.local', path: '/', method: 'GET' }
  t.equal(dispatchOn(link, /** @type {any} */ (opts), view), true)
  t.same([link.calls, link.tally.count], [1, 1])
  t.equal(link.inFlight, 0, 'in flight is the view\'s to count (poolHandler, moveTo), not dispatchOn\'s')
  t.equal(dispatched[0].view, view)
})

t.test('resendElsewhere: a request whose worker died (CLOSED) moves to another live worker, once counted', async (t) => {
  const from = fakeLink()
  const to = fakeLink()
  /** @type {unknown[][]} */
  const retried = []
  /** @type {any} */
  let other = to.link
  const route = /** @type {any} */ ({
    linked: { other: (/** @type {any} */ link) => { t.equal(link, from.link, 'asked for a worker other than its own'); return other } },
    retried: (/** @type {unknown[]} */ ...args) => { retried.push(args) }
  })
  const opts = { origin: 'http://target.plt.local', path: '/', method: 'GET' }
  sendOver(from.link, opts, oldApi(), route)
  const view = from.dispatched[0].view
  const closed = new ChannelError('target', CODES.CLOSED, 'the connection closed before the answer completed')
  t.notOk(resendElsewhere(route, view, new Error('not ours')), 'an error that is no ChannelError: not a death')
  t.notOk(resendElsewhere(route, view, new ChannelError('target', CODES.PROTOCOL, 'x')), 'another code: not a death')
  other = null
  t.notOk(resendElsewhere(route, view, closed), 'no other live worker: the caller sees the error')
  t.same([to.dispatched.length, retried.length], [0, 0], 'none of them sent or counted anything')
  other = to.link
  t.ok(resendElsewhere(route, view, closed), 'sent again')
  t.equal(to.dispatched.length, 1)
  t.equal(to.dispatched[0].view, view, 'the same view: the caller\'s handler sees one request')
  t.equal(to.dispatched[0].opts, opts, 'with the options it was first sent with')
  t.equal(view.link, to.link, 'counted against its new link from now on')
  t.same([from.link.inFlight, to.link.inFlight, to.link.calls], [0, 1, 1])
  t.equal(from.link.calls, 1, 'the first send stays counted where it went')
  t.same(retried, [['crashed', from.link, to.link]], 'counted and logged as a retry by the route')
})

t.test('resendElsewhere: a request its stopping worker refused, with no worker linked to take it, goes to the mesh', async (t) => {
  const from = fakeLink()
  let meshCalls = 0
  const route = /** @type {any} */ ({
    linked: { other: () => t.fail('a refusal already waited for another worker (caller-socket move)') },
    retried: () => t.fail('not a retry on a worker'),
    countMesh: () => { meshCalls++ },
    resend: (/** @type {any} */ view, /** @type {Error} */ err) => resendElsewhere(route, view, err)
  })
  /** @type {{ opts: any, handler: any }[]} */
  const toMesh = []
  const mesh = (/** @type {any} */ opts, /** @type {any} */ handler) => { toMesh.push({ opts, handler }); return true }
  const refused = new ChannelError('target', CODES.REFUSED, 'worker stopping: the request was refused and no other worker could take it')

  const opts = { origin: 'http://target.plt.local', path: '/', method: 'GET' }
  sendOver(from.link, opts, oldApi(), route)
  t.notOk(resendElsewhere(route, from.dispatched[0].view, refused), 'no mesh given: the caller sees the refusal')

  sendOver(from.link, opts, oldApi(), route, mesh)
  const view = from.dispatched[1].view
  t.equal(from.link.inFlight, 2)
  t.ok(resendElsewhere(route, view, refused), 'handed on')
  t.equal(toMesh.length, 1)
  t.equal(toMesh[0].handler, view, 'as the same view: the caller\'s handler sees one request')
  t.equal(toMesh[0].opts, opts, 'with the options it was first sent with')
  t.equal(meshCalls, 1, 'counted as a call over the mesh')
  t.equal(from.link.inFlight, 1, 'no longer in flight on the worker that refused it')
  view.onComplete(null)
  t.equal(from.link.inFlight, 1, 'its end over the mesh is not counted against the link again')

  // the mesh throws as it is called when it has no worker of the app: the caller's handler gets that error
  meshCalls = 0
  /** @type {Error[]} */
  const errors = []
  sendOver(from.link, opts, { ...oldApi(), onError: (/** @type {Error} */ err) => { errors.push(err) } }, route,
    () => { throw new Error('No target found for target.plt.local in thread 1.') })
  from.dispatched[2].view.onError(refused) // as the Pool reports the refusal
  t.same(errors.map((e) => e.message), ['No target found for target.plt.local in thread 1.'], 'the mesh\'s error, once, to the caller\'s handler')
  t.equal(meshCalls, 1, 'counted over the mesh')
  t.equal(from.link.inFlight, 1, 'settled once')
})
