// @ts-check
// What node:http, undici and the code that logs a request expect of a net.Socket, for a connection that
// is none: loopback peer facts, byte counts, an idle timeout, and options that mean nothing here.
import { Duplex } from 'node:stream'

/** Loopback-like peer facts of a socket face, for code that logs or checks them (light-my-request does the same). */
export const LOOPBACK = Object.freeze({
  remoteAddress: '127.0.0.1',
  remoteFamily: 'IPv4',
  remotePort: 0,
  localAddress: '127.0.0.1',
  localPort: 0
})

/** What a socket face's address() answers. */
export const loopbackAddress = () => ({ address: '127.0.0.1', family: 'IPv4', port: 0 })

export class SocketFace extends Duplex {
  /** @param {import('node:stream').DuplexOptions} options */
  constructor (options) {
    super(options)
    Object.assign(this, LOOPBACK)
    this.bytesRead = 0
    this.bytesWritten = 0
    this.connecting = false
    /** @type {NodeJS.Timeout | null} */
    this.idleTimer = null
    this.timeout = 0
  }

  /** Bytes went in or out: the idle timeout starts over. */
  refreshTimeout () {
    if (this.idleTimer) this.idleTimer.refresh()
  }

  stopTimeout () {
    if (this.idleTimer) clearTimeout(this.idleTimer)
    this.idleTimer = null
  }

  /**
   * Idle timeout as net.Socket's: 'timeout' after `ms` without reads or writes.
   * @param {number} ms
   * @param {() => void} [listener]
   */
  setTimeout (ms, listener) {
    this.timeout = ms
    this.stopTimeout()
    if (ms > 0 && !this.destroyed) {
      this.idleTimer = setTimeout(() => this.emit('timeout'), ms).unref()
      if (listener) this.once('timeout', listener)
    } else if (listener) {
      this.removeListener('timeout', listener)
    }
    return this
  }

  setNoDelay () { return this }
  setKeepAlive () { return this }
  address () { return loopbackAddress() }
}
