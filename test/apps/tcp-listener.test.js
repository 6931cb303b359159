// The tcp path's preload: with APPS_TCP_PORT set, a Fastify app answers on
// that loopback port through its own routes, booting itself on the first
// request as inject would (Watt leaves it unbooted until then); without it,
// nothing listens. Each case in a child process: the preload subscribes to
// Fastify's channel for the whole process.
import t from 'tap'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { freePorts } from '../../bench/lib/ports.js'

const exec = promisify(execFile)
const PRELOAD = new URL('../../bench/apps/shared/tcp-listener.js', import.meta.url).href
const FASTIFY = import.meta.resolve('fastify')

/** An app that never calls ready() itself, asked over TCP at the port. */
const program = (port) => `
await import(${JSON.stringify(PRELOAD)})
const { default: fastify } = await import(${JSON.stringify(FASTIFY)})
const app = fastify()
app.get('/rows/:id', async (request) => ({ id: Number(request.params.id), booted: true }))
await new Promise((resolve) => setTimeout(resolve, 200))
let answer
try {
  const response = await fetch('http://127.0.0.1:${port}/rows/7')
  answer = { status: response.status, body: await response.json() }
} catch (err) {
  answer = { error: err.cause?.code ?? err.message }
}
await app.close()
console.log(JSON.stringify(answer))
`

async function run (env, port) {
  const { stdout } = await exec(process.execPath, ['--input-type=module', '-e', program(port)], { env: { ...process.env, ...env }, timeout: 30_000 })
  return JSON.parse(stdout.trim().split('\n').pop())
}

t.test('with APPS_TCP_PORT the app answers on its port, booted by the first request', async (t) => {
  const [port] = await freePorts(1)
  t.same(await run({ APPS_TCP_PORT: String(port) }, port), { status: 200, body: { id: 7, booted: true } })
})

t.test('without it nothing listens', async (t) => {
  const [port] = await freePorts(1)
  t.same(await run({ APPS_TCP_PORT: '' }, port), { error: 'ECONNREFUSED' })
})
