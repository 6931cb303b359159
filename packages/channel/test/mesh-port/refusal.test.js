// Why a handshake with one worker failed (refusal.js): our callee's coded refusals (STOPPING,
// NO_SERVER), Watt's answers by code or, on releases without one, by wording; anything else a
// failure to look again after, not a refusal that would send the application to the mesh.
import t from 'tap'
import { ChannelError, CODES } from '../../lib/errors.js'
import { refusal } from '../../lib/mesh-port/refusal.js'
import { APPLICATION_NOT_STARTED, HANDLER_FAILED, HANDLER_NOT_FOUND } from '../../lib/watt/call-errors.js'

/** A handshake's UNREACHABLE, caused by what the worker answered. */
const failed = (/** @type {Error} */ cause) =>
  new ChannelError('target', CODES.UNREACHABLE, `could not open a mesh-http channel: ${cause.message}`, { cause })
/** What Watt's ITC answer carries: its message, its code, the handler's code. */
const answered = (/** @type {string} */ message, /** @type {object} */ codes = {}) =>
  Object.assign(new Error(message), codes)

t.test('our callee: STOPPING is a worker on its way out, NO_SERVER a refusal', async (t) => {
  t.same(refusal(failed(answered('Handler failed with error: this worker is stopping',
    { code: HANDLER_FAILED, handlerErrorCode: CODES.STOPPING }))), { outcome: 'stopping', reason: 'this worker is stopping' })
  t.same(refusal(failed(answered('Handler failed with error: no node:http server in this worker',
    { code: HANDLER_FAILED, handlerErrorCode: CODES.NO_SERVER }))),
  { outcome: 'refused', reason: 'no node:http server in this worker' }, "Watt's words before the reason are cut")
})

t.test('a worker still starting is not a refusal: looked at again', async (t) => {
  t.same(refusal(failed(answered('Application "target" is not started', { code: APPLICATION_NOT_STARTED }))),
    { outcome: 'failed', reason: 'Application "target" is not started' })
  t.equal(refusal(failed(answered('Application target is not started'))).outcome, 'failed', 'by wording')
})

t.test('no handler there: the workers do not run the drop-in', async (t) => {
  const reason = 'its workers do not run the drop-in (no mesh-port handler)'
  t.same(refusal(failed(answered('Handler not found for request: "x"', { code: HANDLER_NOT_FOUND }))),
    { outcome: 'refused', reason })
  t.same(refusal(failed(answered('Handler not found for request: "watt-lab-channel:mesh-http"'))),
    { outcome: 'refused', reason }, 'by wording, on a release without the code')
})

t.test('any other handler error is a refusal; anything else a failure', async (t) => {
  t.same(refusal(failed(answered('Handler failed with error: kaboom', { code: HANDLER_FAILED }))),
    { outcome: 'refused', reason: 'kaboom' })
  t.same(refusal(failed(answered('Handler failed with error: kaboom'))), { outcome: 'refused', reason: 'kaboom' })
  t.same(refusal(failed(new ChannelError('', CODES.TIMEOUT, 'no answer within 10000 ms'))),
    { outcome: 'failed', reason: 'no answer within 10000 ms' }, 'a timeout: looked at again')
  t.same(refusal(new Error('no channel to worker 2')), { outcome: 'failed', reason: 'no channel to worker 2' },
    'an error without a cause is read itself')
})
