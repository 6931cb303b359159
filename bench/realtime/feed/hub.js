// @ts-check
// One SSE topic of the feed app: it waits until the expected subscribers have
// joined, then publishes `rate` events a second to every one of them for
// `durationMs`, each stamped with the time it was due, ends every stream with
// the count, and remembers when a subscriber's stream closed before its end
// (the producer learning that a client left). Bounded: a topic that does not
// fill within JOIN_TIMEOUT_MS ends its streams with an error event.
import { controlEventText, machineNow, eventText } from '../shared/sse-event.js'

/** A topic whose subscribers have not all arrived by then gives up. */
export const JOIN_TIMEOUT_MS = 5_000
/** The publishing clock: events due since the last tick are written at each. */
const TICK_MS = 1

/**
 * @typedef {{ subscribers: number, rate: number, durationMs: number, size: number }} TopicSettings
 * @typedef {{ res: import('node:http').ServerResponse, joinedAt: number, closedAt: number | null, written: number }} Subscriber
 */

export class Hub {
  /** @type {'joining' | 'publishing' | 'ended'} */
  state = 'joining'
  /** @type {Subscriber[]} */
  subscribers = []
  published = 0
  t0 = 0
  /** @type {string | null} */
  error = null
  /** @type {NodeJS.Timeout | null} */
  #timer = null

  /**
   * @param {string} topic
   * @param {TopicSettings} settings
   * @param {() => void} onEnded
   */
  constructor (topic, settings, onEnded) {
    this.topic = topic
    this.settings = settings
    this.total = Math.floor(settings.durationMs * settings.rate / 1000)
    this.onEnded = onEnded
    this.#timer = setTimeout(() => this.#giveUp(), JOIN_TIMEOUT_MS)
  }

  /**
   * @param {import('node:http').ServerResponse} res  a response whose SSE head is written
   */
  join (res) {
    /** @type {Subscriber} */
    const subscriber = { res, joinedAt: machineNow(), closedAt: null, written: 0 }
    this.subscribers.push(subscriber)
    res.on('close', () => { if (!res.writableFinished) subscriber.closedAt = machineNow() })
    if (this.subscribers.length === this.settings.subscribers) this.#start()
  }

  #start () {
    if (this.#timer) clearTimeout(this.#timer)
    this.state = 'publishing'
    this.t0 = machineNow()
    this.#broadcast(controlEventText('start', { t0: this.t0, total: this.total }))
    this.#timer = setInterval(() => this.#tick(), TICK_MS)
  }

  #tick () {
    const interval = 1000 / this.settings.rate
    const due = Math.min(this.total, Math.floor((machineNow() - this.t0) / interval) + 1)
    for (; this.published < due; this.published++) {
      const text = eventText(this.published, this.t0 + this.published * interval, this.settings.size)
      for (const subscriber of this.subscribers) {
        if (subscriber.closedAt != null) continue
        subscriber.res.write(text)
        subscriber.written++
      }
    }
    if (this.published === this.total) this.#end(controlEventText('end', { count: this.total }))
  }

  #giveUp () {
    this.error = `${this.subscribers.length} of ${this.settings.subscribers} subscribers joined within ${JOIN_TIMEOUT_MS} ms`
    this.#end(controlEventText('error', { message: this.error }))
  }

  /** @param {string} last */
  #end (last) {
    if (this.#timer) { clearTimeout(this.#timer); clearInterval(this.#timer) }
    this.#timer = null
    this.state = 'ended'
    this.#broadcast(last)
    for (const { res } of this.subscribers) res.end()
    this.onEnded()
  }

  /** @param {string} text */
  #broadcast (text) {
    for (const subscriber of this.subscribers) if (subscriber.closedAt == null) subscriber.res.write(text)
  }

  /** What GET /status/<topic> answers. */
  status () {
    return {
      topic: this.topic,
      state: this.state,
      error: this.error,
      expected: this.settings.subscribers,
      published: this.published,
      total: this.total,
      subscribers: this.subscribers.map(({ joinedAt, closedAt, written }) => ({ joinedAt, closedAt, written }))
    }
  }
}
