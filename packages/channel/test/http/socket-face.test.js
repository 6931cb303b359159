// What a connection that is no net.Socket shows node:http and undici (socket-face.js): a
// loopback peer, byte counts, net.Socket's idle timeout, and options that mean nothing here.
import t from 'tap'
import { once } from 'node:events'
import { LOOPBACK, loopbackAddress, SocketFace } from '../../lib/http/socket-face.js'

// The idle timer is unref'd, as net.Socket's: something else keeps this test's loop alive.
const alive = setInterval(() => {}, 1000)
t.teardown(() => clearInterval(alive))

const face = () => {
  const socket = new SocketFace({ read () {}, write (_c, _e, cb) { cb() } })
  t.teardown(() => socket.destroy())
  return socket
}

t.test('a loopback peer, no bytes yet, not connecting', async (t) => {
  const socket = face()
  t.same(LOOPBACK, { remoteAddress: '127.0.0.1', remoteFamily: 'IPv4', remotePort: 0, localAddress: '127.0.0.1', localPort: 0 })
  t.ok(Object.isFrozen(LOOPBACK))
  t.match(socket, { ...LOOPBACK, bytesRead: 0, bytesWritten: 0, connecting: false, timeout: 0 })
  t.same(socket.address(), { address: '127.0.0.1', family: 'IPv4', port: 0 })
  t.not(loopbackAddress(), loopbackAddress(), 'a fresh object each time: a caller may change it')
  t.equal(socket.setNoDelay(), socket, 'setNoDelay and setKeepAlive chain, and do nothing')
  t.equal(socket.setKeepAlive(), socket)
})

t.test("setTimeout: 'timeout' after ms idle, its listener called once", async (t) => {
  const socket = face()
  let called = 0
  t.equal(socket.setTimeout(10, () => { called++ }), socket)
  t.equal(socket.timeout, 10)
  await once(socket, 'timeout')
  t.equal(called, 1)
})

t.test('refreshTimeout starts the idle time over; setTimeout(0) stops it and removes the listener', async (t) => {
  const socket = face()
  let timeouts = 0
  socket.on('timeout', () => { timeouts++ })
  socket.setTimeout(40)
  for (let i = 0; i < 4; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20))
    socket.refreshTimeout()
  }
  t.equal(timeouts, 0, 'refreshed every 20 ms, a 40 ms timeout never fires')
  const listener = () => t.fail('removed')
  socket.setTimeout(10, listener)
  socket.setTimeout(0, listener)
  t.equal(socket.timeout, 0)
  t.equal(socket.idleTimer, null)
  t.equal(socket.listenerCount('timeout'), 1, 'only the test\'s own listener is left')
  await new Promise((resolve) => setTimeout(resolve, 30))
  t.equal(timeouts, 0)
  socket.refreshTimeout()
  t.equal(socket.idleTimer, null, 'refreshing no timer starts none')
})

t.test('a destroyed face arms no timer; stopTimeout clears one', async (t) => {
  const socket = face()
  socket.setTimeout(10)
  t.ok(socket.idleTimer)
  socket.stopTimeout()
  t.equal(socket.idleTimer, null)
  socket.destroy()
  socket.setTimeout(10)
  t.equal(socket.idleTimer, null)
})
