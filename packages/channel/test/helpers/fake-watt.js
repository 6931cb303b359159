// @ts-check
// A fake Watt runtime in the test's thread: it starts each application worker as a real
// worker thread (fake-watt-worker.js) with the workerData Watt passes, answers their ITC
// ('getWorkers', 'getWorkerMessagingChannel': a MessagePort to the named worker's messaging)
// and posts the runtime's workers broadcast on each start and exit, as @platformatic/runtime does.
import { EventEmitter, once } from 'node:events'
import { BroadcastChannel, MessageChannel, Worker } from 'node:worker_threads'
import { GET_WORKER_MESSAGING_CHANNEL, GET_WORKERS, WORKERS_BROADCAST } from '../../lib/watt/itc.js'
import { WORKER_EXEC_ARGV } from './worker-options.js'

const WORKER = new URL('./fake-watt-worker.js', import.meta.url)

/** How long a wait for a condition may take on a slow machine before the test fails. */
export const DEADLINE_MS = 15_000

/**
 * Resolves once `check()` returns a truthy value (which it resolves with); rejects naming `what`
 * after DEADLINE_MS.
 * @template T
 * @param {() => T | Promise<T>} check
 * @param {string} what
 * @returns {Promise<NonNullable<T>>}
 */
export async function until (check, what) {
  const deadline = Date.now() + DEADLINE_MS
  while (true) {
    const value = await check()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

export class FakeWorker extends EventEmitter {
  /**
   * @param {FakeRuntime} runtime
   * @param {string} application
   * @param {number} index
   * @param {object} fake  workerData.fake (fake-watt-worker.js)
   */
  constructor (runtime, application, index, fake) {
    super()
    this.application = application
    this.index = index
    /** 'starting', 'started' (getWorkers' started ones), 'stopping', 'exited' */
    this.status = 'starting'
    /** @type {{ method: string, path: string }[]} requests its server saw */
    this.seen = []
    this.nextRpc = 0
    /** @type {Map<number, { resolve: (v: any) => void, reject: (e: Error) => void }>} */
    this.waiting = new Map()
    // without tap's loaders, which slowed each start (worker-options.js)
    this.worker = new Worker(WORKER, {
      execArgv: WORKER_EXEC_ARGV,
      workerData: {
        config: { applications: runtime.applications },
        applicationConfig: { id: application },
        worker: { index },
        fake
      }
    })
    this.thread = this.worker.threadId
    this.worker.on('error', (err) => { this.error = err })
    // not events.once, which rejects at the 'error' a crash emits first
    this.exited = new Promise((resolve) => this.worker.once('exit', resolve)).then((code) => {
      this.status = 'exited'
      for (const waiter of this.waiting.values()) waiter.reject(new Error(`${application} worker ${index} exited`))
      this.waiting.clear()
      runtime.broadcast()
      return code
    })
    this.worker.on('message', (message) => {
      if (message?.type === 'itc') runtime.answerItc(this, message)
      else if (message?.type === 'seen') this.seen.push({ method: message.method, path: message.path, ...(message.upgrade ? { upgrade: message.upgrade } : {}) })
      else if (message?.type === 'rpc-answer') {
        const waiter = this.waiting.get(message.id)
        this.waiting.delete(message.id)
        if (message.error) waiter?.reject(new Error(message.error))
        else waiter?.resolve(message.result)
      } else if (message?.type === 'ready') this.emit('ready')
    })
  }

  /**
   * Runs one of the worker's ops (fake-watt-worker.js `ops`).
   * @param {string} op
   * @param {unknown} [args]
   * @returns {Promise<any>}
   */
  rpc (op, args) {
    if (this.status === 'exited') return Promise.reject(new Error(`${this.application} worker ${this.index} exited`))
    const id = this.nextRpc++
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject })
      this.worker.postMessage({ type: 'rpc', id, op, args })
    })
  }

  /**
   * Requests issued in one turn of the worker; each result is { status, via, body } or { error }.
   * @param {{ via?: string, url: string, method?: string, body?: string, kind?: string }[]} list
   * @returns {Promise<any[]>}
   */
  calls (list) {
    return this.rpc('calls', list)
  }

  /** @param {{ via?: string, url: string, method?: string, body?: string, kind?: string }} one */
  async call (one) {
    return (await this.calls([one]))[0]
  }

  /** meshPortStats() of this thread. */
  stats () {
    return this.rpc('stats')
  }
}

