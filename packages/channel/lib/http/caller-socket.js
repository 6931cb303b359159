// @ts-check
// The caller's end of an http-port connection (undici's socket): it fails with ChannelErrors naming the
// application, and keeps what it sent since the peer last spoke, so a request a stopping worker refused
// moves with its connection to another worker, sent again; undici sees one socket throughout.
import { ChannelError, CODES } from '../errors.js'
import { MAX_MOVES, OPEN, REFUSED, REPLAY_BYTES } from '../wire/signals.js'
import { PortSocket } from './port-socket.js'

export class CallerSocket extends PortSocket {
  /**
   * @param {import('../wire/port-mux.js').PortMux} mux
   * @param {number} id
   * @param {import('./port-socket.js').PortSocketOptions} options
   */
  constructor (mux, id, options) {
    super(mux, id, options, false)
    /** @type {string[] | null} what was written since the peer last sent data (null: too much) */
    this.unheard = []
    this.unheardBytes = 0
    /** times the current request moved to another worker */
    this.moves = 0
  }

  /** @param {number} signal */
  onSignal (signal) {
    if (signal !== REFUSED) return false
    this.move('refused')
    return true
  }

  /**
   * The peer spoke: what was sent before is heard, and the request stays where it is. An answer
   * that begins with a 101 makes the connection a byte stream, kept no more.
   * @param {Buffer} data
   */
  admit (data) {
    if (this.upgraded) return true
    if (this.unheardBytes > 0 && switchesProtocols(data)) {
      this.upgraded = true
      this.unheard = null
      return true
    }
    this.unheard = []
    this.unheardBytes = 0
    this.moves = 0
    return true
  }

  /**
   * Keeps a string sent since the peer last spoke (by reference), while they fit REPLAY_BYTES.
   * @param {string | null} text  null: bytes that went as a buffer, too large to keep
   */
  sent (text) {
    const unheard = this.unheard
    if (unheard === null || this.upgraded) return
    if (text === null || this.unheardBytes + text.length > Math.min(REPLAY_BYTES, this.flow.size)) {
      this.unheard = null
      return
    }
    unheard.push(text)
    this.unheardBytes += text.length
  }

  /**
   * A stopping worker did not serve the current request (any method): it moves, with its
   * connection, to another worker of the application, sent again.
   * @param {'refused'} why
   */
  move (why) {
    const from = this.mux
    const unheard = this.unheard
    const because = unheard === null
      ? `is larger than ${REPLAY_BYTES} bytes, so it could not move`
      : 'no other worker could take it'
    const fail = () => this.destroy(new ChannelError(this.application, CODES.REFUSED,
      `worker stopping: the request was refused and ${because}`))
    if (unheard === null || this.upgraded || this.finSent || this.moves >= MAX_MOVES || !from.relocate) return fail()
    this.moves++
    // Detached now: nothing more from the old worker reaches this connection.
    from.remove(this.id)
    this.flow.credit = 0
    from.relocate(why).then((to) => {
      if (this.destroyed) return
      if (to === null || to.closed) return fail()
      this.mux = to
      this.id = to.nextId++
      to.send(this.id, OPEN)
      to.add(this.id, this)
      this.flow.restart(this.unheardBytes)
      for (const text of unheard) to.send(this.id, text)
      this.sendBlocked()
    }, fail)
  }
}

/**
 * Whether the first bytes of an answer are a 101's status line (`HTTP/1.1 101 `).
 * @param {Buffer} data
 */
export function switchesProtocols (data) {
  return data.length >= 13 && data.toString('latin1', 0, 13) === 'HTTP/1.1 101 '
}
