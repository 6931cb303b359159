// @ts-check
// The started workers of every application, as the runtime announces them:
// asked once (ITC 'getWorkers'), then followed on the runtime's broadcast, which
// it posts on every worker start, stop, crash and restart (no replay, hence the ask).
import { BroadcastChannel } from 'node:worker_threads'

/** @typedef {{ thread: number, worker: number }} WorkerInfo */

export class WorkerDirectory {
  /** @param {(application: string) => void} onChange  an application's workers changed */
  constructor (onChange) {
    /** @type {Map<string, WorkerInfo[]> | null} */
    this.workers = null
    /** @type {Promise<void> | null} */
    this.asking = null
    this.onChange = onChange
    this.channel = new BroadcastChannel('plt.runtime.workers')
    this.channel.unref()
    this.channel.onmessage = (/** @type {any} */ event) => {
      if (event?.data instanceof Map) this.replace(fromBroadcast(event.data))
    }
  }

  /**
   * Started workers of `application` (asks the runtime the first time).
   * @param {string} application
   * @returns {Promise<WorkerInfo[]>}
   */
  async of (application) {
    if (!this.workers) {
      this.asking ??= ask().then((workers) => { if (!this.workers) this.workers = workers }).finally(() => { this.asking = null })
      await this.asking
    }
    return this.workers?.get(application) ?? []
  }

  /**
   * Is `thread` a started worker of `application`, as last announced?
   * @param {string} application
   * @param {number} thread
   */
  isLive (application, thread) {
    return !this.workers || (this.workers.get(application) ?? []).some((w) => w.thread === thread)
  }

  /** @param {Map<string, WorkerInfo[]>} next */
  replace (next) {
    const previous = this.workers
    this.workers = next
    for (const application of new Set([...(previous?.keys() ?? []), ...next.keys()])) {
      if (key(previous?.get(application)) !== key(next.get(application))) this.onChange(application)
    }
  }

  close () {
    this.channel.close()
  }
}

/** @param {WorkerInfo[] | undefined} workers */
function key (workers) {
  return (workers ?? []).map((w) => w.thread).join(',')
}

/** @param {Map<string, any[]>} data */
function fromBroadcast (data) {
  /** @type {Map<string, WorkerInfo[]>} */
  const out = new Map()
  for (const [application, workers] of data) {
    if (Array.isArray(workers)) out.set(application, workers.map((w) => ({ thread: Number(w?.thread), worker: Number(w?.worker) })))
  }
  return out
}

/** @returns {Promise<Map<string, WorkerInfo[]>>} */
async function ask () {
  const itc = /** @type {any} */ (globalThis).platformatic?.itc
  if (!itc) throw new Error('no Watt ITC in this thread (globalThis.platformatic.itc)')
  const all = /** @type {Record<string, { application: string, worker: number | string, status: string, thread: number }>} */ (await itc.send('getWorkers'))
  /** @type {Map<string, WorkerInfo[]>} */
  const out = new Map()
  for (const info of Object.values(all ?? {})) {
    if (info?.status !== 'started') continue
    const list = out.get(info.application) ?? []
    list.push({ thread: Number(info.thread), worker: Number(info.worker) })
    out.set(info.application, list)
  }
  return out
}
