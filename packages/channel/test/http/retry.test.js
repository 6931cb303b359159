// A user's undici retry interceptor retries a call whose worker crashed, once it lists
// the catalog's retryable codes in `errorCodes` (README: "Errors").
import t from 'tap'
import { interceptors } from 'undici'
import { createHttpPortDispatcher } from '../../http.js'
import { RETRYABLE_CODES } from '../../lib/errors.js'
import { startServerWorker } from '../helpers/start-server-worker.js'

t.test('undici\'s retry interceptor, given the retryable codes, sends a crashed call again', async (t) => {
  const first = await startServerWorker()
  const second = await startServerWorker({ survives: true })
  t.teardown(() => second.worker.terminate())
  // Watt's messaging reaches whichever worker runs the application: the second once the first is gone.
  let current = first.messaging
  first.worker.on('error', () => {}) // the crash itself, expected
  first.worker.once('exit', () => { current = second.messaging })
  const messaging = { handle () { throw new Error('unused') }, send: (/** @type {any[]} */ ...args) => current.send(...args) }
  const pool = createHttpPortDispatcher('node3', { messaging, connections: 2 })
  t.teardown(() => pool.destroy())

  // undici's own decision: only errorCodes are added
  const retrying = pool.compose(interceptors.retry({ maxRetries: 3, minTimeout: 50, errorCodes: [...RETRYABLE_CODES] }))
  const answer = await retrying.request({ method: 'GET', path: '/crash' })
  t.equal(answer.statusCode, 200)
  t.equal(await answer.body.text(), 'survived', 'answered by the second worker')
})

t.test('without the codes, undici\'s retry interceptor does not retry a crashed call', async (t) => {
  const { worker, messaging } = await startServerWorker()
  worker.on('error', () => {})
  const pool = createHttpPortDispatcher('node3', { messaging, connections: 2 })
  t.teardown(() => pool.destroy())
  const err = await pool.compose(interceptors.retry({ maxRetries: 3, minTimeout: 50 })).request({ method: 'GET', path: '/crash' }).catch((e) => e)
  t.equal(err.code, 'WATT_CHANNEL_CLOSED', 'failed at once with the catalog code')
})
