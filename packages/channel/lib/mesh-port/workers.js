// @ts-check
// The started workers of every application: asked of the runtime (ITC 'getWorkers') whenever a route looks,
// and followed on the runtime's broadcast (posted on every worker start, stop, crash and restart) only to
// know when to look again.
import { ChannelError, CODES } from '../errors.js'
import { itc as wattItc } from '../watt/globals.js'
import { startedWorkers, watchWorkers } from '../watt/itc.js'

/** @typedef {{ thread: number, worker: number }} WorkerInfo */

export class WorkerDirectory {
  /** @param {(application: string) => void} onChange  an application's workers changed */
  constructor (onChange) {
    /** @type {Map<string, string>} application → its workers' threads, as last seen */
    this.seen = new Map()
    this.onChange = onChange
    watchWorkers((all) => {
      for (const [application, workers] of all) {
        const key = Array.isArray(workers) ? workers.map((w) => w?.thread).join(',') : ''
        if (this.seen.get(application) === key) continue
        this.seen.set(application, key)
        this.onChange(application)
      }
    })
  }

  /**
   * Whether the broadcast has named `application` with started workers: how an application
   * added through the management API, absent from this worker's config, becomes known.
   * @param {string} application
   */
  named (application) {
    return this.seen.has(application)
  }

  /**
   * Started workers of `application`, asked of the runtime now.
   * @param {string} application
   * @returns {Promise<WorkerInfo[]>}
   */
  async ask (application) {
    const itc = wattItc()
    if (!itc) {
      throw new ChannelError(application, CODES.NO_WATT, 'no Watt ITC in this thread (globalThis.platformatic.itc)')
    }
    return startedWorkers(itc, application)
  }
}
