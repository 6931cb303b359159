// @ts-check
// The started workers of every application: asked of the runtime (ITC
// 'getWorkers') whenever a route looks, and followed on the runtime's broadcast,
// which it posts on every worker start, stop, crash and restart, only to know
// when to look again.
import { BroadcastChannel } from 'node:worker_threads'
import { ChannelError, CODES } from '../errors.js'

/** @typedef {{ thread: number, worker: number }} WorkerInfo */

export class WorkerDirectory {
  /** @param {(application: string) => void} onChange  an application's workers changed */
  constructor (onChange) {
    /** @type {Map<string, string>} application → its workers' threads, as last seen */
    this.seen = new Map()
    this.onChange = onChange
    this.channel = new BroadcastChannel('plt.runtime.workers')
    this.channel.unref()
    this.channel.onmessage = (/** @type {any} */ event) => {
      if (!(event?.data instanceof Map)) return
      for (const [application, workers] of event.data) {
        const key = Array.isArray(workers) ? workers.map((w) => w?.thread).join(',') : ''
        if (this.seen.get(application) === key) continue
        this.seen.set(application, key)
        this.onChange(application)
      }
    }
  }

  /**
   * Started workers of `application`, asked of the runtime now.
   * @param {string} application
   * @returns {Promise<WorkerInfo[]>}
   */
  async ask (application) {
    const itc = /** @type {any} */ (globalThis).platformatic?.itc
    if (!itc) throw new ChannelError(application, CODES.NO_WATT, 'no Watt ITC in this thread (globalThis.platformatic.itc)')
    const all = /** @type {Record<string, { application: string, worker: number | string, status: string, thread: number }>} */ (await itc.send('getWorkers'))
    return Object.values(all ?? {})
      .filter((info) => info?.application === application && info.status === 'started')
      .map((info) => ({ thread: Number(info.thread), worker: Number(info.worker) }))
  }

  close () {
    this.channel.close()
  }
}
