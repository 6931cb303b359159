// The drop-in under a fake Watt (helpers/fake-watt.js): a target that cannot serve http-port
// refuses the handshake, and a caller's requests to it take the mesh, with the reason in
// meshPortStats(); a target with no worker started yet waits for the runtime's broadcast.
import t from 'tap'
import { FakeRuntime, until } from '../helpers/fake-watt.js'

const json = (/** @type {{ body: string }} */ answer) => JSON.parse(answer.body)

t.test("targets without one server refuse: calls to them take the mesh; a late worker's are linked", async (t) => {
  const runtime = new FakeRuntime(t, ['caller', 'bare', 'double', 'plain', 'late', 'nobody'])
  const [caller] = await Promise.all([
    // Watt gave it no messaging: it cannot serve the drop-in, and it calls as any other
    runtime.start('caller', 0, { server: 'none', messaging: false }),
    runtime.start('bare', 0, { server: 'none' }),
    runtime.start('double', 0, { server: 'two' }),
    runtime.start('plain', 0, { dropIn: false })
  ])
  const ids = ['bare', 'double', 'plain', 'late']
  const answers = await caller.calls(ids.map((id) => ({ url: `http://${id}.plt.local/who` })))
  t.same(answers.map((a) => [a.status, a.via]), [[203, 'mesh'], [203, 'mesh'], [203, 'mesh'], [203, 'mesh']])
  // once refused, the next call goes to the mesh without a look
  t.equal((await caller.call({ url: 'http://bare.plt.local/again' })).via, 'mesh')
  const stats = await caller.stats()
  t.match(stats.bare, { path: 'mesh', reason: /^no node:http server in this worker/, meshCalls: 2 })
  t.match(stats.double, { path: 'mesh', reason: /^2 node:http servers in this worker/, meshCalls: 1 })
  t.match(stats.plain, { path: 'mesh', reason: 'its workers do not run the drop-in (no mesh-port handler)' })
  t.match(stats.late, { path: 'waiting', meshCalls: 1 }, 'no worker started yet')
  t.same(ids.map((id) => stats[id].workers), [[], [], [], []], 'no links to them')
  const logs = await caller.rpc('logs')
  const refused = /^mesh-port: bare over Watt's mesh: no node:http server/
  t.ok(logs.some((/** @type {any} */ l) => l.level === 'info' && refused.test(l.msg)), 'logged at info')
  const unserved = /^mesh-port: this worker does not serve http-port: .*needs Watt messaging/
  t.ok(logs.some((/** @type {any} */ l) => l.level === 'warn' && unserved.test(l.msg)), 'the caller cannot serve')

  // The runtime's broadcast of a new worker makes the caller look again; a second one listed
  // but gone by then fails its handshake without a refusal: the caller looks again later.
  runtime.listUnreachable('late', 1)
  const late = await runtime.start('late')
  await until(async () => (await caller.stats()).late.path === 'http-port', 'the late worker to be linked')
  const answer = await caller.call({ url: 'http://late.plt.local/who' })
  t.equal(answer.via, 'http-port')
  t.equal(json(answer).thread, late.thread)
  const failed = 'mesh-port: late: handshake with worker 1 failed (no worker 1 of late); looking again'
  t.ok((await caller.rpc('logs')).some((/** @type {any} */ l) => l.msg === failed), 'the unreachable one logged')

  // without the runtime's ITC a target's workers cannot be asked for: the mesh, with a warning
  await caller.rpc('dropItc')
  t.equal((await caller.call({ url: 'http://nobody.plt.local/x' })).via, 'mesh')
  const noItc = /^mesh-port: nobody: .*no Watt ITC in this thread/
  t.ok((await caller.rpc('logs')).some((/** @type {any} */ l) => l.level === 'warn' && noItc.test(l.msg)), 'warned')
})
