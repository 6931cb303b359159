// closeConnectionsOnClose: a Fastify app that is closing ends every keep-alive
// connection after its last answer, so close() does not wait for the client (or
// for Fastify's 72 s keep-alive timeout). Both shapes of an answer in flight at
// close: one not started yet (it says Connection: close) and a stream whose
// headers had left before (its connection is ended once it is complete).
import t from 'tap'
import { once } from 'node:events'
import { PassThrough } from 'node:stream'
import Fastify from 'fastify'
import { Agent, request } from 'undici'
import { closeConnectionsOnClose } from '../../lib/close-connections.js'

async function appWith ({ hooks }) {
  const app = Fastify()
  if (hooks) closeConnectionsOnClose(app)
  let release
  const released = new Promise((resolve) => { release = resolve })
  app.get('/later', async () => { await released; return { ok: true } })
  app.get('/stream', (_request, reply) => {
    const body = new PassThrough()
    body.write('first,')
    released.then(() => body.end('last'))
    return reply.type('text/plain').send(body)
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const url = `http://127.0.0.1:${app.server.address().port}`
  const agent = new Agent({ keepAliveTimeout: 60_000, keepAliveMaxTimeout: 60_000 })
  return { app, url, agent, release }
}

/** close() or the 3 s this test gives it, whichever comes first */
async function closeWithin (app, ms = 3000) {
  let timer
  const outcome = await Promise.race([
    app.close().then(() => 'closed'),
    new Promise((resolve) => { timer = setTimeout(resolve, ms, 'still waiting') })
  ])
  clearTimeout(timer)
  return outcome
}

for (const path of ['/later', '/stream']) {
  t.test(`an answer in flight at close (${path}): answered whole, its connection ended, close() done`, async (t) => {
    const { app, url, agent, release } = await appWith({ hooks: true })
    t.teardown(() => agent.destroy())
    const pending = request(url + path, { dispatcher: agent })
    if (path === '/stream') await pending // headers are out before the close begins
    else await once(app.server, 'request')
    const closing = closeWithin(app)
    await new Promise((resolve) => setImmediate(resolve))
    release()
    const { statusCode, headers, body } = await pending
    t.equal(statusCode, 200)
    t.equal(await body.text(), path === '/stream' ? 'first,last' : '{"ok":true}', 'the whole answer')
    if (path === '/later') t.equal(headers.connection, 'close', 'an answer started after the close began says so')
    t.equal(await closing, 'closed', 'close() did not wait for the keep-alive client')
  })
}

t.test('without it, the same stream keeps close() waiting on the idle keep-alive connection', async (t) => {
  const { app, url, agent, release } = await appWith({ hooks: false })
  const pending = request(url + '/stream', { dispatcher: agent })
  await pending
  const closing = closeWithin(app, 1500)
  await new Promise((resolve) => setImmediate(resolve))
  release()
  const { body } = await pending
  await body.text()
  t.equal(await closing, 'still waiting', 'the control: the connection holds close()')
  await agent.destroy()
  await app.close()
})