export class FakeRuntime {
  /**
   * @param {import('tap').Test} t  every worker is terminated at its teardown
   * @param {string[]} applications  the runtime's application ids
   */
  constructor (t, applications) {
    this.applications = applications.map((id) => ({ id, workers: 1 }))
    /** @type {FakeWorker[]} */
    this.workers = []
    this.channel = new BroadcastChannel(WORKERS_BROADCAST)
    this.closed = false
    /** @type {{ application: string, worker: number, status: string, thread: number }[]} */
    this.unreachable = []
    t.teardown(() => this.close())
  }

  /**
   * Starts worker `index` of `application`; resolves once its application has started.
   * @param {string} application
   * @param {number} index
   * @param {object} [fake]  workerData.fake (fake-watt-worker.js)
   * @param {{ announce?: boolean }} [options]  announce: false, no broadcast (callers learn of it only when they look)
   */
  async start (application, index = 0, fake = {}, { announce = true } = {}) {
    const worker = new FakeWorker(this, application, index, fake)
    this.workers.push(worker)
    const failed = worker.exited.then(() => { throw worker.error ?? new Error(`${application} exited at start`) })
    await Promise.race([once(worker, 'ready'), failed])
    worker.status = 'started'
    if (announce) this.broadcast()
    return worker
  }

  /**
   * Watt stops a worker: its 'stop' event. Then it is no longer listed as started, and the change is
   * broadcast, unless `listed` (the moment between the event and the status change).
   * @param {FakeWorker} worker
   * @param {{ listed?: boolean }} [options]
   */
  async stop (worker, { listed = false } = {}) {
    await worker.rpc('stop')
    if (listed) return
    worker.status = 'stopping'
    this.broadcast()
  }

  /**
   * Lists a worker of `application` as started that no channel reaches (it went away meanwhile).
   * @param {string} application
   * @param {number} index
   */
  listUnreachable (application, index) {
    this.unreachable.push({ application, worker: index, status: 'started', thread: -1 - this.unreachable.length })
  }

  /** The runtime's workers broadcast: every application's live workers. */
  broadcast () {
    if (this.closed) return
    /** @type {Map<string, { thread: number, worker: number }[]>} */
    const all = new Map(this.applications.map(({ id }) => [id, []]))
    for (const w of this.workers) {
      if (w.status === 'started') all.get(w.application)?.push({ thread: w.thread, worker: w.index })
    }
    this.channel.postMessage(all)
  }

  /**
   * @param {FakeWorker} from
   * @param {{ id: number, name: string, data: any }} message
   */
  answerItc (from, { id, name, data }) {
    const reply = (/** @type {unknown} */ value, /** @type {any[]} */ transfer = []) =>
      from.worker.postMessage({ type: 'itc-answer', id, data: value }, transfer)
    if (name === GET_WORKERS) {
      /** @type {Record<string, object>} */
      const all = {}
      for (const w of this.workers) {
        const { application, index, status, thread } = w
        all[`${application}:${index}`] = { application, worker: index, status, thread }
      }
      for (const u of this.unreachable) all[`${u.application}:${u.worker}`] = u
      return reply(all)
    }
    if (name === GET_WORKER_MESSAGING_CHANNEL) {
      const { application, worker } = data ?? {}
      const target = this.workers.find((w) => w.application === application && w.index === worker)
      if (!target || target.status === 'exited') {
        return from.worker.postMessage({ type: 'itc-answer', id, error: `no worker ${worker} of ${application}` })
      }
      const { port1, port2 } = new MessageChannel()
      target.worker.postMessage({ type: 'messaging-channel', port: port2 }, [port2])
      return reply(port1, [port1])
    }
    from.worker.postMessage({ type: 'itc-answer', id, error: `the fake runtime has no ITC call ${name}` })
  }

  async close () {
    this.closed = true
    this.channel.close()
    await Promise.all(this.workers.map((w) => w.worker.terminate()))
  }
}
