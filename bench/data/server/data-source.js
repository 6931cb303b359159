// @ts-check
// The data-source service: serves each dataset file as it is on disk, with its
// content-length, streamed with backpressure (file-sender.js), over the mesh and over
// its own loopback TCP port (one listener for both). /stats counts open files
// and responses so tests can prove an aborted download releases everything.
import { stat } from 'node:fs/promises'
import { Socket } from 'node:net'
import { sendFile } from './file-sender.js'
import { threadMemory } from './thread-memory.js'

/**
 * Why the stall watchdog exists: over Watt's mesh, a consumer that aborts a
 * streamed response leaves it paused forever (undici-thread-interceptor 1.5.0
 * never closes the body's MessagePort on abort; fixed upstream in PR #202/#205,
 * not yet released). The producer then holds its file and buffers with no way
 * to learn the consumer left. A response whose file has not moved for `stallMs`
 * is destroyed, which also tears down the port on both sides. Over TCP an abort
 * closes the socket and releases at once, so the watchdog is not armed there: a
 * consumer merely slow to read (a loaded machine, a buffered answer waiting for
 * its memory budget) must not be taken for one that left.
 * @param {{ small?: string, large?: string }} files
 * @param {{ stallMs: number }} options
 */
export function createDataSourceListener (files, { stallMs }) {
  const counters = { openFiles: 0, openResponses: 0, served: 0, aborted: 0, stalled: 0 }
  /** @type {Set<import('node:http').ServerResponse>} */
  const open = new Set()

  /** @type {import('node:http').RequestListener} */
  function dataSourceListener (req, res) {
    const { pathname } = new URL(req.url ?? '/', 'http://localhost')
    if (req.method !== 'GET') return json(res, 405, { statusCode: 405, error: 'Method Not Allowed', message: 'use GET' })
    if (pathname === '/stats') return json(res, 200, { ...counters, memory: threadMemory() })
    if (pathname === '/ready') return json(res, 200, { ready: true })
    const name = /^\/datasets\/(small|large)$/.exec(pathname)?.[1]
    if (!name) return json(res, 404, { statusCode: 404, error: 'Not Found', message: `no route ${pathname}` })
    const file = files[/** @type {'small' | 'large'} */ (name)]
    if (!file) return json(res, 404, { statusCode: 404, error: 'Not Found', message: `the ${name} dataset is not configured here` })
    counters.openResponses++
    open.add(res)
    res.once('close', () => { counters.openResponses--; open.delete(res) })
    stat(file).then(({ size }) => {
      if (res.destroyed) return
      counters.openFiles++
      let stalled = false
      // A real socket tells us when its consumer leaves; a mesh request's mock socket never does.
      const watchdog = req.socket instanceof Socket
        ? undefined
        : setTimeout(() => {
          stalled = true
          counters.stalled++
          res.destroy(new Error(`no progress for ${stallMs} ms: the consumer is gone`))
        }, stallMs)
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': size })
      sendFile(file, size, res, { onRead: () => watchdog?.refresh() }).then(() => {
        counters.served++
      }, (err) => {
        if (!stalled) counters.aborted++
        res.destroy(err)
      }).finally(() => {
        clearTimeout(watchdog)
        counters.openFiles--
      })
    }, (err) => json(res, 500, { statusCode: 500, error: 'Internal Server Error', message: err.message }))
  }

  return {
    listener: dataSourceListener,
    /** Destroys every response in flight (on stop: a stalled one would hold the worker). */
    closeAll () {
      for (const res of open) res.destroy()
    }
  }
}

/**
 * @param {import('node:http').ServerResponse} res
 * @param {number} status
 * @param {unknown} value
 */
function json (res, status, value) {
  const body = JSON.stringify(value)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
  res.end(body)
}
