// Watt's messaging can lose a channel it asked the runtime for (a workers broadcast
// during the request): closeLostChannelsAtExit closes every such channel still open
// when Watt emits 'exit', so nothing keeps the thread alive after its stop.
import t from 'tap'
import { EventEmitter, once } from 'node:events'
import { MessageChannel } from 'node:worker_threads'
import { closeLostChannelsAtExit } from '../lib/lost-channels.js'

/** An ITC stand-in whose getWorkerMessagingChannel hands out real, listened-to ports. */
function fakeWatt () {
  const remotes = []
  const itc = {
    calls: [],
    async send (name, data) {
      this.calls.push(name)
      if (name !== 'getWorkerMessagingChannel') return { name, data }
      const { port1, port2 } = new MessageChannel()
      port1.on('message', () => {}) // as messaging's _setupChannel: listened to, so referenced
      remotes.push(port2)
      return port1
    }
  }
  return { itc, events: new EventEmitter(), remotes }
}

t.test('channels still open at exit are closed; the peer sees the close', async (t) => {
  const watt = fakeWatt()
  const open = closeLostChannelsAtExit(watt)
  const kept = await watt.itc.send('getWorkerMessagingChannel', { application: 'node3', worker: 0 })
  const lost = await watt.itc.send('getWorkerMessagingChannel', { application: 'node3', worker: 0 })
  t.equal(open.size, 2, 'both channels are watched')
  kept.close() // what Watt's own messaging.close() does for the channels it still knows
  await once(watt.remotes[0], 'close')
  t.equal(open.size, 1, 'a channel closed by Watt is no longer watched')
  // The peer learns of the close asynchronously; nothing else keeps this test's loop alive.
  const keepAlive = setTimeout(() => {}, 5000)
  const peerClosed = once(watt.remotes[1], 'close')
  const lostClosed = once(lost, 'close')
  watt.events.emit('exit')
  await Promise.all([peerClosed, lostClosed])
  clearTimeout(keepAlive)
  t.equal(open.size, 0, 'the lost channel was closed at exit, and its peer saw it')
})

t.test('other ITC calls pass through unchanged, and the watch installs once per ITC', async (t) => {
  const watt = fakeWatt()
  t.ok(closeLostChannelsAtExit(watt), 'installed')
  t.equal(closeLostChannelsAtExit(watt), null, 'a second call on the same ITC installs nothing')
  t.same(await watt.itc.send('getWorkers', { x: 1 }), { name: 'getWorkers', data: { x: 1 } }, 'answer unchanged')
  t.same(watt.itc.calls, ['getWorkers'], 'the call reached the ITC once')
  t.equal(watt.events.listenerCount('exit'), 1, 'one exit listener')
})

t.test('outside Watt it does nothing', async (t) => {
  t.equal(closeLostChannelsAtExit({}), null)
  t.equal(closeLostChannelsAtExit(undefined), null)
})
