// Every framework server answers GET / with exactly "Hello world" and the same
// headers as node:http, then stops cleanly on SIGINT and frees its port.
import t from 'tap'
import { isListening } from '../../bench/lib/ports.js'
import { FRAMEWORKS, serverFile } from '../../bench/frameworks/frameworks.js'
import { firstAnswer, startServer } from '../../bench/frameworks/server-process.js'
import { getHello } from '../../bench/frameworks/verify.js'

t.same(FRAMEWORKS, ['express', 'hapi', 'node-http', 'polka', 'restana', 'restify', 'find-my-way', 'fastify'], 'the eight frameworks of the issue')

for (const name of FRAMEWORKS) {
  t.test(name, async (t) => {
    const server = await startServer(serverFile(name))
    t.teardown(() => server.stop())
    const first = await firstAnswer(server, { timeoutMs: 20_000 })
    t.equal(first.statusCode, 200)
    t.equal(first.body, 'Hello world')
    t.equal(first.headers['content-type'], 'text/plain; charset=utf-8')
    t.equal(first.headers['content-length'], '11')
    t.equal(first.headers['keep-alive'], 'timeout=5')
    t.same(Object.keys(first.headers).sort(), ['connection', 'content-length', 'content-type', 'date', 'keep-alive'], 'no framework-specific header')
    const again = await getHello(server.origin)
    t.equal(again.body, 'Hello world', 'answers again')

    const status = await server.stop()
    t.same(status, { code: 0, signal: null }, 'exit 0 on SIGINT')
    t.equal(await isListening(server.port), false, 'port freed')
  })
}

t.test('a server started without a port exits with a usage error', async (t) => {
  const { spawnTracked } = await import('../../bench/lib/processes.js')
  const { exited, output } = spawnTracked(process.execPath, [serverFile('node-http')])
  const { code } = await exited
  t.equal(code, 2)
  t.match(output(), /usage: node .*node-http\.js <port>/)
})
