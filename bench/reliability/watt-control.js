// @ts-check
// Watt's management API, reached the way wattpm reaches it: HTTP over the
// runtime's private unix socket. Add, remove, restart, stop and start an application, and run
// code inside one of its workers through the API's REPL (to crash it, hang it,
// or run a full GC before a memory reading).
import { Agent, request, WebSocket } from 'undici'
import { managementSocketPath } from '../lib/management-dir.js'

/**
 * @typedef {object} Repl
 * @property {(code: string, timeoutMs?: number) => Promise<string>} run  evaluates one line, resolves with its output
 * @property {(code: string) => void} send                                 evaluates one line, does not wait (e.g. process.exit)
 * @property {() => void} close
 */

/**
 * @param {number} pid  the runtime's process id
 */
export function createWattControl (pid) {
  const agent = new Agent({ connect: { socketPath: managementSocketPath(pid) } })

  /**
   * @param {'GET' | 'POST' | 'DELETE'} method
   * @param {string} path
   * @param {unknown} [body]
   */
  async function call (method, path, body) {
    const { statusCode, body: answer } = await request(`http://localhost/api/v1${path}`, {
      method,
      dispatcher: agent,
      headersTimeout: 60_000,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } })
    })
    const text = await answer.text()
    if (statusCode >= 300) throw new Error(`management API ${method} ${path} answered ${statusCode}: ${text.slice(0, 200)}`)
    return text ? JSON.parse(text) : null
  }

  /**
   * Opens the REPL of one of the application's workers (`<app>:<index>`: that worker).
   * @param {string} application
   * @returns {Promise<Repl>}
   */
  function openRepl (application) {
    // the worker's prompt names the application alone, whichever worker it is
    const prompt = `${application.replace(/:\d+$/, '')}> `
    const socket = new WebSocket(`ws://localhost/api/v1/applications/${application}/repl`, { dispatcher: agent })
    let buffer = ''
    /** @type {(() => void) | null} */
    let onPrompt = null
    socket.addEventListener('message', (event) => {
      buffer += stripColours(String(event.data))
      if (buffer.endsWith(prompt)) onPrompt?.()
    })
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => { socket.close(); reject(new Error(`the REPL of ${application} did not open`)) }, 10_000)
      socket.addEventListener('error', () => { clearTimeout(timer); reject(new Error(`could not open the REPL of ${application}`)) }, { once: true })
      // Ready once the first prompt arrived: input sent earlier can be lost.
      onPrompt = () => {
        clearTimeout(timer)
        onPrompt = null
        buffer = ''
        resolve({
          run (code, timeoutMs = 30_000) {
            return new Promise((resolve, reject) => {
              const timer = setTimeout(() => reject(new Error(`${application} REPL: no answer within ${timeoutMs} ms`)), timeoutMs)
              onPrompt = () => {
                clearTimeout(timer)
                onPrompt = null
                const output = buffer.slice(0, -prompt.length).trim()
                buffer = ''
                resolve(output)
              }
              socket.send(code + '\n')
            })
          },
          send (code) {
            socket.send(code + '\n')
          },
          close () {
            socket.close()
          }
        })
      }
    })
  }

  return {
    /** @returns {Promise<{ id: string, status: string, workers?: number }[]>} */
    async applications () {
      return (await call('GET', '/applications')).applications
    },
    /**
     * Watt's own restart: a replacement worker is started before the old one stops.
     * @param {string} application
     */
    restartApplication (application) {
      return call('POST', '/restart', { applications: [application] })
    },
    /**
     * Adds applications to the running runtime and starts them: each as an entry of the
     * runtime config's `applications` (`id`, `path`: absolute, or relative to the runtime's root).
     * @param {{ id: string, path: string, workers?: number }[]} applications
     * @returns {Promise<{ id: string, status: string, workers: number }[]>}
     */
    addApplications (applications) {
      return call('POST', '/applications', applications)
    },
    /**
     * Stops an application's workers and removes it from the runtime.
     * @param {string} application
     * @returns {Promise<{ id: string, status: string }[]>}
     */
    removeApplication (application) {
      return call('DELETE', `/applications/${application}`)
    },
    /** @param {string} application */
    stopApplication (application) {
      return call('POST', `/applications/${application}/stop`)
    },
    /** @param {string} application */
    startApplication (application) {
      return call('POST', `/applications/${application}/start`)
    },
    openRepl,
    /**
     * A full garbage collection in each of the application's workers, so a heap
     * reading (summed over them) shows what is retained, not how much young
     * garbage waits for a scavenge. The application's REPL lands on its workers
     * in turn, so it is opened until every worker index has answered.
     * @param {string} application
     * @param {number} [workers]
     */
    async collectGarbage (application, workers = 1) {
      const collected = new Set()
      for (let attempt = 0; collected.size < workers && attempt < 3 * workers; attempt++) {
        const repl = await openRepl(application)
        try {
          const output = await repl.run("require('v8').setFlagsFromString('--expose-gc'); require('vm').runInNewContext('gc')({ type: 'major', execution: 'sync', flavor: 'last-resort' }); 'gc done in worker ' + require('node:worker_threads').workerData.worker.index")
          const worker = /gc done in worker (\d+)/.exec(output)?.[1]
          if (worker === undefined) throw new Error(`${application}: GC through the REPL failed: ${output.slice(0, 200)}`)
          collected.add(worker)
        } finally {
          repl.close()
        }
      }
      if (collected.size < workers) throw new Error(`${application}: GC reached ${collected.size} of its ${workers} workers`)
    },
    close () {
      return agent.close()
    }
  }
}

/** @typedef {ReturnType<typeof createWattControl>} WattControl */

/** @param {string} text */
function stripColours (text) {
  return text.replace(/\x1b\[[0-9;]*m/g, '') // eslint-disable-line no-control-regex
}
